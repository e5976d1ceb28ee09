return { Idle = function() return "running" end }
