-- Another agent's table kept from its own call (here in a file-level table): its blackboard
-- and its world methods are refused from any other agent's leaf (they were read and written,
-- with results that changed with --threads: on 2 threads the table is another worker's).
local thicket = require("thicket")
local leaves = {}
local saved = {}
local function try(what, f, ...)
  local ok, err = pcall(f, ...)
  print(what, ok, ok and "" or (tostring(err):gsub("^probe.lua:%d+: ", "")))
end
function leaves.Probe(agent)
  local t = thicket.tick()
  if t == 1 then saved[agent.id] = agent end
  if t == 2 and agent.id == 4 then
    try("write agent 1's n", function() saved[1].bb.n = 42 end)
    try("read agent 1's n", function() return saved[1].bb.n end)
    try("agent 1's position", function() return saved[1]:position() end)
    try("own n", function() agent.bb.n = 7 end)
    try("own position", function() return agent:position() end)
  end
  if t == 3 and agent.id == 1 then print("agent 1's n at tick 3", agent.bb.n) end
  return "running"
end
return leaves
