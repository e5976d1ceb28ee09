#!/usr/bin/env python3
"""The Python module's costs (issue 33), each beside its baseline in the same run:

1. tick_all on 10,000 T31 agents with Lua leaves, called from a Python loop, beside the same
   calls timed inside C++ (no Python between them); goal: within 5%.
2. A 1,000-agent, 600-tick record into numpy arrays (thicket.read_record), beside reading the
   same file's bytes alone (gzip); goal: under 100 ms.

    PYTHONPATH=build/python /usr/bin/python3 bench/bench_python.py [--thicket build/thicket]
"""
import argparse
import os
import statistics
import subprocess
import tempfile
import time

import thicket

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def t31(branches=3):
    """T31: an active selector over three guarded branches (31 nodes), Lua leaves whose results
    follow the tick and the agent id, as bench_t31's."""
    y = "tree: t31\nleaves: [t31.lua]\nroot:\n  active_selector:\n"
    for b in range(branches):
        y += (f"    - sequence:\n        - condition: C{2 * b}\n        - condition: C{2 * b + 1}\n"
              "        - selector:\n" + "".join(f"            - action: A{5 * b + k}\n" for k in range(3)) +
              "        - sequence:\n" + "".join(f"            - action: A{5 * b + k}\n" for k in range(3, 5)))
    lua = 'local thicket = require("thicket")\nlocal S, F, R = thicket.SUCCESS, thicket.FAILURE, thicket.RUNNING\nlocal L = {}\n'
    for j in range(6):
        lua += f"function L.C{j}(agent, args) return (thicket.tick() + agent.id + {j}) & {1 + j % 3} ~= 0 end\n"
    for k in range(15):
        lua += (f"function L.A{k}(agent, args)\n  local v = (((thicket.tick() + agent.id) >> 1) + {k}) & 3\n"
                "  if v == 0 then return R elseif v == 2 then return F else return S end\nend\n")
    return y, lua + "return L\n"


def bench_tick_all(agents=10_000, ticks=50, rounds=7):
    with tempfile.TemporaryDirectory() as d:
        y, lua = t31()
        open(os.path.join(d, "t31.yaml"), "w").write(y)
        open(os.path.join(d, "t31.lua"), "w").write(lua)
        rt = thicket.Runtime(leaf_timeout=0)
        brain = rt.load(os.path.join(d, "t31.yaml"))
        for _ in range(agents):
            rt.spawn(brain)
        rt.tick_all(0.1, times=10)  # warm
        py, cpp = [], []
        for _ in range(rounds):
            t0 = time.perf_counter()
            for _ in range(ticks):
                rt.tick_all(0.1)
            py.append(time.perf_counter() - t0)
            cpp.append(rt._time_tick_all(0.1, ticks))
        per = 1e9 / (agents * ticks)
        p, c = statistics.median(py) * per, statistics.median(cpp) * per
        print(f"tick_all, {agents} T31 Lua agents, {ticks} ticks a round, median of {rounds} rounds:")
        print(f"  from a Python loop   {p:8.1f} ns per agent-tick")
        print(f"  timed inside C++     {c:8.1f} ns per agent-tick (baseline)")
        print(f"  Python / C++         {p / c:8.3f}x   (goal: within 5%, <= 1.050x)")


def bench_record(thicket_bin, rounds=5):
    with tempfile.TemporaryDirectory() as d:
        path = os.path.join(d, "rec.jsonl.gz")
        # The arena with 760 players: 1,000 agents, 600 ticks.
        subprocess.run([thicket_bin, "run", os.path.join(ROOT, "scripts/examples/arena/arena.yaml"), "--quiet",
                        "--ticks", "600", "--set", "groups.players.count=760", "--record", path],
                       check=True, capture_output=True)
        import gzip
        raw, arrays = [], []
        for _ in range(rounds):
            t0 = time.perf_counter()
            with gzip.open(path, "rb") as f:
                data = f.read()
            raw.append(time.perf_counter() - t0)
            t0 = time.perf_counter()
            r = thicket.read_record(path)
            arrays.append(time.perf_counter() - t0)
        print(f"read_record: {r.x.shape[0]} ticks x {r.x.shape[1]} agents, {len(data) / 1e6:.1f} MB of JSON lines "
              f"({os.path.getsize(path) / 1e6:.1f} MB gzip), median of {rounds}:")
        print(f"  into numpy arrays    {statistics.median(arrays) * 1e3:8.1f} ms   (goal: under 100 ms)")
        print(f"  the bytes alone      {statistics.median(raw) * 1e3:8.1f} ms   (baseline: gzip.open().read())")


if __name__ == "__main__":
    ap = argparse.ArgumentParser()
    ap.add_argument("--thicket", default=os.path.join(ROOT, "build", "thicket"))
    args = ap.parse_args()
    bench_tick_all()
    bench_record(args.thicket)
