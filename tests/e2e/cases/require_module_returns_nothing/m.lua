local q = require("quiet")
local L = {}
function L.B() return q.x end
return L
