local L = {}
function L.Broken(agent, args) error("sensor offline") end
return L
