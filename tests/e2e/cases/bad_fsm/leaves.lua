-- Scripted fsm leaves: every call prints "tick what".
local thicket = require("thicket")
local L = {}
local function p(s) print(thicket.tick() .. " " .. s) end
function L.Enter(agent, args) p("enter " .. args.state) end
function L.Exit(agent, args) p("exit " .. args.state) end
-- reason: returns the transition scripted for this tick, if any
function L.Reason(agent, args)
  local t = args.at and args.at[tostring(thicket.tick())]
  p("reason " .. args.state .. " -> " .. tostring(t))
  return t
end
L.Act = {
  start = function(agent, args, mem) p("start " .. args.id) end,
  tick = function(agent, args, mem) p("tick " .. args.id); return args.result or thicket.RUNNING end,
  stop = function(agent, args, mem, status) p("stop " .. args.id .. " " .. status) end,
}
function L.Bump(agent, args) agent.bb.n = agent.bb.n + 1; p("bump " .. agent.bb.n); return thicket.SUCCESS end
return L
