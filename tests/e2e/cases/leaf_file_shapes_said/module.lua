local thicket = require("thicket")
local leaves = {}
function leaves.Guard(agent) return true end
return thicket
