local thicket = require("thicket")
local leaves = {}
function leaves.Run(agent) return thicket.RUNNING end
return leaves
