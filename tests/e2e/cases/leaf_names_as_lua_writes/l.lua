local leaves = {}
function leaves.Other() return true end
return leaves
