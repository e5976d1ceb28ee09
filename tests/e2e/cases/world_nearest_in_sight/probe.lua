local thicket = require("thicket")
local checked, differ, hidden = 0, 0, 0
local L = {}
-- The nearest of a list of {id, x, y}: least squared distance, the first of equals (id order).
local function nearest_of(list, x, y)
  local best, best_d
  for _, e in ipairs(list) do
    local d = (e.x - x) * (e.x - x) + (e.y - y) * (e.y - y)
    if best == nil or d < best_d then best, best_d = e.id, d end
  end
  return best
end
function L.Probe(agent)
  local x, y = agent:position()
  for _, r in ipairs({4, 12, 40}) do
    for _, filter in ipairs({{sight = true}, {sight = true, enemies = true}, {sight = true, fov = 120}}) do
      local n = agent:nearest(r, filter)
      local got = n and n.id
      local want = nearest_of(agent:neighbours(r, filter), x, y)
      checked = checked + 1
      if got ~= want then
        differ = differ + 1
        print(string.format("agent %d r %d: nearest %s, neighbours' nearest %s", agent.id, r, tostring(got), tostring(want)))
      end
      local plain = {enemies = filter.enemies, fov = filter.fov}
      local p = agent:nearest(r, plain)
      if got ~= (p and p.id) then hidden = hidden + 1 end
    end
  end
  if agent.id == 120 then
    print(string.format("tick %d: %d checked, %d differ, walls hid the nearest %s", thicket.tick(), checked, differ,
      hidden > 100 and "often" or "rarely"))
  end
  return thicket.RUNNING
end
return L
