#!/usr/bin/python3
"""Writes the 10 hand-written oracle cases under hand/NAME/ (tree.xml, script.json, ticks).

Expected outputs are produced afterwards by make_cases.sh with btrun.
"""
import json
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))

A = "action"
C = "condition"

CASES = {}


def case(name, ticks, script, main, sub=None):
    CASES[name] = (ticks, script, main, sub)


# 1. ReactiveSequence re-ticks C1 every tick and halts running A1 when C1 flips to F.
#    (direct children of a ReactiveSequence must use the bare <C1/> form in BT.CPP 4.10.0)
case("reactive_sequence_halt", 8,
     {"C1": (C, "SSFS"), "A1": (A, "R"), "A2": (A, "S")},
     """<Sequence>
  <ReactiveSequence>
    <C1/>
    <A1/>
  </ReactiveSequence>
  <Action ID="A2"/>
</Sequence>""")

# 2. SequenceWithMemory: yields RUNNING after each child that succeeds synchronously
#    (wake-up signal, sequence_with_memory_node.cpp:59), and after a FAILURE it resumes
#    at the failed child (A2), not at A1.
case("sequence_with_memory_resume", 10,
     {"A1": (A, "S"), "A2": (A, "FS"), "A3": (A, "RS")},
     """<SequenceWithMemory>
  <Action ID="A1"/>
  <A2/>
  <Action ID="A3"/>
</SequenceWithMemory>""")

# 3. Repeat num_cycles=3: a synchronous SUCCESS from an IDLE child yields (one cycle per
#    tickExactlyOnce); a SUCCESS from a child that was RUNNING loops again in the same tick.
case("repeat_cycles", 12,
     {"A1": (A, "SSSRSS")},
     """<Repeat num_cycles="3">
  <Action ID="A1"/>
</Repeat>""")

# 4. RetryUntilSuccessful num_attempts=3: same yield rule for FAILURE; exhausts attempts.
case("retry_attempts", 12,
     {"A1": (A, "RFFSFFF")},
     """<RetryUntilSuccessful num_attempts="3">
  <A1/>
</RetryUntilSuccessful>""")

# 5. Parallel (all must succeed, 1 failure fails): the threshold check is inside the child
#    loop (parallel_node.cpp), so A2's FAILURE returns at once: A3 is not ticked that tick,
#    and the running A1 and A3 are halted.
case("parallel_early_failure", 8,
     {"A1": (A, "R"), "A2": (A, "RF"), "A3": (A, "R")},
     """<Parallel success_count="-1" failure_count="1">
  <Action ID="A1"/>
  <Action ID="A2"/>
  <Action ID="A3"/>
</Parallel>""")

# 6. IfThenElse evaluates its condition only when not running a branch; WhileDoElse
#    re-evaluates each tick and halts the other branch when it changes.
case("ifthenelse_vs_whiledoelse", 8,
     {"C1": (C, "SFFS"), "C2": (C, "SFFS"),
      "A1": (A, "R"), "A2": (A, "R"), "A3": (A, "R"), "A4": (A, "R")},
     """<ParallelAll max_failures="1">
  <IfThenElse>
    <Condition ID="C1"/>
    <Action ID="A1"/>
    <Action ID="A2"/>
  </IfThenElse>
  <WhileDoElse>
    <Condition ID="C2"/>
    <Action ID="A3"/>
    <Action ID="A4"/>
  </WhileDoElse>
</ParallelAll>""")

# 7. KeepRunningUntilFailure: child SUCCESS -> RUNNING (child reset), FAILURE -> FAILURE.
case("keep_running_until_failure", 10,
     {"A1": (A, "SRS"), "A2": (A, "SSF")},
     """<KeepRunningUntilFailure>
  <Sequence>
    <Action ID="A1"/>
    <A2/>
  </Sequence>
</KeepRunningUntilFailure>""")

# 8. RunOnce then_skip=true -> SKIPPED afterwards (Sequence skips over it);
#    RunOnce then_skip=false -> repeats the child's first result without ticking it.
case("run_once", 6,
     {"A1": (A, "RS"), "A2": (A, "F"), "A3": (A, "S")},
     """<Sequence>
  <RunOnce then_skip="true">
    <Action ID="A1"/>
  </RunOnce>
  <ForceSuccess>
    <RunOnce then_skip="false">
      <Action ID="A2"/>
    </RunOnce>
  </ForceSuccess>
  <A3/>
</Sequence>""")

# 9. Switch with literal variable: Switch3 with no match takes the default child,
#    Switch2 matches case_2; ReactiveFallback halts the running Switch2 branch when C1
#    succeeds, and the Sequence restarts from the Switch3 afterwards.
case("switch_reactive_fallback", 10,
     {"C1": (C, "FFSFFF"), "A1": (A, "S"), "A2": (A, "S"), "A3": (A, "S"),
      "A4": (A, "S"), "A5": (A, "S"), "A6": (A, "R"), "A7": (A, "S")},
     """<ReactiveFallback>
  <Condition ID="C1"/>
  <Sequence>
    <Switch3 variable="none" case_1="red" case_2="green" case_3="blue">
      <Action ID="A1"/>
      <Action ID="A2"/>
      <Action ID="A3"/>
      <Action ID="A4"/>
    </Switch3>
    <Switch2 variable="blue" case_1="red" case_2="blue">
      <Action ID="A5"/>
      <A6/>
      <A7/>
    </Switch2>
  </Sequence>
</ReactiveFallback>""")

# 10. SubTree with _autoremap; a RunOnce root inside the subtree makes the whole tree
#     return SKIPPED from the third tick on.
case("subtree_run_once_skipped", 6,
     {"A1": (A, "RS"), "A2": (A, "S")},
     """<SubTree ID="Sub" _autoremap="true"/>""",
     """<RunOnce then_skip="true">
  <Sequence>
    <Action ID="A1"/>
    <A2/>
  </Sequence>
</RunOnce>""")


def indent(text, n):
    return "\n".join(" " * n + l for l in text.splitlines())


def write(outroot):
    for name, (ticks, script, main, sub) in CASES.items():
        d = os.path.join(outroot, name)
        os.makedirs(d, exist_ok=True)
        lines = ['<?xml version="1.0" encoding="UTF-8"?>',
                 '<root BTCPP_format="4" main_tree_to_execute="Main">',
                 '  <BehaviorTree ID="Main">', indent(main, 4), '  </BehaviorTree>']
        if sub:
            lines += ['  <BehaviorTree ID="Sub">', indent(sub, 4), '  </BehaviorTree>']
        lines.append("  <TreeNodesModel>")
        for leaf in sorted(script, key=lambda s: (s[0], int(s[1:]))):
            tag = "Action" if script[leaf][0] == A else "Condition"
            lines.append('    <%s ID="%s"/>' % (tag, leaf))
        lines += ["  </TreeNodesModel>", "</root>"]
        with open(os.path.join(d, "tree.xml"), "w") as f:
            f.write("\n".join(lines) + "\n")
        js = {k: {"kind": script[k][0], "statuses": list(script[k][1])} for k in sorted(script)}
        with open(os.path.join(d, "script.json"), "w") as f:
            json.dump(js, f, indent=1)
            f.write("\n")
        with open(os.path.join(d, "ticks"), "w") as f:
            f.write("%d\n" % ticks)


if __name__ == "__main__":
    write(sys.argv[1] if len(sys.argv) > 1 else os.path.join(HERE, "hand"))
