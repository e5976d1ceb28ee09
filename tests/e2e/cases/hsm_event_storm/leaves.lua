-- Scripted HSM leaves: every call prints "tick what"; args script results, sends and truths per tick.
local thicket = require("thicket")
local L = {}
local function p(s) print(thicket.tick() .. " " .. s) end
function L.Enter(agent, args) p("enter " .. args.state); if args.send then agent:send(args.send) end end
function L.Exit(agent, args) p("exit " .. args.state) end
function L.Reason(agent, args)
  local t = args.at and args.at[tostring(thicket.tick())]
  p("reason " .. args.state .. " -> " .. tostring(t))
  return t
end
function L.Cond(agent, args)
  local v = args.at and args.at[tostring(thicket.tick())] or args.default or false
  p("cond " .. args.id .. " " .. tostring(v))
  return v
end
L.Act = {
  start = function(agent, args, mem) p("start " .. args.id) end,
  tick = function(agent, args, mem)
    local s = args.sends and args.sends[tostring(thicket.tick())]
    if s then agent:send(s) end
    local r = args.results and args.results[tostring(thicket.tick())]
    p("tick " .. args.id .. " " .. tostring(r or "running"))
    if r == "success" then return thicket.SUCCESS elseif r == "failure" then return thicket.FAILURE end
    return thicket.RUNNING
  end,
  stop = function(agent, args, mem, status) p("stop " .. args.id .. " " .. status) end,
}
return L
