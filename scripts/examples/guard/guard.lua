-- Leaves of the guard example. Agent 1 narrates its story on standard output.
local thicket = require("thicket")
local S, F, R = thicket.SUCCESS, thicket.FAILURE, thicket.RUNNING
local leaves = {}

local function say(agent, text)
  if agent.id == 1 then print(string.format("t=%5.1f guard %d %s", thicket.time(), agent.id, text)) end
end

-- A condition: an enemy already in sight, or a new one turning up by chance.
function leaves.SeesEnemy(agent, args)
  if agent.bb.enemy_visible then return true end
  if thicket.random() < args.chance then
    agent.bb.enemy_visible = true
    agent.bb.enemy_hp = thicket.random(20, 60)
    say(agent, string.format("spots an enemy (hp %d, own health %.0f)", agent.bb.enemy_hp, agent.bb.health))
    return true
  end
  return false
end

function leaves.EnemyDead(agent, args)
  return agent.bb.enemy_hp <= 0
end

-- Each tick of the fight both sides trade blows.
leaves.Attack = {
  start = function(agent, args, mem)
    mem.blows = 0
    say(agent, "attacks")
  end,
  tick = function(agent, args, mem)
    mem.blows = mem.blows + 1
    agent.bb.enemy_hp = agent.bb.enemy_hp - args.damage * thicket.random()
    agent.bb.health = agent.bb.health - args.hurt * thicket.random()
    if agent.bb.enemy_hp <= 0 then
      agent.bb.kills = agent.bb.kills + 1
      agent.bb.enemy_visible = false
      say(agent, string.format("kills the enemy after %d blows (kills: %d, health %.0f)", mem.blows, agent.bb.kills,
                               agent.bb.health))
      return S
    end
    return R
  end,
  stop = function(agent, args, mem, status)
    if status == "aborted" then say(agent, string.format("breaks off the attack (health %.0f)", agent.bb.health)) end
  end,
}

-- A coroutine task: run, then recover until healthy; the mood resets however it ends.
leaves.RunAway = thicket.task(function(agent, args)
  local afraid <close> = thicket.defer(function() agent.bb.mood = "calm" end)
  agent.bb.mood = "afraid"
  agent.bb.enemy_visible = false
  say(agent, "runs away")
  thicket.wait(1.0)
  while agent.bb.health < args["until"] do
    agent.bb.health = math.min(100, agent.bb.health + args.heal_per_second * thicket.dt())
    coroutine.yield()
  end
  say(agent, string.format("has recovered (health %.0f)", agent.bb.health))
  return S
end)

leaves.Patrol = {
  start = function(agent, args, mem)
    mem.legs = 0
    say(agent, "patrols")
  end,
  tick = function(agent, args, mem)
    mem.legs = mem.legs + 1
    agent.bb.health = math.min(100, agent.bb.health + 0.2)
    if mem.legs % args.legs_per_report == 0 then say(agent, string.format("patrols on (leg %d)", mem.legs)) end
    return R
  end,
}

return leaves
