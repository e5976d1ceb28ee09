// thicket.Runtime and its companions (issue 33): the public C++ API (thicket/runtime.hpp) as
// Python sees it. Handles are small objects (Brain, Agent); a blackboard is a mapping view
// that reads and writes the agent's values typed as the brain declares them.
#include <pybind11/functional.h>
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <atomic>
#include <chrono>
#include <cmath>
#include <memory>
#include <optional>
#include <set>
#include <sstream>
#include <stdexcept>
#include <thread>

#include "json_text.hpp"  // valid_utf8
#include "py_parts.hpp"
#include "suggest.hpp"  // did_you_mean
#include "thicket/runtime.hpp"
#include "thicket/snapshot.hpp"
#include "thicket/value.hpp"

namespace thicket_py {
namespace {

using thicket::AgentHandle;
using thicket::BrainHandle;
using thicket::Diagnostic;
using thicket::Status;
using thicket::Value;

py::object g_load_error;  // the thicket.LoadError class

const char* py_status(Status s) {
  switch (s) {
    case Status::Success: return "success";
    case Status::Failure: return "failure";
    case Status::Running: return "running";
    default: return "invalid";
  }
}

py::object to_python(const Value& v) {
  if (auto* d = std::get_if<double>(&v)) return py::float_(*d);
  if (auto* i = std::get_if<int64_t>(&v)) return py::int_(*i);
  if (auto* b = std::get_if<bool>(&v)) return py::bool_(*b);
  // A Lua string may hold any bytes; a Python str holds text: bytes that are not UTF-8 read as
  // U+FFFD (they raised UnicodeDecodeError, so such a key could not be read at all).
  if (auto* s = std::get_if<std::string>(&v)) return py::str(thicket::valid_utf8(*s));
  return py::none();
}

const char* type_name(const Value& v) {
  if (std::holds_alternative<double>(v)) return "a number (float)";
  if (std::holds_alternative<int64_t>(v)) return "an integer";
  if (std::holds_alternative<bool>(v)) return "a boolean";
  if (std::holds_alternative<std::string>(v)) return "a string";
  return "any value";
}

// A numpy scalar (numpy.bool_, an integer or a floating type) as the Python bool, int or float
// it stands for; a null object for anything else. numpy is not imported here: a value can only
// be a numpy scalar when the program has imported numpy already.
py::object numpy_plain(const py::handle& o) {
  PyObject* np = PyImport_GetModule(py::str("numpy").ptr());
  if (!np) {
    if (PyErr_Occurred()) PyErr_Clear();
    return {};
  }
  py::object numpy = py::reinterpret_steal<py::object>(np);
  auto is = [&](const char* type) {
    return py::hasattr(numpy, type) && PyObject_IsInstance(o.ptr(), numpy.attr(type).ptr()) == 1;
  };
  if (is("bool_")) {
    const int truth = PyObject_IsTrue(o.ptr());
    if (truth < 0) throw py::error_already_set();
    return py::bool_(truth != 0);
  }
  if (is("integer")) {
    PyObject* i = PyNumber_Index(o.ptr());
    if (!i) throw py::error_already_set();
    return py::reinterpret_steal<py::object>(i);
  }
  if (is("floating")) {
    const double d = PyFloat_AsDouble(o.ptr());
    if (d == -1.0 && PyErr_Occurred()) throw py::error_already_set();
    return py::float_(d);
  }
  return {};
}

// A Python value as a blackboard value for `key`, whose value now is `like`: the value's own
// type (a number key also takes an int), which Runtime::set then checks against the declared
// type; TypeError naming the key when it does not fit (a bool never is a number). An `any` key
// takes None, bool, int, float and str whatever it holds now. numpy's bool_, integer and
// floating scalars count as bool, int and float. `shown` is the value named in messages
// (the one the caller gave, when `o` is its plain stand-in).
std::string no_nan(const std::string& key) {
  return "blackboard key '" + key + "' takes no nan (nan compares false with everything: a health of nan never reaches 0)";
}

// declared: the key's type where the caller knows it. An integer key takes a whole float (3.0,
// what a pandas column holding a NaN makes of its ints) as that integer, as Lua's 3.0 and a
// sweep's 10.0 are; a number key refuses nan (ValueError), as a Lua write of it is refused.
Value from_python(const py::handle& o, const Value& like, const std::string& key, py::handle shown = py::handle(),
                  std::optional<thicket::ValueType> declared = std::nullopt) {
  if (!shown) shown = o;
  // A value of a type no key takes (a list, a dict): said as such. (Naming the key's type
  // from `like`, the value it holds now, named an `any` key's current value as its type.)
  auto wrong = [&]() -> Value {
    throw py::type_error("blackboard key '" + key + "': " + std::string(py::str(py::type::of(shown).attr("__name__"))) +
                         " is not a blackboard type (values are None, bool, int, float or str)");
  };
  if (o.is_none()) return std::monostate{};
  if (py::isinstance<py::bool_>(o)) return o.cast<bool>();
  if (py::isinstance<py::int_>(o)) {
    int overflow = 0;
    const long long x = PyLong_AsLongLongAndOverflow(o.ptr(), &overflow);
    if (overflow != 0 || (x == -1 && PyErr_Occurred())) {
      PyErr_Clear();
      if (std::holds_alternative<double>(like)) {  // a number key: the float nearest to it, as float(x)
        const double d = PyLong_AsDouble(o.ptr());
        if (!(d == -1.0 && PyErr_Occurred())) return d;
        PyErr_Clear();
        throw py::value_error("blackboard key '" + key + "': " + std::string(py::str(o)) + " is too large for a number");
      }
      throw py::value_error("blackboard key '" + key + "': " + std::string(py::str(o)) +
                            " does not fit a 64-bit integer");
    }
    if (std::holds_alternative<double>(like)) return static_cast<double>(x);
    return static_cast<int64_t>(x);
  }
  if (py::isinstance<py::float_>(o)) {
    const double d = o.cast<double>();
    if (d != d && declared == thicket::ValueType::Number) throw py::value_error(no_nan(key));
    // (-2^63 <= d < 2^63: the doubles a 64-bit integer holds)
    if (declared == thicket::ValueType::Integer && std::floor(d) == d && d >= -9223372036854775808.0 && d < 9223372036854775808.0)
      return static_cast<int64_t>(d);
    return d;
  }
  if (py::isinstance<py::str>(o)) {
    Py_ssize_t size = 0;
    const char* text = PyUnicode_AsUTF8AndSize(o.ptr(), &size);
    if (!text) {
      PyErr_Clear();
      throw py::value_error("blackboard key '" + key + "': the text cannot be written as UTF-8 (a lone surrogate?)");
    }
    return std::string(text, static_cast<size_t>(size));
  }
  if (py::object plain = numpy_plain(o)) return from_python(plain, like, key, shown, declared);
  return wrong();
}

// A value of the declared type, as from_python's `like`.
Value like_of(thicket::ValueType t) {
  switch (t) {
    case thicket::ValueType::Number: return 0.0;
    case thicket::ValueType::Integer: return int64_t{0};
    case thicket::ValueType::Boolean: return false;
    case thicket::ValueType::String: return std::string();
    case thicket::ValueType::Any: break;
  }
  return std::monostate{};
}

// Handles are tied to the runtime that made them (by its serial number, never reused, so a
// handle outliving its runtime matches no other): another runtime's brain or agent is refused.
struct Brain {
  BrainHandle handle;
  std::string name, path, type;
  uint64_t runtime = 0;
};

struct Agent {
  AgentHandle handle;
  uint32_t id = 0;
  uint64_t runtime = 0;
};

std::atomic<uint64_t> g_runtimes{0};  // runtimes made so far: the next one's serial number

// One Python leaf's call: what it may read and change of its agent.
struct LeafAgent {
  thicket::LeafContext* c = nullptr;
  void check() const {
    if (!c) throw py::value_error("this leaf agent belongs to a call that has returned");
  }
};

class PyRuntime;

// rt.blackboard(agent): a live mapping view of one agent's blackboard.
struct Blackboard {
  std::shared_ptr<PyRuntime> rt;
  Agent agent;
};

class PyRuntime : public std::enable_shared_from_this<PyRuntime> {
 public:
  PyRuntime(uint64_t seed, bool trusted, uint64_t script_states, double leaf_timeout, size_t lua_memory_limit,
            size_t max_script_agents, size_t max_script_state_bytes) {
    // A negative or NaN time limit would turn the runaway-leaf guard off without a word.
    if (!(leaf_timeout >= 0) || !std::isfinite(leaf_timeout))
      throw py::value_error("leaf_timeout must be a number of seconds >= 0 (0 = no limit), got " +
                            std::string(py::repr(py::float_(leaf_timeout))));
    if (script_states == 0 || script_states > thicket::RuntimeOptions::kMaxScriptStates)
      throw py::value_error("script_states must be 1 to " + std::to_string(thicket::RuntimeOptions::kMaxScriptStates) +
                            ", got " + std::to_string(script_states));
    thicket::RuntimeOptions o;
    o.seed = seed;
    o.trusted = trusted;
    o.script_states = static_cast<uint32_t>(script_states);
    o.leaf_timeout = leaf_timeout;
    o.lua_memory_limit = lua_memory_limit;
    o.max_script_agents = max_script_agents;
    o.max_script_state_bytes = max_script_state_bytes;
    o.interrupt = &interrupt_;  // raised by a Ctrl-C during this runtime's calls only (CtrlC)
    // The run's log: script errors become Python warnings (with the Lua position), the rest
    // goes to the logging module's "thicket" logger. Called on the thread that ticks, with the
    // GIL released around the tick: taken here. Warnings turned into errors (-W error,
    // warnings.simplefilter("error")): the first is raised from tick_all after the tick, as a
    // Python leaf's exception is (the tick goes on; a multi-tick call stops there).
    o.log = [this](const std::string& line) {
      GilTaken gil;
      if (line.rfind("error: ", 0) == 0) {
        if (PyErr_WarnEx(PyExc_RuntimeWarning, thicket::valid_utf8(line).c_str(), 1) < 0) keep_error(py::error_already_set());
      } else {
        // Kept, as a print's: an exception (a logging filter's, a Ctrl-C) unwound through Lua's
        // C frames, and after a few hundred of them every Lua call failed.
        try {
          py::module_::import("logging").attr("getLogger")("thicket").attr("info")(thicket::valid_utf8(line));
        } catch (py::error_already_set& e) {
          keep_error(std::move(e));
        }
      }
    };
    rt_ = std::make_unique<thicket::Runtime>(std::move(o));
    // Lua `print` lines go to Python's sys.stdout (a notebook shows them, contextlib's
    // redirect_stdout takes them), not to the process's file descriptor 1.
    rt_->on_print([this](const std::string& line) {
      GilTaken gil;
      try {
        py::object out = py::module_::import("sys").attr("stdout");
        if (!out.is_none()) out.attr("write")(thicket::valid_utf8(line) + "\n");  // any bytes a Lua print gave
      } catch (py::error_already_set& e) {
        keep_error(std::move(e));
      }
    });
  }

