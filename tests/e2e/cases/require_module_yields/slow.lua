local M = {x = true}
coroutine.yield()
return M
