-- docs/examples/import/door.lua
-- The C++ leaves of the BT.CPP door project, as Lua leaves (docs/import.md): each
-- registerSimpleCondition / registerSimpleAction / StatefulActionNode became a function or
-- a table of hooks with the same name; ports arrive as args.
local thicket = require("thicket")
local S, F, R = thicket.SUCCESS, thicket.FAILURE, thicket.RUNNING
local leaves = {}

local function say(...) print(string.format("%d  %s", thicket.tick(), string.format(...))) end

function leaves.IsDoorClosed(agent)
  say("IsDoorClosed: %s", tostring(not agent.door_open))
  return not agent.door_open
end

function leaves.OpenDoor(agent)             -- a locked door does not open
  say("OpenDoor: locked")
  return F
end

function leaves.PickLock(agent, args)       -- args.with is "{tool}": the blackboard key it names
  agent.picks = (agent.picks or 0) + 1
  say("PickLock with %s, try %d", tostring(agent.bb.tool or "a hairpin"), agent.picks)
  if agent.picks < 3 then return F end
  agent.door_open = true
  return S
end

function leaves.SmashDoor(agent)
  say("SmashDoor")
  agent.door_open = true
  return S
end

leaves.PassThroughDoor = {                  -- was a StatefulActionNode: onStart, onRunning, onHalted
  start = function(agent, args, mem) mem.left = 2 end,
  tick = function(agent, args, mem)
    mem.left = mem.left - 1
    say("PassThroughDoor at %.1f m/s", args.speed)
    return mem.left == 0 and S or R
  end,
  stop = function(agent, args, mem, status) if status == "aborted" then say("PassThroughDoor halted") end end,
}
return leaves
