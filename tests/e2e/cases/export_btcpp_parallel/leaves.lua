local L = {}
function L.A() return "success" end
function L.B() return "success" end
function L.C() return "success" end
return L
