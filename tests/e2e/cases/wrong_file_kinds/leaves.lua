local thicket = require("thicket")
return {Nap = function() return thicket.SUCCESS end}
