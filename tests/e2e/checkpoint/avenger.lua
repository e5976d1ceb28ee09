local thicket = require("thicket")
local L = {}
L.Fight = {
  start = function(agent, args, mem) mem.k = 0 end,
  tick = function(agent, args, mem)
    mem.k = mem.k + 1
    agent:steer{wander = 1}
    local e = agent:nearest(6, {enemies = true})
    if e and thicket.random() < 0.4 then agent:damage(e.id, 7 + mem.k % 3); thicket.metric("strikes") end
    return thicket.RUNNING
  end,
  -- Its last words: counted at once; the damage and the mark land after the next tick.
  stop = function(agent, args, mem, status)
    thicket.metric("stops")
    local e = agent:nearest(20, {enemies = true})
    if e then agent:damage(e.id, 6); agent:signal(e.id, "mark", agent.id); thicket.metric("revenge") end
  end,
}
function L.Gauge(agent)
  thicket.gauge("g", agent.bb.mark + thicket.random())
  return thicket.RUNNING
end
return L
