-- Leaves of the shopkeeper fsm. Every call prints one line, tick first.
local thicket = require("thicket")
local leaves = {}

local function say(fmt, ...)
  print(string.format("%d  t=%.1f  " .. fmt, thicket.tick(), thicket.time(), ...))
end

-- enter / exit: plain functions; their results are ignored.
function leaves.Say(agent, args) say("%s", args.text) end

-- A reason returns a transition name, or nil to stay.
function leaves.CustomerAt(agent, args)
  if math.abs(thicket.time() - args.time) < 1e-9 then
    say("reason: a customer comes in")
    return "customer"
  end
end

-- The act of `idle`: an action that finishes every tick, so it restarts every tick.
function leaves.Doze(agent, args)
  say("act: zzz")
  return thicket.SUCCESS
end

function leaves.Offer(agent, args)
  agent.bb.patience = agent.bb.patience - 1
  say("tree: makes an offer (patience %d)", agent.bb.patience)
  return thicket.SUCCESS
end

return leaves
