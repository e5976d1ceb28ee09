local thicket = require("thicket")
local leaves = {}
leaves.Guard = {
  tick = function(agent)
    print(string.format("tick %d: agent %d (gen %d) guards", thicket.tick(), agent.id, agent.bb.gen))
    return thicket.RUNNING
  end,
  stop = function(agent, args, mem, status)
    -- Made at once, these spawns grew the agent array under the despawn that runs this hook,
    -- and the despawn of its own agent despawned it again from inside.
    local a = thicket.spawn("guard", {gen = agent.bb.gen + 1})
    local b = thicket.spawn("guard", {gen = agent.bb.gen + 1})
    print(string.format("agent %d stops (%s): spawn gives %s and %s, despawn of itself %s", agent.id, status,
      tostring(a), tostring(b), tostring(thicket.despawn(agent.id))))
  end,
}
-- The first generation's agents leave at their second tick.
function leaves.Die(agent)
  if agent.bb.gen == 0 and thicket.tick() == 2 then thicket.despawn(agent.id) end
  return thicket.RUNNING
end
return leaves
