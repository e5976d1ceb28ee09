local u = require("util")
return { Patrol = function() return u.x end }
