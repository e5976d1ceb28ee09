local L = {}
function L.A(agent, args)
  return thicket.SUCCESS
end end
return L
