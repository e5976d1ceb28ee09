local leaves = {}
function leaves.Show(agent, args)
  print(string.format("x=%s (%s) y=%s (%s)", tostring(args.x), type(args.x), tostring(args.y), type(args.y)))
  return "success"
end
return leaves
