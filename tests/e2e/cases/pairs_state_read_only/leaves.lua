local thicket = require("thicket")
local leaves = {}
function leaves.Tamper(agent, args)
  local keys = {}
  for k in pairs(args) do keys[#keys + 1] = k end
  print("keys " .. table.concat(keys, " "))
  local _, state = pairs(args)
  print(select(2, pcall(function() state.n = 42 end)))
  print(select(2, pcall(function() rawset(state, "n", 43) end)))
  local _, inner = pairs(args.list)
  print(select(2, pcall(function() inner[1] = 99 end)))
  local _, module = pairs(thicket)
  print(select(2, pcall(function() module.SUCCESS = "failure" end)))
  return true
end
function leaves.Look(agent, args)
  print("agent " .. agent.id .. ": n = " .. args.n .. ", list[1] = " .. args.list[1] .. ", SUCCESS = " .. thicket.SUCCESS)
  return true
end
return leaves
