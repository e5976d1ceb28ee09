-- Scripted leaves that print every call they get, so a run shows exactly what the tree did.
-- Each line starts with the tick number.
local thicket = require("thicket")
local leaves = {}

local function say(fmt, ...)
  print(string.format("%2d  " .. fmt, thicket.tick(), ...))
end

-- A condition with a scripted answer: true on the ticks listed in args.on, else args.value
-- (false when omitted).
function leaves.Cond(agent, args)
  local result = args.value or false
  for _, t in ipairs(args.on or {}) do
    if t == thicket.tick() then result = true end
  end
  say("eval  %s -> %s", args.id, tostring(result))
  return result
end

-- An action with scripted results: the n-th tick of a run returns args.script[n], the last
-- entry repeating. "S" is success, "F" failure, "R" running.
local STATUS = { S = thicket.SUCCESS, F = thicket.FAILURE, R = thicket.RUNNING }
leaves.Act = {
  start = function(agent, args, mem)
    mem.n = 0
    say("start %s", args.id)
  end,
  tick = function(agent, args, mem)
    mem.n = mem.n + 1
    local status = STATUS[args.script[math.min(mem.n, #args.script)]]
    say("tick  %s -> %s", args.id, status)
    return status
  end,
  stop = function(agent, args, mem, status)
    say("stop  %s (%s)", args.id, status)
  end,
}

return leaves
