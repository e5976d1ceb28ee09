"""The Python module (issue 33): run by tests/python_test.sh with PYTHONPATH=build/python and
THICKET_BIN=build/thicket (the CLI the batches are compared with). No test reads the clock."""
import contextlib
import gzip
import io
import json
import os
import pathlib
import pickle
import re
import shutil
import signal
import subprocess
import sys
import time
import warnings

import numpy as np
import pandas as pd
import pytest

import thicket

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
THICKET = os.environ.get("THICKET_BIN", os.path.join(ROOT, "build", "thicket"))
ARENA = os.path.join(ROOT, "scripts/examples/arena/arena.yaml")
GUARD = os.path.join(ROOT, "scripts/examples/guard/guard.yaml")

COUNTER = """
tree: counter
leaves: [counter.lua]
blackboard:
  count: {type: integer, default: 0}
  health: 100
  name: "x"
  alert: false
root:
  sequence:
    - action: Count
    - condition: {check: "count < 1000"}
"""
COUNTER_LUA = """
local thicket = require("thicket")
local leaves = {}
function leaves.Count(agent, args)
  agent.bb.count = agent.bb.count + 1
  return thicket.SUCCESS
end
return leaves
"""


def write(tmp_path, files):
    for name, text in files.items():
        (tmp_path / name).write_text(text)
    return str(tmp_path / next(iter(files)))


def test_version_is_the_librarys():
    out = subprocess.run([THICKET, "--version"], capture_output=True, text=True, check=True).stdout
    assert out.strip() == f"thicket {thicket.__version__}"
    assert re.fullmatch(r"\d+\.\d+\.\d+", thicket.__version__)


def test_load_spawn_tick_and_read(tmp_path):
    path = write(tmp_path, {"counter.yaml": COUNTER, "counter.lua": COUNTER_LUA})
    rt = thicket.Runtime(seed=3)
    brain = rt.load(path)
    assert (brain.name, brain.type) == ("counter", "tree")
    a = rt.spawn(brain, blackboard={"health": 80, "name": "bob"})
    b = rt.spawn(brain, id=42)
    assert b.id == 42 and a.id != 42
    rt.tick_all(0.1, times=5)
    assert rt.status(a) == "success"
    bb = rt.blackboard(a)
    assert bb["count"] == 5 and isinstance(bb["count"], int)
    assert bb["health"] == 80.0 and isinstance(bb["health"], float)
    assert bb["name"] == "bob" and bb["alert"] is False
    bb["health"] = 3            # an int where a number is declared
    bb["alert"] = True
    assert rt.blackboard(a)["health"] == 3.0 and rt.blackboard(a)["alert"] is True
    assert sorted(bb.keys()) == ["alert", "count", "health", "name"]
    assert bb.to_dict()["count"] == 5 and len(bb) == 4 and "health" in bb and "nope" not in bb
    assert [x.id for x in rt.agents()] == [a.id, 42]
    assert rt.find(42) == b and rt.find(7) is None
    assert rt.agent_count == 2 and rt.agent_ticks == 10
    # A live view is a Mapping: dict(bb), and a spawn copying another agent's blackboard.
    import collections.abc
    assert isinstance(bb, collections.abc.Mapping) and dict(bb) == bb.to_dict()
    assert sorted(bb.values(), key=str) == sorted(bb.to_dict().values(), key=str)
    # ... and behaves as one: equality with a mapping of the same items, any key asked for,
    # views for keys, values and items (a TypeError, False and lists before).
    assert bb == bb.to_dict() and bb.to_dict() == bb and bb != {} and bb != 3
    assert 5 not in bb and bb.get(5, "d") == "d" and bb.get("nope") is None
    with pytest.raises(KeyError, match=r"^'5 is not a blackboard key \(keys are str\)'$"):
        bb[5]  # as a dict's missing key (pybind's TypeError before)
    assert bb.keys() & {"health", "x"} == {"health"} and ("count", 5) in bb.items() and 5 in bb.values()
    twin = rt.spawn(brain, bb)
    assert rt.blackboard(twin).to_dict() == bb.to_dict()


def test_bad_blackboard_values_raise(tmp_path):
    path = write(tmp_path, {"counter.yaml": COUNTER, "counter.lua": COUNTER_LUA})
    rt = thicket.Runtime()
    a = rt.spawn(rt.load(path))
    bb = rt.blackboard(a)
    # A close name gets a did-you-mean, as the engine's own messages do.
    with pytest.raises(KeyError, match=r"'helth' is not a blackboard key of this agent's brain; did you mean 'health'\? \(declared: count, health, name, alert"):
        bb["helth"]
    with pytest.raises(KeyError, match=r"'helth' is not a blackboard key of brain '.*'; did you mean 'health'\? \(declared: "):
        rt.spawn(rt.load(path), {"helth": 1})
    with pytest.raises(TypeError, match=r"blackboard key 'health' is a number \(float\), not str"):
        bb["health"] = "full"
    with pytest.raises(TypeError, match=r"'count' is an integer, not float"):
        bb["count"] = 1.5
    with pytest.raises(TypeError, match=r"'alert' is a boolean, not int"):
        bb["alert"] = 1
    with pytest.raises(ValueError, match=r"blackboard key 'count': 1180591620717411303424 does not fit a 64-bit integer"):
        bb["count"] = 2**70
    with pytest.raises(ValueError, match=r"blackboard key 'name': the text cannot be written as UTF-8"):
        bb["name"] = "\ud800"
    bb["health"] = 7  # a number key takes an int
    assert bb["health"] == 7.0 and isinstance(bb["health"], float)
    # A whole float is an integer key's integer (a pandas column with a NaN holds floats), as
    # Lua's 5.0 is; nan is refused to a number key, as a Lua write of it is; inf is fine.
    bb["count"] = 3.0
    assert bb["count"] == 3 and isinstance(bb["count"], int)
    with pytest.raises(ValueError, match=r"blackboard key 'health' takes no nan"):
        bb["health"] = float("nan")
    assert bb["health"] == 7.0
    bb["health"] = float("inf")
    bb["health"] = 7
    with pytest.raises(ValueError, match=r"blackboard key 'health' takes no nan"):
        rt.spawn(rt.load(path), blackboard={"health": float("nan")})
    assert rt.spawn(rt.load(path), blackboard={"count": 4.0}) is not None
    with pytest.raises(TypeError, match=r"tick_all: dt must be a number of seconds \(an int or a float\), not str"):
        rt.tick_all("fast")
    with pytest.raises(ValueError, match="dt must be"):
        rt.tick_all(0)
    # A bool is no time step (it was taken as 1.0 s); ints and numpy's floats are.
    with pytest.raises(TypeError, match=r"tick_all: dt must be .*, not bool"):
        rt.tick_all(True)
    with pytest.raises(TypeError, match=r"tick: dt must be .*, not bool"):
        rt.tick(a, True)
    rt.tick_all(1)
    rt.tick(a, 0.5)
    np = pytest.importorskip("numpy")
    rt.tick_all(np.float64(0.1))
    with pytest.raises(TypeError, match=r"not bool_"):
        rt.tick_all(np.bool_(True))
    # A spawn with a bad blackboard leaves no agent behind, nor a used id: the next agent gets
    # the id (and the random stream seeded from it) it would have had without the call (the
    # value after a good one was checked once the agent was made, and its id went with it).
    before = max(x.id for x in rt.agents())
    with pytest.raises(KeyError):
        rt.spawn(rt.load(path), blackboard={"nope": 1})
    with pytest.raises(TypeError, match=r"blackboard key 'count' is an integer, not str"):
        rt.spawn(rt.load(path), blackboard={"health": 1, "count": "x"})
    assert rt.agent_count == 2
    # Keys are str, as the blackboard view takes them (a key made by str() was taken before).
    for key, name in ((b"health", "bytes"), (pathlib.PurePosixPath("health"), "PurePosixPath"), (5, "int")):
        with pytest.raises(TypeError, match=rf"^spawn: blackboard keys are str, not {name}$"):
            rt.spawn(rt.load(path), blackboard={key: 1})
    fresh = rt.spawn(rt.load(path))
    assert fresh.id == before + 1
    rt.despawn(fresh)
    rt.despawn(a)
    with pytest.raises(ValueError, match="not alive"):
        rt.status(a)


def test_load_error_carries_every_diagnostic(tmp_path):
    bad = COUNTER.replace("sequence:", "sequense:").replace("count < 1000", "cout < 1000")
    path = write(tmp_path, {"counter.yaml": bad, "counter.lua": COUNTER_LUA})
    rt = thicket.Runtime()
    with pytest.raises(thicket.LoadError) as e:
        rt.load(path)
    diags = e.value.diagnostics
    assert len(diags) >= 1
    d = diags[0]
    assert d.file == path and d.line == 10 and d.column == 3 and "did you mean 'sequence'" in d.message
    assert str(d).startswith(f"{path}:10:3: error: ")
    assert "did you mean 'sequence'" in str(e.value)
    with pytest.raises(thicket.LoadError, match="cannot open|not found|No such"):
        rt.load(str(tmp_path / "missing.yaml"))
    # A LoadError crosses a process boundary whole (multiprocessing pickles what a worker raises).
    again = pickle.loads(pickle.dumps(e.value))
    assert type(again) is thicket.LoadError and str(again) == str(e.value)
    assert [str(x) for x in again.diagnostics] == [str(x) for x in diags]
    assert (again.diagnostics[0].line, again.diagnostics[0].severity) == (10, "error")
    # In the order of the file's lines, as `thicket check` prints them (a misspelt top-level key
    # after the tree was found before the node above it).
    path = write(tmp_path, {"order.yaml": "tree: t\nroot: {sequnce: [{wait: 1}]}\nblackbord: {x: 1}\n"})
    with pytest.raises(thicket.LoadError) as e:
        rt.load(path)
    assert [(d.line, d.column) for d in e.value.diagnostics] == [(2, 8), (3, 1)]


def test_messages_quoting_bytes_that_are_not_utf8(tmp_path):
    # A Latin-1 Lua file's syntax error, and a leaf's error() with such a byte: the messages
    # quoted raw bytes, which came out as UnicodeDecodeError instead of LoadError or a warning;
    # such a byte is now written as an escape (\xE9) by the runtime itself.
    (tmp_path / "lamp.lua").write_bytes(b"return {}\n'caf\xe9'\n")
    (tmp_path / "lamp.yaml").write_text("tree: lamp\nleaves: [lamp.lua]\nroot:\n  action: Glow\n")
    rt = thicket.Runtime()
    with pytest.raises(thicket.LoadError) as e:
        rt.load(str(tmp_path / "lamp.yaml"))
    assert "caf\\xE9" in str(e.value) and any("lamp.lua:2" in str(d) for d in e.value.diagnostics)
    (tmp_path / "boom.lua").write_bytes(b"local t = require('thicket')\nreturn {Boom = function() error('caf\xe9') end}\n")
    (tmp_path / "boom.yaml").write_text("tree: boom\nleaves: [boom.lua]\nroot:\n  action: Boom\n")
    rt.spawn(rt.load(str(tmp_path / "boom.yaml")))
    with pytest.warns(RuntimeWarning, match=r"boom.lua:2: caf\\xE9"):
        rt.tick_all(0.1)


def test_load_takes_a_path_object(tmp_path):
    path = write(tmp_path, {"counter.yaml": COUNTER, "counter.lua": COUNTER_LUA})
    rt = thicket.Runtime()
    brain = rt.load(pathlib.Path(path))
    assert brain.path == path
    with pytest.raises(TypeError, match="not bytes"):
        rt.load(path.encode())


