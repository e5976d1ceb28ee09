local L = {}
function L.Say() end
return L
