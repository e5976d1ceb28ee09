local thicket = require("thicket")
local leaves = {}
local defer = thicket.defer  -- the function kept in a local (8.8's advice): no warning
leaves.Forgot = thicket.task(function(agent)
  local d = thicket.defer(function() print("forgot cleanup") end)
  thicket.wait(0.1)
  return thicket.FAILURE
end)
leaves.Good = thicket.task(function(agent)
  local d <close> = defer(function() print(thicket.tick() .. " good cleanup") end)
  thicket.wait(0.1)
  return thicket.SUCCESS
end)
return leaves