def test_file_names_that_are_no_utf8(tmp_path):
    # Python spells such a name with surrogates (os.fsdecode); each call passes the file
    # system's bytes on ("Unable to cast" and "incompatible function arguments" before).
    folder = tmp_path / "arena"
    shutil.copytree(os.path.dirname(ARENA), folder)
    brain = os.fsdecode(os.fsencode(str(folder)) + b"/minion\xff.yaml")
    shutil.copy(folder / "minion.yaml", brain)
    rt = thicket.Runtime()
    b = rt.load(brain)
    assert b.path == brain and "minion\ufffd.yaml" in repr(b)
    scenario = os.fsdecode(os.fsencode(str(folder)) + b"/arena\xfe.yaml")
    shutil.copy(ARENA, scenario)
    result = thicket.run(scenario, ticks=3, record=True)
    assert result.record.header["scenario"] == "arena" and list(result.metrics["ticks"]) == [3]
    with pytest.raises(RuntimeError, match="arena\ufffd.yaml: line 1: not a thicket record"):
        thicket.read_record(scenario)
    with pytest.raises(thicket.LoadError, match="nothing\ufffd.yaml: error: cannot open file: no such file"):
        rt.load(os.fsdecode(os.fsencode(str(folder)) + b"/nothing\xfd.yaml"))


ANY = """
tree: anything
blackboard:
  target: {type: any}
root:
  action: Idle
"""


def test_an_any_key_takes_any_plain_value_whatever_it_holds(tmp_path):
    rt = thicket.Runtime()
    rt.register_leaf("Idle", lambda agent: "running")
    a = rt.spawn(rt.load_string(ANY, "any.yaml"))
    bb = rt.blackboard(a)
    for value in (3, 2.5, "s", True, None, "r\0s", -7):  # (text read back cut at its NUL: "r")
        bb["target"] = value
        assert bb["target"] == value and type(bb["target"]) is type(value)
    # (It holds -7 now: the message names no type of the key's from what it holds.)
    with pytest.raises(TypeError, match=r"^blackboard key 'target': list is not a blackboard type \(values are None, bool, int, float or str\)$"):
        bb["target"] = [1, 2]


def test_names_no_brain_can_use_are_refused_and_big_ints_fit_number_keys(tmp_path):
    rt = thicket.Runtime()
    b = rt.load_string("tree: n\nblackboard:\n  x: 0.5\n  k: {type: integer, default: 0}\nroot:\n  wait: 9\n", "n.yaml")
    a = rt.spawn(b)
    with pytest.raises(TypeError, match="an event name is a str, not bytes"):  # (b"\xff\xfe" was sent)
        rt.send(a, b"\xff\xfe")
    with pytest.raises(TypeError, match="^send: an event name is a str, not int$"):  # pybind11 listed signatures
        rt.send(a, 5)
    with pytest.raises(TypeError, match=r"^blackboard keys are str, not int \(3\)$"):
        rt.blackboard(a)[3] = 1
    with pytest.raises(TypeError, match="a blackboard key cannot be deleted"):  # (AttributeError: __delitem__)
        del rt.blackboard(a)["x"]
    with pytest.raises(ValueError, match="event name cannot be written as UTF-8"):  # was a RuntimeError of pybind11's
        rt.send(a, "\ud800")
    assert rt.send(a, "noise")
    with pytest.raises(ValueError, match="NUL"):
        rt.register_leaf("a\0b", lambda agent: True)
    bb = rt.blackboard(a)
    bb["x"] = 2**63  # a number key takes it as float(x) does
    assert bb["x"] == float(2**63)
    with pytest.raises(ValueError, match="too large for a number"):
        bb["x"] = 10**400
    with pytest.raises(ValueError, match="does not fit a 64-bit integer"):
        bb["k"] = 2**63


def test_a_runtime_busy_on_one_thread_refuses_the_others(tmp_path):
    # Ticks release the GIL; a second thread calling in meanwhile gets a RuntimeError (two
    # threads ticking one Runtime crashed the interpreter). Events, not timing, order the steps.
    import threading
    inside, tried = threading.Event(), threading.Event()
    rt = thicket.Runtime()

    def wait_leaf(agent):
        inside.set()
        tried.wait()
        return "success"

    rt.register_leaf("Idle", wait_leaf)
    a = rt.spawn(rt.load_string(ANY, "any.yaml"))
    worker = threading.Thread(target=lambda: rt.tick_all(0.1))
    worker.start()
    inside.wait()
    errors = []
    for call in (lambda: rt.tick_all(0.1), lambda: rt.spawn(rt.load_string(ANY, "b.yaml")), lambda: rt.status(a)):
        try:
            call()
        except RuntimeError as e:
            errors.append(str(e))
    tried.set()
    worker.join()
    assert len(errors) == 3 and all("busy on another thread" in e for e in errors)
    assert rt.status(a) == "success"  # free again once the tick is over
    rt.tick_all(0.1)


def test_a_runtime_loading_a_string_or_registering_a_leaf_refuses_the_others(tmp_path):
    # load_string keeps the GIL, but a print of the leaf file's top level runs Python
    # (sys.stdout.write), which lets another thread in mid-load; so does the log line of
    # register_leaf replacing a Lua leaf (Python's logging). That thread is refused, as during load.
    import logging
    import sys
    import threading
    (tmp_path / "p.lua").write_text('print("loading")\nreturn { P = function(agent) return "running" end }\n')
    yaml = "tree: p\nleaves: [p.lua]\nroot:\n  action: P\n"
    rt = thicket.Runtime()
    q = rt.load_string("tree: q\nroot:\n  wait: 100\n", "q.yaml")
    inside, tried, errors = threading.Event(), threading.Event(), []

    def pause():  # Python code inside the call: wait until the other thread has tried
        inside.set()
        tried.wait(30)

    class Out:
        def write(self, text):
            pause()

        def flush(self):
            pass

    class Pause(logging.Handler):
        def emit(self, record):
            pause()

    def other():
        inside.wait(30)
        try:
            rt.despawn(rt.spawn(q))
            errors.append("let in")
        except RuntimeError as e:
            errors.append(str(e))
        tried.set()

    log, handler = logging.getLogger("thicket"), Pause()
    log.addHandler(handler)
    log.setLevel(logging.INFO)
    try:
        for step in (lambda: rt.load_string(yaml, str(tmp_path / "p.yaml")), lambda: rt.register_leaf("P", lambda a: "success")):
            inside.clear()
            tried.clear()
            worker = threading.Thread(target=other)
            worker.start()
            old, sys.stdout = sys.stdout, Out()
            try:
                step()
            finally:
                sys.stdout = old
                inside.set()
                worker.join()
    finally:
        log.removeHandler(handler)
    assert len(errors) == 2 and all("busy on another thread" in e for e in errors), errors


def test_events_and_trace(tmp_path):
    fsm = """
fsm: door
initial: closed
states:
  closed: {transitions: {open_it: open}}
  open: {transitions: {close_it: closed, leave: gone}}
  gone: {final: true}
"""
    path = write(tmp_path, {"door.yaml": fsm})
    rt = thicket.Runtime()
    a = rt.spawn(rt.load(path))
    seen = []
    rt.on_trace(seen.append, ticks=False)
    rt.tick_all(0.1)
    assert rt.send(a, "open_it")
    rt.tick_all(0.1)
    assert "open" in rt.running(a)
    transitions = [e for e in seen if e["type"] == "transition"]
    assert transitions[0]["from"] is None and transitions[0]["to"] == "closed"
    assert transitions[1]["from"] == "closed" and transitions[1]["to"] == "open" and transitions[1]["event"] == "open_it"
    events = [e for e in seen if e["type"] == "event"]
    assert events[0]["name"] == "open_it" and events[0]["taken_by"] == "closed"
    assert not any(e["ended"] for e in transitions)
    # The brain's end: its top-level final state left, a transition of its own (to None, ended).
    assert rt.send(a, "leave")
    rt.tick_all(0.1)
    transitions = [e for e in seen if e["type"] == "transition"]
    assert transitions[-2]["from"] == "open" and transitions[-2]["to"] == "gone" and not transitions[-2]["ended"]
    end = transitions[-1]
    assert end["from"] == "gone" and end["to"] is None and end["ended"]
    assert end["exited"] == ["gone"] and end["entered"] == []
    assert transitions[1]["cause"] is None and not transitions[1]["reload"]  # an event moved it
    assert events[0]["refused_by"] is None and not (events[0]["guard_failed"] or events[0]["stale"] or events[0]["queue_full"])
    assert not events[0]["reload"]
    rt.on_trace(None)
    # A `when` entry that moves it: the entry's id and label, as --trace's "when" names it.
    path = write(tmp_path, {"timer.yaml": "fsm: timer\ninitial: a\nstates:\n  a: {when: [{after: 0.15, go: b}]}\n  b: {}\n"})
    rt = thicket.Runtime()
    rt.spawn(rt.load(path))
    seen = []
    rt.on_trace(seen.append, ticks=False)
    rt.tick_all(0.1, times=3)
    moved = [e for e in seen if e["type"] == "transition" and e["from"] == "a"]
    assert moved and moved[0]["cause"] == "a/when/0" and moved[0]["cause_label"] == "after 0.15 s"


def test_trace_of_an_event_a_reload_drops(tmp_path):
    # `work` succeeds in tick 2; its success waits for tick 3. A reload renames `work`: the event
    # is dropped then, and its record says so ("reload": True; it had no record at all).
    fsm = "fsm: f\nleaves: [l.lua]\nstates:\n  work:\n    act: Done\n    transitions: {success: other}\n  other: {}\n"
    lua = "local thicket = require('thicket')\nreturn {Done = function() if thicket.tick() >= 2 then return 'success' end return 'running' end}\n"
    path = write(tmp_path, {"f.yaml": fsm, "l.lua": lua})
    rt = thicket.Runtime()
    rt.spawn(rt.load(path))
    seen = []
    rt.on_trace(seen.append, ticks=False)
    rt.tick_all(0.1, times=2)
    (tmp_path / "f.yaml").write_text(fsm.replace("  work:", "  job:"))
    assert [r["ok"] for r in rt.reload()] == [True]
    events = [e for e in seen if e["type"] == "event"]
    assert len(events) == 1 and events[0]["name"] == "success" and events[0]["taken_by"] is None
    assert events[0]["stale"] and events[0]["reload"]


def test_python_leaves(tmp_path):
    tree = """
tree: py
blackboard: {n: 0}
root:
  sequence:
    - action: Bump
    - condition: IsEven
"""
    rt = thicket.Runtime()
    calls = []

    def bump(agent):
        calls.append((agent.id, agent.tick, agent.node))
        agent.set("n", agent.get("n") + 1)
        return "success"

    rt.register_leaf("Bump", bump)
    rt.register_leaf("IsEven", lambda agent: agent.get("n") % 2 == 0)
    a = rt.spawn(rt.load_string(tree, "py.yaml"))
    assert rt.tick(a, 0.1) == "failure" and rt.tick(a, 0.1) == "success"
    assert calls == [(a.id, 1, "root/0"), (a.id, 2, "root/0")]

    # A leaf agent kept past its call raises rather than reading a finished call's context.
    kept = calls_agents = []

    def keep(agent):
        calls_agents.append(agent)
        return True

    rt.register_leaf("Keep", keep)
    k = rt.spawn(rt.load_string("tree: keep\nroot: {action: Keep}\n", "keep.yaml"))
    assert rt.tick(k, 0.1) == "success"
    with pytest.raises(ValueError, match="belongs to a call that has returned"):
        kept[0].get("n")
    with pytest.raises(ValueError, match="belongs to a call that has returned"):
        kept[0].id

    # numpy's comparisons give numpy.bool_: a bool like any other (it was "returned True; a leaf
    # returns ... True or False").
    rt3 = thicket.Runtime()
    rt3.register_leaf("Bump", lambda agent: np.float64(agent.tick) > 1.5)
    rt3.register_leaf("IsEven", lambda agent: np.bool_(True))
    a3 = rt3.spawn(rt3.load_string(tree, "py.yaml"))
    assert rt3.tick(a3, 0.1) == "failure" and rt3.tick(a3, 0.1) == "success"

    rt.register_leaf("Bump", lambda agent: 3)
    with pytest.raises(TypeError, match="leaf 'Bump' returned 3"):
        rt.tick(a, 0.1)

    # Refused when given, not at the next tick or never.
    with pytest.raises(ValueError, match="the leaf name is empty"):
        rt.register_leaf("", lambda agent: True)
    with pytest.raises(TypeError, match="the callback must be callable .* not int"):
        rt.on_trace(5)

    def broken(agent):
        raise ZeroDivisionError("leaf bug")

    rt2 = thicket.Runtime()
    rt2.register_leaf("Bump", broken)
    rt2.register_leaf("IsEven", lambda agent: True)
    rt2.spawn(rt2.load_string(tree, "py.yaml"))
    with pytest.raises(ZeroDivisionError, match="leaf bug"):
        rt2.tick_all(0.1)


