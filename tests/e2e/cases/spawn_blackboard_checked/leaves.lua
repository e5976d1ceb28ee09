local thicket = require("thicket")
local L = {}
local function try(label, bb)
  local ok, err = pcall(thicket.spawn, "spawner", bb)
  print(label, ok, err)
end
function L.Spawn(agent, args)
  if agent.id == 1 and thicket.tick() == 1 then
    try("typo", {hpp = 3})
    try("string", {hp = "x"})
    try("fraction", {hp = 1.5})
    try("table", {name = {}})
    try("list", {5})
    try("whole", {hp = 2.0, name = "second"})
  elseif agent.id == 2 then
    print("agent 2", agent.bb.hp, math.type(agent.bb.hp), agent.bb.name)
  end
  return thicket.RUNNING
end
return L
