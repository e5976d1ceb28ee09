local m = require("bmod"); return {A=function() print(m.v) return true end}
