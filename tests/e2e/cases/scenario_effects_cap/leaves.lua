local thicket = require("thicket")
local leaves = {}
function leaves.Spam(agent)
  local other = agent.id == 1 and 2 or 1
  local big = string.rep("x", 400000)
  local sent = 0
  local ok, err = pcall(function()
    for _ = 1, 5 do agent:signal(other, "note", big); sent = sent + 1 end
  end)
  print("tick " .. thicket.tick() .. " agent " .. agent.id .. ": " .. sent .. " signals of 400 KB, then: " .. tostring(err))
  local made = 0
  ok, err = pcall(function()
    for _ = 1, 5000 do agent:damage(other, 1); made = made + 1 end
  end)
  print("  " .. made .. " damage calls, then: " .. tostring(err))
  return thicket.RUNNING
end
return leaves
