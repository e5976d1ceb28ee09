-- Leaves for the hierarchical state machine error examples.
local thicket = require("thicket")
local leaves = {}

function leaves.Patrol(agent, args) return thicket.RUNNING end
function leaves.SeesEnemy(agent, args) return false end
function leaves.Say(agent, args) print(thicket.tick() .. " " .. args.text) end

-- A condition that passes from tick `args.tick` on.
function leaves.From(agent, args) return thicket.tick() >= args.tick end

-- Sends `ping` to its own agent `args.n` times on the first tick.
function leaves.Chatter(agent, args)
  if thicket.tick() == 1 then
    for _ = 1, args.n do agent:send("ping") end
  end
  return thicket.RUNNING
end

return leaves
