local thicket = require("thicket")
local leaves = {}
function leaves.Watch(agent)
  local ps = {}
  for _, p in ipairs(agent:percepts()) do ps[#ps+1] = p.sense .. ":" .. p.phase .. ":" .. p.id end
  thicket.log(string.format("tick %d sees(2)=%s seen=%s seen_id=%s rem=%s mem_id=%s percepts=%s", thicket.tick(), tostring(agent:sees(2)),
    tostring(agent.bb.seen), tostring(agent.bb.seen_id), tostring(agent.bb.remembered), tostring(agent.bb.memory_id), table.concat(ps, ",")))
  if thicket.tick() == 10 then agent:damage(2, 1000) end
  return "running"
end
function leaves.Sit(agent)
  local ps = {}
  for _, p in ipairs(agent:percepts()) do ps[#ps+1] = p.kind .. ":" .. p.phase .. (p.taken and ":taken" or "") end
  thicket.log(string.format("tick %d health=%s armed=%s kit=%s kits=%s %s", thicket.tick(), tostring(agent.bb.health),
    tostring(agent.bb.armed), agent.bb.kit, math.type(agent.bb.kits) .. " " .. agent.bb.kits, table.concat(ps, ",")))
  return "running"
end
return leaves
