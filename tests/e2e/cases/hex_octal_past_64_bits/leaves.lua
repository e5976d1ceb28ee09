local thicket = require("thicket")
return {Show = function(agent, args)
  for _, k in ipairs({"a", "b", "c"}) do print(k, math.type(args[k]), args[k]) end
  return thicket.SUCCESS
end}
