local thicket = require("thicket")
local L = {}
-- A shared table through which one agent reaches another's task coroutine.
stolen = stolen or {}
L.Task = thicket.task(function(agent)
  stolen[agent.id] = coroutine.running()
  local d <close> = thicket.defer(function() print(thicket.tick(), agent.id, "cleanup") end)
  for i = 1, 5 do print(thicket.tick(), agent.id, "task step", i) coroutine.yield() end
  return true
end)
function L.Thief(agent)
  local co = stolen[1]
  if agent.id == 2 and co then
    print(thicket.tick(), "thief status", coroutine.status(co))
    if thicket.tick() == 2 then print("resume", coroutine.resume(co)) end
    if thicket.tick() == 3 then print("close", pcall(coroutine.close, co)) end
    if thicket.tick() == 4 then local mine = coroutine.create(function() coroutine.yield(1) end) print("own", coroutine.resume(mine), coroutine.close(mine)) end
  end
  return thicket.RUNNING
end
return L
