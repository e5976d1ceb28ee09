local thicket = require("thicket")
local leaves = {}
function leaves.Write(agent)
  if agent.id == 1 and thicket.tick() == 1 then
    print("spawn with nan:", pcall(thicket.spawn, "n", {health = 0/0}))
  end
  agent.bb.health = math.huge - math.huge
  return true
end
function leaves.Say(agent, args) print(thicket.tick(), agent.id, agent.bb.health, args.t) return true end
return leaves
