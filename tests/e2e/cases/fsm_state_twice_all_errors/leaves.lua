local leaves = {}
function leaves.Plain(agent) return thicket.SUCCESS end
return leaves
