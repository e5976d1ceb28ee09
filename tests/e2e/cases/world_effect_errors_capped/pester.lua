local leaves = {}
function leaves.Pester(agent)
  local other = agent.id == 1 and 2 or 1
  agent:damage(other, 1)
  agent:signal(other, "alarm", true)
  return "running"
end
return leaves
