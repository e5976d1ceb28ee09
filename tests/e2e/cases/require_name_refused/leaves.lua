local L = {}
function L.Try(agent)
  print(require("ai.util").name)
  for _, name in ipairs({"ai..util", "ai/util", ".util", "util.", "../util"}) do
    local ok, message = pcall(require, name)
    print(name, ok, message)
  end
  return true
end
return L
