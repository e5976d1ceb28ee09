-- Leaves of the stealth intruder.
local thicket = require("thicket")
local leaves = {}

-- Hiding places from the bottom-left room to the goal (the top-right room), one route per
-- intruder in turn; the last point lies in the goal area.
local routes = {
  {{19, 24}, {33, 20}, {47, 14}, {59, 4}},
  {{12, 24}, {24, 19}, {30, 12}, {46, 2}, {60, 5}},
  {{3, 24}, {12, 14}, {8, 2}, {33, 20}, {47, 14}, {61, 3}},
  {{19, 36}, {32, 34}, {41, 24}, {50, 19}, {58, 12}, {60, 6}},
}

-- Danger zones around the guards in sight: the planner prices them, so paths go round.
local function guard_zones(agent, keep_away)
  local zones = {}
  for _, p in ipairs(agent:percepts("sight")) do
    if p.phase ~= "exit" then zones[#zones + 1] = {p.x, p.y, keep_away} end
  end
  return zones
end

-- Touching the goal area (touch sense: enter / stay / exit percepts).
local function at_goal(agent)
  for _, p in ipairs(agent:percepts("touch")) do
    if p.kind == "area" and p.name == "goal" and p.phase ~= "exit" then return true end
  end
  return false
end

leaves.Sneak = thicket.task(function(agent, args)
  local route = routes[agent.id % #routes + 1]
  for _, spot in ipairs(route) do
    local zones = guard_zones(agent, args.keep_away)
    if not thicket.move_to(agent, spot[1], spot[2], {radius = 0.8, danger = zones, budget = 400}) then
      thicket.metric("plans_failed")
    end
    if thicket.random() < args.noise_chance then  -- a kicked can: heard from the next tick, for 1 s
      local x, y = agent:position()
      thicket.noise(x, y, args.loudness, 1)
      thicket.metric("noises")
    end
    thicket.wait(0.5 + thicket.random())
  end
  while not at_goal(agent) do coroutine.yield() end
  thicket.metric("reached_goal")
  while true do thicket.wait(60) end  -- made it: stays hidden there
end)

return leaves
