local thicket = require("thicket")
local L = {}
function L.Patrol(agent, args) return thicket.RUNNING end
function L.Rest(agent, args) return thicket.RUNNING end
function L.Shoot(agent, args) return thicket.RUNNING end
function L.SeesEnemy(agent, args) return false end
function L.Reason(agent, args) return args.t end
function L.Hook(agent, args) print("hook", thicket.tick()) end
L.Task = thicket.task(function(agent, args) thicket.wait(1) return thicket.SUCCESS end)
return L
