local thicket = require("thicket")
local leaves = {}
function leaves.Patrol(agent, args) return thicket.RUNNING end
leaves.Speed = 42          -- data beside the leaves: allowed, but no leaf
leaves.Greeting = "hello"
return leaves
