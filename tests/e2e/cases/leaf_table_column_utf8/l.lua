-- A leaf table's error after non-ASCII text on its line: the column counts characters, as the
-- YAML files' do and editors do (it counted bytes: 59 for the 55th character).
local thicket = require("thicket")
return { ["日本"] = 1, Walk = { start = function() end, tik = function() return thicket.RUNNING end } }
