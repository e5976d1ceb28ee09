return {Act = function() return true end}
