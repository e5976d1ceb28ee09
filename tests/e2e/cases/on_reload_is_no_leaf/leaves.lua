return {on_reload = function() return true end}
