local L={}
function L.Walk() return "success" end
function L.Idle() return "success" end
return L
