local thicket = require("thicket")
local L = {}
local Loop = setmetatable({}, {__tostring = function() local i = 0; while true do i = i + 1 end end})
L.Raise = thicket.task(function(agent, args)
  local done <close> = thicket.defer(function() print("cleanup ran") end)
  thicket.wait(0.05)
  error(Loop)
end)
L.Plain = function() error(Loop) end
return L
