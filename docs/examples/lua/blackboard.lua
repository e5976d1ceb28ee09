local leaves = {}

function leaves.Show(agent, args)
  local bb = agent.bb
  print(bb.health, bb.ammo, bb.alert, bb.mood, bb.target)
  bb.health = 75
  bb.ammo = 5.0                          -- an integral float is accepted for an integer key
  bb.target = {name = "wolf", x = 3}     -- any Lua value
  print(bb.health, bb.ammo, math.type(bb.ammo), bb.target.name)
  bb.alert = nil                         -- wrong type: a Lua error
  return true
end

return leaves
