-- Leaves for the error examples.
local thicket = require("thicket")
local leaves = {}

function leaves.SeesEnemy(agent, args) return agent.bb.enemy_visible end
function leaves.Patrol(agent, args) return thicket.RUNNING end
leaves.Attack = {
  tick = function(agent, args, mem) return thicket.SUCCESS end,
}

return leaves
