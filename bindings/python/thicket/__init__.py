"""thicket from Python: brains, agents and scenario batches.

    import thicket
    rt = thicket.Runtime()
    brain = rt.load("scripts/examples/guard/guard.yaml")     # raises thicket.LoadError
    agent = rt.spawn(brain, blackboard={"health": 80})
    rt.tick_all(0.1, times=100)
    rt.status(agent), rt.running(agent), rt.blackboard(agent)["health"]

    result = thicket.run("scripts/examples/arena/arena.yaml", runs=4, ticks=300)
    result.metrics            # pandas DataFrame, one row per run (the columns of `thicket run --out`)
    result.series             # pandas DataFrame of the metrics over time (`--series`)
    result.record.x           # numpy array, ticks x agents (run 1's positions)

    grid = thicket.sweep("scripts/examples/arena/arena.yaml",
                         {"groups.players.count": [200, 400]}, runs=3)
    thicket.read_record("build/arena.jsonl.gz")

The guide's chapter "Python" (docs/guide.md) has the whole API.
"""
import difflib
import io
import json
import math
import numbers

from ._thicket import (Agent, Blackboard, Brain, Diagnostic, LeafAgent, LoadError, Runtime,  # noqa: F401
                       __version__)
from . import _thicket
import collections.abc

# A live view of a blackboard reads as a mapping (isinstance, dict(bb), rt.spawn(brain, bb)).
collections.abc.Mapping.register(Blackboard)

__all__ = ["Runtime", "Brain", "Agent", "Blackboard", "LeafAgent", "Diagnostic", "LoadError", "Record", "Result",
           "run", "sweep", "read_record", "__version__"]

def _diagnostic(*state):
    """Makes a Diagnostic again from what its __reduce__ gave (pickle names this function)."""
    return _thicket._diagnostic(*state)


STATUS_NAMES = ("invalid", "running", "success", "failure")  # status codes 0..3 of Record.status (-1: absent)


class Record:
    """A run's record (docs/record-format.md) as numpy arrays, one row per recorded tick and one
    column per agent (`ids`, ascending):

    - ``x``, ``y``, ``heading``: float64, NaN where the agent is not in that tick's line;
    - ``status``: int8, -1 absent, else an index into ``STATUS_NAMES`` (invalid, running,
      success, failure); ``alive``: bool;
    - ``group``: the group index of each agent; ``ticks``: the tick numbers;
    - ``metrics``: float64, ticks x metrics, named by ``metric_names``;
    - ``header``: the header line as a dict (scenario, seed, dt, world, teams, brains, groups);
    - ``keys``: the recorded blackboard keys (``key_names``, the scenario's ``record: {keys}`` or
      ``record_keys``), each a ticks x agents array: float64 with NaN where the agent is absent or
      its brain lacks the key when every value recorded for the key is a number (an integer key's
      values past 2**53 are rounded, as float64 holds them), else an object array holding None,
      bool, int, float or str;
    - ``events``: every event of the record in order, each a list as the record writes it,
      ``[kind, tick, ...]`` (``["damage", 5, 3, 17, 25]``; percepts, transitions, switches,
      aborts, deaths, signals, pickups taken, reloads); ``events_frame(kind)`` names their fields.
    """

    # The fields after the tick of each event kind (docs/record-format.md, "Tick line").
    EVENT_FIELDS = {
        "abort": ("agent", "composite", "condition", "interrupted", "old_status", "new_status"),
        "transition": ("agent", "fsm", "from_state", "to_state", "via"),
        "switch": ("agent", "machine", "from_behavior", "to_behavior"),
        "damage": ("source", "target", "amount"),
        "signal": ("source", "target", "key"),
        "death": ("agent",),
        "percept": ("agent", "sense", "phase", "kind", "what"),
        "take": ("pickup", "agent"),
        "reload": ("file",),
        "reload_failed": ("file", "error"),
    }

    def __init__(self, arrays):
        self.header = json.loads(arrays["header"])
        self.end = json.loads(arrays["end"]) if arrays["end"] else None
        self.ticks = arrays["ticks"]
        self.ids = arrays["ids"]
        self.x = arrays["x"]
        self.y = arrays["y"]
        self.heading = arrays["heading"]
        self.status = arrays["status"]
        self.alive = arrays["alive"]
        self.group = arrays["group"]
        self.metrics = arrays["metrics"]
        self.metric_names = list(self.header.get("metrics", []))
        self.status_names = STATUS_NAMES
        self.key_names = list(self.header.get("keys", []))
        self.keys = arrays["keys"]
        self.events = arrays["events"]

    def metrics_frame(self):
        """The metrics over the recorded ticks as a DataFrame indexed by tick."""
        import pandas as pd
        return pd.DataFrame(self.metrics, index=pd.Index(self.ticks, name="tick"), columns=self.metric_names)

    def events_frame(self, kind=None):
        """The events as a DataFrame, one row each in the record's order. With a kind ("damage",
        "percept", "transition", ... : ``EVENT_FIELDS``), that kind's events with a column per
        field (``tick``, then e.g. ``source``, ``target``, ``amount``); without one, every event as
        ``tick``, ``event`` (its kind) and ``fields`` (the list of the rest)."""
        import pandas as pd
        if kind is None:
            rows = [(e[1], e[0], list(e[2:])) for e in self.events if len(e) >= 2]
            return pd.DataFrame(rows, columns=["tick", "event", "fields"])
        if not isinstance(kind, str):
            raise TypeError(f"an event kind is a str (one of {', '.join(self.EVENT_FIELDS)}), not {type(kind).__name__}")
        if kind not in self.EVENT_FIELDS:
            close = difflib.get_close_matches(str(kind), self.EVENT_FIELDS, n=1)
            hint = f" (did you mean '{close[0]}'?)" if close else ""
            raise ValueError(f"no event kind '{kind}'{hint}; the kinds: {', '.join(self.EVENT_FIELDS)}")
        names = self.EVENT_FIELDS[kind]
        rows = [tuple(e[1:2 + len(names)]) for e in self.events if e and e[0] == kind]
        return pd.DataFrame(rows, columns=["tick", *names])

    def __repr__(self):
        return f"<thicket.Record {self.header.get('scenario')}: {len(self.ticks)} ticks x {len(self.ids)} agents>"


