-- Leaves of the guard. Every call prints one line: the tick, then what happens.
local thicket = require("thicket")
local leaves = {}

local function say(fmt, ...)
  print(string.format("%2d  " .. fmt, thicket.tick(), ...))
end

-- enter / exit: plain functions; their results are ignored.
function leaves.Say(agent, args) say("%s", args.text) end

-- The act of `duty`, the outermost state: it stands in for the game and sends the event that
-- the script lists for this tick. An event sent in the act phase is handled in the next tick.
function leaves.Game(agent, args)
  local event = args.script[tostring(thicket.tick())]
  if event then
    say("game: %s", event)
    agent:send(event)
  end
  return thicket.RUNNING
end

-- Walks its round; after 3 steps it is tired, and says so with an event.
function leaves.Patrol(agent, args)
  agent.steps = (agent.steps or 0) + 1
  say("patrol: step %d", agent.steps)
  if agent.steps % 3 == 0 then agent:send("tired") end
  return thicket.RUNNING
end

function leaves.Rest(agent, args)
  say("rest: sits down")
  return thicket.RUNNING
end

-- A leaf of the `search` tree.
function leaves.Look(agent, args)
  say("alert: looks around")
  return thicket.SUCCESS
end

-- One shot a tick; out of ammo, it sends itself `empty`.
function leaves.Shoot(agent, args)
  agent.bb.ammo = agent.bb.ammo - 1
  say("engage: shoots (ammo %d)", agent.bb.ammo)
  if agent.bb.ammo == 0 then agent:send("empty") end
  return thicket.RUNNING
end

-- A task: reloading takes 0.2 s; when it returns, the runtime sends `success` to `reload`.
leaves.Reload = thicket.task(function(agent, args)
  say("reload: starts reloading")
  thicket.wait(0.2)
  agent.bb.ammo = 2
  say("reload: done (ammo 2)")
  return thicket.SUCCESS
end)

function leaves.Hide(agent, args)
  say("cover: hides")
  return thicket.RUNNING
end

return leaves
