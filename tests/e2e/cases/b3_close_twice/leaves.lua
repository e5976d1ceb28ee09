local thicket = require("thicket")
local L = {}
L.W = {
  start = function(agent) print(thicket.tick() .. " open W") end,
  tick = function(agent) print(thicket.tick() .. " tick W"); if thicket.tick() == 1 then return thicket.RUNNING end return thicket.SUCCESS end,
  stop = function(agent, args, mem, s) print(thicket.tick() .. " close W " .. s) end,
}
return L
