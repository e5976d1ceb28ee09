-- agent:signal's value: a table or a function is an error at the call (it set the target's
-- `any` key to nil); a whole float goes to an integer key as agent.bb.k = 5.0 does (it was
-- dropped). A value the target's key cannot hold, or a key it does not declare, is known only
-- after the tick: reported with the line of the call and counted as a script error (exit
-- status 1; --strict stops after the tick, see world_signal_strict).
local thicket = require("thicket")
local leaves = {}
local function try(what, f)
  local ok, err = pcall(f)
  print(what, ok, tostring(err))
end
function leaves.Probe(agent)
  local t = thicket.tick()
  if agent.id == 3 and t == 1 then agent.bb.any = "hello" end
  if agent.id == 1 and t == 1 then
    try("table to any", function() agent:signal(3, "any", {1, 2}) end)
    try("function to any", function() agent:signal(3, "any", print) end)
    try("5.0 to integer", function() agent:signal(3, "k", 5.0) end)
    try("7 to number", function() agent:signal(3, "n", 7) end)
    try("5.5 to integer", function() agent:signal(3, "k", 5.5) end)
    try("true to string", function() agent:signal(3, "s", true) end)
    try("undeclared", function() agent:signal(3, "helth", 1) end)
  end
  if agent.id == 3 and t == 2 then
    print("agent 3", agent.bb.any, agent.bb.k, math.type(agent.bb.k), agent.bb.n, agent.bb.s)
  end
  return "running"
end
return leaves