class Result:
    """What thicket.run and thicket.sweep return.

    - ``metrics``: DataFrame, one row per run, the columns of ``thicket run --out FILE.csv``
      (run, seed, [swept keys], ticks, agents_start, agents_end, agent_ticks, wall_s,
      agent_ticks_per_s, script_errors, the metrics, gauge statistics);
    - ``series``: DataFrame of every metric every ``series_every`` ticks (run, seed, tick, ...),
      or None when series_every=0;
    - ``record``: run 1's Record (record=True), else None;
    - ``statuses``: per run, the agents alive at the end by root status;
    - ``log``: the runs' log text (script errors, thicket.log lines). A batch with script errors
      also warns once (RuntimeWarning: how many, in how many runs).
    """

    def __init__(self, raw):
        import pandas as pd
        self.params = list(raw["params"])
        # A swept key's values as pandas would read them (numbers, booleans), but text stays
        # text: "NA", "N/A", "null", "nan" or "" were read as NaN, and a groupby lost their sets.
        # A key its brain declares as a string is text whatever it looks like ("007", "true").
        text = set(raw["text_params"])
        # round_trip: the CSV holds the shortest text that reads back as the run's number, and
        # pandas' default parser can land a unit in the last place off it. The wall-clock
        # figures are floats whatever their text (6 digits, with or without a point).
        self.metrics = pd.read_csv(io.StringIO(raw["rows_csv"]), float_precision="round_trip",
                                   dtype={"wall_s": "float64", "agent_ticks_per_s": "float64"},
                                   converters={p: (str if p in text else _param_value) for p in self.params})
        self.series = (pd.read_csv(io.StringIO(raw["series_csv"]), float_precision="round_trip")
                       if raw["series_csv"] else None)
        self.record = Record(raw["record"]) if raw["record"] is not None else None
        self.statuses = raw["statuses"]
        self.log = raw["log"]

    def __repr__(self):
        return f"<thicket.Result {len(self.metrics)} runs>"


def _param_value(text):
    low = text.strip().lower()
    if low in ("true", "false"):
        return low == "true"
    try:
        return int(text)
    except ValueError:
        pass
    try:
        number = float(text)
        if math.isfinite(number):  # "nan" and "inf" are no swept number: text
            return number
    except ValueError:
        pass
    return text


def _is_bool(value):
    return isinstance(value, bool) or type(value).__name__ == "bool_"  # numpy's too


