-- Logs the fifteen slots whenever one other than a position or a distance changes; on the first
-- tick, the areas and the percepts by sense.
local thicket = require("thicket")
local leaves = {}
local last
function leaves.Slots(agent)
  if thicket.tick() == 1 then  -- the world's areas, and percepts filtered by sense
    for _, a in ipairs(thicket.areas()) do thicket.log(string.format("area %d %s at %.2f %.2f", a.id, a.name, a.x, a.y)) end
    thicket.log(string.format("percepts: %d in all, %d by sight, %d by hearing, %d by touch", #agent:percepts(),
      #agent:percepts("sight"), #agent:percepts("hearing"), #agent:percepts("touch")))
  end
  local b = agent.bb
  local flags = string.format("seen=%s id=%g heard=%s id=%g touched=%s remembered=%s id=%s age=%.1f",
    tostring(b.seen), b.seen_id, tostring(b.heard), b.heard_id, tostring(b.touched), tostring(b.remembered),
    math.type(b.memory_id) .. " " .. b.memory_id, b.memory_age)
  if flags ~= last then
    last = flags
    thicket.log(string.format("%s; seen at %.2f %.2f, %.2f m; heard at %.2f %.2f; memory at %.2f %.2f", flags,
      b.seen_x, b.seen_y, b.seen_distance, b.heard_x, b.heard_y, b.memory_x, b.memory_y))
  end
  return "running"
end
return leaves
