local L = {}
function L.Always() return true end
function L.Fight() return true end
function L.Patrol() return true end
return L
