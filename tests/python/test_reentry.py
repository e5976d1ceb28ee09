"""The Python module called back into from inside its own calls: leaves the runtime replaces,
trace callbacks that replace themselves, spawns from stop hooks that run in despawn, and the
bounds of dt. Run as test_thicket.py is (tests/python_test.sh). No test reads the clock."""
import gc
import sys

import pytest

import thicket

COUNTER = """
tree: counter
leaves: [counter.lua]
blackboard:
  count: {type: integer, default: 0}
root:
  action: Count
"""
COUNTER_LUA = """
local leaves = {}
function leaves.Count(agent) agent.bb.count = agent.bb.count + 1; return "success" end
return leaves
"""
HOLD = """
tree: hold
leaves: [hold.lua]
root:
  action: Hold
"""
HOLD_LUA = """
local leaves = {}
leaves.Hold = {
  tick = function(agent, args, mem) return "running" end,
  stop = function(agent, args, mem, status) print("stop " .. status) end,
}
return leaves
"""


def write(tmp_path, files):
    for name, text in files.items():
        (tmp_path / name).write_text(text)
    return str(tmp_path / next(iter(files)))


def test_a_python_leaf_replaced_by_a_lua_leaf_of_its_name_is_let_go_safely(tmp_path):
    # The load replaces the Python leaf (leaf names are shared) with the GIL released: the
    # callable was freed without the GIL and the interpreter crashed.
    path = write(tmp_path, {"counter.yaml": COUNTER, "counter.lua": COUNTER_LUA})
    for _ in range(20):
        rt = thicket.Runtime()
        rt.register_leaf("Count", lambda agent: True)
        with pytest.warns(UserWarning, match="leaf 'Count' replaces the native leaf"):  # (said, as check says it)
            brain = rt.load(path)
        a = rt.spawn(brain)
        rt.tick_all(0.1)
        assert rt.blackboard(a)["count"] == 1  # the Lua leaf runs
        gc.collect()


def test_a_trace_callback_that_replaces_or_clears_itself(tmp_path):
    # Replacing the sink destroyed the callback that was running; it then wrote through its
    # freed capture (a crash when it raised).
    rt = thicket.Runtime()
    b = rt.load_string("tree: t\nroot:\n  wait: 1.0\n")
    for _ in range(5):
        rt.spawn(b)
    seen = []

    def second(event):
        seen.append(("second", event["agent"]))

    for i in range(200):
        class Once:
            junk = [object() for _ in range(10)]

            def __call__(self, event):
                seen.append(("first", event["agent"]))
                rt.on_trace(second if i % 2 else None)  # its own sink replaced while it runs
                gc.collect()
                if not i % 2:
                    raise KeyError(i)

        seen.clear()
        rt.on_trace(Once())
        if i % 2:  # the replacement takes over when the first call returns
            rt.tick_all(0.1)
            assert seen == [("first", 1)] + [("second", k) for k in range(2, 6)]
        else:  # cleared, then raised: the exception comes out of tick_all, no sink is left
            with pytest.raises(KeyError):
                rt.tick_all(0.1)
            assert seen == [("first", 1)]
            rt.tick_all(0.1)
            assert seen == [("first", 1)]


def test_spawn_from_a_stop_hook_run_by_despawn_waits_for_its_end(tmp_path):
    # despawn runs the leaf's stop hook; its print reaches sys.stdout, whose write spawns. The
    # runtime defers that spawn to the end of the despawn: spawn gives None and the agent is
    # there afterwards (it raised "could not be spawned", yet spawned).
    rt = thicket.Runtime()
    brain = rt.load(write(tmp_path, {"hold.yaml": HOLD, "hold.lua": HOLD_LUA}))
    a = rt.spawn(brain)
    rt.tick_all(0.1)
    answers = []

    class Out:
        def write(self, text):
            answers.append(rt.spawn(brain, id=77))

        def flush(self):
            pass

    real, sys.stdout = sys.stdout, Out()
    try:
        rt.despawn(a)
    finally:
        sys.stdout = real
    assert answers == [None]
    assert [x.id for x in rt.agents()] == [77]
    # Loading from there is refused as from a leaf.
    refused = []

    class Loads:
        def write(self, text):
            with pytest.raises(ValueError, match="during a tick"):
                rt.load_string("tree: u\nroot:\n  wait: 1.0\n")
            refused.append(text)

        def flush(self):
            pass

    rt.tick_all(0.1)
    sys.stdout = Loads()
    try:
        rt.despawn(rt.find(77))
    finally:
        sys.stdout = real
    assert refused == ["stop aborted\n"]


@pytest.mark.parametrize("dt", [5e6, 1e6 * 1.0000001, float("inf")])
def test_dt_past_the_runtimes_bound_is_refused(dt):
    rt = thicket.Runtime()
    b = rt.load_string("tree: t\nroot:\n  wait: 1.0\n")
    a = rt.spawn(b)
    with pytest.raises(ValueError, match="at most 1000000"):
        rt.tick_all(dt)
    with pytest.raises(ValueError, match="at most 1000000"):
        rt.tick(a, dt)
    assert rt.agent_ticks == 0
    rt.tick_all(1e6)  # the bound itself is a tick
    assert rt.agent_ticks == 1


