local leaves = {}
function leaves.Patrol(agent, args)
  if agent.bb.tired then
    return false
end
return leaves
