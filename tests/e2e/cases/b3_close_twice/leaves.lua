local thicket = require("thicket")
local L = {}
L.W = {
  start = function(agent, args, mem) print(thicket.tick() .. " open W"); mem.opened = thicket.tick() end,
  tick = function(agent) print(thicket.tick() .. " tick W"); if thicket.tick() == 1 then return thicket.RUNNING end return thicket.SUCCESS end,
  -- Both closes see the node's memory, as behavior3js's close() does (the second had a fresh,
  -- empty one).
  stop = function(agent, args, mem, s) print(thicket.tick() .. " close W " .. s .. " opened at " .. mem.opened) end,
}
return L
