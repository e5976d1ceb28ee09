local leaves = {}
function leaves.show(agent) return "success" end
return leaves
