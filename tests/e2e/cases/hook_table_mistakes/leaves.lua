local thicket = require("thicket")
return {
  Hit = { args = { damage = "number?" }, function(agent, args) return true end },
  Walk = { tick = thicket.task(function(agent) return true end) },
}
