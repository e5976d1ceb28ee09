local thicket = require("thicket")
local L = {}
local function forever() while true do end end
function L.ResumeLoop()
  for i = 1, 3 do
    local ok, err = coroutine.resume(coroutine.create(forever))
    print("resume", i, ok, err)
  end
  return thicket.SUCCESS
end
function L.WrapLoop()
  for i = 1, 3 do
    print("wrap", i, pcall(coroutine.wrap(forever)))
  end
  return thicket.SUCCESS
end
return L
