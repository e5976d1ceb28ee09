#!/usr/bin/env python3
"""Reference model of SPEC sections 4 and 4.1 (fsm brains, hierarchical states and events).

Written from the spec text only (plus the main engineer's decisions listed in README.md),
independently of the engine under runtime/. It runs ONE agent with an fsm brain whose leaves
come from tests/hsm_model/leaves.lua (mirrored here in Python) and returns the exact lines
those leaves print over N ticks.

Usage: model.py BRAIN.yaml [--ticks N] [--dt S]     (the brain must be JSON, which YAML parses)
"""
import json
import sys
from collections import Counter, deque

EPS = 1e-9          # elapsed-time tolerance (SPEC 3.1)
EVENT_CAP = 64      # events taken off the queue per agent per tick (SPEC 4.1)

# Readings of the spec where it reads two ways (see README.md); switches exist so a
# disagreement with the engine can be narrowed down quickly. The defaults are the model's
# reading; run.sh always uses the defaults.
OPTIONS = {
    # a composite without `initial`: if the first child whose enter_if passes cannot
    # complete its own descent, try the next child (StateTree-style backtracking)?
    "backtrack_selection": True,
    # `done` of a nested final state is queued after its enter leaf ran (True) or before
    "done_after_enter": True,
    # a history state that the transition itself leaves: restore the child it is about to
    # be left with (True, SPEC: "a history state left this way remembers the child it was
    # left with"), or the memory as it stood before the transition (False)
    "history_current_child": True,
    # a guard (and a when entry's check/condition) is evaluated before the target's
    # descent is selected (before any enter_if of it is tested)
    "guard_first": True,
    # an `initial` child whose enter_if fails makes the descent fail (False), or the
    # composite then selects by enter_if as if it had no `initial` (True)
    "initial_falls_back": False,
}


class Brain:
    pass


class State:
    def __init__(self, name, spec, parent):
        self.name = name
        self.spec = spec
        self.parent = parent
        self.children = []
        self.depth = 0 if parent is None else parent.depth + 1
        self.initial = spec.get("initial")
        self.history = bool(spec.get("history", False))
        self.final = bool(spec.get("final", False))
        self.enter_if = spec.get("enter_if")
        self.enter = spec.get("enter")
        self.exit = spec.get("exit")
        self.reason = spec.get("reason")
        self.act = spec.get("act")
        self.tree = spec.get("tree")
        self.transitions = spec.get("transitions", {}) or {}
        self.when = spec.get("when", []) or []

    def __repr__(self):
        return self.name


def load_brain(path):
    with open(path) as f:
        doc = json.load(f)
    b = Brain()
    b.doc = doc
    b.states = {}
    b.top = []
    b.trees = doc.get("trees", {}) or {}
    b.initial = doc.get("initial")

    def add(name, spec, parent):
        st = State(name, spec, parent)
        assert name not in b.states, "duplicate state " + name
        b.states[name] = st
        for cname, cspec in (spec.get("states") or {}).items():
            st.children.append(add(cname, cspec, st))
        return st

    for name, spec in doc["states"].items():
        b.top.append(add(name, spec, None))
    bb = doc.get("blackboard", {}) or {}
    b.bb = {}
    for k, v in bb.items():
        b.bb[k] = v.get("default", 0) if isinstance(v, dict) else v
    return b


def leaf_ref(ref):
    """`Name` or {leaf: Name, args: {...}} -> (name, args or None)."""
    if isinstance(ref, str):
        return ref, None
    return ref["leaf"], ref.get("args")


def eval_check(expr, bb):
    # The generator writes expressions whose Python reading is the spec's reading
    # (integers, comparisons, and/or, parenthesised `not (...)`).
    return bool(eval(expr, {"__builtins__": {}}, dict(bb)))