def test_lua_error_is_a_warning_with_its_position(tmp_path):
    lua = COUNTER_LUA.replace("agent.bb.count = agent.bb.count + 1", "agent.bb.count = agent.bb.nope + 1")
    path = write(tmp_path, {"counter.yaml": COUNTER, "counter.lua": lua})
    rt = thicket.Runtime()
    rt.spawn(rt.load(path))
    with pytest.warns(RuntimeWarning, match=r"counter\.lua:5: blackboard has no key 'nope'"):
        rt.tick_all(0.1)
    assert rt.script_errors == 1
    # Warnings turned into errors (-W error): raised from tick_all after the tick, not lost;
    # a call of several ticks stops after the first that had one.
    with warnings.catch_warnings():
        warnings.simplefilter("error", RuntimeWarning)
        with pytest.raises(RuntimeWarning, match=r"counter\.lua:5: blackboard has no key 'nope'"):
            rt.tick_all(0.1, times=5)
    assert rt.script_errors == 2
    with pytest.warns(RuntimeWarning):  # and the next tick is as before
        rt.tick_all(0.1)
    assert rt.script_errors == 3


def test_lua_print_goes_to_sys_stdout(tmp_path):
    # Python's sys.stdout, not file descriptor 1: a notebook shows the lines, redirect_stdout takes them.
    path = write(tmp_path, {"hi.yaml": "tree: hi\nleaves: [hi.lua]\nroot: {action: Hi}\n",
                            "hi.lua": "return { Hi = function(agent) print('hi from', agent.id); return true end }\n"})
    rt = thicket.Runtime()
    rt.spawn(rt.load(path))
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        rt.tick_all(0.1, times=2)
    assert out.getvalue() == "hi from\t1\nhi from\t1\n"


BREEDER = "tree: breeder\nleaves: [breeder.lua]\nroot: {action: Breed}\n"
BREEDER_LUA = """
local thicket = require("thicket")
local leaves = {}
function leaves.Breed(agent)
  for _ = 1, 10 do thicket.spawn("breeder") end
  return thicket.SUCCESS
end
function leaves.Hog(agent)
  local t = {}
  for i = 1, 1000000 do t[i] = i end
  return thicket.SUCCESS
end
return leaves
"""


def test_a_time_limit_or_script_states_out_of_range_are_refused():
    # -1 or NaN turned the runaway-leaf guard off without a word (0 is the way to say so).
    for bad in (-1.0, float("nan"), float("inf")):
        with pytest.raises(ValueError, match="leaf_timeout must be a number of seconds >= 0"):
            thicket.Runtime(leaf_timeout=bad)
    thicket.Runtime(leaf_timeout=0)
    for bad in (-1, 0, 65, 2**33):  # (2**33 named the bound of its C type; -1 said "at least 0")
        with pytest.raises(ValueError, match=f"script_states must be 1 to 64, got {bad}"):
            thicket.Runtime(script_states=bad)
    thicket.Runtime(script_states=64)
    # Each argument named: pybind11 said "incompatible constructor arguments" with a signature,
    # and took seed=True.
    for kw, error, message in [({"seed": -1}, ValueError, "seed must be at least 0, got -1"),
                               ({"seed": 2**64}, ValueError, "seed must be at most 18446744073709551615"),
                               ({"seed": True}, TypeError, "seed must be an int, not bool"),
                               ({"seed": "3"}, TypeError, "seed must be an int, not str"),
                               ({"trusted": "false"}, TypeError, "trusted must be True or False, not str"),
                               ({"leaf_timeout": "x"}, TypeError, "leaf_timeout must be a number, not str"),
                               ({"lua_memory_limit": 1.5}, TypeError, "lua_memory_limit must be an int, not float")]:
        with pytest.raises(error, match=re.escape(message)):
            thicket.Runtime(**kw)
    thicket.Runtime(seed=np.uint64(2**64 - 1), trusted=np.bool_(True), leaf_timeout=np.float32(0.5), script_states=np.int8(2))


SPIN = """tree: spin
leaves: [spin.lua]
root:
  sequence:
    - action: Count
    - action: Spin
"""
SPIN_LUA = """local thicket = require("thicket")
return { Spin = function()
  if thicket.tick() == 3 then
    io.popen("kill -INT " .. PID):close()  -- Ctrl-C, as Spin loops
    while true do end
  end
  return true
end }
"""


def test_ctrl_c_stops_a_long_tick_all_after_the_tick_in_progress(tmp_path):
    # Python's own handler only notes a SIGINT for when bytecode runs again: tick_all(times=1000)
    # ran all 1000 ticks first, and a looping Lua leaf was stopped only by its time limit.
    path = write(tmp_path, {"spin.yaml": SPIN, "spin.lua": SPIN_LUA.replace("PID", str(os.getpid()))})
    rt = thicket.Runtime(leaf_timeout=1.0, trusted=True)
    ticks = []

    def count(agent):
        ticks.append(agent.tick)
        return True

    rt.register_leaf("Count", count)
    rt.spawn(rt.load(path))
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        with pytest.raises(KeyboardInterrupt):
            rt.tick_all(0.1, times=1000)
    assert ticks == [1, 2, 3]
    assert any("stopped: the run was interrupted (Ctrl-C)" in str(w.message) for w in caught)
    rt.tick_all(0.1, times=2)  # scripts run again afterwards
    assert ticks == [1, 2, 3, 4, 5]


def test_ctrl_c_reaches_a_python_leaf_that_never_returns():
    # The SIGINT went only to the runtime's flag: a Python leaf looping (or in time.sleep) held
    # the tick until a second Ctrl-C ended the process. Now it gets its KeyboardInterrupt at
    # once, tick_all raises it, and no second one is left pending for the caller's next line.
    rt = thicket.Runtime()
    calls = []

    def sleeper(agent):
        calls.append(agent.tick)
        os.kill(os.getpid(), signal.SIGINT)  # Ctrl-C, then a loop that would never end
        while True:
            time.sleep(0.01)

    rt.register_leaf("Sleep", sleeper)
    rt.spawn(rt.load_string("tree: t\nroot: {action: Sleep}\n"))
    with pytest.raises(KeyboardInterrupt):
        rt.tick_all(0.1, times=5)
    assert calls == [1]
    assert sum(range(1000)) == 499500  # bytecode runs: no second KeyboardInterrupt pending


def test_ctrl_c_stops_a_batch_at_the_next_tick(tmp_path):
    marks = tmp_path / "ticks.txt"
    lua = f"""local thicket = require("thicket")
return {{ Tag = function(agent)
  local f = io.open({str(marks)!r}, "a"); f:write("t\\n"); f:close()
  if thicket.tick() == 5 then io.popen("kill -INT {os.getpid()}"):close() end
  return true
end }}
"""
    path = write(tmp_path, {"tags.yaml": TAGS.replace("ticks: 1", "ticks: 50"), "tagger.yaml": TAGGER, "tagger.lua": lua})
    with pytest.raises(KeyboardInterrupt):
        thicket.run(path, runs=20, trusted=True)
    # Stopped in the first run, at its next tick (all 20 runs of 50 ticks ran before).
    assert 5 <= len(marks.read_text().splitlines()) <= 6


def test_script_caps(tmp_path):
    # max_script_agents: thicket.spawn stops at the cap (live agents and this tick's queued spawns).
    path = write(tmp_path, {"breeder.yaml": BREEDER, "breeder.lua": BREEDER_LUA})
    rt = thicket.Runtime(max_script_agents=25)
    rt.spawn(rt.load(path))
    with pytest.warns(RuntimeWarning, match=r"(?s)scripts may spawn up to 25.*breeder\.lua:5:"):
        rt.tick_all(0.1, times=3)
    assert len(rt.agents()) == 25
    # 0: no cap (the default is RuntimeOptions' 100,000).
    rt = thicket.Runtime(max_script_agents=0)
    rt.spawn(rt.load(path))
    rt.tick_all(0.1, times=2)
    assert len(rt.agents()) == 121
    # lua_memory_limit: a leaf allocating past the cap fails, the run goes on.
    hog = BREEDER.replace("Breed", "Hog")
    path = write(tmp_path, {"hog.yaml": hog, "breeder.lua": BREEDER_LUA})
    # (No time limit: on a loaded CI machine the default 50 ms ran out before the 4 MiB did.)
    rt = thicket.Runtime(lua_memory_limit=4 << 20, leaf_timeout=0)
    rt.spawn(rt.load(path))
    with pytest.warns(RuntimeWarning, match=r"Lua heap reached its cap of 4 MiB"):
        rt.tick_all(0.1)
    assert rt.script_errors == 1
    # No cap: the same leaf succeeds (no time limit either: this checks the heap, not the clock).
    rt = thicket.Runtime(lua_memory_limit=0, leaf_timeout=0)
    rt.spawn(rt.load(path))
    rt.tick_all(0.1)
    assert rt.script_errors == 0
    with pytest.raises(ValueError, match="max_script_agents must be at least 0, got -1"):
        thicket.Runtime(max_script_agents=-1)
    # max_script_state_bytes: the agents' node state scripts' spawns may bring the runtime to.
    path = write(tmp_path, {"breeder.yaml": BREEDER, "breeder.lua": BREEDER_LUA})
    rt = thicket.Runtime(max_script_state_bytes=1)
    rt.spawn(rt.load(path))  # the game's spawn: never refused
    with pytest.warns(RuntimeWarning, match=r"the agents' node state would pass 0 MiB"):
        rt.tick_all(0.1)
    assert len(rt.agents()) == 1
    with pytest.raises(ValueError, match="max_script_state_bytes must be at least 0, got -1"):
        thicket.Runtime(max_script_state_bytes=-1)


def test_save_restore_and_reload(tmp_path):
    path = write(tmp_path, {"counter.yaml": COUNTER, "counter.lua": COUNTER_LUA})
    rt = thicket.Runtime()
    brain = rt.load(path)
    a = rt.spawn(brain)
    rt.tick_all(0.1, times=3)
    data = rt.save()
    assert isinstance(data, bytes) and len(data) > 0
    rt.tick_all(0.1, times=3)
    # Bytes past the snapshot (two joined, a wrong slice): refused, nothing changed.
    with pytest.raises(thicket.LoadError, match=r"the bytes go on past the snapshot: it is \d+ bytes long and \d+ were given"):
        rt.restore(data + data)
    assert rt.blackboard(rt.agents()[0])["count"] == 6
    rt.restore(data)
    (agent,) = rt.agents()
    assert agent.id == a.id and rt.blackboard(agent)["count"] == 3
    with pytest.raises(thicket.LoadError):
        rt.restore(b"not a snapshot")
    assert rt.blackboard(agent)["count"] == 3  # untouched
    (tmp_path / "counter.lua").write_text(COUNTER_LUA.replace("+ 1", "+ 10"))
    reports = rt.reload()
    assert [(os.path.basename(r["file"]), r["ok"]) for r in reports] == [("counter.lua", True)]
    rt.tick_all(0.1)
    assert rt.blackboard(agent)["count"] == 13
    (tmp_path / "counter.lua").write_text("return 5")
    (report,) = rt.reload()
    assert not report["ok"] and "counter.lua" in report["error"]