def test_argument_checks_and_reprs():
    rt = thicket.Runtime()
    b = rt.load_string("tree: t\nblackboard:\n  hp: 3\nroot:\n  wait: 1.0\n")
    with pytest.raises(TypeError, match="blackboard must be a mapping"):
        rt.spawn(b, [])
    with pytest.raises(TypeError, match="id must be an int"):
        rt.spawn(b, id=True)  # was agent 1
    with pytest.raises(ValueError, match="agent ids are 1 to 4294967294, got 99999999999999999999999"):
        rt.spawn(b, id=99999999999999999999999)
    import numpy as np
    a = rt.spawn(b, {"hp": 5}, id=np.int64(7))
    assert a.id == 7
    bb = rt.blackboard(a)
    assert bb.get("hp") == 5 and bb.get("nope") is None and bb.get("nope", 0) == 0
    with pytest.raises(ValueError, match="NUL"):
        rt.send(a, "a\x00b")
    seen = []
    rt.register_leaf("Look", lambda agent: seen.append((repr(agent), agent)) or True)
    b2 = rt.load_string("tree: u\nroot:\n  action: Look\n")
    rt.spawn(b2, id=9)
    rt.tick_all(0.1)
    assert seen[0][0] == "<thicket.LeafAgent 9 at node 'root', tick 1>"
    assert repr(seen[0][1]) == "<thicket.LeafAgent of a call that has returned>"


FSM = """fsm: f
initial: idle
states:
  idle:
    act: {leaf: Act}
    transitions: {go: busy}
  busy:
    act: {leaf: Act}
    transitions: {back: idle}
"""


def test_a_trace_callback_that_spawns_when_a_full_queue_drops_an_event():
    # The drop's trace callback runs inside send: its spawns wait until send returns (they grew
    # the agent array under a reference send held: a segfault).
    rt = thicket.Runtime()
    rt.register_leaf("Act", lambda a: "running")
    b = rt.load_string(FSM, "f.yaml")
    for _ in range(100):
        last = rt.spawn(b)
    seen = []

    def on_event(ev):
        if ev["type"] == "event" and ev["name"] == "overflow" and not seen:
            seen.append(len(rt.agents()))
            for _ in range(3000):
                rt.spawn(b)

    rt.on_trace(on_event, ticks=False)
    for i in range(4096):
        assert rt.send(last, "go" if i % 2 == 0 else "back")
    assert rt.send(last, "overflow") is False
    assert seen == [100]
    assert len(rt.agents()) == 3100


def test_a_logging_filter_that_raises_leaves_the_runtime_whole(tmp_path):
    # The "thicket" logger's call was not guarded: its exception unwound through Lua's C frames
    # (the despawned agent stayed alive; after ~200 of them every Lua call failed for good).
    import logging

    lua = HOLD_LUA.replace('print("stop " .. status)', 'thicket.log("stopping " .. agent.id)')
    lua = 'local thicket = require("thicket")\n' + lua
    (tmp_path / "hold.lua").write_text(lua)
    (tmp_path / "hold.yaml").write_text(HOLD)

    class Raising(logging.Filter):
        def filter(self, record):
            raise ZeroDivisionError("filter: " + record.getMessage())

    log = logging.getLogger("thicket")
    old_level = log.level
    log.setLevel(logging.INFO)
    rt = thicket.Runtime()
    brain = rt.load(str(tmp_path / "hold.yaml"))
    keep = rt.spawn(brain)
    raising = Raising()
    try:
        for _ in range(250):
            a = rt.spawn(brain)
            rt.tick_all(0.1)
            log.addFilter(raising)
            with pytest.raises(ZeroDivisionError, match=f"stopping {a.id}"):
                rt.despawn(a)
            log.removeFilter(raising)
            assert rt.find(a.id) is None
    finally:
        log.removeFilter(raising)
        log.setLevel(old_level)
    before = rt.script_errors
    rt.tick_all(0.1)
    assert rt.script_errors == before and rt.status(keep) == "running"
    assert rt.agent_count == 1


def test_python_reached_from_a_load_cannot_tick_load_or_restore_into_it(tmp_path):
    # A leaf file's top level prints as it loads; the print reaches sys.stdout, whose write ran a
    # tick_all, a restore or another load in the middle of the load.
    (tmp_path / "noisy.lua").write_text('print("loading")\nreturn {Quiet = function() return "success" end}\n')
    (tmp_path / "noisy.yaml").write_text("tree: noisy\nleaves: [noisy.lua]\nroot: {action: Quiet}\n")
    rt = thicket.Runtime()
    snapshot = rt.save()
    for call, name in [(lambda: rt.tick_all(0.1), "tick_all"), (lambda: rt.restore(snapshot), "restore"),
                       (lambda: rt.load_string("tree: t\nroot: {condition: {check: 'true'}}\n"), "load_string"),
                       (lambda: rt.reload(), "reload")]:
        class Out:
            def write(self, text, call=call):
                call()

            def flush(self):
                pass

        saved = sys.stdout
        sys.stdout = Out()
        try:
            with pytest.raises(ValueError, match=f"{name} cannot be called while the runtime loads"):
                rt.load(str(tmp_path / "noisy.yaml"))
        finally:
            sys.stdout = saved
    rt.tick_all(0.1)  # and after it, as ever
