local L = {}
function L.No() return false end
return L
