-- A budgeted agent:path_to whose algorithm or smoothing changes while its search runs starts
-- over (it went on with the old ones). Danger zones do not start it over: a search keeps the
-- zones of the call that started it (zones round moving guards are new every tick). Tick 1
-- starts a smoothed search across an open field with a budget too small to finish; tick 2 asks
-- for the same goal unsmoothed: cell centres, not the two ends. Ticks 3 and 4: a search started
-- without zones, then asked with a zone on the straight line, goes straight.
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
    local p = agent:path_to(29.5, 8.5, {budget = 100000, algorithm = "astar", smooth = false})
    print("tick 2, unsmoothed:", type(p), "more than two points", #p > 2)
  elseif t == 3 then
    print("tick 3, budget 3:", agent:path_to(29.5, 8.5, {budget = 3, algorithm = "astar"}))
  elseif t == 4 then
    local p = agent:path_to(29.5, 8.5, {budget = 100000, algorithm = "astar", danger = {{16, 8.5, 4, 1000}}})
    print("tick 4, a zone added:", type(p), "straight", widest(p) == 0)
  end
  return "running"
end
return leaves
