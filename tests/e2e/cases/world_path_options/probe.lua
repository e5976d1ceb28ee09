-- Path options: move_to's own radius, replan and stuck are checked by agent:path_to and
-- thicket.find_path too (they took any value); a budget that is a whole float is a whole number
-- (2000.0 was refused); a danger zone's NaN centre or infinite radius is refused (they were
-- taken), and a bad cost is said to be the cost (it was reported as "radius > 0").
local thicket = require("thicket")
local leaves = {}
local function try(what, f)
  local ok, a = pcall(f)
  print(what, ok, tostring(a))
end
function leaves.Probe(agent)
  if thicket.tick() ~= 1 then return "running" end
  try("path_to radius 'x'", function() local p = agent:path_to(8.5, 2.5, {radius = "x"}) return type(p) end)
  try("find_path stuck -1", function() local p = thicket.find_path(2.5, 2.5, 8.5, 2.5, {stuck = -1}) return type(p) end)
  try("find_path replan 2", function() local p = thicket.find_path(2.5, 2.5, 8.5, 2.5, {replan = 2}) return type(p) end)
  try("budget 2000.0", function() local p = agent:path_to(8.5, 2.5, {budget = 2000.0}) return type(p) end)
  try("budget 2.5", function() local p = agent:path_to(8.5, 2.5, {budget = 2.5}) return type(p) end)
  try("danger cost -1", function() local p = agent:path_to(8.5, 2.5, {danger = {{5, 5, 2, -1}}}) return type(p) end)
  try("danger cost 'x'", function() local p = agent:path_to(8.5, 2.5, {danger = {{5, 5, 2, "x"}}}) return type(p) end)
  try("danger x nan", function() local p = agent:path_to(8.5, 2.5, {danger = {{0/0, 5, 2}}}) return type(p) end)
  try("danger radius inf", function() local p = agent:path_to(8.5, 2.5, {danger = {{5, 5, math.huge}}}) return type(p) end)
  try("danger radius 0", function() local p = agent:path_to(8.5, 2.5, {danger = {{5, 5, 0}}}) return type(p) end)
  try("danger ok", function() local p = agent:path_to(8.5, 2.5, {danger = {{5, 5, 2, 10}}}) return type(p) end)
  try("options 'fast'", function() local p = agent:path_to(8.5, 2.5, "fast") return type(p) end)
  return "running"
end
return leaves
