local L = {}
function L.Loop(agent, args)
  while true do end   -- never returns
end
return L
