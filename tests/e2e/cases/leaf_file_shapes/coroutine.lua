local L = {}
L.Patrol = coroutine.create(function(agent) end)
return L
