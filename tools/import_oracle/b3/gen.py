#!/usr/bin/python3
"""Random behavior3 editor exports for the behavior3js 0.2.2 oracle.

usage: gen.py SEED OUTDIR   -> OUTDIR/tree.json, OUTDIR/script.json, OUTDIR/ticks

The helpers (N, export_tree, export_project, write_case) are also used by make_hand.py.
A node is a dict: {"name", "kind": composite|decorator|action|condition|tree,
"props", "children": [...]} (decorators have exactly one child in "children").
"""
import json
import os
import random
import sys

COMPOSITES = ["Sequence", "Priority", "MemSequence", "MemPriority"]
DECORATORS = ["Inverter", "Limiter", "Repeater", "RepeatUntilFailure", "RepeatUntilSuccess"]
BUILTIN_LEAVES = ["Succeeder", "Failer", "Error", "Runner"]
VERSION = "0.3.0"


def N(name, *children, kind=None, **props):
    if kind is None:
        if name in COMPOSITES:
            kind = "composite"
        elif name in DECORATORS:
            kind = "decorator"
        elif name in BUILTIN_LEAVES or name.startswith("A"):
            kind = "action"
        elif name.startswith("C"):
            kind = "condition"
        else:
            kind = "action"
    return {"name": name, "kind": kind, "props": props, "children": list(children)}


def uuid(rng):
    h = "0123456789abcdef"
    s = [rng.choice(h) for _ in range(36)]
    s[14] = "4"
    s[19] = h[(h.index(s[19]) & 0x3) | 0x8]
    s[8] = s[13] = s[18] = s[23] = "-"
    return "".join(s)


def export_tree(root, rng, tree_id=None, title="A behavior tree", custom_nodes=None):
    """Editor-style tree export. Children arrays are in order; display x and y both
    grow with the depth-first order, so sorting siblings by x (vertical layout) or by y
    (horizontal layout), as the editor does on export, gives the same order."""
    nodes = {}
    counter = [0]

    def visit(n, depth):
        nid = uuid(rng)
        idx = counter[0]
        counter[0] += 1
        spec = {
            "id": nid,
            "name": n["name"],
            "category": n["kind"],
            "title": n.get("title") or n["name"],
            "description": "",
            "properties": dict(n["props"]),
            "display": {"x": depth * 220 + idx * 2, "y": idx * 80},
        }
        nodes[nid] = spec
        kids = [visit(c, depth + 1) for c in n["children"]]
        if n["kind"] == "composite":
            spec["children"] = kids
        elif n["kind"] == "decorator" and kids:
            spec["child"] = kids[0]
        return nid

    root_id = visit(root, 1) if root is not None else None
    data = {
        "version": VERSION,
        "scope": "tree",
        "id": tree_id or uuid(rng),
        "title": title,
        "description": "",
        "root": root_id,
        "properties": {},
        "nodes": nodes,
        "display": {"camera_x": 0, "camera_y": 0, "camera_z": 1, "x": 0, "y": 0},
    }
    if custom_nodes is not None:
        data["custom_nodes"] = custom_nodes
    return data


def custom_nodes_for(script):
    return [{"version": VERSION, "scope": "node", "name": name, "category": script[name]["kind"],
             "title": name, "description": "", "properties": {}}
            for name in sorted(script)]


def export_project(main_tree, sub_trees, script):
    """main_tree/sub_trees: exported trees (no custom_nodes)."""
    trees = [main_tree] + list(sub_trees)
    return {"version": VERSION, "scope": "project", "selectedTree": main_tree["id"],
            "trees": trees, "custom_nodes": custom_nodes_for(script)}


def write_case(outdir, tree, script, ticks):
    os.makedirs(outdir, exist_ok=True)
    with open(os.path.join(outdir, "tree.json"), "w") as f:
        json.dump(tree, f, indent=2)
        f.write("\n")
    with open(os.path.join(outdir, "script.json"), "w") as f:
        json.dump({k: script[k] for k in sorted(script)}, f, indent=2)
        f.write("\n")
    with open(os.path.join(outdir, "ticks"), "w") as f:
        f.write("%d\n" % ticks)


