-- A budgeted agent:path_to whose options change while its search runs starts over with the new
-- options (it went on with the old ones: a danger zone added at tick 2 was ignored). Tick 1
-- starts a search across an open field with a budget too small to finish; tick 2 asks for the
-- same goal with a danger zone on the straight line and a budget that finishes: the path must
-- go round the zone.
local thicket = require("thicket")
local leaves = {}
local function widest(points)
  local far = 0
  for _, point in ipairs(points) do far = math.max(far, math.abs(point[2] - 8.5)) end
  return far
end
function leaves.Probe(agent)
  local t = thicket.tick()
  if t == 1 then
    print("tick 1, budget 3:", agent:path_to(29.5, 8.5, {budget = 3, algorithm = "astar"}))
  elseif t == 2 then
    local p = agent:path_to(29.5, 8.5, {budget = 100000, algorithm = "astar", danger = {{16, 8.5, 4, 1000}}})
    print("tick 2, with a danger zone:", type(p), "widest from the straight line", widest(p) > 3)
  end
  return "running"
end
return leaves
