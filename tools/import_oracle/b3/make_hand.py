#!/usr/bin/python3
"""Writes the hand-written cases under hand/NAME/ (tree.json, script.json, ticks)."""
import os
import random
import sys
from gen import N, export_tree, export_project, custom_nodes_for, write_case, uuid

HERE = os.path.dirname(os.path.abspath(__file__))


def A(*st):
    return {"kind": "action", "statuses": list(st)}


def C(*st):
    return {"kind": "condition", "statuses": list(st)}


CASES = {}


def case(name, root, script, ticks, note):
    CASES[name] = (root, script, ticks, note)


case("memseq_resume",
     N("MemSequence", N("A1"), N("A2"), N("A3")),
     {"A1": A("S"), "A2": A("R", "R", "S"), "A3": A("S")}, 8,
     "MemSequence resumes at the RUNNING child (A2) without re-ticking A1")
case("memseq_fail_restart",
     N("MemSequence", N("A1"), N("A2"), N("A3")),
     {"A1": A("S"), "A2": A("R", "F"), "A3": A("S")}, 8,
     "after A2 FAILS, MemSequence restarts at child 0 (A1)")
case("priority_memseq_offbyone",
     N("Priority", N("A1"), N("MemSequence", N("A2"), N("A3"))),
     {"A1": A("F", "R", "F", "F"), "A2": A("S"), "A3": A("R", "S")}, 10,
     "A1 turns RUNNING while the MemSequence runs A3: end-of-tick pass closes A3 (halt) "
     "but keeps the MemSequence open (off-by-one), so when A1 fails again it resumes at A3 "
     "without open(): A2 is not ticked")
case("sequence_reticks",
     N("Sequence", N("A1"), N("A2")),
     {"A1": A("S"), "A2": A("R", "R", "S")}, 6,
     "Sequence restarts at A1 every tick even while A2 is RUNNING")
case("halt_not_reached",
     N("Sequence", N("C1"), N("A1")),
     {"C1": C("S", "S", "F"), "A1": A("R")}, 6,
     "A1 RUNNING, next tick C1 fails and A1 is not reached: closed by the end-of-tick pass (halt)")
case("no_halt_sibling_offbyone",
     N("Priority", N("A1"), N("A2")),
     {"A1": A("F", "R", "R", "F", "S"), "A2": A("R")}, 8,
     "A2 RUNNING, then A1 RUNNING: the paths differ at depth 1 and b3 does not close A2 "
     "(off-by-one), so no halt A2")
case("repeater_loop",
     N("Sequence",
       N("Repeater", N("Sequence", N("A1"), N("A2")), maxLoop=3),
       N("Repeater", N("A3"), maxLoop=2)),
     {"A1": A("S"), "A2": A("S", "F", "S"), "A3": A("S", "R", "S")}, 5,
     "Repeater loops maxLoop times within one tick; counts both SUCCESS and FAILURE; "
     "stops on RUNNING and keeps its count while open (tick 2: one A3 call)")
case("limiter",
     N("Sequence",
       N("Limiter", N("A1"), maxLoop=1),
       N("Limiter", N("A2"), maxLoop=2)),
     {"A1": A("S"), "A2": A("R", "S", "S", "F")}, 8,
     "Limiter never limits in 0.2.2: it closes after SUCCESS/FAILURE and open() resets its count")
case("error_propagating",
     N("Priority",
       N("Inverter", N("Sequence", N("A1"), N("Error"), N("A2"))),
       N("A3")),
     {"A1": A("S"), "A2": A("S"), "A3": A("S")}, 4,
     "ERROR passes through Sequence, Inverter and Priority (which does not try A3)")
case("runner",
     N("MemSequence", N("A1"), N("Runner"), N("A2")),
     {"A1": A("S"), "A2": A("S")}, 5,
     "Runner is RUNNING forever; MemSequence keeps resuming at it")
case("repeat_until",
     N("MemPriority",
       N("RepeatUntilSuccess", N("A1"), maxLoop=2),
       N("RepeatUntilFailure", N("A2"), maxLoop=3)),
     {"A1": A("F", "F", "F", "S"), "A2": A("S", "S", "F", "R")}, 8,
     "RepeatUntilSuccess/RepeatUntilFailure with maxLoop: return the last child status")


def write_all(root_dir):
    rng = random.Random(12345)
    for name, (root, script, ticks, note) in CASES.items():
        tree = export_tree(root, rng, title=name, custom_nodes=custom_nodes_for(script))
        d = os.path.join(root_dir, name)
        write_case(d, tree, script, ticks)
        with open(os.path.join(d, "NOTE"), "w") as f:
            f.write(note + "\n")
    # project export: main tree references a second tree by id (inlined by b3run.js)
    sub_id = uuid(rng)
    script = {"A1": A("S"), "A2": A("R", "S"), "C1": C("S", "F")}
    sub = export_tree(N("MemSequence", N("A1"), N("A2")), rng, tree_id=sub_id, title="Sub")
    ref = N(sub_id, kind="tree")
    ref["title"] = "Sub"
    main = export_tree(N("Priority", N("Inverter", N("C1")), ref, N("Failer")), rng, title="Main")
    d = os.path.join(root_dir, "project_subtree")
    write_case(d, export_project(main, [sub], script), script, 8)
    with open(os.path.join(d, "NOTE"), "w") as f:
        f.write("project export; the main tree references the Sub tree by its id\n")


if __name__ == "__main__":
    write_all(sys.argv[1] if len(sys.argv) > 1 else os.path.join(HERE, "hand"))
