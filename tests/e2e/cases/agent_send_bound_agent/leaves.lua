local thicket = require("thicket")
local leaves = {}
local own = {}
function leaves.Mess(agent)
  if not own[agent] then own[agent] = agent.id end
  -- agent 1 writes another agent's number into its table, agent 2 a name of its own
  if own[agent] == 1 then agent.id = 2 else agent.id = "guard" end
  if thicket.tick() == own[agent] then print(thicket.tick(), own[agent], "sends go:", agent:send("go")) end
  return thicket.RUNNING
end
function leaves.Entered(agent)
  print(thicket.tick(), own[agent], "enters done")
  print(pcall(agent.send, {id = own[agent]}, "go"))  -- a table with an id is not an agent
end
return leaves
