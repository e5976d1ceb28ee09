#!/usr/bin/python3
"""Random BehaviorTree.CPP v4 tree generator for the btrun oracle.

usage: gen.py SEED OUTDIR [--script | --writes]   -> OUTDIR/tree.xml, OUTDIR/script.json, OUTDIR/ticks

Python 3 standard library only; deterministic for a given SEED (and flag).  Without
--script the output is exactly what it always was (cases/1..200).  With --script, about
half of the cases use BT.CPP scripting (cases_script/1001..1300): 1-3 blackboard keys
(booleans, doubles, strings), leaves that write them (script.json "writes"), 1-4
pre-condition attributes (_failureIf/_successIf/_skipIf/_while), and sometimes
ScriptCondition, Script (read only), Precondition, and Switch on a {key}.  With --writes,
every case uses scripting, and 1-4 nodes also get post-condition scripts (_onSuccess,
_onFailure, _post, _onHalted) that assign the keys (:=, =, +=, -=, *=, /=), and about one
leaf in five becomes a <Script> that assigns them, drawn from a second stream (seed * 7 + 1) so that the rest of a case is drawn as --script draws it.
"""
import json
import os
import re
import random
import sys

SWITCH_WORDS = ["red", "green", "blue"]

# --script: the key pool.  type: "bool" (JSON true/false), "num" (a double; always written
# as a real), "str" (text).  "lvl" is a string key holding numeric text, for Switch cases
# compared as integers / reals (BT.CPP rejects a Switch "variable" port on a double key at
# load: "port [n] was initially created with type [double] and, later type [std::string]").
KEY_POOL = [("flag", "bool"), ("busy", "bool"), ("n", "num"), ("hp", "num"),
            ("mode", "str"), ("lvl", "str")]
STR_VALUES = {"mode": ["a", "b", "c", ""], "lvl": ["1", "2", "2.0", "3", ""]}
NUM_VALUES = [0.0, 1.0, 2.0, 3.0, 1.5]
DEFAULTS = {"bool": False, "num": 0.0, "str": ""}


def xml_attr(s):
    return s.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;").replace('"', "&quot;")


class Scripting:
    """Scripts over a few blackboard keys (the read-only subset thicket imports)."""

    def __init__(self, rng):
        self.rng = rng
        k = rng.randint(1, 3)
        self.keys = dict(rng.sample(KEY_POOL, k))   # name -> type
        self.used = set()                           # keys some script / port reads

    def lit(self):
        return self.rng.choice(["0", "1", "2", "3", "1.5", "2.0", "0.5"])

    def atom(self):
        r = self.rng
        name = r.choice(sorted(self.keys))
        t = self.keys[name]
        self.used.add(name)
        if t == "bool":
            x = r.random()
            if x < 0.5:
                return name
            if x < 0.85:
                return "!" + name
            return "%s %s %s" % (name, r.choice(["==", "!="]), r.choice(["true", "false"]))
        if t == "num":
            op = r.choice(["==", "!=", "<", "<=", ">", ">="])
            x = r.random()
            if x < 0.5:
                lhs = name
            elif x < 0.65:
                lhs = "%s + %s" % (name, r.choice(["1", "0.5"]))
            elif x < 0.8:
                lhs = "%s * 2" % name
            elif x < 0.9:
                lhs = "(%s - 1) / 2" % name
            else:
                return "%s %s %s" % (self.lit(), op, name)
            return "%s %s %s" % (lhs, op, self.lit())
        return "%s %s '%s'" % (name, r.choice(["==", "==", "!="]), r.choice(STR_VALUES[name]))

    def expr(self, depth=0):
        r = self.rng
        x = r.random()
        if depth >= 2 or x < 0.55:
            return self.atom()
        if x < 0.7:
            return "%s && %s" % (self.expr(depth + 1), self.expr(depth + 1))
        if x < 0.85:
            return "%s || %s" % (self.expr(depth + 1), self.expr(depth + 1))
        if x < 0.93:
            return "!(%s)" % self.expr(depth + 1)
        return "(%s)" % self.expr(depth + 1)

    def value(self, name):
        t = self.keys[name]
        if t == "bool":
            return self.rng.choice([True, False])
        if t == "num":
            return self.rng.choice(NUM_VALUES)
        return self.rng.choice(STR_VALUES[name])


