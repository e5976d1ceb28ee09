local thicket = require("thicket")
local leaves = {}
function leaves.Y(agent) return thicket.RUNNING end
function leaves.on_reload() print("on_reload y.lua") end
return leaves
