local L = {}
function L.Patrol() return "running" end
return L
