-- Logs the fifteen slots whenever one other than a position or a distance changes.
local thicket = require("thicket")
local leaves = {}
local last
function leaves.Slots(agent)
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