def _utf8_text(text, what):
    # A NUL cut the text short on its way to the run (a sweep's two values "a\0x" and "a\0y"
    # were labelled "a" both); a lone surrogate is no UTF-8 text and met a private TypeError.
    if "\0" in text:
        raise ValueError(f"{what} holds a NUL character: {text!r}")
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        raise ValueError(f"{what} is not valid text (a lone surrogate?): {text!r}") from None
    return text


def _key(key):
    if not isinstance(key, str):
        raise TypeError(f"a scenario key must be a string such as 'groups.players.count', not {type(key).__name__}")
    return _utf8_text(key, "the scenario key")


def _text(value, key):
    # numpy's scalars (np.int64, np.float32, np.bool_) count as the int, float or bool they hold.
    if _is_bool(value):
        return "true" if value else "false"
    if isinstance(value, numbers.Integral):
        return str(int(value))
    if isinstance(value, numbers.Real):
        # A whole float (10.0, as numpy.linspace makes them) is written as the whole number: a
        # count takes it, and a number key takes a whole number as well.
        number = float(value)
        if number.is_integer() and abs(number) < 2**53:
            return str(int(number))
        return str(number)
    if isinstance(value, str):
        return _utf8_text(value, f"the value of {key!r}")
    raise TypeError(f"{key!r}: a scenario value must be a number, a bool or a string, not {type(value).__name__}")


def _check_flag(name, value):
    # bool("false") is True: a value read from a config file as text turned the sandbox off.
    if not _is_bool(value):
        raise TypeError(f"{name} must be True or False, not {type(value).__name__} {value!r}")
    return bool(value)


def _path(value, what):
    # The file system's bytes (a name that is no UTF-8 comes as surrogates); a NUL would cut
    # the name short where the file is opened, so it is refused as open() refuses it.
    import os
    encoded = os.fsencode(value)
    if b"\0" in encoded:
        raise ValueError(f"{what}: embedded null byte")
    return encoded


def _check_int(name, value, least, most=2**63 - 1):
    if _is_bool(value) or not isinstance(value, numbers.Integral):
        raise TypeError(f"{name} must be an int, not {type(value).__name__}")
    value = int(value)
    if value < least:
        raise ValueError(f"{name} must be at least {least}, got {value}")
    if value > most:
        raise ValueError(f"{name} must be at most {most}, got {value}")
    return value


def _keys(name, keys):
    # A list of blackboard key names (text), as --record-keys a,b takes them.
    if isinstance(keys, (str, bytes)) or not hasattr(keys, "__iter__"):
        raise TypeError(f"{name} must be a list of key names (str), not {type(keys).__name__}")
    keys = list(keys)
    for key in keys:
        if not isinstance(key, str):
            raise TypeError(f"{name} must hold key names (str), not {type(key).__name__}")
    return keys


def _check_seconds(name, value, least, most, above_least=False):
    # A number of seconds, as the CLI's --dt and --leaf-timeout take it.
    if _is_bool(value) or not isinstance(value, numbers.Real):
        raise TypeError(f"{name} must be a number of seconds, not {type(value).__name__}")
    seconds = float(value)
    if not (seconds > least if above_least else seconds >= least) or not seconds <= most:
        raise ValueError(f"{name} must be {'>' if above_least else '>='} {least:g} and at most {most:g} seconds, got {value!r}")
    return seconds


