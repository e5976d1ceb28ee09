local L={}
function L.Patrol() return "success" end
return L
