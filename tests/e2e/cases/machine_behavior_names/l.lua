local L = {}
function L.At() return true end
function L.Job() return "running" end
return L
