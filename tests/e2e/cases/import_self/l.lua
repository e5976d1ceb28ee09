return { Run = function() return "running" end }
