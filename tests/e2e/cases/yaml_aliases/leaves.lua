local leaves = {}
function leaves.Patrol(agent, args) return true end
return leaves