  // A Runtime is used by one thread at a time. Its ticks, loads and reloads release the GIL,
  // so another Python thread could call in meanwhile: it gets a RuntimeError instead of racing
  // them (two threads ticking one Runtime crashed the interpreter). Calls from the busy thread
  // itself (a Python leaf's) go on.
  thicket::Runtime& rt() {
    check_thread();
    return *rt_;
  }
  const thicket::Runtime& rt() const {
    check_thread();
    return *rt_;
  }
  void check_thread() const {
    const std::thread::id owner = owner_.load(std::memory_order_acquire);
    if (owner != std::thread::id() && owner != std::this_thread::get_id())
      throw std::runtime_error(
          "this thicket.Runtime is busy on another thread (ticking, loading or reloading); a Runtime is used by one "
          "thread at a time: give each thread its own");
  }
  // Marks the runtime busy on this thread while the GIL is released (checked with the GIL held,
  // so two threads cannot both pass), then releases it.
  struct Busy {
    explicit Busy(PyRuntime& r) : rt(r), outer(r.owner_.load(std::memory_order_acquire) == std::thread::id()) {
      r.check_thread();
      if (outer) r.owner_.store(std::this_thread::get_id(), std::memory_order_release);
    }
    ~Busy() {
      if (outer) rt.owner_.store(std::thread::id(), std::memory_order_release);
    }
    Busy(const Busy&) = delete;
    Busy& operator=(const Busy&) = delete;
    PyRuntime& rt;
    const bool outer;
  };

  Brain load(const std::string& path) {
    refuse_changing("load");
    Changing changing(*this);
    std::vector<Diagnostic> diags;
    std::optional<BrainHandle> b;
    {
      Busy busy(*this);
      GilReleased release;
      b = rt_->load_file(path, diags);
    }
    if (!b) {
      if (ticking_ == 0) python_error_.reset();  // a print's or a log line's: the diagnostics say more
      raise_load_error(path + ": the brain did not load", diags);
    }
    raise_python_error_outside_tick();  // a warning turned into an error while it loaded
    warn_diagnostics(diags, 1);  // loaded, with warnings (a Lua leaf replacing a Python one, ...)
    return brain(*b);
  }
  Brain load_string(const std::string& yaml, const std::string& name) {
    refuse_changing("load_string");
    Changing changing(*this);
    std::vector<Diagnostic> diags;
    std::optional<BrainHandle> b;
    {
      // Busy as load is, though the GIL stays held: a print of the leaf file's top level runs
      // Python (sys.stdout.write), which may let another thread in mid-load.
      Busy busy(*this);
      b = rt_->load_string(yaml, name, diags);
    }
    if (!b) {
      if (ticking_ == 0) python_error_.reset();  // as load's
      raise_load_error(name + ": the brain did not load", diags);
    }
    // A print of its leaf file's top level, or a log line turned into an error: raised here, not
    // by the next tick_all (which stopped at it before its first tick).
    raise_python_error_outside_tick();
    warn_diagnostics(diags, 1);
    return brain(*b);
  }
  Brain brain(BrainHandle b) const {
    return Brain{b, rt().brain_name(b), rt().brain_path(b), rt().brain_type(b), serial_};
  }
  void check(const Brain& b) const {
    if (b.runtime != serial_ || b.handle.index >= rt().brain_count()) throw py::value_error("not a brain of this runtime");
  }
  Agent agent(AgentHandle h) const { return Agent{h, rt().agent_id(h), serial_}; }

