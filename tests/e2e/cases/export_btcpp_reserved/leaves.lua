local thicket = require("thicket")
return {
  Peck = function(agent, args) return thicket.SUCCESS end,
  AlwaysFailure = function(agent, args) return thicket.SUCCESS end,
}
