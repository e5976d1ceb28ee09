return {Walk = function() return true end}