def cli_rows(*args):
    out = subprocess.run([THICKET, "run", ARENA, "--quiet", *args], capture_output=True, text=True)
    assert out.returncode == 0, out.stderr
    return out


def test_small_runs_go_to_the_threads_whole_with_the_same_result():
    # Runs of fewer than 1,000 agents on 2 threads: each run on one thread, two at once, as
    # `thicket run` spreads them (they went one at a time, their agents over the threads, which
    # was slower than one thread). Whatever the split, the result is the same.
    timing = ["wall_s", "agent_ticks_per_s"]
    one = thicket.run(ARENA, runs=3, ticks=20, threads=1, series_every=5, record=True)
    two = thicket.run(ARENA, runs=3, ticks=20, threads=2, series_every=5, record=True)
    pd.testing.assert_frame_equal(one.metrics.drop(columns=timing), two.metrics.drop(columns=timing), check_exact=True)
    pd.testing.assert_frame_equal(one.series, two.series, check_exact=True)
    assert one.log == two.log
    np.testing.assert_array_equal(one.record.x, two.record.x)
    swept = [thicket.sweep(ARENA, {"seed": [1, 2, 3]}, ticks=10, threads=t).metrics.drop(columns=timing) for t in (1, 2)]
    pd.testing.assert_frame_equal(swept[0], swept[1], check_exact=True)


def test_run_matches_the_cli(tmp_path):
    result = thicket.run(ARENA, runs=2, ticks=40, threads=2, seed=5, series_every=10, record=True)
    assert isinstance(result.metrics, pd.DataFrame) and len(result.metrics) == 2
    assert list(result.metrics["seed"]) == [5, 6]
    csv, series, record = tmp_path / "rows.csv", tmp_path / "series.csv", tmp_path / "rec.jsonl.gz"
    cli_rows("--runs", "2", "--ticks", "40", "--threads", "1", "--seed", "5", "--out", str(csv),
             "--series", str(series), "--series-every", "10", "--record", str(record))
    cli = pd.read_csv(csv, float_precision="round_trip")
    timing = ["wall_s", "agent_ticks_per_s"]  # the wall clock: the only columns that differ
    pd.testing.assert_frame_equal(result.metrics.drop(columns=timing), cli.drop(columns=timing), check_exact=True)
    pd.testing.assert_frame_equal(result.series, pd.read_csv(series, float_precision="round_trip"), check_exact=True)
    assert result.metrics["agent_ticks_per_s"].dtype == np.float64
    # Every number exactly the one the CLI's text reads back as (Python's float() of it):
    # pandas' default parser was a unit in the last place off on some.
    import csv as csv_module
    with open(csv) as f:
        for i, row in enumerate(csv_module.DictReader(f)):
            for column, text in row.items():
                value = result.metrics[column][i]
                if column not in timing and isinstance(value, (float, np.floating)) and text not in ("", "nan", "inf", "-inf"):
                    assert value == float(text), (column, i, repr(value), text)
    saved = thicket.read_record(record)
    r = result.record
    assert r.x.shape == (40, 640) and r.ids[0] == 1 and len(r.ids) == 640
    for name in ("ticks", "ids", "x", "y", "heading", "status", "alive", "group", "metrics"):
        np.testing.assert_array_equal(getattr(r, name), getattr(saved, name), err_msg=name)
    assert r.metric_names[:5] == ["chases", "strikes", "returns", "escapes", "minions_left"]
    assert r.header["scenario"] == "arena" and r.status_names[r.status[0, 0]] == "running"
    assert list(r.metrics_frame().index[:2]) == [1, 2]
    assert sum(result.statuses[0].values()) == result.metrics["agents_end"][0]


def test_sweep_matches_the_cli(tmp_path):
    key = "groups.players.count"
    result = thicket.sweep(ARENA, {key: [50, 100]}, runs=2, ticks=20)
    assert len(result.metrics) == 4 and list(result.metrics[key]) == [50, 50, 100, 100]
    assert list(result.metrics["agents_start"]) == [290, 290, 340, 340]
    csv = tmp_path / "rows.csv"
    cli_rows("--runs", "2", "--ticks", "20", "--set", f"{key}=50,100", "--out", str(csv))
    timing = ["wall_s", "agent_ticks_per_s"]
    pd.testing.assert_frame_equal(result.metrics.drop(columns=timing), pd.read_csv(csv).drop(columns=timing))
    # Overrides are single-value --set's: a column each, and `seed` the base seed (it was
    # checked, then dropped); a key in both the grid and the overrides is refused.
    result = thicket.run(ARENA, ticks=20, overrides={"seed": 5, key: 60})
    assert list(result.metrics["seed"]) == [5] and list(result.metrics[key]) == [60]
    cli_rows("--ticks", "20", "--set", "seed=5", "--set", f"{key}=60", "--out", str(csv))
    pd.testing.assert_frame_equal(result.metrics.drop(columns=timing), pd.read_csv(csv).drop(columns=timing))
    with pytest.raises(ValueError, match=f"sweep key '{key}' is both in overrides and in the grid"):
        thicket.sweep(ARENA, {key: [50, 100]}, overrides={key: 60}, ticks=1)
    # numpy's scalars are the numbers and bools they hold (np.int64 was "not a number").
    result = thicket.sweep(ARENA, {key: np.arange(50, 52)}, ticks=1, seed=np.int64(3),
                           overrides={"groups.west_post.vehicle.max_speed": np.float32(4.5)})
    assert list(result.metrics[key]) == [50, 51] and list(result.metrics["seed"]) == [3, 3]
    assert list(result.metrics["groups.west_post.vehicle.max_speed"]) == [4.5, 4.5]
    # A NUL cuts no path short ("arena.yaml\0.txt" ran arena.yaml).
    for call in (lambda: thicket.run(ARENA + "\0.txt", ticks=1), lambda: thicket.read_record(ARENA + "\0x"),
                 lambda: thicket.Runtime().load(GUARD + "\0/../x")):
        with pytest.raises(ValueError, match="embedded null byte"):
            call()


TAGS = """scenario: tags
seed: 1
ticks: 1
world: {size: [10, 10]}
teams: [a]
groups:
  - {name: g, team: a, count: 1, brain: tagger.yaml, spawn: {centre: [5, 5], radius: 1},
     vehicle: {mass: 1, max_speed: 1, max_force: 1, radius: 0.5}}
metrics: [commas]
"""
TAGGER = """tree: tagger
leaves: [tagger.lua]
blackboard: {tag: "x"}
root: {action: Tag}
"""
TAGGER_LUA = """local thicket = require("thicket")
return { Tag = function(agent)
  local _, n = string.gsub(agent.bb.tag, ",", ",")
  thicket.metric("commas", n)
  return true
end }
"""


def test_a_grid_value_is_one_value_commas_and_all(tmp_path):
    path = write(tmp_path, {"tags.yaml": TAGS, "tagger.yaml": TAGGER, "tagger.lua": TAGGER_LUA})
    key = "groups.g.blackboard.tag"
    result = thicket.sweep(path, {key: ["Smith, J", "Doe"]})
    # Two points (it was three: "Smith", " J", "Doe", split as --set splits its text).
    assert list(result.metrics[key]) == ["Smith, J", "Doe"]
    assert list(result.metrics["commas"]) == [1, 0]
    # The empty text is a string key's value, as the file's `sweep:` gives it (it was refused).
    result = thicket.sweep(path, {key: ["", "Doe"]})
    assert list(result.metrics[key]) == ["", "Doe"]
    assert list(thicket.run(path, overrides={key: ""}).metrics[key]) == [""]
    with pytest.raises(ValueError, match=r"sweep key 'groups.g.count': the value must be a whole number .*, got ''"):
        thicket.sweep(path, {"groups.g.count": ["", "2"]})
    # Text that pandas takes for a missing value stays text (it was NaN: a groupby lost the sets).
    labels = ["NA", "N/A", "null", "nan", "#N/A", "x"]
    result = thicket.sweep(path, {key: labels})
    assert list(result.metrics[key]) == labels
    assert len(result.metrics.groupby(key)["commas"].sum()) == len(labels)
    # The brain declares the tag a string: text that reads as a number or a bool stays text (it
    # was refused: "the value 007 does not fit 'tag'"), in the runs and in the rows.
    result = thicket.sweep(path, {key: ["007", "true", "1.50"]})
    assert list(result.metrics[key]) == ["007", "true", "1.50"]


def test_batch_errors(tmp_path):
    with pytest.raises(thicket.LoadError) as e:
        thicket.run(str(tmp_path / "missing.yaml"))
    assert e.value.diagnostics
    # A brain file: one error saying so (it was four about the keys a scenario has).
    with pytest.raises(thicket.LoadError) as e:
        thicket.run(GUARD)
    assert len(e.value.diagnostics) == 1 and "this is a brain file (it has 'tree:'), not a scenario" in str(e.value)
    with pytest.raises(TypeError, match="scenario must be a path"):
        thicket.run(123)
    # A path as bytes, as read_record takes it (and a path object).
    assert thicket.run(os.fsencode(ARENA), ticks=1).metrics["ticks"][0] == 1
    assert thicket.run(pathlib.Path(ARENA), ticks=1).metrics["ticks"][0] == 1
    with pytest.raises(TypeError, match="runs must be an int"):
        thicket.run(ARENA, runs="3")
    with pytest.raises(ValueError, match="runs must be at least 1"):
        thicket.run(ARENA, runs=0)
    # ticks as --ticks: 0 runs none (it meant the scenario's own, which None now means).
    assert list(thicket.run(ARENA, ticks=0).metrics[["ticks", "agent_ticks"]].iloc[0]) == [0, 0]
    assert thicket.run(ARENA, ticks=None).metrics["ticks"][0] == 600  # the file's ticks: 600
    # The CLI's bounds: 1000 threads for a small run started 1000 threads; a seed past int64
    # was refused by the private binding's signature.
    with pytest.raises(ValueError, match="threads must be at most 256, got 1000"):
        thicket.run(ARENA, threads=1000)
    with pytest.raises(ValueError, match="seed must be at most 9223372036854775807"):
        thicket.run(ARENA, seed=2**64 - 1)
    with pytest.raises(ValueError, match="runs must be at most 1000000"):
        thicket.run(ARENA, runs=10**7)
    with pytest.raises(ValueError, match="did you mean 'players'"):
        thicket.run(ARENA, ticks=1, overrides={"groups.playrs.count": 5})
    with pytest.raises(ValueError, match="sweep key"):
        thicket.sweep(ARENA, {"groups.players.count": ["many"]}, ticks=1)
    # A flag that is not a bool: bool("false") is True, and trusted="false" turned the sandbox off.
    for flag in ("trusted", "record"):
        for bad in ("false", "no", 0, 1, None, [0]):
            with pytest.raises(TypeError, match=f"{flag} must be True or False"):
                thicket.run(ARENA, ticks=1, **{flag: bad})
    assert thicket.run(ARENA, ticks=1, record=np.bool_(False)).record is None
    # Keys and values that are no text: a NUL cut a value short (two values labelled alike), a
    # lone surrogate met the private binding's signature, a 0-d array could not be iterated.
    with pytest.raises(ValueError, match=r"the value of 'groups.players.weapon' holds a NUL character: 'a\\x00b'"):
        thicket.sweep(ARENA, {"groups.players.weapon": ["a\0b", "a\0c"]}, ticks=1)
    with pytest.raises(ValueError, match="holds a NUL character"):
        thicket.run(ARENA, ticks=1, overrides={"groups.players.weapon": "\0"})
    with pytest.raises(ValueError, match="the scenario key holds a NUL character"):
        thicket.run(ARENA, ticks=1, overrides={"groups.players\0.count": 3})
    with pytest.raises(ValueError, match="the value of 'groups.players.weapon' is not valid text"):
        thicket.sweep(ARENA, {"groups.players.weapon": ["\udc80"]}, ticks=1)
    with pytest.raises(TypeError, match="a scenario key must be a string"):
        thicket.run(ARENA, ticks=1, overrides={3: 3})
    grid = thicket.sweep(ARENA, {"groups.players.count": np.array(3)}, ticks=1)
    assert list(grid.metrics["groups.players.count"]) == [3]
    # More runs than one batch keeps (sets x runs, each within its own bound): refused at once.
    with pytest.raises(ValueError, match=re.escape("the batch has 10000000 runs (10 parameter set(s) x 1 seed(s) x "
                                                   "1000000 run(s)); at most 1000000 in one batch")):
        thicket.sweep(ARENA, {"groups.players.count": list(range(1, 11))}, runs=1_000_000)


