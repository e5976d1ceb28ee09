local leaves = {}
function leaves.Attack() return true end
return leaves
