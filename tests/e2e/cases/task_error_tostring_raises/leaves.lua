local thicket = require("thicket")
local L = {}
local Broken = setmetatable({}, {__tostring = function() error("tostring broke") end})
local Said = setmetatable({}, {__tostring = function() return "out of arrows" end})
L.Raise = thicket.task(function(agent, args)
  local done <close> = thicket.defer(function() print("cleanup ran") end)
  thicket.wait(0.05)
  error(Broken)
end)
L.Plain = function() error(Said) end
-- One whose __tostring answers with no text (a number): said so (it was named by its type alone).
L.Numeric = function() error(setmetatable({}, {__tostring = function() return 5 end})) end
return L
