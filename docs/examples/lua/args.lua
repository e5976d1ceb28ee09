local leaves = {}

-- Prints each argument with its Lua type, keys in alphabetical order.
function leaves.ShowArgs(agent, args)
  local keys = {}
  for k in pairs(args) do keys[#keys + 1] = k end
  table.sort(keys)
  for _, k in ipairs(keys) do
    local v = args[k]
    local shown = type(v) == "table" and ("table of " .. #v) or tostring(v)
    print(string.format("%-7s %-8s %-8s %s", k, type(v), math.type(v) or "", shown))
  end
  print("path[3] = " .. args.path[3] .. ", place.y = " .. args.place.y)
  return true
end

return leaves