def test_read_record_errors(tmp_path):
    with pytest.raises(RuntimeError, match="cannot open the record: a device, not a file"):
        thicket.read_record("/dev/zero")  # it read for ever
    with pytest.raises(RuntimeError, match="cannot open the record: a folder, not a file"):
        thicket.read_record(tmp_path)
    bad = tmp_path / "bad.jsonl"
    bad.write_text('{"format":"thicket-record","version":1,"metrics":[]}\n{"tick":1,"agents":[[1,2,oops]]}\n')
    with pytest.raises(RuntimeError, match=r"bad\.jsonl: line 2: expected a number"):
        thicket.read_record(bad)
    # What thicket view refuses, read_record refuses too (it read each as if whole).
    head = '{"format":"thicket-record","version":1,"groups":[{"name":"g"}],"metrics":["m"]}\n'
    tick = '{"tick":%d,"agents":[[%s,1.0,2.0,0.0,%s,1,"running","R",[]]],"metrics":[0]}\n'
    end = '{"end":true}\n'
    for name, text, why in [
            ("v2", head.replace('"version":1', '"version":2') + tick % (1, 1, 0) + end, "line 1: a record of version 2"),
            ("cut", head + tick % (1, 1, 0), "line 2: the record stops without its end line"),
            ("back", head + tick % (2, 1, 0) + tick % (1, 1, 0) + end, "line 3: tick 1 after tick 2: ticks go up"),
            ("after", head + tick % (1, 1, 0) + end + tick % (2, 1, 0), "line 4: a line after the record's end line"),
            ("id", head + tick % (1, -1, 0) + end, "line 2: an agent id must be a whole number from 1"),
            # An id past 2^32 was read modulo 2^32 (agent 4294967297 took agent 1's cell), and a
            # second entry of one id in a tick took the first one's.
            ("wrap", head + tick.replace(']]],', ']],[4294967297,7.0,2.0,0.0,0,1,"running","R",[]]],') % (1, 1, 0) + end,
             "line 2: an agent id must be a whole number from 1 to 4294967294"),
            ("twice", head + tick.replace(']]],', ']],[1,7.0,2.0,0.0,0,1,"running","R",[]]],') % (1, 1, 0) + end,
             "line 2: tick 1: agent 1 is listed twice"),
            ("group", head + tick % (1, 1, 7) + end, "line 2: group 7, but the header names 1 group"),
            ("nan", head + tick.replace("1.0", "NaN") % (1, 1, 0) + end, "line 2: expected a number"),
            ("metrics", head + tick.replace('"metrics":[0]', '"metrics":[]') % (1, 1, 0) + end,
             "line 2: a tick line with 0 metrics, not 1")]:
        (tmp_path / (name + ".jsonl")).write_text(text)
        with pytest.raises(RuntimeError, match=re.escape(name + ".jsonl: " + why)):
            thicket.read_record(tmp_path / (name + ".jsonl"))
    (tmp_path / "ok.jsonl").write_text(head + tick % (1, 1, 0) + tick % (3, 1, 0) + end)
    assert list(thicket.read_record(tmp_path / "ok.jsonl").ticks) == [1, 3]
    # A BOM before the header (view takes it): json.JSONDecodeError from the package before.
    (tmp_path / "bom.jsonl").write_text("\ufeff" + head + tick % (1, 1, 0) + end)
    assert thicket.read_record(tmp_path / "bom.jsonl").header["format"] == "thicket-record"
    # Once alive and once dead in a tick: a new agent spawned with the id of one that died.
    (tmp_path / "reborn.jsonl").write_text(
        head + tick.replace(']]],', ']],[1,7.0,2.0,0.0,0,0,"failure","R",[]]],') % (1, 1, 0) + end)
    reborn = thicket.read_record(tmp_path / "reborn.jsonl")
    assert reborn.x.tolist() == [[1.0]] and reborn.alive.tolist() == [[True]]
    (tmp_path / "x.jsonl").write_text("hello\n")
    with pytest.raises(RuntimeError, match="not a thicket record"):
        thicket.read_record(tmp_path / "x.jsonl")
    with pytest.raises(FileNotFoundError, match="no such record file"):  # (a RuntimeError, which OSError missed)
        thicket.read_record(tmp_path / "none.jsonl")
    # A 3 MB gzip holding one endless line: refused past 512 MB (it took what it inflated to).
    bomb = tmp_path / "bomb.jsonl.gz"
    with gzip.open(bomb, "wb", compresslevel=1) as f:
        f.write(head.encode())
        block = b"x" * (1 << 20)
        for _ in range(520):
            f.write(block)
    with pytest.raises(RuntimeError, match=r"bomb\.jsonl\.gz: line 2: a line longer than 512 MB"):
        thicket.read_record(bomb)
    # 9,000 ticks, each with a new id: dense arrays of 81 million cells (2 GB from a 60 kB file).
    diagonal = tmp_path / "diagonal.jsonl.gz"
    with gzip.open(diagonal, "wt") as f:
        f.write(head + "".join(tick % (t, t, 0) for t in range(1, 9001)) + end)
    with pytest.raises(RuntimeError, match=r"diagonal\.jsonl\.gz: the record has 9000 tick lines and 9000 agent ids, "
                                           r"and its arrays \(ticks x agents\) would have more than 67108864 cells"):
        thicket.read_record(diagonal)


def test_record_keys_and_events(tmp_path):
    keys = ["health", "invincible", "home_x"]
    r = thicket.run(ARENA, ticks=30, seed=3, record=True, record_keys=keys).record
    assert r.key_names == keys and list(r.keys) == keys
    # Numbers as float64, NaN where the brain lacks the key (the players have no home_x);
    # a key holding true/false as objects, None there.
    players = r.group == 2
    assert r.keys["health"].dtype == np.float64 and r.keys["health"].shape == r.x.shape
    assert r.keys["health"][0, 0] == 60 and r.keys["health"][0, players][0] == 100
    assert np.isnan(r.keys["home_x"][0, players]).all() and not np.isnan(r.keys["home_x"][0, ~players]).any()
    assert r.keys["invincible"].dtype == object and r.keys["invincible"][0, 0] is False
    assert r.keys["invincible"][0, players][0] is None
    # The same as the CLI's record file says, read back, through its JSON too.
    record = tmp_path / "rec.jsonl"
    subprocess.run([THICKET, "run", ARENA, "--ticks", "30", "--seed", "3", "--quiet", "--record", str(record),
                    "--record-keys", ",".join(keys)], check=True)
    saved = thicket.read_record(record)
    lines = record.read_text().splitlines()
    assert saved.events == r.events and len(r.events) == sum(len(json.loads(l).get("events", [])) for l in lines)
    for key in keys:
        np.testing.assert_array_equal(saved.keys[key], r.keys[key], err_msg=key)
    line = json.loads(lines[5])
    assert [e for e in r.events if e[1] == line["tick"]] == line["events"]
    cell = r.ids.tolist().index(line["agents"][0][0])
    assert r.keys["health"][4, cell] == line["agents"][0][8][0]
    # A tick line laid out otherwise (keys in another order) is read from its JSON: the same.
    (tmp_path / "other.jsonl").write_text("\n".join(
        [lines[0]] + [json.dumps(dict(reversed(json.loads(l).items()))) if '"tick"' in l else l for l in lines[1:]]) + "\n")
    other = thicket.read_record(tmp_path / "other.jsonl")
    assert other.events == r.events
    np.testing.assert_array_equal(other.keys["invincible"], r.keys["invincible"])
    # events_frame: one kind with its fields named, or every event.
    damage = r.events_frame("damage")
    assert list(damage.columns) == ["tick", "source", "target", "amount"] and len(damage) > 0
    assert damage.iloc[0].tolist() == [e for e in r.events if e[0] == "damage"][0][1:]
    every = r.events_frame()
    assert list(every.columns) == ["tick", "event", "fields"] and len(every) == len(r.events)
    with pytest.raises(ValueError, match="no event kind 'damag' \\(did you mean 'damage'\\?\\)"):
        r.events_frame("damag")
    # A record without keys has none; the stealth guards' percepts are events.
    stealth = thicket.run(os.path.join(ROOT, "scripts/examples/stealth/stealth.yaml"), ticks=100, record=True).record
    assert stealth.keys == {} and stealth.key_names == []
    percepts = stealth.events_frame("percept")
    assert list(percepts.columns) == ["tick", "agent", "sense", "phase", "kind", "what"] and len(percepts) > 0
    assert set(percepts["sense"]) <= {"sight", "hearing", "touch"}
    # Broken keys or events in a tick line as thicket writes it: said at its line.
    head = '{"format":"thicket-record","version":1,"groups":[{"name":"g"}],"keys":["k"],"metrics":[]}\n'
    tick = '{"tick":1,"agents":[[1,1.0,2.0,0.0,0,1,"running","R",%s]],"events":[%s],"metrics":[]}\n'
    for name, text, why in [("keys", head + tick % ("5", "") + '{"end":true}\n', "line 2: field 8 (keys) of agent 1"),
                            ("event", head + tick % ("[1]", '"x"') + '{"end":true}\n', "line 2: an event that is not [name, tick, ...]")]:
        (tmp_path / (name + ".jsonl")).write_text(text)
        with pytest.raises(RuntimeError, match=re.escape(name + ".jsonl: " + why)):
            thicket.read_record(tmp_path / (name + ".jsonl"))
    (tmp_path / "good.jsonl").write_text(head + tick % ('["a"]', '["death",1,1]') + '{"end":true}\n')
    good = thicket.read_record(tmp_path / "good.jsonl")
    assert good.keys["k"].tolist() == [["a"]] and good.events == [["death", 1, 1]]
    with pytest.raises(TypeError, match="an event kind is a str"):
        good.events_frame(5)
    # Lines laid out otherwise than thicket writes them are read from their JSON, whole: events
    # before agents were dropped, and an unknown field holding "agents" took the agents' place.
    reordered = ('{"tick":1,"events":[["death",1,1]],"note":{"agents":[]},'
                 '"agents":[[1,1.0,2.0,0.0,0,1,"running","R",["b"]]],"metrics":[]}\n')
    (tmp_path / "reordered.jsonl").write_text(head + reordered + '{"end":true}\n')
    again = thicket.read_record(tmp_path / "reordered.jsonl")
    assert again.events == [["death", 1, 1]] and again.x.tolist() == [[1.0]] and again.keys["k"].tolist() == [["b"]]
    # A header rewritten by Python's json (spaces after the colons) is a header.
    (tmp_path / "spaced.jsonl").write_text(json.dumps(json.loads(head)) + "\n" + tick % ('["a"]', "") + '{"end":true}\n')
    assert thicket.read_record(tmp_path / "spaced.jsonl").key_names == ["k"]
    # What view refuses, read_record refuses, in view's words where the fast reader would have
    # said less: a null position, junk after the line, an event or agent row of the wrong shape,
    # a key that is no name, a plain file cut inside its last line.
    line = tick % ('["a"]', "")
    for name, text, why in [
            ("nullx", head + line.replace("1.0", "null") + '{"end":true}\n', "line 2: "),
            ("junk", head + line.rstrip("\n") + "x\n" + '{"end":true}\n', "line 2: "),
            ("short_event", head + tick % ('["a"]', '["x"]') + '{"end":true}\n', "line 2: "),
            ("seven", head + line.replace(',"R",["a"]', "") + '{"end":true}\n', "line 2: "),
            ("namekey", head.replace('"keys":["k"]', '"keys":[5]') + line + '{"end":true}\n',
             "line 1: the header's keys must be names (text), got 5"),
            ("cut", head + line[:30], "line 2: the last line is cut short")]:
        (tmp_path / (name + ".jsonl")).write_text(text)
        with pytest.raises(RuntimeError, match=re.escape(name + ".jsonl: " + why)):
            thicket.read_record(tmp_path / (name + ".jsonl"))
        view = subprocess.run([THICKET, "view", str(tmp_path / (name + ".jsonl")), "-o", os.devnull], capture_output=True, text=True)
        assert view.returncode != 0, name


