local thicket = require("thicket")
local L = {}
function L.SeesEnemy(agent, args) return false end
function L.Patrol(agent, args) return thicket.RUNNING end
L.Attack = { tick = function(agent, args, mem) return thicket.SUCCESS end }
return L
