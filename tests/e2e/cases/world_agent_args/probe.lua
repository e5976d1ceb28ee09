-- Agent ids past 2^32 are no agent (they wrapped round to a real one: 2^32 + 3 hit agent 3);
-- steer's pursue takes a whole float as an id (a number key holds ids as floats); a steering
-- force that is not finite is an error at the line (it left the agent at NaN for good); the
-- simulation's own metrics are not the scripts' to add to (a script reported 5 deaths). Every
-- number steer takes is checked, and its keys; a signal of nan is refused (nan health never
-- reached 0: the agent could not die).
local thicket = require("thicket")
local leaves = {}
local function try(what, f, ...)
  local ok, a, b = pcall(f, ...)
  print(what, ok, ok and tostring(a) or (tostring(a):gsub("^probe.lua:%d+: ", "")), ok and tostring(b) or "")
end
function leaves.Probe(agent)
  local t = thicket.tick()
  if agent.id == 1 and t == 1 then
    try("locate 2^32+4", function() return agent:locate(2^32 + 4) end)
    try("damage 2^32+3", function() agent:damage(2^32 + 3, 10) end)
    try("steer seek inf", function() agent:steer{seek = {math.huge, 10}} end)
    try("steer flee nan weight", function() agent:steer{flee = {10, 10, weight = 0/0}} end)
    try("steer wander inf", function() agent:steer{wander = math.huge} end)
    try("steer pursue 'two'", function() agent:steer{pursue = "two"} end)
    -- nan points and weights steered nowhere without a word; a misspelt behaviour did nothing
    try("steer seek nan", function() agent:steer{seek = {0/0, 10}} end)
    try("steer arrive slow -1", function() agent:steer{arrive = {10, 10, slow = -1}} end)
    try("steer cohesion radius -1", function() agent:steer{cohesion = 1, radius = -1} end)
    try("steer avoid 'yes'", function() agent:steer{avoid = "yes"} end)
    try("steer seperation", function() agent:steer{seperation = 2} end)
    try("signal nan", function() agent:signal(3, "health", 0/0) end)
    try("metric deaths", function() thicket.metric("deaths", 5) end)
    try("gauge damage_dealt", function() thicket.gauge("damage_dealt", 0) end)
  end
  if agent.id == 2 and t == 1 then agent:steer{pursue = agent.bb.seen + 1} end  -- 3.0: agent 3
  if agent.id == 2 and t == 2 then
    local vx, vy = agent:velocity()
    print("agent 2 moves after pursue = 3.0", vx ~= 0 or vy ~= 0)
  end
  if agent.id == 3 and t == 2 then print("agent 3's health", agent.bb.health) end
  if agent.id == 1 and t == 3 then print("agent 1's position is finite", agent:position() == agent:position()) end
  return "running"
end
return leaves
