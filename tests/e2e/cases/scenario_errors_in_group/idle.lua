local leaves = {}
function leaves.Idle(agent) return "running" end
return leaves
