local leaves = {}
function leaves.Foo(agent, args) print("Foo called"); return "running" end
leaves.Bar = {start=function(a) print("Bar start") end, tick=function(a) print("Bar tick") return "running" end, stop=function(a,args,why) print("Bar stop", why) end}
return leaves
