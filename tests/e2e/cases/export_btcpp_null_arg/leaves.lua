local thicket = require("thicket")
return {Hit = function(agent, args) return true end}
