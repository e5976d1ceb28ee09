-- A goal outside the world is refused whatever plans (guide 12.2): a waypoint route led to it
-- through an obstacle (1e300 lost the line-of-sight test's precision), and move_to on open
-- ground walked to the edge and stayed there.
local thicket = require("thicket")
local leaves = {}
leaves.Go = thicket.task(function(agent)
  for _, gx in ipairs({30, 100, 1e300}) do
    local path, why = thicket.find_path(5, 5, gx, 5)
    print(string.format("find_path to (%g, 5): %s", gx, path and (#path .. " points") or why))
  end
  print("move_to:", thicket.move_to(agent, 100, 5))
  return "success"
end)
return leaves