def test_the_example_sweeps_and_plots(tmp_path):
    out = tmp_path / "tune.png"
    run = subprocess.run(["python3" if not os.path.exists("/usr/bin/python3") else "/usr/bin/python3",
                          os.path.join(ROOT, "examples/python/tune_guards.py"), "--speeds", "4,6", "--runs", "1",
                          "--ticks", "30", "--out", str(out)], capture_output=True, text=True, env=os.environ)
    assert run.returncode == 0, run.stderr
    assert "4 runs of 30 ticks" in run.stdout and re.search(r"best: west \d m/s, east \d m/s", run.stdout)
    assert out.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n" and out.stat().st_size > 5000


MAKER = """
tree: maker
blackboard:
  x: 0
  n: {type: integer, default: 0}
  flag: false
root:
  action: Maker
"""


def test_register_leaf_and_reload_from_a_leaf_raise():
    # They would change what the tick walks: refused, as an exception raised from tick_all (the
    # runtime's refusal went only to its log), and nothing is registered.
    rt = thicket.Runtime()
    calls = []

    def meddler(agent):
        calls.append(agent.tick)
        if len(calls) == 1:
            rt.register_leaf("Other", lambda a: "success")
        else:
            rt.reload()
        return "running"

    rt.register_leaf("Maker", meddler)
    brain = rt.load_string(MAKER, "maker.yaml")
    rt.spawn(brain)
    with pytest.raises(ValueError, match=r"register_leaf cannot be called during a tick"):
        rt.tick_all(0.1)
    with pytest.raises(thicket.LoadError):
        rt.load_string(MAKER.replace("Maker", "Other"), "other.yaml")
    with pytest.raises(ValueError, match=r"reload cannot be called during a tick"):
        rt.tick_all(0.1)


def test_tick_from_a_leaf_raises():
    # A tick inside a tick would tick the leaf's own agent inside its walk (and a leaf that
    # always does recursed until Python's RecursionError): refused, as an exception.
    rt = thicket.Runtime()
    agents = []

    def ticker(agent):
        if agent.tick == 1:
            rt.tick_all(0.1)
        else:
            rt.tick(agents[0], 0.1)
        return "running"

    rt.register_leaf("Maker", ticker)
    agents.append(rt.spawn(rt.load_string(MAKER, "maker.yaml")))
    with pytest.raises(ValueError, match=r"tick_all cannot be called during a tick"):
        rt.tick_all(0.1)
    with pytest.raises(ValueError, match=r"^tick cannot be called during a tick"):
        rt.tick_all(0.1)
    assert rt.agent_ticks == 2


def test_save_from_a_leaf_raises():
    # The agents would be saved half ticked: ValueError, as tick_all and restore (it returned b''
    # with a warning, bytes that restore then called no snapshot).
    rt = thicket.Runtime()
    rt.register_leaf("Maker", lambda agent: (rt.save(), "running")[1])
    rt.spawn(rt.load_string(MAKER, "maker.yaml"))
    with pytest.raises(ValueError, match=r"^save cannot be called during a tick"):
        rt.tick_all(0.1)
    assert len(rt.save()) > 0  # between ticks


def test_spawn_from_a_python_leaf_waits_for_the_end_of_the_tick():
    # From a leaf during a tick the spawn is deferred: rt.spawn returns None, raises nothing,
    # and the agent arrives when the tick ends, with its blackboard values.
    rt = thicket.Runtime()
    got = []

    def maker(agent):
        if agent.id == 1 and agent.tick == 1:
            got.append(rt.spawn(brain, {"x": 42, "n": np.int64(7), "flag": True}, id=50))
            got.append(rt.spawn(brain))
            assert rt.find(50) is None  # not yet
        return "running"

    rt.register_leaf("Maker", maker)
    brain = rt.load_string(MAKER, "maker.yaml")
    first = rt.spawn(brain)
    rt.tick_all(0.1)
    assert got == [None, None]
    assert [a.id for a in rt.agents()] == [1, 50, 51]
    bb = rt.blackboard(rt.find(50))
    assert bb["x"] == 42.0 and isinstance(bb["x"], float) and bb["n"] == 7 and bb["flag"] is True
    assert rt.blackboard(rt.find(51))["x"] == 0.0
    assert rt.status(rt.find(50)) == "invalid"  # first ticked by the next tick_all
    rt.tick_all(0.1)
    assert rt.status(rt.find(50)) == "running"

    # Bad values are refused at the call, in the leaf, as between ticks; nothing is spawned.
    for values, error, match in (({"nope": 1}, KeyError, r"'nope' is not a blackboard key of brain 'maker' "
                                                         r"\(declared: x, n, flag\)"),
                                 ({"n": 1.5}, TypeError, r"blackboard key 'n' is an integer, not float"),
                                 ({"flag": 1}, TypeError, r"blackboard key 'flag' is a boolean, not int"),
                                 ({"x": "far"}, TypeError, r"blackboard key 'x' is a number \(float\), not str")):
        def bad(agent, values=values):
            rt.spawn(brain, values, id=60)
            return "running"

        rt.register_leaf("Maker", bad)
        with pytest.raises(error, match=match):
            rt.tick(first, 0.1)
        assert rt.find(60) is None and rt.agent_count == 3
    # And between ticks an Agent comes back at once, as before.
    a = rt.spawn(brain, {"x": 1})
    assert isinstance(a, thicket.Agent) and rt.blackboard(a)["x"] == 1.0


def test_a_leaf_spawn_of_an_id_despawned_earlier_in_the_tick_is_made():
    # Both wait for the end of the tick and are made in agent order, so the id is free when the
    # spawn is made (it was checked at the call and refused as alive already). As in C++ and C.
    rt = thicket.Runtime()
    got = []

    def maker(agent):
        if agent.tick == 1 and agent.id == 1:
            rt.despawn(rt.find(2))
        if agent.tick == 1 and agent.id == 3:
            got.append(rt.spawn(brain, id=2))
        return "running"

    rt.register_leaf("Maker", maker)
    brain = rt.load_string(MAKER, "maker.yaml")
    second = [rt.spawn(brain) for _ in range(3)][1]
    rt.tick_all(0.1)
    assert got == [None]
    assert sorted(a.id for a in rt.agents()) == [1, 2, 3]
    assert rt.status(rt.find(2)) == "invalid"  # a new agent 2: not ticked yet
    with pytest.raises(ValueError, match=r"not alive"):
        rt.status(second)
    # Between ticks a live id is refused at the call, as before.
    with pytest.raises(ValueError, match=r"^agent 2 is alive already$"):
        rt.spawn(brain, id=2)


def test_an_exception_in_a_trace_callback_is_raised_after_the_tick():
    # It must not unwind through the runtime's tick: the tick completes (every agent ticked),
    # the callback is not called again in that tick, and tick_all raises it afterwards; the
    # runtime is not left "ticking" (loads work).
    rt = thicket.Runtime()
    rt.register_leaf("Maker", lambda agent: (agent.set("x", agent.get("x") + 1), "running")[1])
    brain = rt.load_string(MAKER, "maker.yaml")
    a, b = rt.spawn(brain), rt.spawn(brain)
    calls = []

    def bad(event):
        calls.append(event["agent"])
        raise ZeroDivisionError("in trace")

    rt.on_trace(bad)
    with pytest.raises(ZeroDivisionError, match="in trace"):
        rt.tick_all(0.1, times=3)  # stops after the tick it happened in
    assert calls == [1]
    assert rt.blackboard(a)["x"] == 1 and rt.blackboard(b)["x"] == 1 and rt.agent_ticks == 2
    rt.load_string(MAKER.replace("tree: maker", "tree: later"), "later.yaml")
    with pytest.raises(ZeroDivisionError):
        rt.tick(a, 0.1)
    assert calls == [1, 1] and rt.blackboard(a)["x"] == 2
    rt.on_trace(None)
    rt.tick_all(0.1)
    assert rt.blackboard(a)["x"] == 3 and rt.blackboard(b)["x"] == 2


def test_handles_belong_to_their_runtime():
    rt1, rt2 = thicket.Runtime(), thicket.Runtime()
    rt1.register_leaf("Maker", lambda agent: "running")
    rt2.register_leaf("Maker", lambda agent: "running")
    brain1 = rt1.load_string(MAKER, "a.yaml")
    brain2 = rt2.load_string(MAKER.replace("tree: maker", "tree: other"), "b.yaml")
    a1, a2 = rt1.spawn(brain1), rt2.spawn(brain2)
    assert a1.id == a2.id == 1 and a1 != a2
    with pytest.raises(ValueError, match="not a brain of this runtime"):
        rt2.spawn(brain1)
    with pytest.raises(ValueError, match="not a brain of this runtime"):
        rt2.dump(brain1)
    for call in (rt2.status, rt2.running, rt2.blackboard, rt2.despawn, lambda agent: rt2.tick(agent, 0.1),
                 lambda agent: rt2.send(agent, "x")):
        with pytest.raises(ValueError, match="agent 1 is not an agent of this runtime"):
            call(a1)
    assert rt2.agent_count == 1 and rt2.status(a2) == "invalid"
    # A restore replaces the agents: an old handle is another agent, even with the same id.
    rt1.tick_all(0.1)
    old = a1
    rt1.restore(rt1.save())
    (new,) = rt1.agents()
    assert new.id == old.id and new != old and len({old, new}) == 2
    assert rt1.find(1) == new and hash(rt1.find(1)) == hash(new) and rt1.agents() == [new]
    with pytest.raises(ValueError, match="not alive"):
        rt1.status(old)
    assert rt1.status(new) == "running"


def test_leaf_agent_set_whole_float_to_integer_key():
    # A leaf's agent.set of a whole float to an integer key writes the integer, as Runtime.set
    # (bb[key] = 3.0) and a Lua write do; it was a TypeError. A half float is still refused.
    rt = thicket.Runtime()
    refused = []

    def maker(agent):
        agent.set("n", agent.get("n") + 1.0)
        try:
            agent.set("n", 0.5)
        except TypeError as e:
            refused.append(str(e))
        return "running"

    rt.register_leaf("Maker", maker)
    a = rt.spawn(rt.load_string(MAKER, "maker.yaml"), {"n": 4})
    rt.tick_all(0.1)
    bb = rt.blackboard(a)
    assert bb["n"] == 5 and isinstance(bb["n"], int)
    assert refused == ["blackboard key 'n' is an integer, not float"]


