-- Mistakes that used to hang or silently break a run (issue 10): each is stopped or reported,
-- and the run goes on.
local thicket = require("thicket")
local leaves = {}

function leaves.Chop(agent, args)
  local n = 0
  while agent.bb.wood < 10 do n = n + 1 end  -- wood never grows: an endless loop
  return thicket.SUCCESS
end

function leaves.Hoard(agent, args)
  local pile = {}
  for i = 1, math.huge do pile[i] = string.rep("log", 100000) .. i end  -- never stops allocating
end

function leaves.Typo(agent, args)
  return thicket.SUCESS  -- misspelt: an error with a did-you-mean, not a silent nil
end

function leaves.Count(agent, args)
  return 3
end

function leaves.Almost(agent, args)
  return "succes"
end

function leaves.Report(agent, args)
  print(thicket.tick() .. " still running")
  return true
end

return leaves
