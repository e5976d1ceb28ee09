local L = {}
function L.A(agent) return true end
return L
