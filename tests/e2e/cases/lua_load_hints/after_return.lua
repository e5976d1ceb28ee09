local t = {}
return t
function t.A() return true end
