local thicket = require("thicket")
local L = {}
-- `near and "go"`: false while not near (stays, as nil does), "go" once near.
function L.Maybe(agent) local near = thicket.tick() >= 3; return near and "go" end
function L.Yes() return true end
function L.Say(agent, args) print(thicket.tick() .. " " .. args.text) end
return L
