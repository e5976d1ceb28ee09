-- thicket.follow_path: a point that cannot be reached is false and move_to's reason (and the
-- point's index), not true; the options are all passed on to move_to (only radius was), and an
-- unknown one is an error naming it; a looping lap that did not have to walk (the agent stands
-- on its point) gives the tick back (it looped until the watchdog stopped it, every tick).
local thicket = require("thicket")
local leaves = {}
local function try(what, f)
  local ok, a, b, c = pcall(f)
  print(what, ok, tostring(a), tostring(b), tostring(c))
end
leaves.Probe = thicket.task(function(agent)
  try("lopo", function() return (thicket.follow_path(agent, {{8.5, 2.5}}, {lopo = true})) end)
  try("raduis", function() return (thicket.follow_path(agent, {{8.5, 2.5}}, {raduis = 3})) end)
  try("loop 'yes'", function() return (thicket.follow_path(agent, {{8.5, 2.5}}, {loop = "yes"})) end)
  try("points 'abc'", function() return (thicket.follow_path(agent, "abc")) end)
  try("point {1}", function() return (thicket.follow_path(agent, {{8.5, 2.5}, {1}})) end)
  try("no agent", function() return (thicket.follow_path(nil, {{8.5, 2.5}})) end)
  try("budget -1 passed on", function() return (thicket.follow_path(agent, {{8.5, 2.5}}, {budget = -1})) end)
  try("in a wall", function() local ok, why, k = thicket.follow_path(agent, {{5.5, 2.5}}) return ok, why, k end)
  try("second in a wall", function()
    local ok, why, k = thicket.follow_path(agent, {{8.5, 2.5}, {5.5, 5.5}}, {radius = 100}) return ok, why, k
  end)
  try("radius 100", function() local ok, why = thicket.follow_path(agent, {{8.5, 2.5}}, {radius = 100}) return ok, why end)
  -- Standing on its only point: each lap passes without a step. The list prints when its point
  -- is read (once to check the list, then once a lap): one lap a tick.
  local x, y = agent:position()
  local points = setmetatable({}, {__index = function(_, k)
    if k == 1 then print("point read at tick", thicket.tick()) return {x, y} end
  end})
  try("loop", function() return (thicket.follow_path(agent, points, {loop = true})) end)
  return "success"
end)
return leaves
