return {
  A = function() return require("utils") ~= nil end,
  B = function() return require("util.lua") ~= nil end,
  C = function() return require("Thicket") ~= nil end,
  -- An empty name and one with a NUL are said as such (they said "no file '.lua'", and
  -- searched for "util" up to the NUL).
  D = function() return require("") ~= nil end,
  E = function() return require("util\0x") ~= nil end,
}
