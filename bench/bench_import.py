#!/usr/bin/env python3
"""`thicket import` of a 1,000-node file (issue 30; goal: under 50 ms), beside its baselines in
the same run: the process alone (`thicket --version`) and loading the imported brain as YAML
(`thicket check`). Whole processes, wall clock, the median of 15 runs each.

    /usr/bin/python3 bench/bench_import.py [--thicket build/thicket]
"""
import argparse
import json
import os
import random
import statistics
import subprocess
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def btcpp_tree(nodes, rng):
    """A BT.CPP 4 file of about `nodes` nodes: composites and decorators over leaves."""
    count = [0]
    leaves = []

    def node(depth):
        count[0] += 1
        if count[0] >= nodes or depth > 8 or (depth > 2 and rng.random() < 0.45):
            name = "L%d" % len(leaves)
            leaves.append(name)
            return '<%s speed="1.5" target="{goal}"/>' % name if rng.random() < 0.5 else '<Action ID="%s"/>' % name
        kind = rng.choice(["Sequence", "Fallback", "ReactiveSequence", "Parallel", "Inverter", "Repeat"])
        if kind == "Inverter":
            return "<Inverter>%s</Inverter>" % node(depth + 1)
        if kind == "Repeat":
            return '<Repeat num_cycles="3">%s</Repeat>' % node(depth + 1)
        kids = "".join(node(depth + 1) for _ in range(rng.randint(2, 5)))
        return "<%s>%s</%s>" % (kind, kids, kind)

    body = ""
    while count[0] < nodes:
        body += node(0)
    model = "".join('<Action ID="%s"/>' % l for l in leaves)
    xml = ('<root BTCPP_format="4" main_tree_to_execute="Big"><BehaviorTree ID="Big"><Sequence>%s</Sequence>'
           "</BehaviorTree><TreeNodesModel>%s</TreeNodesModel></root>" % (body, model))
    return xml, leaves, count[0]


def b3_tree(nodes, rng):
    """A behavior3 editor export of `nodes` nodes."""
    tree = {"scope": "tree", "id": "big", "title": "big", "root": "n0", "nodes": {}, "custom_nodes": []}
    leaves = []
    pending = ["n0"]
    made = 0
    while pending:
        nid = pending.pop(0)
        made += 1
        room = nodes - made - len(pending)
        if room >= 3 and (made < 3 or rng.random() < 0.5):
            kind = rng.choice(["Sequence", "Priority", "MemSequence", "MemPriority"])
            kids = ["n%d" % (made + len(pending) + k) for k in range(rng.randint(2, min(4, room)))]
            pending += kids
            tree["nodes"][nid] = {"id": nid, "name": kind, "children": kids, "properties": {}}
        else:
            name = "L%d" % len(leaves)
            leaves.append(name)
            tree["nodes"][nid] = {"id": nid, "name": name, "properties": {"range": 8}}
            tree["custom_nodes"].append({"name": name, "category": "action"})
    return json.dumps(tree), leaves, made


def median_ms(cmd, cwd, runs=15):
    times = []
    for _ in range(runs):
        t = time.perf_counter()
        r = subprocess.run(cmd, cwd=cwd, capture_output=True)
        times.append((time.perf_counter() - t) * 1000)
        if r.returncode not in (0,):
            raise SystemExit("%s failed: %s" % (" ".join(cmd), r.stderr.decode()))
    return statistics.median(times)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--thicket", default=os.path.join(ROOT, "build", "thicket"))
    args = ap.parse_args()
    thicket = os.path.abspath(args.thicket)
    rng = random.Random(30)
    with tempfile.TemporaryDirectory() as work:
        base = median_ms([thicket, "--version"], work)
        print("thicket import, 1,000-node files (median of 15 runs, whole process)")
        print("%-34s %10s" % ("", "ms"))
        print("%-34s %10.1f" % ("baseline: thicket --version", base))
        for fmt, make in (("xml", btcpp_tree), ("json", b3_tree)):
            text, leaves, nodes = make(1000, rng)
            src = os.path.join(work, "big." + fmt)
            with open(src, "w") as f:
                f.write(text)
            with open(os.path.join(work, "big.lua"), "w") as f:
                f.write("local l = {}\n" + "".join("function l.%s() return true end\n" % n for n in leaves) + "return l\n")
            imp = median_ms([thicket, "import", src, "--leaves", "big.lua", "-o", "big_%s.yaml" % fmt], work)
            check = median_ms([thicket, "check", "big_%s.yaml" % fmt], work)
            label = "BehaviorTree.CPP XML" if fmt == "xml" else "behavior3 JSON"
            print("%-34s %10.1f   (%d nodes, %d KB)" % ("import " + label, imp, nodes, len(text) // 1024))
            print("%-34s %10.1f" % ("  beside: thicket check of its YAML", check))


if __name__ == "__main__":
    main()
