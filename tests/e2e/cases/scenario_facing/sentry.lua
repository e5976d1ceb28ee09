local thicket = require("thicket")
local leaves = {}
function leaves.Look(agent)
  local hx, hy = agent:heading()
  print(string.format("tick %d agent %d faces %.0f,%.0f and %s", thicket.tick(), agent.id, hx, hy,
    agent.bb.spotted and "sees the post" or "sees nothing"))
  return "running"
end
function leaves.Stand() return "running" end
return leaves
