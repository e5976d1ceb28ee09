local thicket = require("thicket")
local L = {}
function L.Flaky(agent, args)
  print(string.format("%d flaky", thicket.tick()))
  if thicket.tick() == 2 then
    local t = nil
    return t.field          -- line 7: a runtime error on tick 2 only
  end
  return thicket.SUCCESS
end
function L.Escape(agent, args)
  print("os.execute is " .. tostring(os.execute) .. ", io is " .. tostring(io) .. ", debug is " .. tostring(debug))
  agent.bb.health = "low"   -- line 13: wrong type
  return thicket.SUCCESS
end
return L
