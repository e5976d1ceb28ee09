local t = {}
function t.Hit() return true end
function t.Run() return true end
return t
