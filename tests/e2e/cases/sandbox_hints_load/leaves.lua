local leaves = {}
local config = io.open("config.txt")
function leaves.Idle(agent) return "success" end
return leaves
