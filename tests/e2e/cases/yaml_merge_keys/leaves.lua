local thicket = require("thicket")
local L = {}
function L.Say(agent, args)
  print(args.who .. ": " .. string.rep(args.text, args.times, " "))
  return thicket.SUCCESS
end
return L
