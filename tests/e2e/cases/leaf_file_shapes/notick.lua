local L = {}
L.OnlyStop = { stop = function() end }
L.Empty = {}
L.ArgsOnly = { args = { x = "number" } }
L.Misnamed = { tik = function() return "success" end }
L.Fine = { tick = function() return "success" end }
L.AlsoEmpty = {}
L.BadArgs = { args = { x = "bogus" }, start = function() end }
return L
