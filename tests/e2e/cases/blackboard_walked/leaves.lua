local leaves = {}
function leaves.Listed(agent)
  for _, v in ipairs(agent.bb) do print(v) end
end
function leaves.Walked(agent)
  for k, v in pairs(agent.bb) do print(k, v) end
end
return leaves