  // An Agent; None when called from a leaf during a tick: the spawn then waits for the end of
  // the tick (the runtime has no handle to give before), with its blackboard values, checked
  // now. Give it an id to find it afterwards.
  py::object spawn(const Brain& b, const py::object& blackboard, const py::object& id_arg) {
    check(b);
    if (!blackboard.is_none() && !py::isinstance(blackboard, py::module_::import("collections.abc").attr("Mapping")))
      throw py::type_error("spawn: blackboard must be a mapping of key to value (a dict) or None, not " +
                           std::string(py::str(py::type::of(blackboard).attr("__name__"))));
    if (!id_arg.is_none() && (py::isinstance<py::bool_>(id_arg) || !PyIndex_Check(id_arg.ptr())))
      throw py::type_error("spawn: id must be an int (the agent's id, from 1) or None, not " +
                           std::string(py::str(py::type::of(id_arg).attr("__name__"))));
    std::optional<uint32_t> id;
    if (!id_arg.is_none()) {
      auto whole = py::reinterpret_steal<py::object>(PyNumber_Index(id_arg.ptr()));  // numpy's ints too
      if (!whole) throw py::error_already_set();
      int overflow = 0;
      const long long v = PyLong_AsLongLongAndOverflow(whole.ptr(), &overflow);
      if (overflow || v < 0 || v >= 0xFFFFFFFFll)
        throw py::value_error("spawn: agent ids are 1 to 4294967294, got " + std::string(py::str(whole)));
      id = static_cast<uint32_t>(v);
    }
    if (id && *id == 0) throw py::value_error("agent ids start at 1");
    // During a tick the spawn waits for its end, and its id is checked then, after the tick's
    // earlier deferred calls (a despawn of that id among them), as in C++ and C.
    if (id && ticking_ == 0 && rt().find_agent(*id)) throw py::value_error("agent " + std::to_string(*id) + " is alive already");
    // Every value is checked before the agent is spawned: a refused one leaves no trace, not
    // even a used id (the ids that follow, and the random streams seeded from them, as without
    // the call).
    std::vector<std::pair<std::string, Value>> values = spawn_values(b, blackboard);
    if (ticking_ > 0) {
      AgentHandle h = id ? rt().spawn(b.handle, values, *id) : rt().spawn(b.handle, values);
      // (Valid when the runtime spawned at once: a callback after the tick proper, before it returns.)
      return h.valid() ? py::cast(agent(h)) : py::object(py::none());
    }
    AgentHandle h;
    {
      Busy busy(*this);
      h = id ? rt_->spawn(b.handle, values, *id) : rt_->spawn(b.handle, values);
    }
    // The log line saying why it was not spawned, turned into an error (warnings as errors), or
    // a start hook's print that failed: raised here, not by the next tick_all.
    raise_python_error();
    if (!h.valid()) throw py::value_error("the agent could not be spawned (the log says why)");
    return py::cast(agent(h));
  }

  // spawn's blackboard values, each checked against the key the brain declares.
  std::vector<std::pair<std::string, Value>> spawn_values(const Brain& b, const py::object& blackboard) {
    std::vector<std::pair<std::string, Value>> values;
    if (blackboard.is_none()) return values;
    for (auto item : py::dict(blackboard)) {
      if (!py::isinstance<py::str>(item.first))  // (as the blackboard view: no key made by str())
        throw py::type_error("spawn: blackboard keys are str, not " +
                             std::string(py::str(py::type::of(item.first).attr("__name__"))));
      const std::string key = py::str(item.first);
      const std::optional<thicket::ValueType> type = rt().blackboard_type(b.handle, key);
      if (!type) {
        std::string names;
        const std::vector<std::string> declared = rt().blackboard_keys(b.handle);
        for (const std::string& n : declared) names += (names.empty() ? "" : ", ") + n;
        throw py::key_error("'" + key + "' is not a blackboard key of brain '" + b.name + "'" +
                            thicket::did_you_mean(key, declared) + " (declared: " + (names.empty() ? "none" : names) + ")");
      }
      const Value like = like_of(*type);
      Value v = from_python(item.second, like, key, py::handle(), *type);
      if (!thicket::value_fits(*type, v))
        throw py::type_error("blackboard key '" + key + "' is " + type_name(like) + ", not " +
                             std::string(py::str(py::type::of(item.second).attr("__name__"))));
      values.emplace_back(key, std::move(v));
    }
    return values;
  }

  void check(const Agent& a) const {
    if (a.runtime != serial_) throw py::value_error("agent " + std::to_string(a.id) + " is not an agent of this runtime");
    if (rt().agent_id(a.handle) != a.id || a.id == 0 || !rt().find_agent(a.id))
      throw py::value_error("agent " + std::to_string(a.id) + " is not alive in this runtime");
  }

  py::object get(const Agent& a, const std::string& key) {
    check(a);
    auto v = rt().get(a.handle, key);
    if (!v) throw unknown_key(a, key);
    return to_python(*v);
  }
  void set(const Agent& a, const std::string& key, const py::handle& value) {
    check(a);
    auto now = rt().get(a.handle, key);
    if (!now) throw unknown_key(a, key);
    const auto type = rt().blackboard_type(rt().brain_of(a.handle), key);
    Value v = from_python(value, type ? like_of(*type) : *now, key, py::handle(), type);
    if (!rt().set(a.handle, key, v))  // a typed key holds its declared type: `now` names it
      throw py::type_error("blackboard key '" + key + "' is " + type_name(*now) + ", not " +
                           std::string(py::str(py::type::of(value).attr("__name__"))));
  }
  std::vector<std::string> keys(const Agent& a) {
    check(a);
    return rt().blackboard_keys(rt().brain_of(a.handle));
  }
  std::string keys_text(const Agent& a) {
    std::string out;
    for (const std::string& k : keys(a)) out += (out.empty() ? "" : ", ") + k;
    return out.empty() ? "none" : out;
  }
  // "'helth' is not a blackboard key of this agent's brain; did you mean 'health'? (declared: ...)"
  py::key_error unknown_key(const Agent& a, const std::string& key) {
    return py::key_error("'" + key + "' is not a blackboard key of this agent's brain" + thicket::did_you_mean(key, keys(a)) +
                         " (declared: " + keys_text(a) + ")");
  }

  std::vector<Agent> agents() const {
    std::vector<Agent> out;
    for (AgentHandle h : rt().agents()) out.push_back(agent(h));
    return out;
  }
  // A Python int (numpy's too; not a bool) from least to most, or a TypeError / ValueError that
  // names it: pybind11's own "incompatible function arguments" listed signatures instead.
  static uint64_t whole(const py::handle& o, const char* what, uint64_t least, uint64_t most) {
    if (py::isinstance<py::bool_>(o) || !PyIndex_Check(o.ptr()))
      throw py::type_error(std::string(what) + " must be an int, not " +
                           std::string(py::str(py::type::of(o).attr("__name__"))));
    auto v = py::reinterpret_steal<py::object>(PyNumber_Index(o.ptr()));
    if (!v) throw py::error_already_set();
    int overflow = 0;
    const long long n = PyLong_AsLongLongAndOverflow(v.ptr(), &overflow);
    if (overflow || n < 0 || static_cast<uint64_t>(n) < least || static_cast<uint64_t>(n) > most)
      throw py::value_error(std::string(what) + " must be from " + std::to_string(least) + " to " + std::to_string(most) +
                            ", got " + std::string(py::str(v)));
    return static_cast<uint64_t>(n);
  }
  std::optional<Agent> find(const py::object& id_arg) const {
    const auto id = static_cast<uint32_t>(whole(id_arg, "find: an agent id", 1, 4294967294ull));
    auto h = rt().find_agent(id);
    if (!h) return std::nullopt;
    return agent(*h);
  }

  // A tick in progress (tick, tick_all), or a call that runs stop hooks between ticks (despawn,
  // reload, restore), which the runtime treats as a tick's leaves: spawns from Python leaves and
  // callbacks are deferred then, to the end of that call. Set and read with the GIL held, on
  // the thread that ticks.
  struct Ticking {
    explicit Ticking(PyRuntime& r) : rt(r) { ++rt.ticking_; }
    ~Ticking() { --rt.ticking_; }
    Ticking(const Ticking&) = delete;
    Ticking& operator=(const Ticking&) = delete;
    PyRuntime& rt;
  };

