local thicket = require("thicket")
local leaves = {}
local config = nil
leaves.speed = config.speed         -- runs while the file loads: config is nil
function leaves.Patrol(agent, args) return thicket.RUNNING end
return leaves
