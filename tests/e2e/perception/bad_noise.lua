local thicket = require("thicket")
local leaves = {}
function leaves.Shout(agent)
  local x, y = agent:position()
  if thicket.tick() == 1 then thicket.noise(x, y, -1) end
  for _ = 1, 1e7 do thicket.noise(x, y, 1e300, 1e300) end  -- a runaway loop: stopped at 17
  return "success"
end
-- seconds of nan (0/0): said as nan, not Lua's "-nan"
function leaves.Hush(agent)
  if thicket.tick() == 1 then local x, y = agent:position(); thicket.noise(x, y, 1, 0/0) end
  return "success"
end
return leaves
