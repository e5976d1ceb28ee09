local thicket = require("thicket")
return { Patrol = function() return thicket.RUNNING end }