class Gen:
    def __init__(self, rng):
        self.rng = rng
        self.n_actions = 0
        self.n_conds = 0
        self.script = {}          # name -> {"kind":..., "statuses":[...]}
        self.subtree_body = None  # XML lines of the "Sub" tree, or None
        self.subtree_used = False
        # >0 while generating the first (condition) child of IfThenElse/WhileDoElse:
        # that child must never return SKIPPED (BT.CPP 4.10.0 throws: IfThenElse
        # "Something unexpected happened" src/controls/if_then_else_node.cpp:77,
        # WhileDoElse returns IDLE -> setStatus(IDLE) throws, while_do_else_node.cpp:46-83).
        # The only SKIPPED source here is RunOnce then_skip="true", so it is forbidden there.
        self.no_skip = 0
        # --script: a Scripting, or None (then every rng call is as before --script existed)
        self.sc = None
        self.markers = []         # --script: marker i -> True when SKIPPED is forbidden there

    # ---- leaves -------------------------------------------------------------
    def action(self, bare=False):
        self.n_actions += 1
        name = "A%d" % self.n_actions
        r = self.rng
        # weights keep RUNNING common enough to exercise halts, but not dominant
        sts = [r.choice("SFRR" if r.random() < 0.5 else "SSFFR")
               for _ in range(r.randint(1, 4))]
        self.script[name] = {"kind": "action", "statuses": sts}
        if not bare and r.random() < 0.5:
            return ['<Action ID="%s"/>' % name]
        return ['<%s/>' % name]

    def condition(self, bare=False):
        self.n_conds += 1
        name = "C%d" % self.n_conds
        sts = [self.rng.choice("SF") for _ in range(self.rng.randint(1, 4))]
        self.script[name] = {"kind": "condition", "statuses": sts}
        if bare:
            return ['<%s/>' % name]
        return ['<Condition ID="%s"/>' % name]

    def leaf(self, prefer_condition=False, bare=False):
        if self.sc is not None:
            x = self.rng.random()
            if x < 0.10:
                return ['<ScriptCondition code="%s"/>' % xml_attr(self.sc.expr())]
            if x < 0.13:
                return ['<Script code="%s"/>' % xml_attr(self.sc.expr())]
        r = self.rng.random()
        if prefer_condition and r < 0.6:
            return self.condition(bare)
        if r < 0.06:
            return ["<AlwaysSuccess/>"]
        if r < 0.10:
            return ["<AlwaysFailure/>"]
        if r < 0.45:
            return self.condition(bare)
        return self.action(bare)

    # ---- structure ------------------------------------------------------------
    def split(self, total, k):
        """Split `total` nodes into k positive parts."""
        cuts = sorted(self.rng.sample(range(1, total), k - 1)) if k > 1 else []
        bounds = [0] + cuts + [total]
        return [bounds[i + 1] - bounds[i] for i in range(k)]

    def children(self, total, k, first_cond=False, bare=False, first_no_skip=False):
        parts = self.split(total, k)
        out = []
        for i, p in enumerate(parts):
            guard = first_no_skip and i == 0
            self.no_skip += guard
            out.append(self.node(p, prefer_condition=(first_cond and i == 0), bare=bare))
            self.no_skip -= guard
        return out

    @staticmethod
    def wrap(open_tag, close_tag, kids):
        lines = [open_tag]
        for k in kids:
            lines += ["  " + l for l in k]
        lines.append(close_tag)
        return lines

    def node(self, n, prefer_condition=False, bare=False):
        res = self.node_(n, prefer_condition, bare)
        if self.sc is not None:
            # a place for pre-condition attributes: @@i@@ before the opening tag's > or />
            i = len(self.markers)
            self.markers.append(self.no_skip > 0)
            head = res[0]
            end = len(head) - (2 if head.endswith("/>") else 1)
            res = [head[:end] + "@@%d@@" % i + head[end:]] + res[1:]
        return res

    def node_(self, n, prefer_condition=False, bare=False):
        """A subtree of exactly n nodes (SubTree body counted).

        bare=True: a leaf must use the <A1/> / <C1/> form.  BT.CPP 4.10.0's XML
        verifier (src/xml_parsing.cpp:657-667) looks up the *element name* of every
        direct child of a ReactiveSequence and rejects <Action ID=..>/<Condition ID=..>
        with "Unknown node type: Action".
        """
        r = self.rng
        if n == 1:
            return self.leaf(prefer_condition, bare)
        m = n - 1  # nodes available for children
        options = ["Sequence", "Fallback", "SequenceWithMemory", "ReactiveSequence",
                   "ReactiveFallback", "Parallel", "ParallelAll",
                   "Inverter", "ForceSuccess", "ForceFailure", "Repeat",
                   "RetryUntilSuccessful", "KeepRunningUntilFailure", "RunOnce",
                   # extra weight for the nodes that halt running children
                   "ReactiveSequence", "ReactiveFallback", "Parallel"]
        if m >= 2:
            options += ["IfThenElse", "WhileDoElse", "WhileDoElse"]
        if m >= 3:
            options += ["Switch2"]
        if m >= 4:
            options += ["Switch3"]
        if not self.subtree_used:
            options += ["SubTree", "SubTree"]
        if self.sc is not None:
            options += ["Precondition", "Precondition"]
        kind = r.choice(options)

        if kind == "Precondition":
            els = ["", "FAILURE", "SUCCESS", "RUNNING"] + (["SKIPPED"] if self.no_skip == 0 else [])
            e = r.choice(els)
            attrs = ' if="%s"' % xml_attr(self.sc.expr()) + (' else="%s"' % e if e else "")
            return self.wrap("<Precondition%s>" % attrs, "</Precondition>", [self.node(m)])

        if kind == "SubTree":
            self.subtree_used = True
            body = self.node(m)
            self.subtree_body = body
            return ['<SubTree ID="Sub" _autoremap="true"/>']

        # decorators
        if kind in ("Inverter", "ForceSuccess", "ForceFailure", "KeepRunningUntilFailure"):
            return self.wrap("<%s>" % kind, "</%s>" % kind, [self.node(m)])
        if kind == "Repeat":
            c = r.choice([1, 2, 3, -1])
            return self.wrap('<Repeat num_cycles="%d">' % c, "</Repeat>", [self.node(m)])
        if kind == "RetryUntilSuccessful":
            c = r.choice([1, 2, 3, -1])
            return self.wrap('<RetryUntilSuccessful num_attempts="%d">' % c,
                             "</RetryUntilSuccessful>", [self.node(m)])
        if kind == "RunOnce":
            ts = r.choice(["true", "false"]) if self.no_skip == 0 else "false"
            return self.wrap('<RunOnce then_skip="%s">' % ts, "</RunOnce>", [self.node(m)])

        # controls
        if kind in ("IfThenElse", "WhileDoElse"):
            k = r.choice([2, 3]) if m >= 3 else 2
            return self.wrap("<%s>" % kind, "</%s>" % kind,
                             self.children(m, k, first_cond=True, first_no_skip=True))
        if kind in ("Switch2", "Switch3"):
            nc = 2 if kind == "Switch2" else 3
            skeys = [] if self.sc is None else sorted(
                k for k, t in self.sc.keys.items() if t == "str")
            if skeys and r.random() < 0.7:
                key = r.choice(skeys)
                self.sc.used.add(key)
                var = "{%s}" % key
                cases = [r.choice([v for v in STR_VALUES[key] if v]) for _ in range(nc)]
            else:
                var = r.choice(SWITCH_WORDS + ["none"])
                cases = [r.choice(SWITCH_WORDS) for _ in range(nc)]
            attrs = ' variable="%s"' % var + "".join(
                ' case_%d="%s"' % (i + 1, c) for i, c in enumerate(cases))
            return self.wrap("<%s%s>" % (kind, attrs), "</%s>" % kind,
                             self.children(m, nc + 1))
        k = r.randint(1, min(m, 4))
        if kind == "Parallel":
            attrs = ""
            valid = [-1] + [v for v in (1, 2) if v <= k]
            if r.random() < 0.75:
                attrs += ' success_count="%d"' % r.choice(valid)
            if r.random() < 0.75:
                attrs += ' failure_count="%d"' % r.choice(valid)
            return self.wrap("<Parallel%s>" % attrs, "</Parallel>", self.children(m, k))
        if kind == "ParallelAll":
            valid = [-1] + [v for v in (1, 2) if v <= k]
            attrs = ""
            if r.random() < 0.8:
                attrs = ' max_failures="%d"' % r.choice(valid)
            return self.wrap("<ParallelAll%s>" % attrs, "</ParallelAll>", self.children(m, k))
        first_cond = kind.startswith("Reactive") and r.random() < 0.7
        return self.wrap("<%s>" % kind, "</%s>" % kind,
                         self.children(m, k, first_cond, bare=(kind == "ReactiveSequence")))


