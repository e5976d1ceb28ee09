local thicket = require("thicket")
return {Run = function(agent, args) return thicket.RUNNING end}
