-- Scripted leaves for the HSM reference-model comparison (tests/hsm_model).
-- Every call prints "TICK what"; what a leaf does on tick K is scripted by its args,
-- keyed by tostring(K). model.py mirrors these leaves exactly.
--   send = {["K"] = {"e1", ...}}  events sent with agent:send, in order, on tick K
--   bump = {["K"] = true}         blackboard n += 1 on tick K (before the sends)
--   at   = {["K"] = value}        Reason: the name returned; Cond: true on tick K
--   r    = {["K"] = "s" | "f"}    Act: success / failure on tick K, else running
local thicket = require("thicket")
local L = {}
local function p(s) print(thicket.tick() .. " " .. s) end
local function key() return tostring(thicket.tick()) end

local function effects(agent, args)
  if args.bump and args.bump[key()] then
    agent.bb.n = agent.bb.n + 1
    p("bump " .. agent.bb.n)
  end
  local s = args.send and args.send[key()]
  if s then
    for _, e in ipairs(s) do
      p("send " .. e)
      agent:send(e)
    end
  end
end

function L.Enter(agent, args) p("enter " .. args.s); effects(agent, args) end
function L.Exit(agent, args) p("exit " .. args.s); effects(agent, args) end

function L.Reason(agent, args)
  local t = args.at and args.at[key()]
  p("reason " .. args.s .. " -> " .. tostring(t))
  effects(agent, args)
  return t
end

L.Act = {
  start = function(agent, args, mem) p("start " .. args.id) end,
  tick = function(agent, args, mem)
    p("tick " .. args.id)
    effects(agent, args)
    local r = args.r and args.r[key()]
    if r == "s" then return thicket.SUCCESS end
    if r == "f" then return thicket.FAILURE end
    return thicket.RUNNING
  end,
  stop = function(agent, args, mem, status) p("stop " .. args.id .. " " .. status) end,
}

-- a plain (hook-less) action: prints, then succeeds
function L.Step(agent, args) p("step " .. args.id); effects(agent, args); return thicket.SUCCESS end

function L.Cond(agent, args)
  local v = (args.at and args.at[key()]) and true or false
  p("cond " .. args.id .. " -> " .. tostring(v))
  return v
end

-- bare-name leaves (no args)
function L.Yes(agent) p("yes"); return true end
function L.No(agent) p("no"); return false end
function L.Hello(agent) p("hello") end

return L
