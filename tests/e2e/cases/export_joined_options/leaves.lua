local thicket = require("thicket")
return {
  Mail = function(agent, args) return thicket.SUCCESS end,
}
