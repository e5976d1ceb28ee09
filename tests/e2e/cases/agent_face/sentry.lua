local thicket = require("thicket")
local leaves = {}
function leaves.Look(agent)
  if agent.id ~= 1 then return "running" end
  local t = thicket.tick()
  local hx, hy = agent:heading()
  print(string.format("tick %d faces %.2f,%.2f and %s", t, hx, hy, agent.bb.spotted and "sees the post" or "sees nothing"))
  if t == 1 then agent:face(14, 15) end
  if t == 2 then agent:face(20, 10) end          -- where it stands: no change
  if t == 3 then print(select(2, pcall(agent.face, agent, 0 / 0, 1))) end  -- an error
  return "running"
end
return leaves
