local thicket = require("thicket")
return { Run = function() return thicket.RUNNING end }
