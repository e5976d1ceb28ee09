local thicket = require("thicket")
local leaves = {}
function leaves.Shoot(agent) return thicket.SUCCESS end
return leaves
