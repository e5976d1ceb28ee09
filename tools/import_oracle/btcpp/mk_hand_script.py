#!/usr/bin/python3
"""mk_hand_script.py [OUTROOT] : the hand-written scripting cases (default ./hand_script).

Each OUTROOT/NAME gets tree.xml, script.json (with "blackboard" and "writes"), ticks;
make_script_cases.sh adds `expected` with btrun.  Initial blackboard values are the
defaults thicket's importer declares (false / 0.0 / "").
"""
import json
import os
import sys

HEAD = '<?xml version="1.0" encoding="UTF-8"?>\n<root BTCPP_format="4" main_tree_to_execute="Main">\n'


def A(*st):
    return {"kind": "action", "statuses": list(st)}


def C(*st):
    return {"kind": "condition", "statuses": list(st)}


CASES = {
    # _while turning false halts the running action (checkPreConditions: RUNNING and _while
    # false -> haltNode(), SKIPPED); turning true again starts it afresh.
    "while_halts_running": ("""
    <ReactiveSequence>
      <C1/>
      <A1 _while="!stop"/>
    </ReactiveSequence>""", {
        "A1": A("R", "R", "R", "S"),
        "C1": C("S"),
        "blackboard": {"stop": False},
        "writes": {"C1": [None, None, ["stop", True], ["stop", False], None, None]},
    }, 8),
    # _skipIf: skipped children are passed over; a Sequence whose children all skip is SKIPPED
    # (SequenceNode::tick skipped_count_), and the outer Sequence goes on to A3.
    "skipif_sequence_skips": ("""
    <Inverter>
      <Sequence>
        <C1/>
        <Sequence>
          <A1 _skipIf="done"/>
          <A2 _skipIf="done || n &gt; 1"/>
        </Sequence>
        <A3/>
      </Sequence>
    </Inverter>""", {
        "A1": A("S"),
        "A2": A("S", "F"),
        "A3": A("S", "F"),
        "C1": C("S"),
        "blackboard": {"done": False, "n": 0.0},
        "writes": {"C1": [None, ["n", 2.0], ["done", True], None, ["done", False], ["n", 0.0]]},
    }, 8),
    # _successIf short-circuit: checked only while the node is IDLE, so a running Sequence is
    # not cut short when `ready` turns true; the next activation succeeds without ticking it.
    "successif_short_circuit": ("""
    <ReactiveSequence>
      <C1/>
      <Fallback>
        <Sequence _successIf="ready &amp;&amp; mode == 'go'">
          <A1/>
          <A2/>
        </Sequence>
        <A3/>
      </Fallback>
    </ReactiveSequence>""", {
        "A1": A("R", "S"),
        "A2": A("S", "F"),
        "A3": A("S"),
        "C1": C("S"),
        "blackboard": {"ready": False, "mode": ""},
        "writes": {"C1": [["mode", "go"], ["ready", True], None, None, ["ready", False], None, None, None]},
    }, 9),
    # Precondition else="RUNNING": RUNNING while `n >= 2` is false (re-tested every tick);
    # once the child has started, the condition is not tested again until it completes.
    "precondition_else_running": ("""
    <ReactiveSequence>
      <C1/>
      <Precondition if="n * 2 &gt;= 4" else="RUNNING">
        <A1/>
      </Precondition>
    </ReactiveSequence>""", {
        "A1": A("R", "R", "S"),
        "C1": C("S"),
        "blackboard": {"n": 0.0},
        "writes": {"C1": [["n", 1.0], None, ["n", 2.0], ["n", 0.0], None, None, ["n", 3.0]]},
    }, 10),
    # Switch3 on a blackboard string a leaf changes: a new match halts the running branch;
    # "2.0" matches case "2" as a real (details::CheckStringEquality); "" takes the default.
    "switch_follows_blackboard": ("""
    <ReactiveSequence>
      <C1/>
      <Switch3 variable="{mode}" case_1="a" case_2="b" case_3="2">
        <A1/>
        <A2/>
        <A3/>
        <A4/>
      </Switch3>
    </ReactiveSequence>""", {
        "A1": A("R"),
        "A2": A("R", "S"),
        "A3": A("R"),
        "A4": A("S", "R"),
        "C1": C("S"),
        "blackboard": {"mode": ""},
        "writes": {"C1": [["mode", "a"], None, ["mode", "b"], None, ["mode", "2.0"], ["mode", ""], None, ["mode", "a"]]},
    }, 9),
    # PreconditionNode (script_precondition.h) has no halt(): halted while its child runs,
    # _children_running stays true, so the next activation ticks the child without testing
    # `if` (go is false by then).
    "precondition_halt_latch": ("""
    <ReactiveSequence>
      <C1/>
      <Precondition if="go">
        <A1/>
      </Precondition>
    </ReactiveSequence>""", {
        "A1": A("R"),
        "C1": C("S", "S", "F", "S", "S"),
        "blackboard": {"go": False},
        "writes": {"C1": [["go", True], None, ["go", False], None, None]},
    }, 5),
}


def main():
    root = sys.argv[1] if len(sys.argv) > 1 else "hand_script"
    for name, (body, script, ticks) in CASES.items():
        d = os.path.join(root, name)
        os.makedirs(d, exist_ok=True)
        leaves = sorted(k for k in script if k not in ("blackboard", "writes"))
        model = "".join('    <%s ID="%s"/>\n' % ("Action" if script[k]["kind"] == "action"
                                                  else "Condition", k) for k in leaves)
        with open(os.path.join(d, "tree.xml"), "w") as f:
            f.write(HEAD + '  <BehaviorTree ID="Main">' + body + "\n  </BehaviorTree>\n"
                    "  <TreeNodesModel>\n" + model + "  </TreeNodesModel>\n</root>\n")
        with open(os.path.join(d, "script.json"), "w") as f:
            json.dump(script, f, indent=1)
            f.write("\n")
        with open(os.path.join(d, "ticks"), "w") as f:
            f.write("%d\n" % ticks)


if __name__ == "__main__":
    main()