class Gen:
    def __init__(self, rng):
        self.rng = rng
        self.script = {}
        self.na = 0
        self.nc = 0

    def statuses(self, alphabet, weights):
        """1-4 statuses; a list of length >= 2 mixes at least two different statuses
        (a constant leaf early in a composite would hide the rest of the tree)."""
        rng = self.rng
        if rng.random() < 0.1:
            return [rng.choices(alphabet, weights=weights)[0]]
        k = rng.randint(2, 4)
        while True:
            seq = [rng.choices(alphabet, weights=weights)[0] for _ in range(k)]
            if len(set(seq)) > 1:
                return seq

    def leaf(self):
        r = self.rng.random()
        if r < 0.015:
            return N("Runner")
        if r < 0.03:
            return N("Error")
        if r < 0.045:
            return N("Succeeder")
        if r < 0.06:
            return N("Failer")
        # sometimes reuse an existing custom leaf name (shared counter)
        if self.script and self.rng.random() < 0.12:
            name = self.rng.choice(sorted(self.script))
            return N(name, kind=self.script[name]["kind"])
        if self.rng.random() < 0.3:
            self.nc += 1
            name = "C%d" % self.nc
            self.script[name] = {"kind": "condition", "statuses": self.statuses("SF", [1, 1])}
            return N(name, kind="condition")
        self.na += 1
        name = "A%d" % self.na
        self.script[name] = {"kind": "action", "statuses": self.statuses("SFR", [40, 30, 30])}
        return N(name, kind="action")

    def node(self, budget):
        """A subtree of exactly `budget` nodes."""
        rng = self.rng
        if budget <= 1:
            return self.leaf()
        if budget == 2 or rng.random() < 0.25:
            name = rng.choice(DECORATORS)
            props = {}
            if name != "Inverter":
                props["maxLoop"] = rng.randint(1, 3)
            return N(name, self.node(budget - 1), **props)
        name = rng.choice(COMPOSITES)
        rest = budget - 1
        k = rng.randint(1, min(4, rest))
        # split rest into k positive parts
        cuts = sorted(rng.sample(range(1, rest), k - 1)) if k > 1 else []
        parts = [b - a for a, b in zip([0] + cuts, cuts + [rest])]
        return N(name, *[self.node(p) for p in parts])


def leaves_of(n, acc):
    if not n["children"]:
        acc.append(n)
    for c in n["children"]:
        leaves_of(c, acc)
    return acc


def generate(seed):
    rng = random.Random(seed)
    g = Gen(rng)
    ticks = rng.randint(8, 20)
    if rng.random() < 0.25:
        total = rng.randint(5, 25)
        sub_size = rng.randint(2, total - 3)
        main_size = total - sub_size + 1  # one leaf becomes the reference
        main_root = g.node(main_size)
        while not main_root["children"]:
            main_root = g.node(main_size)
        sub_root = g.node(sub_size)
        sub_id = uuid(rng)
        ref = rng.choice(leaves_of(main_root, []))
        ref.clear()
        ref.update({"name": sub_id, "kind": "tree", "props": {}, "children": [],
                    "title": "Subtree"})
        sub = export_tree(sub_root, rng, tree_id=sub_id, title="Subtree")
        main = export_tree(main_root, rng, title="Main")
        used = set()
        for t in (main, sub):
            used |= {s["name"] for s in t["nodes"].values()}
        script = {k: v for k, v in g.script.items() if k in used}
        return export_project(main, [sub], script), script, ticks
    total = rng.randint(3, 25)
    root = g.node(total)
    tree = export_tree(root, rng, title="Random")
    used = {s["name"] for s in tree["nodes"].values()}
    script = {k: v for k, v in g.script.items() if k in used}
    tree["custom_nodes"] = custom_nodes_for(script)
    return tree, script, ticks


def main():
    if len(sys.argv) != 3:
        sys.stderr.write("usage: gen.py SEED OUTDIR\n")
        sys.exit(2)
    seed = int(sys.argv[1])
    tree, script, ticks = generate(seed)
    write_case(sys.argv[2], tree, script, ticks)


if __name__ == "__main__":
    main()