  // Ticks with the GIL released (Lua and native leaves run without Python); a Python leaf
  // takes the GIL for its call. The first exception of a Python leaf or trace callback is
  // raised here afterwards.
  std::string tick(const Agent& a, const py::object& dt_arg) {
    check(a);
    const double dt = seconds(dt_arg, "tick: dt");
    refuse_in_tick("tick");  // another thread's call: "busy"; from a leaf: a tick inside a tick
    refuse_changing("tick");
    Status s;
    {
      Busy busy(*this);
      Ticking ticking(*this);
      GilReleased release;
      s = rt_->tick(a.handle, dt);
    }
    raise_python_error();
    return py_status(s);
  }
  void tick_all(const py::object& dt_arg, const py::object& times_arg) {
    const auto times = static_cast<uint32_t>(whole(times_arg, "tick_all: times", 0, 4294967295ull));
    const double dt = seconds(dt_arg, "tick_all: dt");
    refuse_in_tick("tick_all");  // another thread's call: "busy"; from a leaf: its agent would tick in its own tick
    refuse_changing("tick_all");
    CtrlC ctrl_c(interrupt_);  // stops after the tick in progress (its Lua calls stopped at once)
    {
      Busy busy(*this);
      Ticking ticking(*this);
      GilReleased release;
      for (uint32_t i = 0; i < times && !python_error_ && !ctrl_c.interrupted(); ++i) rt_->tick_all(dt);
    }
    if (!python_error_) ctrl_c.finish();
    raise_python_error();
  }
  // A time step: an int or a float (numpy's too), not a bool (pybind11 took True as 1.0 s), then
  // check_dt's bounds.
  static double seconds(const py::handle& o, const char* what) {
    const std::string type = py::str(py::type::of(o).attr("__name__"));
    if (py::isinstance<py::bool_>(o) || type == "bool_" ||  // numpy's bool has a __float__ too
        !(PyFloat_Check(o.ptr()) || PyIndex_Check(o.ptr()) || py::hasattr(o, "__float__")))
      throw py::type_error(std::string(what) + " must be a number of seconds (an int or a float), not " + type);
    const double dt = PyFloat_AsDouble(o.ptr());
    if (dt == -1.0 && PyErr_Occurred()) throw py::error_already_set();
    check_dt(dt);
    return dt;
  }
  static void check_dt(double dt) {
    if (!(dt > 0) || dt > thicket::kMaxDt)
      throw py::value_error("dt must be a number of seconds > 0 and at most " +
                            std::string(py::str(py::int_(static_cast<long long>(thicket::kMaxDt)))) + " (the runtime's bound), got " +
                            std::string(py::repr(py::float_(dt))));
  }

  // What would change what a tick walks is refused during one, as an exception (the runtime
  // only logged its refusal).
  // A load, restore, reload or registration in progress: the Python a print or log line of it
  // reaches (a leaf file's top level prints as it loads) may not tick, load, restore, reload or
  // register into the middle of it (all of it ran, nested in the outer load).
  struct Changing {
    explicit Changing(PyRuntime& r) : rt(r) { ++rt.changing_; }
    ~Changing() { --rt.changing_; }
    Changing(const Changing&) = delete;
    Changing& operator=(const Changing&) = delete;
    PyRuntime& rt;
  };
  void refuse_changing(const char* what) const {
    check_thread();
    if (changing_ > 0)
      throw py::value_error(std::string(what) +
                            " cannot be called while the runtime loads, restores, reloads or registers a leaf (from a print "
                            "or a log line of it): call it after that call returns");
  }
  void refuse_in_tick(const char* what) const {
    check_thread();  // another thread's call during this one's tick: "busy", not "during a tick"
    if (ticking_ > 0)
      throw py::value_error(std::string(what) +
                            " cannot be called during a tick (from a Python leaf or callback): call it before or after tick_all");
  }

  // A Python object kept by a leaf the runtime owns. The runtime drops a leaf where it is
  // replaced, by a load or reload of a Lua file of the same name or by another register_leaf,
  // and loads and reloads run with the GIL released: the last owner lets go with the GIL taken.
  struct GilHeld {
    explicit GilHeld(py::object o) : object(std::move(o)) {}
    ~GilHeld() {
      GilTaken gil;
      object = py::object();
    }
    GilHeld(const GilHeld&) = delete;
    GilHeld& operator=(const GilHeld&) = delete;
    py::object object;
  };

  void register_leaf(const std::string& name, py::function fn) {
    refuse_in_tick("register_leaf");
    refuse_changing("register_leaf");
    Changing changing(*this);
    if (name.empty()) throw py::value_error("register_leaf: the leaf name is empty (a brain names its leaves: 'leaf: Name')");
    if (name.find('\0') != std::string::npos)  // no brain file could name it (as the C API refuses it)
      throw py::value_error("register_leaf: a leaf name cannot hold a NUL character");
    auto self = this;
    thicket::NativeLeaf leaf;
    auto held = std::make_shared<GilHeld>(std::move(fn));
    leaf.tick = [held, self, name](thicket::LeafContext& c) -> Status {
      GilTaken gil;
      const py::object& fn = held->object;
      if (self->leaf_failed_) return Status::Failure;  // the first error ends the tick's Python leaf calls
      // The LeafAgent is a Python object of its own (a leaf may keep it); it is cut off from
      // the call's context when the call returns, so a kept one raises instead of reading freed memory.
      py::object agent = py::cast(LeafAgent{&c});
      auto cut = [&] { agent.cast<LeafAgent&>().c = nullptr; };
      try {
        py::object r;
        {
          PythonCall call;  // a Ctrl-C now is its KeyboardInterrupt
          r = fn(agent);
        }
        cut();
        if (py::isinstance<py::bool_>(r)) return r.cast<bool>() ? Status::Success : Status::Failure;
        const std::string_view type = Py_TYPE(r.ptr())->tp_name;  // what numpy's comparisons give
        if (type == "numpy.bool_" || type == "numpy.bool") {
          const int truth = PyObject_IsTrue(r.ptr());
          if (truth < 0) throw py::error_already_set();
          return truth ? Status::Success : Status::Failure;
        }
        if (r.is_none()) return Status::Failure;
        if (py::isinstance<py::str>(r)) {
          std::string s = r.cast<std::string>();
          if (s == "success") return Status::Success;
          if (s == "failure") return Status::Failure;
          if (s == "running") return Status::Running;
        }
        throw py::type_error("leaf '" + name + "' returned " + std::string(py::repr(r)) +
                             "; a leaf returns 'success', 'failure', 'running', True or False");
      } catch (py::error_already_set& e) {
        cut();
        self->leaf_failed_ = true;
        self->keep_error(std::move(e));
      } catch (const std::exception& e) {
        cut();
        self->leaf_failed_ = true;
        PyErr_SetString(PyExc_TypeError, e.what());
        self->keep_error(py::error_already_set());
      }
      return Status::Failure;
    };
    Busy busy(*this);  // a log line of the registration (a leaf replaced) runs Python, as load_string's print
    rt_->register_leaf(name, std::move(leaf));
  }
  // Keeps the first Python exception of a call into the runtime (a leaf's, a trace callback's),
  // to raise when the call returns: an exception must not unwind through the runtime's tick.
  void keep_error(py::error_already_set&& e) {
    if (!python_error_) python_error_ = std::make_unique<py::error_already_set>(std::move(e));
  }
  void raise_python_error() {
    leaf_failed_ = trace_failed_ = false;
    if (!python_error_) return;
    std::unique_ptr<py::error_already_set> e = std::move(python_error_);
    e->restore();
    throw py::error_already_set();
  }
  // After a call that may trace outside a tick (send: a full queue's dropped event; despawn,
  // reload, restore): its callback's exception. From a leaf during a tick, it waits for the end
  // of the tick.
  void raise_python_error_outside_tick() {
    if (ticking_ == 0) raise_python_error();
  }

