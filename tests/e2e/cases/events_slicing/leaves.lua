local thicket = require("thicket")
local leaves = {}
function leaves.Ping(agent)
  print(string.format("agent %d tick %d time %.1f dt %.1f born %d", agent.id, thicket.tick(), thicket.time(), thicket.dt(), agent.bb.born))
  if agent.id == 1 and thicket.tick() == 1 then
    agent:send("ping")
    thicket.send(2, "hello")
  end
  if agent.id == 2 and thicket.tick() == 1 then
    print("spawned:", thicket.spawn("pinger", {born = 7}))
  end
  return thicket.RUNNING
end
return leaves