def _batch(scenario, axes, use_file_sweep, runs, ticks, threads, seed, overrides, series_every, record,
           record_every, trusted, dt=None, leaf_timeout=0.05, lua_memory=512, budget=10_000_000, record_keys=None):
    import os
    if isinstance(scenario, os.PathLike):
        scenario = os.fspath(scenario)
    if isinstance(scenario, bytes):  # the file system's bytes, as read_record takes them
        scenario = os.fsdecode(scenario)
    if not isinstance(scenario, str):
        raise TypeError(f"scenario must be a path (str, bytes or a path object), not {type(scenario).__name__}")
    named = scenario  # as the caller wrote it, for the warning below
    scenario = _path(scenario, "scenario")
    overrides = overrides or {}
    if not isinstance(overrides, dict):
        raise TypeError(f"overrides must be a dict of key: value, not {type(overrides).__name__}")
    raw = _thicket._run_batch(
        # The bounds of `thicket run`'s --runs, --threads and --record-every.
        scenario, _check_int("runs", runs, 1, 1_000_000), -1 if ticks is None else _check_int("ticks", ticks, 0),
        _check_int("threads", threads, 1, 256),
        -1 if seed is None else _check_int("seed", seed, 0), [(_key(k), _text(v, k)) for k, v in overrides.items()],
        [(_key(k), [_text(v, k) for v in vs]) for k, vs in axes], use_file_sweep, _check_int("series_every", series_every, 0),
        _check_flag("record", record), _check_int("record_every", record_every, 0, 1_000_000), _check_flag("trusted", trusted),
        # The bounds of --dt, --leaf-timeout and --lua-memory.
        -1.0 if dt is None else _check_seconds("dt", dt, 0, 1_000_000, above_least=True),
        _check_seconds("leaf_timeout", leaf_timeout, 0, 1_000_000), _check_int("lua_memory", lua_memory, 0, 1 << 30),
        # --budget, and --record-keys (None: the scenario's record: keys).
        _check_int("budget", budget, 0), None if record_keys is None else _keys("record_keys", record_keys))
    result = Result(raw)
    # Script errors: one RuntimeWarning for the batch (a Runtime's leaf error is one each), so
    # that they are not missed (the CLI exits 1); each is in result.log, counted by run in
    # result.metrics["script_errors"]. warnings.simplefilter("error") makes it an exception.
    errors = int(result.metrics["script_errors"].sum()) if "script_errors" in result.metrics else 0
    if errors:
        import warnings
        runs_with = int((result.metrics["script_errors"] > 0).sum())
        warnings.warn(f"{named}: {errors} script error(s) in {runs_with} of {len(result.metrics)} run(s); "
                      "result.log has them", RuntimeWarning, stacklevel=3)
    return result


def run(scenario, *, runs=1, ticks=None, threads=1, seed=None, overrides=None, series_every=0, record=False,
        record_every=0, trusted=False, dt=None, leaf_timeout=0.05, lua_memory=512, budget=10_000_000, record_keys=None):
    """Runs a scenario `runs` times (seeds seed, seed+1, ...; seed=None: the scenario's `seed:`) as
    `thicket run SCENARIO --runs N` does, and returns a Result. ticks=None: the scenario's own (0: none, as
    --ticks 0). overrides: {"groups.players.count": 200,
    ...}, the keys of `--set` (guide 11). The scenario's own `sweep:` is not applied: use sweep().
    dt (None: the scenario's), leaf_timeout (seconds a Lua call may run, 0: no limit) and
    lua_memory (MiB of each Lua heap, 0: no cap) are --dt, --leaf-timeout and --lua-memory; budget
    (Lua instructions a task may run per resume, 0: off) is --budget; record_keys (a list of
    blackboard keys, with record=True; None: the scenario's record: keys) is --record-keys."""
    return _batch(scenario, [], False, runs, ticks, threads, seed, overrides, series_every, record, record_every, trusted,
                  dt, leaf_timeout, lua_memory, budget, record_keys)


def sweep(scenario, grid=None, *, runs=1, ticks=None, threads=1, seed=None, overrides=None, series_every=0,
          record=False, record_every=0, trusted=False, dt=None, leaf_timeout=0.05, lua_memory=512, budget=10_000_000,
          record_keys=None):
    """Runs every combination of the grid's values (first key slowest), `runs` seeds each, on top of
    the scenario's own `sweep:` (a grid key replaces the file's axis of that key), as `thicket run
    SCENARIO --set KEY=V1,V2 ...` does. Returns a Result whose metrics have one column per swept key."""
    grid = grid or {}
    if not isinstance(grid, dict):
        raise TypeError(f"grid must be a dict of key: [values], not {type(grid).__name__}")
    axes = []
    for key, values in grid.items():
        if getattr(values, "ndim", None) == 0:  # a 0-d numpy array: one value
            values = [values.item()]
        elif isinstance(values, (str, bytes)) or not hasattr(values, "__iter__"):
            values = [values]
        axes.append((key, list(values)))
    return _batch(scenario, axes, True, runs, ticks, threads, seed, overrides, series_every, record, record_every,
                  trusted, dt, leaf_timeout, lua_memory, budget, record_keys)


def read_record(path):
    """Loads a record file (`thicket run ... --record FILE.jsonl[.gz]`) into a Record."""
    import errno
    import os
    path = _path(os.fspath(path), "path")
    if not os.path.lexists(path):  # what `except FileNotFoundError` (or OSError) catches
        raise FileNotFoundError(errno.ENOENT, "no such record file", os.fsdecode(path))
    return Record(_thicket._read_record(path))
