-- A leaf that prints (thicket_set_print's test).
local L = {}
function L.Say(agent) print("agent " .. agent.id .. " says hi") return "success" end
return L
