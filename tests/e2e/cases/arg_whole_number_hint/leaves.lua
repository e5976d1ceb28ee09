local L = {}
L.Work = {args = {count = "integer"}, fn = function(agent, args) return "success" end}
return L
