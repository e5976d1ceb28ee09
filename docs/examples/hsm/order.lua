-- enter and exit leaves that print the state's name (given in args).
local thicket = require("thicket")
local leaves = {}
function leaves.In(agent, args) print(string.format("%2d    enter %s", thicket.tick(), args.s)) end
function leaves.Out(agent, args) print(string.format("%2d    exit  %s", thicket.tick(), args.s)) end
return leaves
