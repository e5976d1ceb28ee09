return {
  A = function() return require("utils") ~= nil end,
  B = function() return require("util.lua") ~= nil end,
  C = function() return require("Thicket") ~= nil end,
}
