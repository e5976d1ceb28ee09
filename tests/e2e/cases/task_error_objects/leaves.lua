local thicket = require("thicket")
local L = {}
L.TableError = thicket.task(function(agent, args) error({code = 1}) end)
L.CloseError = thicket.task(function(agent, args)
  local cleanup <close> = setmetatable({}, {__close = function() error("cleanup failed") end})
  error("body failed")
end)
-- A cleanup raising a table: named by its type (it said "(error object is not a string)").
L.CloseTable = thicket.task(function(agent, args)
  local cleanup <close> = setmetatable({}, {__close = function() error({code = 7}) end})
  error("body failed too")
end)
return L
