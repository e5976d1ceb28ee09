local L={}
function L.Patrol() return true end
return L
