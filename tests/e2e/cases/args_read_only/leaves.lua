local thicket = require("thicket")
local L = {}
local function try(what, f)
  local ok, err = pcall(f)
  print(what .. ": " .. (ok and "allowed" or tostring(err):gsub("^.-:%d+: ", "")))
end
function L.Tamper(agent, args)
  print("reads: x=" .. args.x .. " #list=" .. #args.list .. " list[2]=" .. args.list[2] .. " map.k=" .. args.map.k)
  local keys = {}
  for k in pairs(args) do keys[#keys + 1] = k end
  table.sort(keys)
  local items = {}
  for _, v in ipairs(args.list) do items[#items + 1] = v end
  print("pairs: " .. table.concat(keys, ",") .. "; ipairs: " .. table.concat(items, ",") ..
        "; concat: " .. table.concat(args.list, "+"))
  try("args.x = 2", function() args.x = 2 end)
  try("args.list[1] = 0", function() args.list[1] = 0 end)
  try("args.map.k = w", function() args.map.k = "w" end)
  try("rawset(args, 'y', 1)", function() rawset(args, "y", 1) end)
  try("rawset(args.map, 'k', 1)", function() rawset(args.map, "k", 1) end)
  try("thicket.SUCCESS = 0", function() thicket.SUCCESS = 0 end)
  try("rawset(thicket, 'SUCCESS', 0)", function() rawset(thicket, "SUCCESS", 0) end)
  print("after: x=" .. args.x .. " list[1]=" .. args.list[1] .. " map.k=" .. args.map.k)
  return thicket.SUCCESS
end
function L.Look(agent, args)
  print("another leaf of the file sees thicket.SUCCESS = " .. tostring(thicket.SUCCESS))
  return thicket.SUCCESS
end
return L
