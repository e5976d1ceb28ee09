local thicket = require("thicket")
local leaves = {}
function leaves.Patrol(agent) print(thicket.tick() .. " patrol") return thicket.RUNNING end
function leaves.Chase(agent) print(thicket.tick() .. " chase") return thicket.RUNNING end
function leaves.Saw(agent) return "saw\0\nthem" end
return leaves
