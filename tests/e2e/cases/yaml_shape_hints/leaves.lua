local t = {}
function t.A() return true end
function t.B() return true end
return t