  // The callback runs on the thread that ticks, with the GIL taken. An exception it raises
  // ends its calls for the rest of the tick (the tick itself goes on) and is raised from
  // tick_all (or tick) afterwards.
  void on_trace(py::object callback, bool ticks) {
    if (callback.is_none()) {
      rt().on_trace({}, false);
      return;
    }
    if (!PyCallable_Check(callback.ptr()))
      throw py::type_error("on_trace: the callback must be callable (a function of one event dict) or None, not " +
                           std::string(py::str(py::type::of(callback).attr("__name__"))));
    auto self = this;  // the runtime owns the sink: `this` outlives it
    // Set from inside the callback, the new sink takes the old one's place when the callback
    // returns, on the thread that ticks with the GIL released: the old one's callback is let go
    // with the GIL taken.
    auto held = std::make_shared<GilHeld>(std::move(callback));
    rt().on_trace(
        [held, self](const thicket::TraceEvent& e) {
              GilTaken gil;
          if (self->trace_failed_) return;
          try {
            PythonCall call;
            self->trace(held->object, e);
          } catch (py::error_already_set& err) {
            self->trace_failed_ = true;
            self->keep_error(std::move(err));
          } catch (const std::exception& err) {
            self->trace_failed_ = true;
            PyErr_SetString(PyExc_RuntimeError, err.what());
            self->keep_error(py::error_already_set());
          }
        },
        ticks);
  }
  // One trace event as a dict, to the callback.
  static void trace(const py::object& callback, const thicket::TraceEvent& e) {
    static const char* kTypes[] = {"tick", "abort", "transition", "switch", "event"};
    py::dict d;
    d["type"] = kTypes[static_cast<int>(e.type)];
    d["tick"] = e.tick;
    d["agent"] = e.agent;
    switch (e.type) {
      case thicket::TraceEvent::Type::Tick:
        d["status"] = py_status(e.status);
        d["running"] = e.running;
        break;
      case thicket::TraceEvent::Type::Abort:
        d["composite"] = e.composite;
        d["condition"] = e.condition;
        d["aborted"] = e.aborted;
        d["condition_label"] = e.condition_label;
        d["aborted_label"] = e.aborted_label;
        d["from"] = py_status(e.from);
        d["to"] = py_status(e.to);
        break;
      case thicket::TraceEvent::Type::Transition:
      case thicket::TraceEvent::Type::Switch:
        d["brain"] = e.brain;
        d["from"] = e.from_name.empty() ? py::object(py::none()) : py::object(py::str(e.from_name));
        d["to"] = e.to_name.empty() ? py::object(py::none()) : py::object(py::str(e.to_name));  // an fsm's end
        // The reason leaf, `when` check or behavior check that moved it (--trace's "reason",
        // "when", "check"); None for an initial entry, an event and an `after` entry.
        d["cause"] = e.cause.empty() ? py::object(py::none()) : py::object(py::str(e.cause));
        d["cause_label"] = e.cause_label.empty() ? py::object(py::none()) : py::object(py::str(e.cause_label));
        if (e.type == thicket::TraceEvent::Type::Transition) {
          d["reload"] = e.reload;
          d["ended"] = e.ended;
          d["transition"] = e.transition;
          d["event"] = thicket::valid_utf8(e.event);  // an event name a leaf sent: any bytes
          d["exited"] = e.exited;
          d["entered"] = e.entered;
        }
        break;
      case thicket::TraceEvent::Type::Event:
        d["name"] = thicket::valid_utf8(e.event);
        d["taken_by"] = e.taken_by.empty() ? py::object(py::none()) : py::object(py::str(e.taken_by));
        d["refused_by"] = e.refused_by.empty() ? py::object(py::none()) : py::object(py::str(e.refused_by));
        d["guard_failed"] = e.guard_failed;
        d["stale"] = e.stale;
        d["reload"] = e.reload;  // stale: a hot reload removed the state that sent it
        d["queue_full"] = e.queue_full;
        break;
    }
    callback(d);
  }

  py::list reload() {
    refuse_in_tick("reload");
    refuse_changing("reload");
    Changing changing(*this);
    std::vector<thicket::ReloadReport> reports;
    {
      Busy busy(*this);
      Ticking ticking(*this);  // its stop hooks' spawns wait for its end
      GilReleased release;
      rt_->reload_changed(&reports);
    }
    raise_python_error_outside_tick();  // a trace callback's, if a reload traced
    py::list out;
    for (const auto& r : reports) {
      py::dict d;
      d["file"] = thicket::valid_utf8(r.file);
      d["ok"] = r.ok;
      d["error"] = r.ok ? py::object(py::none()) : py::object(py::str(thicket::valid_utf8(r.first_error)));
      d["diagnostics"] = r.diagnostics;
      out.append(d);
    }
    return out;
  }

  // From a leaf during a tick the agents would be saved half ticked: ValueError, as tick_all and
  // restore say it (it returned b'' with a warning, bytes that restore then called no snapshot).
  // A save refused for another reason (a journaled task that cannot be saved exactly) raises
  // ValueError with the reason too.
  py::bytes save() const {
    refuse_in_tick("save");
    thicket::SnapshotWriter out;
    std::vector<Diagnostic> diags;
    if (!rt().save(out, diags)) {
      std::string why;
      for (const Diagnostic& d : diags) why += (why.empty() ? "" : "; ") + d.message;
      throw py::value_error("save: the snapshot was not saved: " + thicket::valid_utf8(why));
    }
    return py::bytes(out.bytes());
  }
  void restore(const py::bytes& data) {
    refuse_in_tick("restore");
    refuse_changing("restore");
    Changing changing(*this);
    std::string bytes = data;
    std::istringstream in(bytes);
    std::vector<Diagnostic> diags;
    bool restored;
    {
      Busy busy(*this);  // its stop hooks may call Python (a print), which may let another thread in
      Ticking ticking(*this);
      restored = rt_->restore(in, diags);
    }
    if (!restored) raise_load_error("the snapshot was not restored", diags);
    raise_python_error_outside_tick();
  }

  // The first Python exception (a leaf's or a trace callback's) of the tick in progress; after
  // a leaf's, the tick's other Python leaves fail without being called; after a callback's,
  // the callback is not called again in that tick. Raised when the tick returns.
  std::unique_ptr<py::error_already_set> python_error_;
  bool leaf_failed_ = false, trace_failed_ = false;
  int ticking_ = 0;  // ticks in progress (see Ticking)
  int changing_ = 0;  // loads, restores, reloads and registrations in progress (see Changing)

