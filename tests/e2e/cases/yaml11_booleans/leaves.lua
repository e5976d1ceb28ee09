local leaves = {}
function leaves.Work(agent, args) return "success" end
function leaves.Rest(agent, args) return "success" end
return leaves
