local u = require("util")
local L = {}
function L.A() return u.x end
return L