PRECONDS = ["_failureIf", "_successIf", "_skipIf", "_while"]


POSTCONDS = ["_onSuccess", "_onFailure", "_post", "_onHalted"]


def assignment(rng, sc):
    """One BT.CPP statement that writes a key of the pool with a value of its type."""
    name = rng.choice(sorted(sc.keys))
    t = sc.keys[name]
    sc.used.add(name)
    if t == "bool":
        return rng.choice(["%s := true" % name, "%s := false" % name, "%s = !%s" % (name, name),
                           "%s := %s" % (name, sc.expr(1))])
    if t == "num":
        return rng.choice(["%s += 1" % name, "%s -= 0.5" % name, "%s *= 2" % name, "%s := %s" % (name, sc.lit()),
                           "%s = %s + 1" % (name, name), "%s /= 2" % name])
    return "%s := '%s'" % (name, rng.choice(STR_VALUES[name]))


def add_scripting(g, xml, post_rng=None):
    """Fill the @@i@@ markers: 1-4 nodes get pre-condition attributes; pick leaf writes.
    With post_rng (--writes), 1-4 nodes also get post-condition scripts that assign keys."""
    rng, sc = g.rng, g.sc
    chosen = rng.sample(range(len(g.markers)), min(rng.randint(1, 4), len(g.markers)))
    attrs = {}
    for i in chosen:
        allowed = PRECONDS if not g.markers[i] else PRECONDS[:2]
        names = [rng.choice(allowed)]
        if rng.random() < 0.15:
            other = rng.choice(allowed)
            if other not in names:
                names.append(other)
        attrs[i] = "".join(' %s="%s"' % (a, xml_attr(sc.expr())) for a in names)
    if post_rng is not None:
        for i in post_rng.sample(range(len(g.markers)), min(post_rng.randint(1, 4), len(g.markers))):
            for a in post_rng.sample(POSTCONDS, post_rng.randint(1, 2)):
                code = "; ".join(assignment(post_rng, sc) for _ in range(post_rng.randint(1, 2)))
                attrs[i] = attrs.get(i, "") + ' %s="%s"' % (a, xml_attr(code))
    for i in range(len(g.markers)):
        xml = xml.replace("@@%d@@" % i, attrs.get(i, ""))
    if post_rng is not None:  # about one leaf in five becomes a Script that assigns (its attributes kept)
        leaf = re.compile(r'^(\s*)<(?:Action ID="\w+"|Condition ID="\w+"|[AC]\d+)((?: _\w+="[^"]*")*)/>$')
        lines = xml.split("\n")
        for k, line in enumerate(lines):
            if "<TreeNodesModel>" in line:
                break
            m = leaf.match(line)
            if m and post_rng.random() < 0.2:
                code = "; ".join(assignment(post_rng, sc) for _ in range(post_rng.randint(1, 2)))
                lines[k] = '%s<Script code="%s"%s/>' % (m.group(1), xml_attr(code), m.group(2))
        xml = "\n".join(lines)
    used = sorted(sc.used)
    if post_rng is not None:  # a key drawn for a marker that no node kept: no leaf writes it
        used = [k for k in used if re.search(r"\b%s\b" % k, xml)]
    writes = {}
    leaves = sorted(g.script, key=lambda s: (s[0], int(s[1:])))
    if used and leaves:
        for name in rng.sample(leaves, min(len(leaves), rng.randint(1, 3))):
            w = []
            for _ in range(rng.randint(1, 4)):
                if rng.random() < 0.25:
                    w.append(None)
                else:
                    k = rng.choice(used)
                    w.append([k, sc.value(k)])
            writes[name] = w
    bb = {k: DEFAULTS[sc.keys[k]] for k in used}
    return xml, bb, writes


