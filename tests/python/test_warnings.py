"""Load warnings reach Python as UserWarnings at the caller's line, as `thicket check` and
`thicket run` print them (they were dropped: a Lua leaf replacing a Python one said nothing).
Run as test_thicket.py is (tests/python_test.sh). No test reads the clock."""
import os
import warnings

import pytest

import thicket

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
TICK_EVERY = os.path.join(ROOT, "tests", "e2e", "cases", "scenario_tick_every_warns", "s.yaml")

TEXT_ON = """
tree: v
blackboard:
  mode: on
root: {action: Work}
"""
WORK = """
tree: work
leaves: [work.lua]
root: {action: Work}
"""
WORK_LUA = """
local leaves = {}
function leaves.Work(agent) return "success" end
return leaves
"""


def test_load_string_warns_at_the_callers_line():
    rt = thicket.Runtime()
    rt.register_leaf("Work", lambda agent: "success")
    with pytest.warns(UserWarning, match=r"<string>:4:9: warning: `on` is the text 'on' in YAML 1\.2") as got:
        rt.load_string(TEXT_ON)
    assert len(got) == 1
    assert got[0].filename == __file__


def test_a_lua_leaf_replacing_a_python_one_warns(tmp_path):
    (tmp_path / "work.yaml").write_text(WORK)
    (tmp_path / "work.lua").write_text(WORK_LUA)
    rt = thicket.Runtime()
    rt.register_leaf("Work", lambda agent: "failure")
    with pytest.warns(UserWarning, match="leaf 'Work' replaces the native leaf the game registered") as got:
        rt.load(tmp_path / "work.yaml")
    assert got[0].filename == __file__


def test_run_warns_once_for_all_its_runs():
    with pytest.warns(UserWarning, match=r"b\.yaml:4:13: warning: tick_every: 3 has no effect in a scenario") as got:
        result = thicket.run(TICK_EVERY, runs=3)
    assert len(result.metrics) == 3
    assert len([w for w in got if "tick_every" in str(w.message)]) == 1
    assert all(w.filename == __file__ for w in got)


def test_a_warning_filtered_into_an_error_is_raised():
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        with pytest.raises(UserWarning, match="tick_every: 3 has no effect"):
            thicket.sweep(TICK_EVERY, {"seed": [1, 2]})


def test_no_warning_no_noise(tmp_path):
    (tmp_path / "work.yaml").write_text(WORK)
    (tmp_path / "work.lua").write_text(WORK_LUA)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        thicket.Runtime().load(tmp_path / "work.yaml")


class BrokenStdout:
    def write(self, text):
        raise OSError("stdout is closed")

    def flush(self):
        pass


def test_an_error_of_load_string_is_raised_by_it_not_by_the_next_tick_all(tmp_path, monkeypatch):
    # A leaf file that prints at its top level while sys.stdout fails: load_string kept the
    # error, and the next tick_all raised it before its first tick (0 of 3 ticks done).
    (tmp_path / "pr.lua").write_text('print("loading")\nlocal leaves = {}\n'
                                     'function leaves.Hello(agent) return true end\nreturn leaves\n')
    rt = thicket.Runtime()
    with monkeypatch.context() as m:
        m.setattr("sys.stdout", BrokenStdout())
        with pytest.raises(OSError, match="stdout is closed"):
            rt.load_string("tree: pr\nleaves: [pr.lua]\nroot: {condition: {leaf: Hello}}\n",
                           name=str(tmp_path / "pr.yaml"))
    brain = rt.load_string("tree: ok\nroot: {condition: {check: 'true'}}\n")
    rt.spawn(brain)
    rt.tick_all(0.1, times=3)
    assert rt.agent_ticks == 3


def test_the_largest_spawn_id_is_refused_before_the_runtime_logs_it():
    # 4294967295 passed the binding's check (the message says 1 to 4294967294): the runtime then
    # logged an error, which with warnings as errors was raised by the next tick_all instead.
    rt = thicket.Runtime()
    brain = rt.load_string("tree: t\nroot: {condition: {check: 'true'}}\n")
    rt.spawn(brain)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        with pytest.raises(ValueError, match="agent ids are 1 to 4294967294, got 4294967295"):
            rt.spawn(brain, id=2**32 - 1)
        assert rt.spawn(brain, id=2**32 - 2).id == 2**32 - 2
        rt.tick_all(0.1, times=10)
    assert rt.agent_ticks == 20
