local L = {}
function L.A()
  print(pcall(load("return print ~= nil", "c", "t", nil)))
  print(pcall(load("return print ~= nil", "c", "t")))
  print(load("return 1", "c", "b"))
  print(load("return 1", "c", "x"))
  print(load(string.dump and "" or "return 2", "c", "bt")())
  local env = {y = 3}
  print(load("return y", "c", "t", env)())
  return true
end
return L
