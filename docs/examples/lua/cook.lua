local thicket = require("thicket")
local util = require("util")
local leaves = {}

function leaves.Doorbell(agent, args)
  return thicket.tick() == args.at
end

function leaves.AnswerDoor(agent, args)
  util.say(agent, "answers the door")
  return thicket.SUCCESS
end

leaves.Cook = thicket.task(function(agent, args)
  agent.meals = (agent.meals or 0) + 1           -- the agent table keeps its fields
  local stove <close> = thicket.defer(function() util.say(agent, "turns the stove off") end)
  local minutes = thicket.random(2, 4)           -- the agent's own random stream
  util.say(agent, "starts %s #%d (%d ticks)", args.dish, agent.meals, minutes)
  for i = 1, minutes do
    coroutine.yield()
    util.say(agent, "stirs")
  end
  thicket.log("soup is ready")
  return thicket.SUCCESS
end)

return leaves
