-- Leaves of the NPC example (an FSM after the FSMState/AdvancedFSM framework). The player walks toward the NPC, lingers,
-- then runs off; the NPC narrates on standard output (agent 1 only).
local thicket = require("thicket")
local leaves = {}

local function say(agent, text)
  if agent.id == 1 then print(string.format("t=%5.1f npc %d %s", thicket.time(), agent.id, text)) end
end

-- The player's position along x as a function of time: in at 2 m/s, a pause, out at 4 m/s.
local function update_player(agent)
  local t = thicket.time() % 40
  local px
  if t < 12 then px = 30 - 2 * t elseif t < 20 then px = 6 else px = 6 + 4 * (t - 20) end
  agent.bb.player_x = px
  agent.bb.distance = math.abs(px - agent.bb.x)
end

function leaves.Say(agent, args) say(agent, args.text) end

-- Reasons: return a transition name, or nil to stay.
function leaves.Spot(agent, args)
  update_player(agent)
  if agent.bb.distance < args.sight then return "saw_player" end
end

function leaves.Track(agent, args)
  update_player(agent)
  if agent.bb.distance > args.lose then return "lost_player" end
  if agent.bb.distance <= args.reach then return "in_range" end
end

-- Acts: actions, restarted each tick they finish while the state stays.
leaves.Patrol = {
  start = function(agent, args, mem) mem.dir = mem.dir or 1 end,
  tick = function(agent, args, mem)
    local bb = agent.bb
    agent.patrol_dir = agent.patrol_dir or 1
    bb.x = bb.x + agent.patrol_dir * args.speed * thicket.dt()
    if bb.x > args.to then agent.patrol_dir = -1 elseif bb.x < args["from"] then agent.patrol_dir = 1 end
    return thicket.RUNNING
  end,
}

function leaves.Chase(agent, args)
  local bb = agent.bb
  local step = args.speed * thicket.dt()
  if bb.player_x > bb.x then bb.x = math.min(bb.player_x, bb.x + step) else bb.x = math.max(bb.player_x, bb.x - step) end
  return thicket.RUNNING
end

function leaves.Shoot(agent, args)
  update_player(agent)
  agent.bb.shots = agent.bb.shots + 1
  say(agent, string.format("shoots (shot %d, player %.1f m away)", agent.bb.shots, agent.bb.distance))
  return thicket.SUCCESS
end

return leaves
