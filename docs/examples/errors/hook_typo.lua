local thicket = require("thicket")
return { Walk = { start = function() end, tik = function() return thicket.RUNNING end } }
