local thicket = require("thicket")
local leaves = {}
function leaves.SeesEnemy(agent) return false end
function leaves.HearsNoise(agent) return false end
function leaves.Tired(agent) return true end
function leaves.Attack(agent) return thicket.SUCCESS end
function leaves.Investigate(agent) return thicket.SUCCESS end
function leaves.Patrol(agent) return thicket.RUNNING end
function leaves.Rest(agent) return thicket.RUNNING end
return leaves