def generate(seed, script_mode=False, write_mode=False):
    rng = random.Random(seed)
    g = Gen(rng)
    if write_mode or (script_mode and rng.random() < 0.5):
        g.sc = Scripting(rng)
    n = rng.randint(3, 25)
    main = g.node(n)
    lines = ['<?xml version="1.0" encoding="UTF-8"?>',
             '<root BTCPP_format="4" main_tree_to_execute="Main">',
             '  <BehaviorTree ID="Main">']
    lines += ["    " + l for l in main]
    lines.append("  </BehaviorTree>")
    if g.subtree_body is not None:
        lines.append('  <BehaviorTree ID="Sub">')
        lines += ["    " + l for l in g.subtree_body]
        lines.append("  </BehaviorTree>")
    lines.append("  <TreeNodesModel>")
    for name in sorted(g.script, key=lambda s: (s[0], int(s[1:]))):
        tag = "Action" if g.script[name]["kind"] == "action" else "Condition"
        lines.append('    <%s ID="%s"/>' % (tag, name))
    lines.append("  </TreeNodesModel>")
    lines.append("</root>")
    ticks = rng.randint(8, 20)
    xml = "\n".join(lines) + "\n"
    script = {k: g.script[k] for k in sorted(g.script)}
    if g.sc is not None:
        xml, bb, writes = add_scripting(g, xml, random.Random(seed * 7 + 1) if write_mode else None)
        script["blackboard"] = bb
        if writes:
            script["writes"] = writes
    return xml, script, ticks


def main():
    args = sys.argv[1:]
    script_mode = "--script" in args
    write_mode = "--writes" in args
    args = [a for a in args if a not in ("--script", "--writes")]
    if len(args) != 2:
        sys.stderr.write("usage: gen.py SEED OUTDIR [--script | --writes]\n")
        sys.exit(2)
    seed = int(args[0])
    out = args[1]
    os.makedirs(out, exist_ok=True)
    xml, script, ticks = generate(seed, script_mode, write_mode)
    with open(os.path.join(out, "tree.xml"), "w") as f:
        f.write(xml)
    with open(os.path.join(out, "script.json"), "w") as f:
        json.dump(script, f, indent=1)
        f.write("\n")
    with open(os.path.join(out, "ticks"), "w") as f:
        f.write("%d\n" % ticks)


if __name__ == "__main__":
    main()