def test_numpy_scalars_are_blackboard_values():
    rt = thicket.Runtime()
    rt.register_leaf("Maker", lambda agent: (agent.set("n", np.int64(agent.get("n") + 1)),
                                             agent.set("x", np.float32(0.5)), agent.set("flag", np.bool_(True)),
                                             "running")[-1])
    brain = rt.load_string(MAKER, "maker.yaml")
    a = rt.spawn(brain, {"n": np.uint8(4), "x": np.int16(3), "flag": np.bool_(False)})
    bb = rt.blackboard(a)
    assert bb["n"] == 4 and isinstance(bb["n"], int)
    assert bb["x"] == 3.0 and isinstance(bb["x"], float) and bb["flag"] is False
    for key, value, expected in (("n", np.int64(2**40), 2**40), ("x", np.int64(5), 5.0), ("x", np.float32(0.25), 0.25),
                                 ("x", np.float64(1.5), 1.5), ("flag", np.bool_(True), True)):
        bb[key] = value
        assert bb[key] == expected and type(bb[key]) is type(expected)
    bb["n"] = np.float32(1)  # a whole float: the integer
    assert bb["n"] == 1 and isinstance(bb["n"], int)
    bb["n"] = np.int64(2**40)
    with pytest.raises(TypeError, match=r"'n' is an integer, not float32"):
        bb["n"] = np.float32(1.5)
    with pytest.raises(TypeError, match=r"'x' is a number \(float\), not bool"):
        bb["x"] = np.bool_(True)
    with pytest.raises(TypeError, match=r"'flag' is a boolean, not int64"):
        bb["flag"] = np.int64(1)
    with pytest.raises(ValueError, match="does not fit a 64-bit integer"):
        bb["n"] = np.uint64(2**64 - 1)
    rt.tick_all(0.1)
    assert bb["n"] == 2**40 + 1 and bb["x"] == 0.5 and bb["flag"] is True
    # The module needs no numpy: without it the same calls take plain values.
    code = ("import sys; sys.modules['numpy'] = None\n"
            "import thicket\n"
            "rt = thicket.Runtime(); rt.register_leaf('Maker', lambda agent: 'running')\n"
            f"a = rt.spawn(rt.load_string({MAKER!r}, 'm.yaml'), {{'n': 3, 'x': 2}})\n"
            "bb = rt.blackboard(a); bb['flag'] = True\n"
            "try:\n    bb['n'] = object()\nexcept TypeError as e:\n    print(e)\n"
            "print(bb['n'], bb['x'], bb['flag'])\n")
    run = subprocess.run([os.environ.get("PYTHON", "/usr/bin/python3"), "-c", code], capture_output=True, text=True,
                         env=os.environ)
    assert run.returncode == 0, run.stderr
    assert run.stdout == "blackboard key 'n': object is not a blackboard type (values are None, bool, int, float or str)\n3 2.0 True\n"


def test_records_read_from_threads_before_numpy_is_imported(tmp_path):
    # pybind11 finds numpy's C API in a function-local static whose first call imports numpy:
    # two threads meeting there (one waiting on the static holding the GIL, the other needing
    # the GIL to finish the import) hung for ever. A fresh interpreter, numpy not imported.
    record = tmp_path / "arena.jsonl.gz"
    subprocess.run([THICKET, "run", ARENA, "--ticks", "5", "--record", str(record), "--quiet"], check=True,
                   capture_output=True)
    script = (
        "import sys, threading, thicket\n"
        "assert 'numpy' not in sys.modules\n"
        "out = []\n"
        "def read():\n"
        "    out.append(len(thicket.read_record(sys.argv[1]).ticks))\n"
        "threads = [threading.Thread(target=read) for _ in range(4)]\n"
        "for t in threads: t.start()\n"
        "for t in threads: t.join()\n"
        "print(out)\n")
    for _ in range(3):
        done = subprocess.run([sys.executable, "-c", script, str(record)], capture_output=True, text=True,
                              timeout=60)
        assert done.returncode == 0, done.stderr
        assert done.stdout.strip() == "[5, 5, 5, 5]"


def test_lua_text_that_is_not_utf8_reads_with_replacement_characters(tmp_path, capsys):
    # A Lua string holds any bytes ("caf\233" is Latin-1): its print, a blackboard key holding
    # it and an event named by it raised UnicodeDecodeError (tick_all stopped after one tick,
    # and the key could not be read at all).
    write(tmp_path, {
        "latin1.yaml": "tree: latin1\nleaves: [latin1.lua]\nblackboard: {name: ''}\nroot: {condition: {leaf: Latin1}}\n",
        "latin1.lua": 'local leaves = {}\nfunction leaves.Latin1(agent)\n  print("caf\\233")\n'
                      '  agent.bb.name = "Jos\\233"\n  agent:send("caf\\233")\n  return true\nend\nreturn leaves\n'})
    rt = thicket.Runtime()
    events = []
    rt.on_trace(lambda e: events.append(e.get("name")), ticks=False)
    agent = rt.spawn(rt.load(str(tmp_path / "latin1.yaml")))
    rt.tick_all(0.1, times=3)
    assert rt.agent_ticks == 3
    assert capsys.readouterr().out == "caf\ufffd\n" * 3
    assert rt.blackboard(agent)["name"] == "Jos\ufffd"
    assert rt.blackboard(agent).to_dict() == {"name": "Jos\ufffd"}
    assert events == ["caf\ufffd"] * 2  # each tick's event is dropped at the next (not an fsm)


def test_read_record_reads_and_refuses_what_thicket_view_does(tmp_path):
    head = '{"format":"thicket-record","version":1,"groups":[{"name":"g"}],"metrics":["m"]}\n'
    tick = '{"tick":%d,"agents":[[1,%s,2.0,0.0,0,%s,"%s",".",[]]],"metrics":[0]}\n'
    end = '{"end":true}\n'

    def read(name, text):
        (tmp_path / name).write_text(text)
        return thicket.read_record(tmp_path / name)

    # Tick lines written otherwise than thicket writes them, which view reads: a space after the
    # brace (was skipped without a word), metrics before agents (was "a tick line without metrics").
    r = read("space.jsonl", head + tick % (1, "1.0", 1, "running") + '{ "tick": 2, "agents": [[1, 3.0, 2.0, 0.0, 0, 1, '
             '"success", ".", []]], "metrics": [5]}\n' + end)
    assert list(r.ticks) == [1, 2] and list(r.x[:, 0]) == [1.0, 3.0] and list(r.status[:, 0]) == [1, 2]
    assert list(r.metrics[:, 0]) == [0.0, 5.0]
    r = read("order.jsonl", head + '{"tick":1,"metrics":[7],"agents":[[1,4.0,2.0,0.0,0,1,"failure",".",[]]]}\n' + end)
    assert list(r.ticks) == [1] and r.x[0, 0] == 4.0 and r.status[0, 0] == 3
    # What view refuses: a line that is no JSON, alive neither 0 nor 1, an unknown status, an end
    # line whose end is not true (each was read as if whole).
    for name, text, why in [
            ("hello", head + "hello\n" + end, "line 2: this line is not JSON"),
            ("alive", head + tick % (1, "1.0", 0.5, "running") + end, "line 2: field 5 (alive) of agent 1 must be 0 or 1"),
            ("status", head + tick % (1, "1.0", 1, "bogus") + end, "line 2: field 6 (status) of agent 1 must be"),
            ("end", head + tick % (1, "1.0", 1, "running") + '{"end":false}\n', "line 3: an end line's end must be true"),
            ("other", head + '{"what":1}\n' + end, "line 2: a line that is neither a tick, a brains nor an end line"),
            # Laid out otherwise (json.dumps' spaces), a bad value is said as view says it: the
            # scanner's "expected ',"agents":['" said where the layout differs, not what is wrong.
            ("spaced", head + '{"tick": 1, "agents": [[1, 1.0, 2.0, 0.0, 0, 1, "dead", ".", []]], "metrics": [0]}\n' + end,
             'line 2: tick 1: the 1st entry of agents: field 6 (status) must be running, success, failure or invalid, '
             'got "dead"')]:
        with pytest.raises(RuntimeError, match=re.escape(name + ".jsonl: " + why)):
            read(name + ".jsonl", text)
    # A gzip record cut short, even inside its 8-byte trailer: said so (it was read as whole, or
    # gave a JSON error naming no file).
    whole = gzip.compress((head + tick % (1, "1.0", 1, "running") + end).encode())
    for cut in (4, 15):
        (tmp_path / "cut.jsonl.gz").write_bytes(whole[:-cut])
        with pytest.raises(RuntimeError, match="the gzip data ends early: the file was cut short"):
            thicket.read_record(tmp_path / "cut.jsonl.gz")
    # Read by view's reader: zero padding after the gzip data and a second member are read as
    # view reads them; other bytes after it, and a file named .gz that is no gzip, are refused in
    # view's words (zlib's gzread ignored the first and read the second as plain text).
    (tmp_path / "padded.jsonl.gz").write_bytes(whole + bytes(700))
    assert list(thicket.read_record(tmp_path / "padded.jsonl.gz").ticks) == [1]
    two = gzip.compress((head + tick % (1, "1.0", 1, "running")).encode()) + gzip.compress(
        (tick % (2, "5.0", 1, "success") + end).encode())
    (tmp_path / "two.jsonl.gz").write_bytes(two)
    r = thicket.read_record(tmp_path / "two.jsonl.gz")
    assert list(r.ticks) == [1, 2] and list(r.x[:, 0]) == [1.0, 5.0]
    (tmp_path / "garbage.jsonl.gz").write_bytes(whole + b"hello")
    with pytest.raises(RuntimeError, match=re.escape("garbage.jsonl.gz: line 4: the record cannot be read: bytes after the "
                                                     "gzip data that are neither another gzip member nor zero padding")):
        thicket.read_record(tmp_path / "garbage.jsonl.gz")
    (tmp_path / "plain.jsonl.gz").write_text(head + tick % (1, "1.0", 1, "running") + end)
    with pytest.raises(RuntimeError, match=re.escape("plain.jsonl.gz: line 1: the record cannot be read: not gzip data: "
                                                     "the file does not start with gzip's bytes 1f 8b")):
        thicket.read_record(tmp_path / "plain.jsonl.gz")
    # The text before damage is read first: a bad line there is what is said, as view says it
    # (the reader returns what it inflated before the damage, then the damage).
    (tmp_path / "bad_then_garbage.jsonl.gz").write_bytes(gzip.compress((head + "hello\n" + end).encode()) + b"junk")
    with pytest.raises(RuntimeError, match=re.escape("bad_then_garbage.jsonl.gz: line 2: this line is not JSON")):
        thicket.read_record(tmp_path / "bad_then_garbage.jsonl.gz")
    # Any other name is read as what it holds, plain or gzip, as before.
    (tmp_path / "zipped.jsonl").write_bytes(whole)
    assert list(thicket.read_record(tmp_path / "zipped.jsonl").ticks) == [1]


def test_a_load_error_made_by_hand_shares_no_diagnostics():
    # The class's default was one list shared by every LoadError made without diagnostics.
    first = thicket.LoadError("a")
    assert list(first.diagnostics) == []
    with pytest.raises(AttributeError):
        first.diagnostics.append("x")
    assert list(thicket.LoadError("b").diagnostics) == []


def test_counts_and_ids_out_of_range_are_named():
    # pybind11's "incompatible function arguments" listed the signatures instead.
    rt = thicket.Runtime()
    with pytest.raises(ValueError, match="tick_all: times must be from 0 to 4294967295, got -1"):
        rt.tick_all(0.1, times=-1)
    with pytest.raises(ValueError, match="got 1000000000000"):
        rt.tick_all(0.1, times=10**12)
    with pytest.raises(TypeError, match="tick_all: times must be an int, not str"):
        rt.tick_all(0.1, times="3")
    with pytest.raises(ValueError, match="find: an agent id must be from 1 to 4294967294, got -1"):
        rt.find(-1)
    with pytest.raises(TypeError, match="not bool"):
        rt.find(True)
    assert rt.find(np.uint32(7)) is None
    rt.tick_all(0.1, times=np.int64(2))


