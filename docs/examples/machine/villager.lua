-- Leaves of the villager behavior machine: one condition per check, one task per behavior.
local thicket = require("thicket")
local leaves = {}

local function say(fmt, ...)
  print(string.format("t=%.1f villager " .. fmt, thicket.time(), ...))
end

-- The wolf is about from args.from until args["until"] seconds of sim time.
function leaves.WolfNear(agent, args)
  local t = thicket.time()
  return t >= args.from and t < args["until"]
end

function leaves.Always() return true end

leaves.Flee = thicket.task(function(agent, args)
  say("runs for the village wall")
  local safe <close> = thicket.defer(function() say("comes out from behind the wall") end)
  while true do coroutine.yield() end          -- until a check picks another behavior
end)

leaves.ChopWood = thicket.task(function(agent, args)
  local axe <close> = thicket.defer(function() say("puts the axe down") end)
  while agent.bb.energy > 0 do
    agent.bb.energy = agent.bb.energy - 1
    agent.bb.logs = agent.bb.logs + 1
    say("chops log %d (energy %d)", agent.bb.logs, agent.bb.energy)
    thicket.wait(0.5)
  end
  return thicket.SUCCESS
end)

leaves.Rest = thicket.task(function(agent, args)
  say("sits down")
  thicket.wait(args.seconds)
  agent.bb.energy = agent.bb.energy + args.gain
  say("gets up (energy %d)", agent.bb.energy)
  return thicket.SUCCESS
end)

return leaves
