local L = {}
function L.Attack(agent) return "success" end
return L
