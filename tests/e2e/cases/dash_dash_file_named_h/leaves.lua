local L = {}
function L.Hello(agent) print("hello from the file named -h") return true end
return L
