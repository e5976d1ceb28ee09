local thicket = require("thicket")
return { Look = function(agent)
  if agent.id == 1 then agent:steer{seek = {100, 5}} elseif agent.id == 3 then agent:steer{seek = {11, 100}} end
  if thicket.tick() % 10 ~= 1 then return "running" end
  local x, y = agent:position()
  local n = agent:neighbours(20, {sight = true})
  local m = agent:neighbours(20)
  local ids = {}
  for _, e in ipairs(n) do ids[#ids+1] = e.id end
  print(string.format("t=%d agent %d: at %.3f %.3f sees %s of %d; percepts %d", thicket.tick(), agent.id, x, y, table.concat(ids, ","), #m, #agent:percepts("sight")))
  return "running"
end }
