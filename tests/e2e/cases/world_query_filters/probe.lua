-- agent:neighbours / agent:nearest: a filter of the wrong type, an unknown key, a key's value of
-- the wrong type, a radius that is NaN or negative and an fov that is no angle are errors at the
-- line of the call naming what is wrong (they all read as "everyone", or as no one, before).
local thicket = require("thicket")
local leaves = {}
local function try(what, f)
  local ok, a = pcall(f)
  print(what, ok, tostring(a))
end
function leaves.Probe(agent)
  if agent.id ~= 1 then return "running" end
  try("everyone", function() local l = agent:neighbours(10) return #l end)
  try("enemies", function() local l = agent:neighbours(10, {enemies = true}) return #l end)
  try("team blues", function() local l = agent:neighbours(10, {team = "blues"}) return #l end)
  try("fov 360", function() local n = agent:nearest(10, {fov = 360}) return n and n.id end)
  try("team 5", function() local l = agent:neighbours(10, {team = 5}) return #l end)
  try("team blue", function() local l = agent:neighbours(10, {team = "blue"}) return #l end)
  try("fov '90'", function() local l = agent:neighbours(10, {fov = "90"}) return #l end)
  try("fov nan", function() local l = agent:neighbours(10, {fov = 0/0}) return #l end)
  try("fov -90", function() local l = agent:neighbours(10, {fov = -90}) return #l end)
  try("filter 'enemies'", function() local l = agent:neighbours(10, "enemies") return #l end)
  try("enemy = true", function() local l = agent:neighbours(10, {enemy = true}) return #l end)
  try("enemies = 1", function() local l = agent:neighbours(10, {enemies = 1}) return #l end)
  try("[1] = true", function() local l = agent:neighbours(10, {true}) return #l end)
  try("a table key", function()  -- named by its type: its __tostring is not run
    local key = setmetatable({}, {__tostring = function() error("not called") end})
    local l = agent:neighbours(10, {[key] = true}) return #l end)
  try("radius nan", function() local l = agent:neighbours(0/0) return #l end)
  try("radius -1", function() local l = agent:neighbours(-1) return #l end)
  try("nearest radius -5", function() local n = agent:nearest(-5) return n and n.id end)
  try("nearest sihgt", function() local n = agent:nearest(10, {sihgt = true}) return n and n.id end)
  try("nearest friends 'yes'", function() local n = agent:nearest(10, {friends = "yes"}) return n and n.id end)
  try("enemies and friends", function() local l = agent:neighbours(10, {enemies = true, friends = true}) return #l end)
  try("friends and team", function() local n = agent:nearest(10, {friends = true, team = "blues"}) return n and n.id end)
  try("enemies = false, friends", function() local l = agent:neighbours(10, {enemies = false, friends = true}) return #l end)
  -- agent:percepts' sense: a misspelt one gets a did-you-mean (it said "invalid option 'sigth'").
  try("percepts sigth", function() return #agent:percepts("sigth") end)
  try("percepts 5", function() return #agent:percepts(5) end)
  try("percepts touch", function() return #agent:percepts("touch") end)
  return "running"
end
return leaves
