local thicket = require("thicket")
local leaves = {}
function leaves.Set(agent, args) return thicket.SUCCESS end
function leaves.Show(agent, args) return thicket.SUCCESS end
return leaves
