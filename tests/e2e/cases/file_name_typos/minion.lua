local L = {}
function L.Idle() return "running" end
return L
