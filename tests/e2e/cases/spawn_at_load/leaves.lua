local thicket = require("thicket")
thicket.spawn("mod")
return { A = function() return true end }
