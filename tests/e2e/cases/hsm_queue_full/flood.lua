local thicket = require("thicket")
local L = {}
-- Sends 4100 events on tick 1: the queue holds 4096, so the last four never join it.
function L.Flood(agent, args)
  if thicket.tick() == 1 then
    for i = 1, 4100 do agent:send("e" .. i) end
  end
  return thicket.RUNNING
end
return L
