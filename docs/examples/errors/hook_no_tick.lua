return { Jump = { start = function() end } }
