local leaves = {}
function leaves.OpenFile(agent) local f = io.open("/etc/passwd") return "success" end
function leaves.Quit(agent) os.exit(1) end
function leaves.Dump(agent) return string.dump(leaves.Quit) end
function leaves.Seed(agent) math.randomseed(7) end
function leaves.RunFile(agent) dofile("other.lua") end
-- A field of the script's own table: no hint.
function leaves.MyField(agent) local t = {} t.jump() end
return leaves
