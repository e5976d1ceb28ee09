return { Why = function() return "fleeing" end }
