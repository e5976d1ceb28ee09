local thicket = require("thicket")
local L = {}
function L.Clock(agent) print(string.format("agent %d tick %d time %.2f dt %.2f", agent.id, thicket.tick(), thicket.time(), thicket.dt())) return thicket.RUNNING end
return L
