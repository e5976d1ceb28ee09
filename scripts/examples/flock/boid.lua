-- A boid: one running leaf steering with the flocking forces every tick.
local thicket = require("thicket")
local leaves = {}

leaves.Flock = {
  tick = function(agent, args, mem)
    agent:steer{separation = args.separation, alignment = args.alignment, cohesion = args.cohesion,
                avoid = args.avoid, wander = args.wander, radius = args.radius}
    if #agent:neighbours(1.0) > 2 then thicket.metric("crowded_ticks") end
    return thicket.RUNNING
  end,
}

return leaves
