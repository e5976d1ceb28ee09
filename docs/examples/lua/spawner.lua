-- On its 2nd tick agent 1 spawns an agent, despawns agent 3 and sends two events; agent 4
-- despawns agent 3 too, later in the same tick.
local thicket = require("thicket")
local leaves = {}
function leaves.Count(agent)
  agent.bb.n = agent.bb.n + 1
  print("tick " .. thicket.tick() .. " agent " .. agent.id .. " n=" .. agent.bb.n)
  return true
end
function leaves.Act(agent)
  if agent.id == 1 and thicket.tick() == 2 then
    print("spawn", thicket.spawn("spawner", {n = 100}))
    print("despawn 3", thicket.despawn(3))
    print("despawn 99", thicket.despawn(99))
    print("send 2", thicket.send(2, "hello"))
    agent:send("self")
  end
  if agent.id == 4 and thicket.tick() == 2 then
    print("despawn 3 again", thicket.despawn(3))
  end
  return true
end
return leaves
