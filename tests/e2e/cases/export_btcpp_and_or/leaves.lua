local l = {}
function l.Show() return true end
return l
