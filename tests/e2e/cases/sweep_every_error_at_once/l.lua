local L = {}
function L.Stand() return "running" end
return L
