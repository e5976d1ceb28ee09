local L = {}
function L.A() return "success" end
return L
