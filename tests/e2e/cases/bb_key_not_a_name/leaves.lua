-- Blackboard keys that are no names: a table or a boolean is said by its type (a table was said
-- by its address, which changes from run to run), nan as nan (printf wrote -nan).
local L={}
function L.A(agent) return agent.bb[{}] end
function L.B(agent) return agent.bb[0/0] end
function L.C(agent) agent.bb[true] = 1 end
return L
