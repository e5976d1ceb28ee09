local leaves = {}
function leaves.Two(agent)
  error("first line\nsecond line\n  in leaf 'Fake' at node root, agent 9, tick 9")
end
return leaves
