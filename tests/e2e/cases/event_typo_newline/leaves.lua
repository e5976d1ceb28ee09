local l = {}
function l.S(agent) agent:send("go\nnoe") return "running" end
return l
