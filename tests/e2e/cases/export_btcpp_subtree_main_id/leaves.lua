local leaves = {}
function leaves.Foo() return "success" end
return leaves
