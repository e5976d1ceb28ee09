local L = {}
function L.Patrol() return "success" end
function L.Attack() return "success" end
return L
