local thicket = require("thicket")
local L = {}
L.TableError = thicket.task(function(agent, args) error({code = 1}) end)
L.CloseError = thicket.task(function(agent, args)
  local cleanup <close> = setmetatable({}, {__close = function() error("cleanup failed") end})
  error("body failed")
end)
return L
