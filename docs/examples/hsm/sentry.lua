-- Leaves of the lookout scenario: the sentry's say, the intruder's walk.
local thicket = require("thicket")
local leaves = {}

function leaves.Say(agent, args)
  print(string.format("%2d  %s", thicket.tick(), args.text))
end

-- The intruder walks to (40, 13) and makes a loud noise on its 3rd tick.
function leaves.Walk(agent, args)
  if thicket.tick() == 3 then
    local x, y = agent:position()
    thicket.noise(x, y, 50, 0.3)
  end
  agent:steer{seek = {40, 13}}
  return thicket.RUNNING
end

return leaves
