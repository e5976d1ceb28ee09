local thicket = require("thicket")
local leaves = {}
function leaves.X(agent) return thicket.RUNNING end
function leaves.on_reload() print("on_reload x.lua") end
return leaves
