local thicket = require("thicket")
local leaves = {}
function leaves.Idle(agent) return "running" end
function leaves.Report(agent) thicket.log("alert=" .. tostring(agent.bb.alert) .. " sees(9)=" .. tostring(agent:sees(9))) return "running" end
return leaves
