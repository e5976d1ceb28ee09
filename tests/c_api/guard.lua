-- LuaStep runs for three ticks, logging each; it raises an error while the mood is "boom".
local thicket = require("thicket")
local leaves = {}

function leaves.LuaStep(agent, args)
  local bb = agent.bb
  if bb.mood == "boom" then error("boom!") end
  bb.lua_calls = bb.lua_calls + 1
  thicket.log("lua step " .. bb.lua_calls .. " of agent " .. agent.id)
  if bb.lua_calls >= 3 then return thicket.SUCCESS end
  return thicket.RUNNING
end

return leaves
