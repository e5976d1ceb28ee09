local thicket = require("thicket")
return {
  Show = function(agent, args)
    local keys = {}
    for k, v in pairs(args.m) do keys[#keys + 1] = type(k) .. " " .. k .. "=" .. v end
    table.sort(keys)
    print(table.concat(keys, ", "), math.type(args.f), args.f)
    return thicket.SUCCESS
  end,
}
