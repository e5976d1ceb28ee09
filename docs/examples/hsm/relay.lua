-- Agent 1 wakes agent 2, which wakes agent 3, and so on: thicket.send to another agent
-- arrives when the tick_all ends; agent:send from a leaf of the agent itself arrives at once.
local thicket = require("thicket")
local leaves = {}

local function say(agent, fmt, ...)
  print(string.format("%d  agent %d  " .. fmt, thicket.tick(), agent.id, ...))
end

function leaves.Sleep(agent, args)
  if agent.id == 1 and thicket.tick() == 1 then
    say(agent, "wakes up by itself and sends wake to agent 2")
    thicket.send(2, "wake")
  end
  return thicket.RUNNING
end

function leaves.Wake(agent, args)
  say(agent, "wakes up; agent:send(\"stretch\")")
  agent:send("stretch")
end

function leaves.Up(agent, args)
  local next = agent.id + 1
  local sent = thicket.send(next, "wake")
  say(agent, "is up; thicket.send(%d, \"wake\") returns %s", next, tostring(sent))
end

return leaves
