local thicket = require("thicket")
return {
  Peck = function(agent, args) return thicket.SUCCESS end,
  ["a b"] = function(agent, args) return thicket.SUCCESS end,
}
