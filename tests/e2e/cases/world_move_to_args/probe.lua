-- thicket.move_to's argument errors are raised at the line of the call (here, the line of each
-- `local ok, why = ...`), not inside the chunk that defines it ("(thicket):27: bad argument #1
-- to 'locate'"); an agent not in the world is false and a reason (it was false, nil); nil for x
-- is an error (it was false with no reason); so is a nan or infinite x or y (it was false and a
-- reason that named neither, which a caller's loop spun on).
local thicket = require("thicket")
local leaves = {}
local function try(what, f)
  local ok, a, b = pcall(f)
  print(what, ok, tostring(a), tostring(b))
end
leaves.Probe = thicket.task(function(agent)
  if agent.id ~= 1 then return "success" end
  try("string", function() local ok, why = thicket.move_to(agent, "abc") return ok, why end)
  try("nil", function() local ok, why = thicket.move_to(agent, nil) return ok, why end)
  try("table", function() local ok, why = thicket.move_to(agent, {10, 2}) return ok, why end)
  try("options string", function() local ok, why = thicket.move_to(agent, 8.5, 2.5, "fast") return ok, why end)
  try("no agent", function() local ok, why = thicket.move_to({}, 8.5, 2.5) return ok, why end)
  try("agent 99", function() local ok, why = thicket.move_to(agent, 99) return ok, why end)
  try("id 1.5", function() local ok, why = thicket.move_to(agent, 1.5) return ok, why end)
  try("id 3.0, no agent 3", function() local ok, why = thicket.move_to(agent, 3.0, {radius = 1}) return ok, why end)
  try("y string", function() local ok, why = thicket.move_to(agent, 8.5, "x") return ok, why end)
  try("y nil, options", function() local ok, why = thicket.move_to(agent, 8.5, nil, {radius = 1}) return ok, why end)
  try("unknown option", function() local ok, why = thicket.move_to(agent, 8.5, 2.5, {raduis = 1}) return ok, why end)
  try("in a wall", function() local ok, why = thicket.move_to(agent, 5.5, 2.5) return ok, why end)
  try("radius 100", function() local ok, why = thicket.move_to(agent, 8.5, 2.5, 100) return ok, why end)
  try("x nan", function() local ok, why = thicket.move_to(agent, 0/0, 2.5) return ok, why end)
  try("y inf", function() local ok, why = thicket.move_to(agent, 8.5, math.huge) return ok, why end)
  return "success"
end)
return leaves
