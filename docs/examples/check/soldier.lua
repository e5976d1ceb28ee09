local thicket = require("thicket")
local leaves = {}

-- Scripted changes, one a tick: what the soldier goes through.
local script = {
  [2] = function(bb) bb.mood = "angry" end,
  [3] = function(bb) bb.alert = true; bb.ammo = 3 end,
  [4] = function(bb) bb.ammo = 2 end,
  [5] = function(bb) bb.alert = false; bb.health = 25 end,
}

function leaves.Update(agent, args)
  local change = script[thicket.tick()]
  if change then change(agent.bb) end
  return true
end

function leaves.Say(agent, args)
  local bb = agent.bb
  print(string.format("%d  health=%g ammo=%d alert=%s mood=%s: %s", thicket.tick(), bb.health, bb.ammo,
                      tostring(bb.alert), bb.mood, args.text))
  return true
end

return leaves
