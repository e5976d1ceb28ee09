local thicket = require("thicket")
local L = {}
function L.Number(agent) error(42) end
L.TaskNumber = thicket.task(function(agent, args)
  error(4.5)
end)
function L.NoPosition(agent) error("text without a position", 0) end
L.TaskNoPosition = thicket.task(function(agent, args)
  error("a task's text without a position", 0)
end)
function L.Rethrown(agent)
  local ok, err = pcall(function() local t = nil; return t.x end)
  error(err, 0)  -- keeps the position it was raised with, once
end
function L.Nul(agent) error("before\0after") end
function L.LoadedAs(agent)
  local f = load("local t = nil\nreturn t.x", "@other.lua")
  f()
end
return L
