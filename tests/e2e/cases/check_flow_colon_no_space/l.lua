return { P = function(a, args) print("x=", args.x) return "success" end, Attack = function() return "success" end }
