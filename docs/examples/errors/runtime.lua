local thicket = require("thicket")
local leaves = {}

function leaves.Nil(agent, args)
  local target = agent.target         -- never set: nil
  return target.alive                 -- line 6: indexes nil
end

function leaves.WrongType(agent, args)
  agent.bb.health = "full"            -- line 10: health is a number
  return thicket.SUCCESS
end

function leaves.Undeclared(agent, args)
  return agent.bb.mana > 10           -- line 15: no such key
end

function leaves.BadResult(agent, args)
  return "done"                       -- not a status
end

function leaves.NotSure(agent, args)
  return thicket.RUNNING              -- a condition must answer now
end

return leaves
