-- Names holding a NUL byte are no names a brain can write: they were read up to the NUL, so
-- leaves["Act\0junk"] answered for Act, thicket.spawn("names\0junk") found the brain names and
-- its bb key "hp\0junk" was written into hp; messages named the part before the NUL.
local thicket = require("thicket")
local leaves = {}
leaves["Act\0junk"] = function(agent) return true end
function leaves.Act(agent)
  if agent.id == 1 and thicket.tick() == 1 then
    print("spawn", pcall(thicket.spawn, "names\0junk", {hp = 1}))
    print("spawn", pcall(thicket.spawn, "names", {["hp\0junk"] = 1}))
    print("read", pcall(function() return agent.bb["hp\0junk"] end))
    print("write", pcall(function() agent.bb["hp\0junk"] = 3 end))
  end
  print("agent", agent.id, "hp", agent.bb.hp)
  return true
end
return leaves
