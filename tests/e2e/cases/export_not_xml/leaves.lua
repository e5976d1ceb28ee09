local leaves = {}
function leaves.Go() return true end
return leaves
