local L = {}
function L.Send(agent) agent:send("go\nnow") agent:send("no\nmap") return "running" end
return L
