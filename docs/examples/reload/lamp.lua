local thicket = require("thicket")
local leaves = {}

-- Runs forever; prints a line only when what it has to say changes.
leaves.Glow = {
  start = function(agent, args, mem)
    print("the lamp is switched on")
  end,
  tick = function(agent, args, mem)
    local line = string.format("the lamp glows %s", args.colour)
    if line ~= mem.last then
      print(line)
      mem.last = line
    end
    return thicket.RUNNING
  end,
}

function leaves.on_reload()
  print("lamp.lua was reloaded")
end

return leaves