 private:
  const uint64_t serial_ = ++g_runtimes;
  std::atomic<bool> interrupt_{false};  // RuntimeOptions::interrupt (CtrlC raises it); outlives rt_
  std::unique_ptr<thicket::Runtime> rt_;
  std::atomic<std::thread::id> owner_{};  // the thread it is busy on (see rt()); none when idle
};

}  // namespace

[[noreturn]] void raise_load_error(const std::string& what, const std::vector<Diagnostic>& diagnostics) {
  std::string message = what;
  for (const Diagnostic& d : diagnostics) message.append("\n").append(thicket::format_diagnostic(d));
  py::object err = g_load_error(thicket::valid_utf8(message));
  err.attr("diagnostics") = py::cast(diagnostics);
  PyErr_SetObject(g_load_error.ptr(), err.ptr());
  throw py::error_already_set();
}

void warn_diagnostics(const std::vector<Diagnostic>& diagnostics, int stack_level) {
  std::set<std::string> seen;  // a batch's runs warn alike: each text once, as the CLI prints it
  for (const Diagnostic& d : diagnostics) {
    if (d.severity != thicket::Severity::Warning) continue;
    const std::string text = thicket::valid_utf8(thicket::format_diagnostic(d));
    if (!seen.insert(text).second) continue;
    if (PyErr_WarnEx(PyExc_UserWarning, text.c_str(), stack_level) < 0) throw py::error_already_set();
  }
}

namespace {

// tp_new of the classes only the module makes (Diagnostic, Brain, Agent, LeafAgent, Blackboard):
// an object made with Cls.__new__(Cls) held no C++ object, and using it crashed the interpreter.
// Set on the type itself, so that the base's __new__ (pybind11_object.__new__(Cls)) is refused
// too, as "not safe"; pybind11 makes the module's own objects with tp_alloc, not tp_new.
PyObject* made_by_thicket(PyTypeObject* type, PyObject*, PyObject*) {
  std::string name = type->tp_name;
  name = name.substr(name.rfind('.') + 1);
  const char* by = name == "Diagnostic" ? "a failed load (LoadError.diagnostics)"
                                        : "a Runtime (load, spawn, blackboard, a leaf's argument)";
  PyErr_Format(PyExc_TypeError, "thicket.%s objects are made by %s, not by %s.__new__", name.c_str(), by, name.c_str());
  return nullptr;
}

// Cls.__new__ as the type's own entry (as Python's types have theirs): without one, the name
// finds the base's __new__, which refuses to make a Cls as "not safe", with pybind11's names.
PyObject* new_entry(PyObject* type, PyObject* args, PyObject* kwargs) {
  return made_by_thicket(reinterpret_cast<PyTypeObject*>(type), args, kwargs);
}
PyMethodDef new_entry_def = {"__new__", reinterpret_cast<PyCFunction>(reinterpret_cast<void (*)()>(new_entry)),
                             METH_VARARGS | METH_KEYWORDS, "Refused: the module makes these objects."};

// Runtime's keyword arguments: ints (numpy's too, not bools) from `least` to `most`, a number, a bool.
uint64_t whole_arg(const py::object& v, const char* name, uint64_t most, uint64_t least = 0) {
  if (PyBool_Check(v.ptr()) || !PyIndex_Check(v.ptr()))
    throw py::type_error(std::string(name) + " must be an int, not " + std::string(py::str(v.get_type().attr("__name__"))));
  const py::int_ i = py::reinterpret_steal<py::int_>(PyNumber_Index(v.ptr()));
  if (!i) throw py::error_already_set();
  if (least > 0 && (i < py::int_(least) || i > py::int_(most)))  // one range, whichever side (script_states: 1 to 64)
    throw py::value_error(std::string(name) + " must be " + std::to_string(least) + " to " + std::to_string(most) + ", got " +
                          std::string(py::str(py::object(i))));
  if (i < py::int_(0)) throw py::value_error(std::string(name) + " must be at least 0, got " + std::string(py::str(py::object(i))));
  if (i > py::int_(most))
    throw py::value_error(std::string(name) + " must be at most " + std::to_string(most) + ", got " + std::string(py::str(py::object(i))));
  return PyLong_AsUnsignedLongLong(i.ptr());
}
double number_arg(const py::object& v, const char* name) {
  if (PyBool_Check(v.ptr()) || !(PyFloat_Check(v.ptr()) || PyIndex_Check(v.ptr()) || py::hasattr(v, "__float__")))
    throw py::type_error(std::string(name) + " must be a number, not " + std::string(py::str(v.get_type().attr("__name__"))));
  return py::float_(v).cast<double>();
}
bool flag_arg(const py::object& v, const char* name) {
  const std::string type = py::str(v.get_type().attr("__name__"));
  if (!PyBool_Check(v.ptr()) && type != "bool_")
    throw py::type_error(std::string(name) + " must be True or False, not " + type);
  return py::bool_(v);
}

void made_only_by_thicket(const py::handle& cls) {
  auto* type = reinterpret_cast<PyTypeObject*>(cls.ptr());
  type->tp_new = made_by_thicket;
  py::object entry = py::reinterpret_steal<py::object>(PyCFunction_NewEx(&new_entry_def, cls.ptr(), nullptr));
  if (!entry || PyDict_SetItemString(type->tp_dict, "__new__", entry.ptr()) < 0) throw py::error_already_set();
  PyType_Modified(type);
}

}  // namespace

void register_runtime(py::module_& m) {
  py::class_<Diagnostic>(m, "Diagnostic", "One problem found in a file: where, and what.")
      // Texts quoting a file's raw bytes (a Latin-1 Lua file's syntax error) with U+FFFD for
      // the bytes that are not UTF-8, which a str cannot hold.
      .def_property_readonly("file", [](const Diagnostic& d) { return thicket::valid_utf8(d.file); })
      .def_readonly("line", &Diagnostic::line)
      .def_readonly("column", &Diagnostic::column)
      .def_property_readonly("message", [](const Diagnostic& d) { return thicket::valid_utf8(d.message); })
      .def_property_readonly("severity", [](const Diagnostic& d) {
        return d.severity == thicket::Severity::Error ? "error" : d.severity == thicket::Severity::Warning ? "warning" : "note";
      })
      .def("__str__", [](const Diagnostic& d) { return thicket::valid_utf8(thicket::format_diagnostic(d)); })
      .def("__repr__", [](const Diagnostic& d) { return "<Diagnostic " + thicket::valid_utf8(thicket::format_diagnostic(d)) + ">"; })
      // Pickled whole, so that a LoadError raised in a worker process (multiprocessing,
      // concurrent.futures) reaches the parent with its diagnostics. Through __reduce__ and
      // thicket._diagnostic, not __setstate__, which needs a __new__ that makes an empty one.
      .def("__reduce__", [](const Diagnostic& d) {
        return py::make_tuple(py::module_::import("thicket").attr("_diagnostic"),
                              py::make_tuple(static_cast<int>(d.severity), thicket::valid_utf8(d.file), d.line, d.column,
                                             thicket::valid_utf8(d.message)));
      });
  m.def("_diagnostic", [](int severity, const std::string& file, int line, int column, const std::string& message) {
    if (severity < 0 || severity > static_cast<int>(thicket::Severity::Note))
      throw py::value_error("not a pickled thicket.Diagnostic");
    Diagnostic d;
    d.severity = static_cast<thicket::Severity>(severity);
    d.file = file;
    d.line = line;
    d.column = column;
    d.message = message;
    return d;
  });

  g_load_error = py::exception<std::runtime_error>(m, "LoadError", PyExc_ValueError);
  g_load_error.attr("__doc__") =
      "A brain, scenario or snapshot did not load. `diagnostics` holds every problem found (file, line, column, message).";
  // The class's own, for a LoadError made by hand: empty and immutable (a list there was one
  // list shared by every such LoadError, so an append to one showed in all the others).
  g_load_error.attr("diagnostics") = py::tuple();

  py::class_<Brain>(m, "Brain", "A loaded brain (a handle; cheap to copy).")
      .def_property_readonly("name", [](const Brain& b) { return thicket::valid_utf8(b.name); })
      // The file system's name back as Python spells it (os.fsdecode: bytes that are no UTF-8
      // as surrogates, so the path opens again).
      .def_property_readonly("path", [](const Brain& b) { return py::module_::import("os").attr("fsdecode")(py::bytes(b.path)); })
      .def_readonly("type", &Brain::type, "'tree', 'fsm' or 'machine'")
      .def("__repr__", [](const Brain& b) {
        return thicket::valid_utf8("<thicket.Brain " + b.type + " " + b.name + " from " + b.path + ">");
      });

  py::class_<Agent>(m, "Agent", "An agent of a runtime (a handle; `id` is its agent id).")
      .def_readonly("id", &Agent::id)
      .def("__eq__", [](const Agent& a, const Agent& b) {
        return a.runtime == b.runtime && a.id == b.id && a.handle.index == b.handle.index &&
               a.handle.generation == b.handle.generation;
      }, py::is_operator())
      .def("__hash__", [](const Agent& a) {
        return py::hash(py::make_tuple(a.runtime, a.id, a.handle.index, a.handle.generation));
      })
      .def("__repr__", [](const Agent& a) { return "<thicket.Agent " + std::to_string(a.id) + ">"; });

  py::class_<LeafAgent>(m, "LeafAgent", "What a Python leaf sees of the agent it runs for, during its call.")
      .def_property_readonly("id", [](const LeafAgent& a) { a.check(); return a.c->agent_id(); })
      .def_property_readonly("time", [](const LeafAgent& a) { a.check(); return a.c->time(); })
      .def_property_readonly("dt", [](const LeafAgent& a) { a.check(); return a.c->dt(); })
      .def_property_readonly("tick", [](const LeafAgent& a) { a.check(); return a.c->tick(); })
      .def_property_readonly("node", [](const LeafAgent& a) { a.check(); return a.c->node_id(); })
      .def("random", [](LeafAgent& a) { a.check(); return a.c->random(); }, "[0, 1) from the agent's own stream")
      .def("get", [](const LeafAgent& a, const std::string& key) {
        a.check();
        Value v;
        if (!a.c->get(key, v)) throw py::key_error("'" + key + "' is not a blackboard key of this agent's brain");
        return to_python(v);
      })
      .def("__repr__", [](const LeafAgent& a) {
        if (!a.c) return std::string("<thicket.LeafAgent of a call that has returned>");
        return "<thicket.LeafAgent " + std::to_string(a.c->agent_id()) + " at node '" + thicket::valid_utf8(a.c->node_id()) +
               "', tick " + std::to_string(a.c->tick()) + ">";
      })
      .def("set", [](LeafAgent& a, const std::string& key, const py::object& value) {
        a.check();
        Value now;
        if (!a.c->get(key, now)) throw py::key_error("'" + key + "' is not a blackboard key of this agent's brain");
        const Value v = from_python(value, now, key);
        if (a.c->set(key, v)) return;
        // A whole float into an integer key is its integer, as Runtime.set and a Lua write take
        // it (an `any` key holding an integer took the float itself, above).
        if (std::holds_alternative<int64_t>(now) && std::holds_alternative<double>(v)) {
          const double d = std::get<double>(v);
          if (std::floor(d) == d && d >= -9223372036854775808.0 && d < 9223372036854775808.0 &&
              a.c->set(key, Value(static_cast<int64_t>(d))))
            return;
        }
        // (a number key refuses nan; an any key holding a number takes it)
        if (std::holds_alternative<double>(v) && std::isnan(std::get<double>(v)) && std::holds_alternative<double>(now))
          throw py::value_error(no_nan(key));
        throw py::type_error("blackboard key '" + key + "' is " + type_name(now) + ", not " +
                               std::string(py::str(py::type::of(value).attr("__name__"))));
      });

  py::class_<Blackboard>(m, "Blackboard", "A live view of one agent's blackboard: bb['health'] reads, bb['health'] = 3 writes.")
      .def("__getitem__", [](Blackboard& b, const py::object& key) {
        // A key that is no str is not in it: KeyError, as a dict's (not pybind's TypeError).
        if (!py::isinstance<py::str>(key)) {
          b.rt->check(b.agent);
          throw py::key_error(py::str(py::repr(key)).cast<std::string>() + " is not a blackboard key (keys are str)");
        }
        return b.rt->get(b.agent, key.cast<std::string>());
      })
      // A Mapping's (collections.abc.Mapping.register in __init__.py): any key may be asked for
      // (a key that is no str is not there), keys(), values() and items() are views, and a
      // blackboard equals a mapping of the same items (as a dict does).
      .def("get", [](Blackboard& b, const py::object& key, const py::object& fallback) {
        b.rt->check(b.agent);
        if (!py::isinstance<py::str>(key)) return fallback;
        auto v = b.rt->rt().get(b.agent.handle, key.cast<std::string>());
        return v ? to_python(*v) : fallback;
      }, py::arg("key"), py::arg("default") = py::none(), "The key's value, or `default` for a key the brain does not declare.")
      .def("__setitem__", [](Blackboard& b, const py::object& key, const py::object& v) {
        // A key that is no str: said so (pybind11's "incompatible function arguments" listed signatures).
        if (!py::isinstance<py::str>(key))
          throw py::type_error("blackboard keys are str, not " + std::string(py::str(py::type::of(key).attr("__name__"))) +
                               " (" + py::str(py::repr(key)).cast<std::string>() + ")");
        b.rt->set(b.agent, key.cast<std::string>(), v);
      })
      .def("__delitem__", [](Blackboard& b, const py::object& key) {
        // (AttributeError: __delitem__ before.) A blackboard holds the keys its brain declares.
        b.rt->check(b.agent);
        throw py::type_error("a blackboard key cannot be deleted: the brain declares its keys (" +
                             py::str(py::repr(key)).cast<std::string>() + "); set it to another value instead");
      })
      .def("__contains__", [](Blackboard& b, const py::object& key) {
        b.rt->check(b.agent);
        return py::isinstance<py::str>(key) && b.rt->rt().get(b.agent.handle, key.cast<std::string>()).has_value();
      })
      .def("keys", [](const py::object& self) { return py::module_::import("collections.abc").attr("KeysView")(self); })
      .def("__iter__", [](Blackboard& b) { return py::iter(py::cast(b.rt->keys(b.agent))); })
      .def("__len__", [](Blackboard& b) { return b.rt->keys(b.agent).size(); })
      .def("values", [](const py::object& self) { return py::module_::import("collections.abc").attr("ValuesView")(self); })
      .def("items", [](const py::object& self) { return py::module_::import("collections.abc").attr("ItemsView")(self); })
      .def("__eq__", [](Blackboard& b, const py::object& other) -> py::object {
        if (!py::isinstance(other, py::module_::import("collections.abc").attr("Mapping"))) return py::reinterpret_borrow<py::object>(Py_NotImplemented);
        py::dict mine;
        for (const auto& k : b.rt->keys(b.agent)) mine[py::str(k)] = b.rt->get(b.agent, k);
        return py::bool_(mine.equal(py::dict(other.attr("items")())));
      })
      .def("to_dict", [](Blackboard& b) {
        py::dict out;
        for (const auto& k : b.rt->keys(b.agent)) out[py::str(k)] = b.rt->get(b.agent, k);
        return out;
      })
      .def("__repr__", [](Blackboard& b) {
        py::dict out;
        for (const auto& k : b.rt->keys(b.agent)) out[py::str(k)] = b.rt->get(b.agent, k);
        return "<thicket.Blackboard of agent " + std::to_string(b.agent.id) + " " + std::string(py::repr(out)) + ">";
      });

  for (const char* name : {"Diagnostic", "Brain", "Agent", "LeafAgent", "Blackboard"}) made_only_by_thicket(m.attr(name));

  py::class_<PyRuntime, std::shared_ptr<PyRuntime>>(m, "Runtime", "Loads brains, spawns agents and ticks them (SPEC 8).")
      // The arguments as objects, checked here: pybind11's own conversion said only "incompatible
      // constructor arguments" with a signature, naming no argument (seed=-1), and took seed=True.
      .def(py::init([](const py::object& seed, const py::object& trusted, const py::object& script_states,
                       const py::object& leaf_timeout, const py::object& lua_memory_limit,
                       const py::object& max_script_agents, const py::object& max_script_state_bytes) {
             return std::make_shared<PyRuntime>(
                 whole_arg(seed, "seed", UINT64_MAX), flag_arg(trusted, "trusted"),
                 whole_arg(script_states, "script_states", thicket::RuntimeOptions::kMaxScriptStates, 1),
                 number_arg(leaf_timeout, "leaf_timeout"), static_cast<size_t>(whole_arg(lua_memory_limit, "lua_memory_limit", SIZE_MAX)),
                 static_cast<size_t>(whole_arg(max_script_agents, "max_script_agents", SIZE_MAX)),
                 static_cast<size_t>(whole_arg(max_script_state_bytes, "max_script_state_bytes", SIZE_MAX)));
           }),
           py::kw_only(), py::arg("seed") = 1,
           py::arg("trusted") = false, py::arg("script_states") = 1, py::arg("leaf_timeout") = 0.05,
           py::arg("lua_memory_limit") = thicket::RuntimeOptions{}.lua_memory_limit,
           py::arg("max_script_agents") = thicket::RuntimeOptions{}.max_script_agents,
           py::arg("max_script_state_bytes") = thicket::RuntimeOptions{}.max_script_state_bytes)
      .def("load", [](PyRuntime& r, const py::object& path) {
             // A str or any os.PathLike (pathlib.Path), as thicket.run and read_record take.
             py::module_ os = py::module_::import("os");
             py::object text = os.attr("fspath")(path);
             if (!py::isinstance<py::str>(text)) throw py::type_error("load: the path must be a str or a path-like of str, not bytes");
             // The file system's bytes: a name that is no UTF-8 reaches Python as surrogates.
             const std::string name = os.attr("fsencode")(text).cast<std::string>();
             // A NUL would cut the name short where the file is opened ("a.yaml\0x" loaded a.yaml).
             if (name.find('\0') != std::string::npos) throw py::value_error("load: embedded null byte");
             return r.load(name);
           }, py::arg("path"), "Loads a brain file (a str or a pathlib.Path); raises LoadError with every diagnostic.")
      .def("load_string", &PyRuntime::load_string, py::arg("yaml"), py::arg("name") = "<string>",
           "Loads a brain from YAML text (at most 16 MB); `name` is its path in messages and leaf files are found "
           "beside it. Raises LoadError with every diagnostic.")
      .def("register_leaf", &PyRuntime::register_leaf, py::arg("name"), py::arg("fn"),
           "A Python callable as a leaf, fn(agent: LeafAgent) -> 'success' | 'failure' | 'running' | bool. For "
           "prototyping: each call takes the GIL. Register before loading the brains that use it.")
      .def("spawn", &PyRuntime::spawn, py::arg("brain"), py::arg("blackboard") = py::none(), py::kw_only(),
           py::arg("id") = py::none(),
           "A new agent of `brain`, its blackboard keys set from the mapping (KeyError, TypeError or ValueError "
           "for a key or value the brain does not take) and its id `id` (an int; None: the next). From a leaf "
           "during a tick: None, and the agent arrives when the tick ends.")
      .def("despawn", [](PyRuntime& r, const Agent& a) {
        r.check(a);
        {
          // Its stop hooks are a tick's leaves to the runtime: a spawn they make (from Python: a
          // print's sys.stdout) waits for the despawn's end, and another thread waits too.
          PyRuntime::Busy busy(r);
          PyRuntime::Ticking ticking(r);
          r.rt().despawn(a.handle);
        }
        r.raise_python_error_outside_tick();
      }, py::arg("agent"), "Removes the agent (its running leaves' stop hooks run); its handle goes stale.")
      .def("tick", &PyRuntime::tick, py::arg("agent"), py::arg("dt"), "Ticks one agent; returns its root status.")
      .def("tick_all", &PyRuntime::tick_all, py::arg("dt"), py::arg("times") = 1,
           "Ticks every live agent `times` times by dt seconds (the GIL released meanwhile).")
      .def("_time_tick_all", [](PyRuntime& r, double dt, uint32_t times) {
        // The bench's baseline (bench/bench_python.py): the same tick_all calls timed from C++.
        PyRuntime::check_dt(dt);
        double seconds = 0;
        {
          PyRuntime::Busy busy(r);
          PyRuntime::Ticking ticking(r);
          thicket::Runtime& rt = r.rt();
          GilReleased release;
          auto t0 = std::chrono::steady_clock::now();
          for (uint32_t i = 0; i < times; ++i) rt.tick_all(dt);
          seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
        }
        r.raise_python_error();
        return seconds;
      }, py::arg("dt"), py::arg("times"))
      .def("status", [](PyRuntime& r, const Agent& a) { r.check(a); return py_status(r.rt().status(a.handle)); },
           py::arg("agent"), "The root's status after the agent's last tick: 'running', 'success', 'failure' or 'invalid'.")
      .def("running", [](PyRuntime& r, const Agent& a) { r.check(a); return r.rt().running_nodes(a.handle); },
           py::arg("agent"), "The ids of the agent's running nodes, depth-first.")
      .def("blackboard", [](std::shared_ptr<PyRuntime> r, const Agent& a) {
        r->check(a);
        return Blackboard{r, a};
      }, py::arg("agent"), "A live view of the agent's blackboard (a Mapping): bb['key'] reads, bb['key'] = v writes.")
      .def("agents", &PyRuntime::agents, "The live agents, in tick order (restored ones included).")
      .def("find", &PyRuntime::find, py::arg("id"), "The live agent with that id, or None.")
      .def("send", [](PyRuntime& r, const Agent& a, const py::object& given) {
        if (!py::isinstance<py::str>(given))  // (pybind11 listed signatures; bytes were converted)
          throw py::type_error("send: an event name is a str, not " +
                               std::string(py::str(py::type::of(given).attr("__name__"))));
        const py::str name = given;
        // A str (and "\xff\xfe" was sent as a name no brain could map).
        Py_ssize_t size = 0;
        const char* text = PyUnicode_AsUTF8AndSize(name.ptr(), &size);
        if (!text) {  // pybind11's cast said only "Unable to cast Python instance to C++ type"
          PyErr_Clear();
          throw py::value_error("send: the event name cannot be written as UTF-8 (a lone surrogate?)");
        }
        const std::string event(text, static_cast<size_t>(size));
        r.check(a);
        if (event.empty()) throw py::value_error("an event has a name");
        if (event.find('\0') != std::string::npos) throw py::value_error("an event name cannot hold a NUL character");
        bool sent;
        {
          // A full queue traces and logs: to the runtime that callback is a stop hook (its spawns
          // wait for send's end), and it may let another thread in.
          PyRuntime::Busy busy(r);
          PyRuntime::Ticking ticking(r);
          sent = r.rt().send(a.handle, event);
        }
        r.raise_python_error_outside_tick();
        return sent;
      }, py::arg("agent"), py::arg("event"),
      "Queues a named event for the agent, taken at its next tick; False when its queue (4,096) is full.")
      .def("on_trace", &PyRuntime::on_trace, py::arg("callback"), py::arg("ticks") = true,
           "callback(event: dict) for every trace event (tick records too unless ticks=False); None stops.")
      .def("reload", &PyRuntime::reload, "Reloads the files that changed; a dict per file reloaded.")
      .def("save", &PyRuntime::save, "The runtime's agents as snapshot bytes.")
      .def("restore", &PyRuntime::restore, py::arg("data"),
           "Replaces every agent with a snapshot's (the brains must be loaded); raises LoadError.")
      .def("dump", [](PyRuntime& r, const Brain& b) {
        r.check(b);
        return r.rt().dump(b.handle);
      }, py::arg("brain"), "The brain's compiled node array as text, as `thicket dump` prints it.")
      .def_property_readonly("agent_count", [](PyRuntime& r) { return r.rt().agent_count(); }, "Live agents.")
      .def_property_readonly("script_errors", [](PyRuntime& r) { return r.rt().script_errors(); },
                             "Script errors (leaf errors, bad returns) reported so far.")
      .def_property_readonly("agent_ticks", [](PyRuntime& r) { return r.rt().agent_ticks(); },
                             "Agent-ticks done so far (each agent's tick counts one).");
}

}  // namespace thicket_py
