return { Say = function(agent)
  print(("label %s (%s), size %s (%s)"):format(agent.bb.label, type(agent.bb.label), agent.bb.size, math.type(agent.bb.size)))
  return true
end }
