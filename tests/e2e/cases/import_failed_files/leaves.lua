local L = {}
function L.Patrol(agent) return "success" end
return L
