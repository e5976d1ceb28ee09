local thicket = require("thicket")
local L = {}
L.Fetch = thicket.task(function(agent)
  coroutine.yield()
  return "succes"
end)
return L
