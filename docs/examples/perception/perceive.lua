-- Logs every percept event (enter / exit, takes), the memory when it changes, and the keys the
-- senses write into the blackboard when they change.
local thicket = require("thicket")
local leaves = {}

local function events(agent)
  for _, p in ipairs(agent:percepts()) do
    if p.phase ~= "stay" or p.taken then
      local what = p.name or tostring(p.id)
      thicket.log(string.format("%s %s %s %s at %.2f %.2f, %.2f m, strength %.3f%s", p.sense, p.phase, p.kind, what,
        p.x, p.y, p.distance, p.strength, p.taken and ", taken" or ""))
    end
  end
end

local last = {}
function leaves.Report(agent)
  events(agent)
  local bb = agent.bb
  local now = string.format("seen=%s seen_x=%.2f heard=%s remembered=%s sees(2)=%s", tostring(bb.seen), bb.seen_x,
    tostring(bb.heard), tostring(bb.remembered), tostring(agent:sees(2)))
  local flags = now:gsub(" seen_x=[^ ]*", "")  -- seen_x follows the walker: logged when a flag changes
  if flags ~= last.bb then thicket.log(now) last.bb = flags end
  local m = {}
  for _, e in ipairs(agent:memory()) do
    m[#m + 1] = string.format("%s %d by %s at %.2f %.2f, age %.1f s, forgotten in %.1f s", e.kind, e.id, e.sense, e.x, e.y,
      e.age, e.forget_in)
  end
  local mem = #m > 0 and table.concat(m, "; ") or "(empty)"
  if mem:gsub(" at [^;]*", "") ~= (last.mem or ""):gsub(" at [^;]*", "") then thicket.log("memory: " .. mem) end
  last.mem = mem
  return "running"
end

function leaves.Walk(agent)
  events(agent)
  local x, y = agent:position()
  if thicket.tick() == 20 then thicket.noise(x, y, 50, 0.3) thicket.log("loud noise") end
  if thicket.tick() == 30 then thicket.noise(x, y, 2) thicket.log("quiet noise") end
  if thicket.tick() == 25 then
    for _, p in ipairs(thicket.pickups()) do
      thicket.log(string.format("pickup %d %s (%s) active=%s back in %.1f s; health %g", p.id, p.name, p.kind,
        tostring(p.active), p.back_in, agent.bb.health))
    end
  end
  agent:steer{seek = {40, 13}}
  return "running"
end

return leaves
