local L = {}
function L.Act() return true end
return L
