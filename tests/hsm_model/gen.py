#!/usr/bin/env python3
"""Random hierarchical fsm brains for the HSM model comparison (seeded, deterministic).

gen_brain(rng) returns the brain as a dict; write it with json.dumps (YAML parses JSON).
Leaves come from tests/hsm_model/leaves.lua.

Usage: gen.py SEED [--ticks N]   prints one brain (JSON) on stdout.
"""
import json
import random
import sys

EVENTS = ["e1", "e2", "e3"]           # sent by leaves
UNMAPPED = "e9"                       # sent, never mapped
REASONS = ["r1", "r2"]                # returned by reasons
RUNTIME = ["success", "failure", "done"]
EXPR_K = range(0, 5)


class Gen:
    def __init__(self, rng, ticks=12):
        self.r = rng
        self.ticks = ticks
        self.nstate = 0
        self.nact = 0
        self.ncond = 0
        self.names = []               # all state names, in file order
        self.parent = {}
        self.kids = {}
        self.final = set()
        self.trees = {}

    # ---------------------------------------------------------------- helpers
    def p(self, x):
        return self.r.random() < x

    def sched(self, prob, value=True):
        return {str(k): value for k in range(1, self.ticks + 1) if self.p(prob)}

    def sends(self, prob):
        d = {}
        for k in range(1, self.ticks + 1):
            if self.p(prob):
                n = 1 if self.p(0.8) else 2
                d[str(k)] = [self.r.choice(EVENTS + EVENTS + [UNMAPPED]) for _ in range(n)]
        return d

    def effects(self, args, psend=0.12, pbump=0.1):
        s = self.sends(psend)
        if s:
            args["send"] = s
        b = self.sched(pbump)
        if b:
            args["bump"] = b
        return args

    def expr(self):
        r = self.r
        k = r.choice(list(EXPR_K))
        form = r.randrange(6)
        if form == 0:
            return "n >= %d" % k
        if form == 1:
            return "n < %d" % k
        if form == 2:
            return "n == %d" % k
        if form == 3:
            return "not (n == %d)" % k
        if form == 4:
            return "(n >= %d) and (n < %d)" % (k, k + r.randint(1, 3))
        return "(n == %d) or (n >= %d)" % (k, k + r.randint(1, 3))

    def cond_leaf(self, ptrue=0.5):
        """A condition value for condition: — mostly the scripted Cond."""
        x = self.r.random()
        if x < 0.1:
            return self.r.choice(["Yes", "No"])
        if x < 0.18:
            c = {"check": self.expr()}
            if self.p(0.3):
                c["negate"] = True
            return c
        self.ncond += 1
        c = {"leaf": "Cond", "args": {"id": "c%d" % self.ncond, "at": self.sched(ptrue)}}
        if self.p(0.15):
            c["negate"] = True
        return c

    def guard(self, ptrue=0.5):
        """{check: ...} or {condition: ...} (enter_if, transition guards)."""
        if self.p(0.5):
            return {"check": self.expr()}
        return {"condition": self.cond_leaf(ptrue)}

    def act_args(self):
        self.nact += 1
        a = {"id": "a%d" % self.nact}
        r = {}
        for k in range(1, self.ticks + 1):
            x = self.r.random()
            if x < 0.22:
                r[str(k)] = "s"
            elif x < 0.32:
                r[str(k)] = "f"
        if r:
            a["r"] = r
        return self.effects(a, 0.12, 0.12)

    def tree_node(self, depth=0):
        x = self.r.random()
        if depth < 1 and x < 0.2:
            kind = "sequence" if self.p(0.6) else "selector"
            return {kind: [self.tree_node(depth + 1) for _ in range(self.r.randint(1, 3))]}
        if x < 0.55:
            return {"action": {"leaf": "Act", "args": self.act_args()}}
        if x < 0.75:
            self.nact += 1
            return {"action": {"leaf": "Step", "args": self.effects({"id": "p%d" % self.nact}, 0.1, 0.1)}}
        if x < 0.8:
            return {"condition": {"check": self.expr()}}
        self.ncond += 1
        return {"condition": {"leaf": "Cond", "args": {"id": "c%d" % self.ncond, "at": self.sched(0.6)}}}

    def tree(self):
        kind = "sequence" if self.p(0.7) else "selector"
        root = {kind: [self.tree_node(1) if self.p(0.8) else self.tree_node(0)
                       for _ in range(self.r.randint(1, 3))]}
        if self.p(0.25):
            name = "t%d" % (len(self.trees) + 1)
            self.trees[name] = root
            return name
        return root

    # ---------------------------------------------------------------- structure
    def structure(self, parent, depth, maxdepth):
        n = self.r.randint(2, 4)
        out = []
        for _ in range(n):
            self.nstate += 1
            name = "s%d" % self.nstate
            self.names.append(name)
            self.parent[name] = parent
            self.kids[name] = []
            out.append(name)
            if depth + 1 < maxdepth and self.p([0.55, 0.45, 0.35, 0.3][depth]):
                self.kids[name] = self.structure(name, depth + 1, maxdepth)
            elif self.p(0.12 if parent is not None else 0.07):
                self.final.add(name)
        return out

    def ancestors(self, s):
        a = []
        while self.parent[s] is not None:
            s = self.parent[s]
            a.append(s)
        return a

    def target(self, s):
        x = self.r.random()
        if x < 0.12:
            return s
        anc = self.ancestors(s)
        if x < 0.25 and anc:
            return self.r.choice(anc)
        if x < 0.4:
            sib = self.kids[self.parent[s]] if self.parent[s] else self.top
            return self.r.choice(sib)
        if x < 0.5 and self.kids[s]:
            return self.r.choice(self.kids[s])
        comp = [n for n in self.names if self.kids[n]]
        if x < 0.62 and comp:
            return self.r.choice(comp)          # a composite: its descent is selected
        return self.r.choice(self.names)

    def transition(self, s):
        t = self.target(s)
        if self.p(0.25):
            g = self.guard()
            g = dict(g)
            g["go"] = t
            return g
        return t

    def state(self, s):
        st = {}
        final = s in self.final
        if self.p(0.75):
            psend = 0.3 if final else 0.1      # a final state's sends race with its `done`
            st["enter"] = ({"leaf": "Enter", "args": self.effects({"s": s}, psend, 0.1)}
                           if self.p(0.93) else "Hello")
        if self.p(0.6):
            st["exit"] = {"leaf": "Exit", "args": self.effects({"s": s}, 0.1, 0.1)}
        if self.p(0.18):
            st["enter_if"] = self.guard(0.7) if self.p(0.9) else self.expr()
        if final:
            st["final"] = True
            return st
        if self.kids[s]:
            if self.p(0.6):
                st["initial"] = self.r.choice(self.kids[s])
            if self.p(0.45):
                st["history"] = True
        x = self.r.random()
        if x < 0.4:
            st["act"] = {"leaf": "Act", "args": self.act_args()}
        elif x < 0.55:
            st["tree"] = self.tree()
        tr = {}
        pool = EVENTS + REASONS + RUNTIME
        for _ in range(self.r.choice([0, 1, 1, 2, 2, 3])):
            tr[self.r.choice(pool)] = self.transition(s)
        if tr:
            st["transitions"] = tr
        if self.p(0.25):
            at = {}
            keys = list(tr.keys())
            for k in range(1, self.ticks + 1):
                if self.p(0.3):
                    y = self.r.random()
                    if keys and y < 0.7:
                        at[str(k)] = self.r.choice(keys)
                    elif y < 0.85:
                        at[str(k)] = "r9"             # unmapped: an error, state stays
                    else:
                        at[str(k)] = self.r.choice(REASONS + EVENTS)
            st["reason"] = {"leaf": "Reason", "args": self.effects({"s": s, "at": at}, 0.08, 0.08)}
        if self.p(0.3):
            w = []
            for _ in range(self.r.randint(1, 2)):
                e = {}
                y = self.r.random()
                if y < 0.35:
                    e["after"] = self.r.choice([0, 0.1, 0.2, 0.3, 0.5, 0.8])
                elif y < 0.6:
                    e["check"] = self.expr()
                elif y < 0.8:
                    e["condition"] = self.cond_leaf()
                else:
                    e["after"] = self.r.choice([0.1, 0.2, 0.3])
                    if self.p(0.5):
                        e["check"] = self.expr()
                    else:
                        e["condition"] = self.cond_leaf()
                e["go"] = self.target(s)
                w.append(e)
            st["when"] = w
        if self.kids[s]:
            st["states"] = {c: self.state(c) for c in self.kids[s]}
        return st

    def brain(self):
        maxdepth = self.r.choice([1, 2, 2, 3, 3, 4])
        self.top = self.structure(None, 0, maxdepth)
        b = {"fsm": "rand", "leaves": ["leaves.lua"],
             "blackboard": {"n": {"type": "integer", "default": 0}}}
        if self.p(0.6):
            b["initial"] = self.r.choice(self.top)
        b["states"] = {s: self.state(s) for s in self.top}
        if self.trees:
            b["trees"] = self.trees
        return b


def gen_brain(rng, ticks=12):
    return Gen(rng, ticks).brain()


def brain_seed(seed, i):
    return seed * 1000003 + i


if __name__ == "__main__":
    import argparse
    ap = argparse.ArgumentParser()
    ap.add_argument("seed", type=int)
    ap.add_argument("--index", type=int, default=0)
    ap.add_argument("--ticks", type=int, default=12)
    o = ap.parse_args()
    b = gen_brain(random.Random(brain_seed(o.seed, o.index)), o.ticks)
    print(json.dumps(b, indent=1))
