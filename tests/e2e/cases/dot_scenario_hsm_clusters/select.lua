-- Leaves of the villager (select.yaml).
local thicket = require("thicket")
local leaves = {}

local function say(fmt, ...)
  print(string.format("%2d  " .. fmt, thicket.tick(), ...))
end

function leaves.Work(agent, args)
  agent.bb.hunger = agent.bb.hunger + 1
  say("work: chops wood (hunger %d)", agent.bb.hunger)
  return thicket.RUNNING
end

function leaves.Eat(agent, args)
  agent.bb.hunger = 0
  say("eat: has lunch (hunger 0)")
  return thicket.RUNNING
end

-- A condition leaf, used as an enter_if: is it late?
function leaves.Late(agent, args)
  local late = thicket.time() >= args.after
  say("enter_if Late: %s", tostring(late))
  return late
end

function leaves.Sleep(agent, args)
  say("sleep: zzz")
  return thicket.RUNNING
end

return leaves
