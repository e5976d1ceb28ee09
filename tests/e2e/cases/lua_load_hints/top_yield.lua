coroutine.yield()
return {B = function() return true end}
