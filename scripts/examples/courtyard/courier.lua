-- Leaves of the courtyard courier.
local thicket = require("thicket")
local leaves = {}

local depots = {{5, 5}, {5, 55}, {30, 55}, {50, 50}, {75, 5}, {75, 57}, {32, 4}, {50, 30}}

leaves.Deliver = thicket.task(function(agent, args)
  local next_depot = agent.id % #depots + 1
  while true do
    local depot = depots[next_depot]
    local x, y = agent:position()
    local _, length = thicket.find_path(x, y, depot[1], depot[2])
    if length then thicket.metric("metres_planned", length) end
    if thicket.move_to(agent, depot[1], depot[2], {radius = 1}) then
      thicket.metric("deliveries")
    else
      thicket.metric("unreachable")
    end
    next_depot = (next_depot + 2) % #depots + 1
  end
end)

return leaves
