local impl = {Fly = function() return true end}
return setmetatable({}, {__index = impl})
