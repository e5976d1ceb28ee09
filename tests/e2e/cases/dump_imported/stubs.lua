local t = require("thicket")
local n = 0
local function cyc(k) return function() n = n + 1; return ({t.SUCCESS, t.FAILURE, t.RUNNING})[(n + k) % 3 + 1] end end
return { Flip = cyc(0), A = cyc(1), Act = cyc(2), Attack = cyc(0), Run = function() return t.RUNNING end,
  Succeed = function() return t.SUCCESS end, Fail = function() return t.FAILURE end, Cond = function() n = n + 1; return n % 2 == 0 end }
