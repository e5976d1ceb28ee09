local thicket = require("thicket")
local L = {}
function L.SeesEnemy(agent, args) return false end
function L.Patrol(agent, args) return thicket.RUNNING end
function L.Attack(agent, args) return thicket.SUCCESS end
return L
