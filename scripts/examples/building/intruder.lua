-- Leaves of the building intruder.
local thicket = require("thicket")
local leaves = {}

local hideouts = {{3, 2}, {14, 15}, {30, 2}, {46, 15}, {62, 2}, {62, 37}, {48, 37}, {23, 37}, {19, 24}, {3, 37}}

-- Danger zones around the guards in sight: the path planner prices them (+50 for a step inside).
local function guard_zones(agent, args)
  local zones = {}
  for _, g in ipairs(agent:neighbours(args.wary_range, {team = "guards", sight = true})) do
    zones[#zones + 1] = {g.x, g.y, args.keep_away}
  end
  return zones
end

leaves.Sneak = thicket.task(function(agent, args)
  local i = agent.id % #hideouts
  while true do
    i = (i + 3) % #hideouts + 1
    local spot = hideouts[i]
    local ok = thicket.move_to(agent, spot[1], spot[2], {radius = 1, danger = guard_zones(agent, args), budget = 400})
    if ok then thicket.metric("hideouts_reached") else thicket.metric("plans_failed") end
    thicket.wait(1 + 2 * thicket.random())
  end
end)

return leaves
