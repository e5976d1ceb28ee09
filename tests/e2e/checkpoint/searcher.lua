local thicket = require("thicket")
local leaves = {}

-- A search of a few nodes a tick; when it is done, the path's length and the tick go into the
-- metrics and the agent steers a tick towards the path's next point (the next call starts a new
-- search from where the agent then is): a search brought back wrong after a resume shows.
function leaves.Plan(agent)
  -- Even agents plan with A*, odd ones round a danger zone of their own (both saved with the search).
  local even = agent.id % 2 == 0
  local goal = even and {60, 4} or {34, 20}
  local options = even and {budget = 40, algorithm = "astar"} or {budget = 40, danger = {{24, 28, 4, 80}}}
  local points, length = agent:path_to(goal[1], goal[2], options)
  if points then
    thicket.metric("found", thicket.tick())
    thicket.metric("length", length)
    agent:steer({seek = points[2]})
  end
  return thicket.RUNNING
end

return leaves
