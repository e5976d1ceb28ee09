local leaves = {}
function leaves.show(agent) print(string.format("count=%s seen=%s msg=%s n=%s", agent.bb.count, tostring(agent.bb.seen), agent.bb.msg, agent.bb.n)) return "success" end
return leaves
