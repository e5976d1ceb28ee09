-- The chicken's leaves. A leaf file returns a table of leaves by name.
local thicket = require("thicket")
local leaves = {}

function leaves.Peck(agent, args)
  agent.bb.hunger = agent.bb.hunger - 1
  print(string.format("t=%.1f chicken %d pecks (hunger now %d)", thicket.time(), agent.id, agent.bb.hunger))
  return thicket.SUCCESS
end

function leaves.Nap(agent, args)
  print(string.format("t=%.1f chicken %d naps", thicket.time(), agent.id))
  return thicket.RUNNING
end

return leaves
