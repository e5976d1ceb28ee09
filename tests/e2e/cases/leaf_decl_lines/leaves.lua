-- Mistakes in a leaf file's declarations: each error names its line and column.
local thicket = require("thicket")
local L = {}

L.Go = {
  args = {n = "number", s = "strin"},
  tick = function(agent, args) return thicket.SUCCESS end,
}

L.Hooked = {
  start = function(agent) end,
  tik = function(agent) return thicket.RUNNING end,
}

L.Broken = {
  stop = 5,
  tick = function() return thicket.SUCCESS end,
}

L.Both = {
  fn = function() return thicket.SUCCESS end,
  tick = function() return thicket.SUCCESS end,
}

L.Nothing = {
  args = "number",
}

return L
