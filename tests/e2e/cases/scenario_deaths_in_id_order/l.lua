-- Agents 1..4 kill agents 4..1 on tick 2 (agent 1 kills 4 first): the stop hooks of the tick's
-- dead run in id order (guide 11.1), not in the order they were killed.
local thicket = require("thicket")
local leaves = {}
leaves.T = {
  tick = function(agent)
    if thicket.tick() == 2 and agent.id <= 4 then agent:damage(5 - agent.id, 100) end
    if agent.id == 5 and thicket.tick() == 4 then print("agent 5: note " .. agent.bb.note) end
    return "running"
  end,
  stop = function(agent)
    print("tick " .. thicket.tick() .. ": stop agent " .. agent.id)
    agent:signal(5, "note", agent.id)  -- applied in id order too: the last is 4
  end,
}
return leaves
