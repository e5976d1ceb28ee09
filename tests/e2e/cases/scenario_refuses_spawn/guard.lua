local thicket = require("thicket")
local leaves = {}
function leaves.Try(agent)
  print("agent:send", agent:send("hi"))
  print("send to self", thicket.send(agent.id, "hi"))
  print("spawn", pcall(thicket.spawn, "guard"))
  print("despawn", pcall(thicket.despawn, agent.id))
  print("send to another", pcall(thicket.send, agent.id + 1, "hi"))
  return true
end
return leaves
