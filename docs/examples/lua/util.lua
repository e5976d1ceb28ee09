-- A module shared by leaf files: require("util") finds it beside them.
local thicket = require("thicket")
local util = {}

function util.say(agent, fmt, ...)
  print(string.format("%d  cook %d " .. fmt, thicket.tick(), agent.id, ...))
end

return util
