local thicket = require("thicket")
local leaves = {}

leaves.Spinner = thicket.task(function(agent, args)
  local guard <close> = thicket.defer(function() print(thicket.tick() .. " spinner cleanup") end)
  print(thicket.tick() .. " spinner spins")
  while true do end                -- forgot coroutine.yield()
end)

return leaves
