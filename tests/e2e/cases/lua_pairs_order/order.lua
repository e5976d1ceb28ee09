local thicket = require("thicket")
local leaves = {}
function leaves.Walk(agent, args)
  local enemies = {}
  for _, name in ipairs({"wolf", "bear", "fox", "owl", "lynx", "boar", "hare", "crow", "stag", "mole", "newt", "wasp"}) do
    enemies[name] = #name
  end
  enemies[3], enemies[1], enemies[2.5], enemies[true], enemies[false] = "c", "a", "h", "t", "f"
  local seen = {}
  for k in pairs(enemies) do seen[#seen + 1] = tostring(k) end
  print("pairs:   " .. table.concat(seen, " "))
  seen = {}
  local k = next(enemies)
  while k ~= nil do seen[#seen + 1] = tostring(k); k = next(enemies, k) end
  print("next:    " .. table.concat(seen, " "))
  seen = {}
  for key, value in pairs(args) do seen[#seen + 1] = key .. "=" .. value end
  print("args:    " .. table.concat(seen, " "))
  seen = {}
  for key in pairs(thicket) do seen[#seen + 1] = key end
  print("module:  " .. table.concat(seen, " "))
  for key in pairs(enemies) do enemies[key] = nil end  -- emptied while walked
  print("emptied: " .. tostring(next(enemies)))
  return thicket.SUCCESS
end
return leaves
