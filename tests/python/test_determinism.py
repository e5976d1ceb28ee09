"""A run's results and its snapshots are the same bytes in every process: Lua 5.4 seeds its
string hashes from the clock and from addresses, which changed the order pairs walked a table
in and the order a snapshot wrote a table's keys in. Run as test_thicket.py is."""
import subprocess
import sys

BRAIN = """
tree: keep
leaves: [keep.lua]
blackboard:
  order: ""
root:
  action: Keep
"""
LEAVES = """
local thicket = require("thicket")
local leaves = {}
leaves.Keep = thicket.task(function(agent)
  local seen = {}
  for _, n in ipairs({"wolf", "bear", "fox", "owl", "lynx", "boar", "hare", "crow", "stag", "mole"}) do seen[n] = #n end
  agent.seen = seen  -- saved in snapshots
  local order = {}
  for k in pairs(seen) do order[#order + 1] = k end
  agent.bb.order = table.concat(order, ",")
  while true do thicket.wait(1) end
end)
return leaves
"""
CHILD = """
import hashlib, sys, thicket
rt = thicket.Runtime(seed=3)
b = rt.load(sys.argv[1])
a = rt.spawn(b)
rt.tick_all(0.1, times=3)
print(rt.blackboard(a)["order"], hashlib.sha256(rt.save()).hexdigest())
"""


def test_pairs_and_snapshots_are_the_same_in_every_process(tmp_path):
    (tmp_path / "keep.yaml").write_text(BRAIN)
    (tmp_path / "keep.lua").write_text(LEAVES)
    outs = {subprocess.run([sys.executable, "-c", CHILD, str(tmp_path / "keep.yaml")], capture_output=True, text=True,
                           check=True).stdout for _ in range(4)}
    assert len(outs) == 1, outs
    assert outs.pop().startswith("bear,boar,crow,fox,hare,lynx,mole,owl,stag,wolf ")
