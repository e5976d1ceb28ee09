-- Leaves of the forager. Each prints what it does, tick first.
local thicket = require("thicket")
local S, F, R = thicket.SUCCESS, thicket.FAILURE, thicket.RUNNING
local leaves = {}

local function say(fmt, ...)
  print(string.format("%d  " .. fmt, thicket.tick(), ...))
end

-- A plain function used as a condition: truthy is success, falsy failure.
function leaves.Hungry(agent, args)
  return agent.bb.food < args.below
end

-- A table of hooks: start, tick and stop get a fresh `mem` table for each run.
leaves.Search = {
  start = function(agent, args, mem)
    mem.ticks = 0
    say("Search starts")
  end,
  tick = function(agent, args, mem)
    mem.ticks = mem.ticks + 1
    say("Search tick %d", mem.ticks)
    if mem.ticks < args.ticks then return R end
    return S
  end,
  stop = function(agent, args, mem, status)
    say("Search stops: %s", status)
  end,
}

-- A task: a coroutine; each yield (or wait) is one `running` tick.
leaves.Gather = thicket.task(function(agent, args)
  agent.bb.mood = "busy"
  local reset <close> = thicket.defer(function()
    agent.bb.mood = "calm"
    say("Gather cleans up (mood %s)", agent.bb.mood)
  end)
  say("Gather bends down at t=%.1f", thicket.time())
  thicket.wait(args.seconds)
  agent.bb.food = agent.bb.food + args.amount
  say("Gather picks %d berries at t=%.1f (mood %s)", args.amount, thicket.time(), agent.bb.mood)
  return S
end)

-- A plain function used as an action: return a status (true/false work too).
function leaves.Eat(agent, args)
  agent.bb.food = agent.bb.food - 1
  say("Eat (food left: %d)", agent.bb.food)
  return true
end

return leaves
