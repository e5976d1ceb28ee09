local t = require("thicket")
local L = {}
local k = 0
local seq = {0.30000000000000004, 0.3, 0.3000001}
function L.W(agent) k = k + 1; agent.bb.n = seq[(k - 1) % 3 + 1]; print(t.tick() .. " W"); return "success" end
function L.Hit(agent) print(t.tick() .. " Hit"); return "success" end
function L.Miss(agent) print(t.tick() .. " Miss"); return "success" end
return L