class BTNode:
    """A behaviour-tree node of a state's `tree:` body (SPEC 3.1/3.2/3.4 subset)."""

    def __init__(self, spec, brain):
        if isinstance(spec, str):           # a tree name under trees:
            spec = brain.trees[spec]
        assert len(spec) == 1, spec
        (self.kind, val), = spec.items()
        self.status = "invalid"
        self.children = []
        self.negate = False
        if self.kind in ("sequence", "selector"):
            kids = val if isinstance(val, list) else val["children"]
            self.children = [BTNode(k, brain) for k in kids]
            self.cur = 0
        elif self.kind == "action":
            self.leaf, self.args = leaf_ref(val)
        elif self.kind == "condition":
            if isinstance(val, dict) and "check" in val:
                self.leaf, self.args = None, None
                self.check = val["check"]
            else:
                self.leaf, self.args = leaf_ref(val)
            if isinstance(val, dict):
                self.negate = bool(val.get("negate", False))
        else:
            raise ValueError("tree node kind not modelled: " + self.kind)


class Agent:
    def __init__(self, brain, dt=0.1):
        self.b = brain
        self.dt = dt
        self.out = []
        self.errors = []
        self.bb = dict(brain.bb)
        self.tick_no = 0
        self.now = 0.0
        self.active = []            # the active configuration, outermost first
        self.started = False
        self.gen = {s: 0 for s in brain.states.values()}   # entries so far, per state
        self.entered_at = {}
        self.memory = {}            # composite -> child active when last left
        self.queue = deque()        # (name, origin state or None, origin generation)
        self.body = {}              # state -> act status / BT root
        self.ended = False          # a top-level final state ended the brain this tick
        self.cov = Counter()        # which rules fired (coverage of the random brains)

    # ---------------------------------------------------------------- leaves (leaves.lua)
    def p(self, s):
        self.out.append("%d %s" % (self.tick_no, s))

    def key(self):
        return str(self.tick_no)

    def effects(self, args):
        if args.get("bump") and args["bump"].get(self.key()):
            self.bb["n"] += 1
            self.p("bump %d" % self.bb["n"])
        s = (args.get("send") or {}).get(self.key())
        if s:
            for e in s:
                self.p("send " + e)
                self.queue.append((e, None, 0))

    def call_plain(self, ref):
        """enter/exit leaves: called like plain action leaves, result ignored."""
        name, args = leaf_ref(ref)
        args = args or {}
        if name == "Enter":
            self.p("enter " + args["s"])
            self.effects(args)
        elif name == "Exit":
            self.p("exit " + args["s"])
            self.effects(args)
        elif name == "Hello":
            self.p("hello")
        elif name == "Step":
            self.p("step " + args["id"])
            self.effects(args)
        elif name in ("Yes", "No", "Cond"):
            self.call_cond(name, args)
        else:
            raise ValueError("leaf not modelled as enter/exit: " + name)

    def call_cond(self, name, args):
        args = args or {}
        if name == "Cond":
            v = bool((args.get("at") or {}).get(self.key()))
            self.p("cond %s -> %s" % (args["id"], "true" if v else "false"))
            return v
        if name == "Yes":
            self.p("yes")
            return True
        if name == "No":
            self.p("no")
            return False
        raise ValueError("condition leaf not modelled: " + name)

    def call_reason(self, ref):
        name, args = leaf_ref(ref)
        assert name == "Reason"
        t = (args.get("at") or {}).get(self.key())
        self.p("reason %s -> %s" % (args["s"], "nil" if t is None else t))
        self.effects(args)
        return t

    def act_start(self, name, args):
        if name == "Act":
            self.p("start " + args["id"])

    def act_tick(self, name, args):
        if name == "Act":
            self.p("tick " + args["id"])
            self.effects(args)
            r = (args.get("r") or {}).get(self.key())
            return {"s": "success", "f": "failure"}.get(r, "running")
        if name == "Step":
            self.p("step " + args["id"])
            self.effects(args)
            return "success"
        raise ValueError("action leaf not modelled: " + name)

    def act_stop(self, name, args, status):
        if name == "Act":
            self.p("stop %s %s" % (args["id"], status))

    # ---------------------------------------------------------------- conditions
    def condition_value(self, cv):
        """A condition value: Name, {leaf, args, negate} or {check, negate}."""
        if isinstance(cv, str):
            return self.call_cond(cv, None)
        neg = bool(cv.get("negate", False))
        if "check" in cv:
            v = eval_check(cv["check"], self.bb)
        else:
            v = self.call_cond(cv["leaf"], cv.get("args"))
        return v != neg

    def guard_passes(self, g):
        """enter_if, transition guards and when conditions: check: or condition:."""
        if g is None:
            return True
        if isinstance(g, str):
            return eval_check(g, self.bb)
        if "check" in g:
            return eval_check(g["check"], self.bb)
        if "condition" in g:
            return self.condition_value(g["condition"])
        return True

    def enter_if_passes(self, st):
        return self.guard_passes(st.enter_if)

    # ---------------------------------------------------------------- bodies
    def start_body(self, st):
        if st.act is not None:
            self.body[st] = "invalid"
        elif st.tree is not None:
            self.body[st] = BTNode(st.tree, self.b)

    def abort_body(self, st):
        if st.act is not None:
            if self.body.get(st) == "running":
                name, args = leaf_ref(st.act)
                self.body[st] = "aborted"
                self.act_stop(name, args or {}, "aborted")
        elif st.tree is not None:
            root = self.body.get(st)
            if root is not None:
                self.bt_abort(root)

    def tick_body(self, st):
        if st.act is not None:
            name, args = leaf_ref(st.act)
            args = args or {}
            if self.body.get(st) != "running":
                self.act_start(name, args)
            status = self.act_tick(name, args)
            self.body[st] = status
            if status != "running":
                self.act_stop(name, args, status)
            return status
        if st.tree is not None:
            return self.bt_tick(self.body[st])
        return None

    def bt_abort(self, node):
        if node.status != "running":
            return
        for c in node.children:
            self.bt_abort(c)
        node.status = "aborted"
        if node.kind == "action":
            self.act_stop(node.leaf, node.args or {}, "aborted")

    def bt_tick(self, node):
        if node.kind == "condition":
            if node.leaf is None:
                v = eval_check(node.check, self.bb)
            else:
                v = self.call_cond(node.leaf, node.args)
            node.status = "success" if (v != node.negate) else "failure"
            return node.status
        if node.kind == "action":
            args = node.args or {}
            if node.status != "running":
                self.act_start(node.leaf, args)
            node.status = self.act_tick(node.leaf, args)
            if node.status != "running":
                self.act_stop(node.leaf, args, node.status)
            return node.status
        # sequence / selector
        if node.status != "running":
            node.cur = 0
        stop_on = "failure" if node.kind == "sequence" else "success"
        while node.cur < len(node.children):
            s = self.bt_tick(node.children[node.cur])
            if s == "running":
                node.status = "running"
                return s
            if s == stop_on:
                node.status = s
                return s
            node.cur += 1
        node.status = "success" if node.kind == "sequence" else "failure"
        return node.status

    # ---------------------------------------------------------------- selection
    def select_descent(self, st):
        """The states entered below `st` (st itself excluded), or None if it cannot be
        selected. Condition leaves in enter_if are called, in evaluation order."""
        kids = st.children if st is not None else self.b.top
        if not kids:
            return []
        initial = st.initial if st is not None else self.b.initial
        if st is not None and st.history:
            # A history state remembers the child it was last left with. An active state
            # that the transition is about to leave will remember its current child.
            if st in self.active and OPTIONS["history_current_child"]:
                child = self.active[self.active.index(st) + 1]
            else:
                child = self.memory.get(st)
            if child is not None:
                self.cov["history restore" + (" (state being left)" if st in self.active else "")] += 1
                if child.enter_if is not None:
                    self.cov["history restore skips an enter_if"] += 1
                rest = self.select_descent(child)   # restored child: enter_if not tested
                return None if rest is None else [child] + rest
        if initial is not None:
            child = self.b.states[initial]
            if self.enter_if_passes(child):
                rest = self.select_descent(child)
                return None if rest is None else [child] + rest
            self.cov["selection fails: initial child's enter_if"] += 1
            if not OPTIONS["initial_falls_back"]:
                return None
        for child in kids:
            if self.enter_if_passes(child):
                rest = self.select_descent(child)
                if rest is not None:
                    if child is not kids[0]:
                        self.cov["selection skips a child"] += 1
                    return [child] + rest
                self.cov["selection: chosen child's descent fails (backtracking matters)"] += 1
                if not OPTIONS["backtrack_selection"]:
                    return None
        self.cov["selection fails: no child passes"] += 1
        return None

    # ---------------------------------------------------------------- transitions
    @staticmethod
    def chain(st):
        """st and its ancestors, outermost first."""
        c = []
        while st is not None:
            c.append(st)
            st = st.parent
        return c[::-1]

    def domain(self, s, t):
        """D: S if T is a proper descendant of S, else the deepest common proper ancestor
        of S and T (None: the brain itself)."""
        ct = self.chain(t)
        if s in ct and s is not t:
            return s
        common = [a for a in self.chain(s) if a in ct and a is not s and a is not t]
        return common[-1] if common else None

    def select_path(self, s, t):
        """(D, the states to enter) for S -> T, or None if the descent cannot be selected."""
        d = self.domain(s, t)
        ct = self.chain(t)
        path = ct[ct.index(d) + 1:] if d is not None else ct
        for st in path:                     # the way down to T, then T: outermost first
            if not self.enter_if_passes(st):
                self.cov["transition blocked: enter_if on the way / target"] += 1
                return None
        rest = self.select_descent(t)
        if rest is None:
            self.cov["transition blocked: descent below target"] += 1
            return None
        return d, path + rest

    def try_transition(self, s, t, guard=None):
        """Take the transition S -> T if its guard passes and its descent can be selected.
        Returns "taken", "guard" (the guard failed) or "blocked" (no descent)."""
        if OPTIONS["guard_first"]:
            if guard is not None and not self.guard_passes(guard):
                return "guard"
            sel = self.select_path(s, t)
            if sel is None:
                return "blocked"
        else:
            sel = self.select_path(s, t)
            if sel is None:
                return "blocked"
            if guard is not None and not self.guard_passes(guard):
                return "guard"
        d, plan = sel
        self.cov["transition: " + ("to self" if s is t else "to a descendant" if d is s else
                                   "to an ancestor" if t in self.chain(s) else "other")] += 1
        # leave every active state strictly inside D, innermost first
        keep = self.active.index(d) + 1 if d is not None else 0
        was = list(self.active)
        for i in range(len(was) - 1, keep - 1, -1):
            del self.active[i]
            self.leave(was[i], was[i + 1] if i + 1 < len(was) else None)
        self.enter_states(plan)
        return "taken"

    def leave(self, st, child):
        self.abort_body(st)
        if st.exit is not None:
            self.call_plain(st.exit)
        if st.children:
            self.memory[st] = child

    def enter_states(self, plan):
        for st in plan:
            self.active.append(st)
            self.gen[st] += 1
            self.entered_at[st] = self.now
            self.body.pop(st, None)
            self.start_body(st)
            if st.final and st.parent is not None and not OPTIONS["done_after_enter"]:
                self.queue.append(("done", st.parent, self.gen[st.parent]))
            if st.enter is not None:
                self.call_plain(st.enter)
            if st.final:
                if st.parent is None:
                    self.end_brain(st)
                    return
                if OPTIONS["done_after_enter"]:
                    self.queue.append(("done", st.parent, self.gen[st.parent]))
                if isinstance(st.enter, dict) and \
                        ((st.enter.get("args") or {}).get("send") or {}).get(self.key()):
                    self.cov["final state's enter sends (done order matters)"] += 1

    def end_brain(self, st):
        """A top-level final state was entered: leave it, clear queue and history."""
        self.abort_body(st)
        if st.exit is not None:
            self.call_plain(st.exit)
        self.cov["top-level final ends the brain"] += 1
        if self.queue:
            self.cov["brain end clears a non-empty queue"] += 1
        self.active = []
        self.queue.clear()
        self.memory.clear()
        self.body.clear()
        self.started = False
        self.ended = True

    # ---------------------------------------------------------------- phases
    def handle_event(self, ev):
        name, origin, g = ev
        if origin is not None:
            if origin not in self.active or self.gen[origin] != g:
                self.cov["%s dropped: origin %s" % (name, "inactive" if origin not in self.active
                                                    else "re-entered")] += 1
                return                      # dropped
            start = self.active.index(origin)
        else:
            start = len(self.active) - 1
        for i in range(start, -1, -1):
            st = self.active[i]
            if name not in st.transitions:
                continue
            tr = st.transitions[name]
            if isinstance(tr, str):
                target, guard = tr, None
            else:
                target = tr["go"]
                guard = tr if ("check" in tr or "condition" in tr) else None
            r = self.try_transition(st, self.b.states[target], guard)
            if r == "taken":
                self.cov["event %s taken%s" % (name if name in ("success", "failure", "done") else "eN",
                                               " (bubbled)" if i < start else "")] += 1
                return
            # a failing guard: passed over; not enabled: the event goes on outward
            self.cov["event guard fails" if r == "guard" else
                     "event: mapped but not enabled, goes outward"] += 1
        self.cov["event dropped: nobody takes it"] += 1
        # no state took it: dropped

    def check_phase(self):
        for st in list(reversed(self.active)):
            if st.reason is not None:
                name = self.call_reason(st.reason)
                if name is not None:
                    if name not in st.transitions:
                        self.errors.append("tick %d: state '%s' has no transition '%s'"
                                           % (self.tick_no, st.name, name))
                        self.cov["reason unmapped"] += 1
                        continue            # its when list is not tried
                    tr = st.transitions[name]
                    if isinstance(tr, str):
                        target, guard = tr, None
                    else:
                        target = tr["go"]
                        guard = tr if ("check" in tr or "condition" in tr) else None
                    r = self.try_transition(st, self.b.states[target], guard)
                    if r == "taken":
                        self.cov["reason taken"] += 1
                        return
                    if r == "guard":
                        self.cov["reason guard fails"] += 1
                        continue            # no target; its when list is not tried
                    self.cov["reason not enabled: when list tried"] += 1
                    # not enabled: counts as nil, the when list is tried
            for w in st.when:
                if "after" in w:
                    if not (self.now - self.entered_at[st] >= w["after"] - EPS):
                        continue
                cond = w if ("check" in w or "condition" in w) else None
                r = self.try_transition(st, self.b.states[w["go"]], cond)
                if r == "taken":
                    self.cov["when taken" + (" (after)" if "after" in w else "")] += 1
                    return
                if r == "blocked":
                    self.cov["when passes but not enabled"] += 1

    def act_phase(self):
        for st in list(self.active):
            status = self.tick_body(st)
            if status in ("success", "failure"):
                self.queue.append((status, st, self.gen[st]))

    def tick(self):
        self.tick_no += 1
        self.now = (self.tick_no - 1) * self.dt
        self.ended = False
        if not self.started:
            plan = self.select_descent(None)
            if plan is None:
                self.errors.append("tick %d: the initial descent cannot be selected"
                                   % self.tick_no)
                self.cov["initial descent fails"] += 1
                return
            self.started = True
            self.enter_states(plan)
            if self.ended:
                return
        taken = 0
        while self.queue and taken < EVENT_CAP:
            ev = self.queue.popleft()
            taken += 1
            self.handle_event(ev)
            if self.ended:
                return
        if self.queue:
            self.cov["event cap reached, events wait"] += 1
        self.check_phase()
        if self.ended:
            return
        self.act_phase()


def run(path, ticks=12, dt=0.1, cov=None):
    a = Agent(load_brain(path), dt)
    for _ in range(ticks):
        a.tick()
    if cov is not None:
        cov.update(a.cov)
    return a.out, a.errors


def main(argv):
    import argparse
    ap = argparse.ArgumentParser()
    ap.add_argument("brain")
    ap.add_argument("--ticks", type=int, default=12)
    ap.add_argument("--dt", type=float, default=0.1)
    ap.add_argument("--errors", action="store_true", help="also list script errors on stderr")
    ap.add_argument("--backtrack", action="store_true")
    ap.add_argument("--done-before-enter", action="store_true")
    ap.add_argument("--history-stale", action="store_true")
    o = ap.parse_args(argv)
    OPTIONS["backtrack_selection"] = o.backtrack
    OPTIONS["done_after_enter"] = not o.done_before_enter
    OPTIONS["history_current_child"] = not o.history_stale
    out, errs = run(o.brain, o.ticks, o.dt)
    for line in out:
        print(line)
    if o.errors:
        for e in errs:
            print(e, file=sys.stderr)


if __name__ == "__main__":
    main(sys.argv[1:])