def test_handles_cannot_be_made_empty_with_new():
    # LeafAgent.__new__(LeafAgent).id crashed the interpreter (no C++ object behind it).
    for cls in (thicket.Agent, thicket.Brain, thicket.Blackboard, thicket.LeafAgent):
        with pytest.raises(TypeError, match="objects are made by a Runtime"):
            cls.__new__(cls)
        with pytest.raises(TypeError, match="objects are made by a Runtime"):
            cls()
        # The base class's __new__ went round a guard set in Python.
        with pytest.raises(TypeError, match="is not safe"):
            cls.__mro__[1].__new__(cls)
    # Diagnostic too: Diagnostic.__new__(Diagnostic).file crashed.
    with pytest.raises(TypeError, match=r"thicket.Diagnostic objects are made by a failed load \(LoadError.diagnostics\), "
                                        r"not by Diagnostic.__new__"):
        thicket.Diagnostic.__new__(thicket.Diagnostic)
    with pytest.raises(thicket.LoadError) as failed:
        thicket.Runtime().load_string("tree: t\nroot: {action: Nope}\n", "t.yaml")
    d = failed.value.diagnostics[0]
    assert (d.file, d.line) == ("t.yaml", 2) and "Nope" in d.message
    rt = thicket.Runtime()
    agent = rt.spawn(rt.load_string("tree: t\nroot: {condition: {check: 'true'}}\n"))
    assert rt.find(agent.id) == agent and rt.blackboard(agent).to_dict() == {}


EXIT_WHILE_TICKING = """import sys, threading, thicket
rt = thicket.Runtime()
ticking = threading.Event()
def leaf(agent):
    ticking.set()
    return "running"
rt.register_leaf("L", leaf)
b = rt.load(sys.argv[1])
for i in range(200):
    rt.spawn(b)
threading.Thread(target=lambda: rt.tick_all(0.1, times=10**9), daemon=True).start()
ticking.wait()
print("exiting", flush=True)
"""


def test_a_script_ending_while_a_daemon_thread_ticks_exits_cleanly(tmp_path):
    # Python ends a thread that takes the GIL while the interpreter shuts down (pthread_exit, a
    # forced unwind): the tick loop caught it (catch (...)) and the process aborted ("FATAL:
    # exception not rethrown"), or it died unwinding through Lua's frames from a print.
    lua = 'return { P = function(agent) print("tick " .. agent.id) return true end }\n'
    brain = "tree: t\nleaves: [p.lua]\nroot:\n  sequence:\n    - action: P\n    - action: L\n"
    path = write(tmp_path, {"t.yaml": brain, "p.lua": lua})
    script = tmp_path / "exit.py"
    script.write_text(EXIT_WHILE_TICKING)
    for _ in range(3):
        done = subprocess.run([sys.executable, str(script), path], capture_output=True, text=True, timeout=120)
        assert (done.returncode, done.stderr) == (0, "")
        assert "exiting" in done.stdout


def test_a_batchs_lua_prints_go_to_sys_stdout_in_order(tmp_path):
    # thicket.run and sweep wrote them to file descriptor 1 (past redirect_stdout, outside a
    # notebook, after Python's own buffered output); a Runtime's went to sys.stdout already.
    lua = """local thicket = require("thicket")
return { Tag = function(agent) print("tick " .. thicket.tick() .. " tag " .. agent.bb.tag) return true end }
"""
    path = write(tmp_path, {"tags.yaml": TAGS.replace("count: 1", "count: 2").replace("ticks: 1", "ticks: 2"),
                            "tagger.yaml": TAGGER, "tagger.lua": lua})
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        thicket.run(path, runs=2, threads=2)
        thicket.sweep(path, {"groups.g.blackboard.tag": ["p", "q"]})
    lines = ["tick 1 tag x", "tick 1 tag x", "tick 2 tag x", "tick 2 tag x"] * 2
    lines += [f"tick {t} tag {v}" for v in "pq" for t in (1, 1, 2, 2)]
    assert out.getvalue().splitlines() == lines

    class Broken(io.StringIO):
        def write(self, text):
            raise OSError("stdout is gone")
    with contextlib.redirect_stdout(Broken()), pytest.raises(OSError, match="stdout is gone"):
        thicket.run(path)


def test_ctrl_c_stops_the_main_threads_call_and_not_another_threads_runtime(tmp_path):
    # The Ctrl-C of a main-thread call stopped every Lua call of the process while it lasted
    # (a process-wide flag): a batch on another thread lost runs to "stopped: the run was
    # interrupted", silently. Now it raises the interrupt of the call's own runtimes only.
    import threading
    path = write(tmp_path, {"spin.yaml": SPIN, "spin.lua": SPIN_LUA.replace("thicket.tick() == 3", "false")})
    # The other thread's leaf works a while (no time limit): the watchdog, which looks every
    # 5 ms, stopped such a call when the flag was the process's.
    busy = write(tmp_path, {"busy.yaml": "tree: busy\nleaves: [busy.lua]\nroot: {action: Busy}\n",
                            "busy.lua": "return { Busy = function() local n = 0 for i = 1, 30000000 do n = n + 1 end return true end }\n"})
    go, done = threading.Event(), threading.Event()
    other = {}

    def worker():
        rt2 = thicket.Runtime(leaf_timeout=0)
        rt2.spawn(rt2.load(busy))
        go.wait()
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            rt2.tick_all(0.1)  # its Lua leaf runs while the main thread's Ctrl-C lasts
        other["errors"], other["warnings"] = rt2.script_errors, [str(w.message) for w in caught]
        done.set()

    rt = thicket.Runtime()

    def count(agent):
        if agent.tick == 2:
            go.set()
            try:  # the Ctrl-C is this Python leaf's KeyboardInterrupt, at once
                os.kill(os.getpid(), signal.SIGINT)
                while True:
                    time.sleep(0.01)
            except KeyboardInterrupt:
                assert done.wait(60)  # the main thread's Ctrl-C lasts while the other thread ticks
                raise
        return True

    rt.register_leaf("Count", count)
    rt.spawn(rt.load(path))
    th = threading.Thread(target=worker)
    th.start()
    with pytest.raises(KeyboardInterrupt):
        rt.tick_all(0.1, times=1000)
    th.join()
    assert other == {"errors": 0, "warnings": []}


def test_a_batch_with_script_errors_warns_once(tmp_path):
    # Agent 2 raises on its 3rd tick in every run: 1 error a run; one RuntimeWarning for the batch.
    path = write(tmp_path, {
        "s.yaml": "scenario: w\nticks: 4\nworld: {size: [10, 10]}\nteams: [a]\n"
                  "groups:\n  - {name: g, team: a, count: 2, brain: count.yaml, spawn: {centre: [5, 5], radius: 1}}\n",
        "count.yaml": "tree: count\nleaves: [count.lua]\nroot: {action: Count}\n",
        "count.lua": "local L = {}\nfunction L.Count(agent)\n  agent.n = (agent.n or 0) + 1\n"
                     "  if agent.id == 2 and agent.n == 3 then error('boom') end\n  return 'running'\nend\nreturn L\n"})
    with pytest.warns(RuntimeWarning, match=r"s\.yaml: 3 script error\(s\) in 3 of 3 run\(s\); result.log has them") as caught:
        result = thicket.run(path, runs=3)
    assert len([w for w in caught if issubclass(w.category, RuntimeWarning)]) == 1
    assert caught[0].filename == __file__  # at the caller's line
    assert list(result.metrics["script_errors"]) == [1, 1, 1] and result.log.count("boom") == 3
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        thicket.run(ARENA, ticks=1)  # none: no warning


def test_dt_leaf_timeout_and_lua_memory_are_the_clis_options(tmp_path):
    csv = tmp_path / "rows.csv"
    cli_rows("--ticks", "10", "--dt", "0.05", "--lua-memory", "64", "--leaf-timeout", "0.2", "--out", str(csv))
    result = thicket.run(ARENA, ticks=10, dt=0.05, lua_memory=64, leaf_timeout=0.2)
    timing = ["wall_s", "agent_ticks_per_s"]
    pd.testing.assert_frame_equal(result.metrics.drop(columns=timing),
                                  pd.read_csv(csv, float_precision="round_trip").drop(columns=timing), check_exact=True)
    # Not the default dt's rows (0.1 s a tick): dt reached the runs.
    assert not thicket.run(ARENA, ticks=10).metrics.drop(columns=timing).equals(result.metrics.drop(columns=timing))
    for bad, error in ((dict(dt=0), ValueError), (dict(dt=-1), ValueError), (dict(dt=float("nan")), ValueError),
                       (dict(dt="0.1"), TypeError), (dict(leaf_timeout=-0.5), ValueError), (dict(leaf_timeout=True), TypeError),
                       (dict(lua_memory=-1), ValueError), (dict(lua_memory=2**31), ValueError), (dict(lua_memory=1.5), TypeError)):
        with pytest.raises(error):
            thicket.run(ARENA, ticks=1, **bad)


def test_budget_and_record_keys_are_the_clis_options(tmp_path):
    # A task that loops 100,000 times a resume: past a budget of 1,000 instructions it is stopped
    # (a script error a tick), under the default budget it is not; as --budget.
    path = write(tmp_path, {
        "s.yaml": "scenario: b\nticks: 3\nworld: {size: [10, 10]}\nteams: [a]\n"
                  "groups:\n  - {name: g, team: a, count: 1, brain: spin.yaml, spawn: {centre: [5, 5], radius: 1}}\n",
        "spin.yaml": "tree: spin\nleaves: [spin.lua]\nblackboard: {hp: 5, mp: 2}\nroot: {action: Spin}\n",
        "spin.lua": "local thicket = require('thicket')\nlocal L = {}\n"
                    "L.Spin = thicket.task(function(agent)\n  while true do\n    local n = 0\n"
                    "    for i = 1, 100000 do n = n + i end\n    coroutine.yield()\n  end\nend)\nreturn L\n"})
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert list(thicket.run(path).metrics["script_errors"]) == [0]
    with pytest.warns(RuntimeWarning, match="script error"):
        result = thicket.run(path, budget=1000)
    assert list(result.metrics["script_errors"]) == [3] and "instruction" in result.log
    # record_keys: the record's keys, in that order (None: the scenario's, here none).
    rec = thicket.run(path, record=True, record_keys=["mp", "hp"]).record
    assert rec.header["keys"] == ["mp", "hp"]
    for bad, error, words in ((dict(record_keys=["hp"]), ValueError, "give record=True too"),
                              (dict(record_every=5), ValueError, "record_every is how often .*give record=True too"),
                              (dict(record=True, record_keys=["hp", "hp"]), ValueError, "lists 'hp' twice"),
                              (dict(record=True, record_keys="hp"), TypeError, "list of key names"),
                              (dict(record=True, record_keys=[1]), TypeError, "key names"),
                              # named as Python spells it, not as the CLI's --record-keys
                              (dict(record=True, record_keys=["nope"]), thicket.LoadError, "error: record_keys: key 'nope'"),
                              (dict(budget=-1), ValueError, "budget"), (dict(budget=1.5), TypeError, "budget")):
        with pytest.raises(error, match=words):
            thicket.run(path, **bad)


def test_whole_floats_are_whole_numbers_in_overrides_and_grids():
    # numpy.linspace makes floats: 10.0 players were refused ("a whole number ... got '10.0'").
    timing = ["wall_s", "agent_ticks_per_s"]
    as_float = thicket.run(ARENA, ticks=3, overrides={"groups.players.count": 10.0,
                                                      "groups.players.vehicle.max_speed": np.float64(5.0)})
    as_int = thicket.run(ARENA, ticks=3, overrides={"groups.players.count": 10, "groups.players.vehicle.max_speed": 5})
    assert as_float.metrics.drop(columns=timing).equals(as_int.metrics.drop(columns=timing))
    grid = thicket.sweep(ARENA, {"groups.players.count": np.linspace(10, 20, 2)}, ticks=3)
    assert list(grid.metrics["groups.players.count"]) == [10, 20]
    with pytest.raises(ValueError, match="whole number from 1 to 100000, got '10.5'"):
        thicket.run(ARENA, ticks=3, overrides={"groups.players.count": 10.5})
