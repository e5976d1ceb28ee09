// The C API (thicket/thicket.h, SPEC 8.3) over thicket::Runtime, with the public C++ headers
// only. Each entry point catches every exception and turns it into a code and a message; a
// C leaf is a NativeLeafFn whose `user` points at the C function pointers (owned here); agent
// handles pack AgentHandle{index, generation} into an int64_t, so stale ones are caught.
#include <atomic>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <deque>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <new>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <vector>

// Exported whatever -fvisibility the library is built with (a shared build hides the rest).
#pragma GCC visibility push(default)
#include "thicket/thicket.h"
#pragma GCC visibility pop

#include "json_text.hpp"  // first_invalid_utf8, hex_byte
#include "leaf_answer.hpp"
#include "suggest.hpp"    // clipped, did_you_mean
#include "thicket/diagnostic.hpp"
#include "thicket/runtime.hpp"
#include "thicket/snapshot.hpp"

#if defined(__has_include)
#if __has_include("thicket/version.hpp")
#include "thicket/version.hpp"
#endif
#endif
#ifndef THICKET_VERSION_STRING
#define THICKET_VERSION_STRING "0.3.0"  // until thicket/version.hpp (packaging) provides it
#endif

using thicket::AgentHandle;
using thicket::BrainHandle;
using thicket::Status;
using thicket::Value;

static_assert(THICKET_INVALID == static_cast<int>(Status::Invalid) && THICKET_SUCCESS == static_cast<int>(Status::Success) &&
              THICKET_FAILURE == static_cast<int>(Status::Failure) && THICKET_RUNNING == static_cast<int>(Status::Running) &&
              THICKET_ABORTED == static_cast<int>(Status::Aborted));
static_assert(THICKET_TRACE_TICK == static_cast<int>(thicket::TraceEvent::Type::Tick) &&
              THICKET_TRACE_ABORT == static_cast<int>(thicket::TraceEvent::Type::Abort) &&
              THICKET_TRACE_TRANSITION == static_cast<int>(thicket::TraceEvent::Type::Transition) &&
              THICKET_TRACE_SWITCH == static_cast<int>(thicket::TraceEvent::Type::Switch) &&
              THICKET_TRACE_EVENT == static_cast<int>(thicket::TraceEvent::Type::Event));

// A C leaf's functions: what its NativeLeafFn's `user` points at. In a named namespace, not an
// anonymous one: thicket_runtime holds them, and in a unity build gcc warns of a field whose
// type has internal linkage (-Wsubobject-linkage).
namespace thicket::c_api {
struct CLeaf {
  thicket_leaf_fn tick = nullptr;
  thicket_leaf_start_fn start = nullptr;
  thicket_leaf_stop_fn stop = nullptr;
  void* user = nullptr;
};
}  // namespace thicket::c_api
using thicket::c_api::CLeaf;

struct thicket_runtime {
  explicit thicket_runtime(thicket::RuntimeOptions options) : rt(std::move(options)) {}

  // Everything the runtime may call back into is declared before it, so it outlives it.
  std::vector<std::unique_ptr<CLeaf>> leaves;  // every registration's, replaced ones included
  thicket_trace_fn trace_fn = nullptr;
  void* trace_user = nullptr;
  thicket_log_fn log_fn = nullptr;
  void* log_user = nullptr;
  thicket_log_fn print_fn = nullptr;  // thicket_set_print
  void* print_user = nullptr;
  std::deque<std::string> brain_names, brain_paths;  // a deque: its strings never move
  // The files whose latest reload failed, with that reload's diagnostics (a line each), until a
  // reload of theirs succeeds (thicket_reload_failures: what is broken now, not what one call met).
  std::map<std::string, std::string> broken_files;
  std::string reload_failures;  // broken_files' diagnostics, joined in file order

  // The last failure. A mutex, because leaves may call spawn/despawn/send from several threads.
  std::mutex error_mutex;
  std::string error;
  int errcode = THICKET_OK;

  // How many thicket_tick* calls are in progress on this runtime (a leaf may tick too), and
  // calls that run stop hooks between ticks (despawn, reload, restore): the runtime defers
  // spawns then, and refuses loads, restores, reloads and registrations. Read by leaves on the
  // executor's threads, hence atomic.
  std::atomic<int> ticking{0};
  // How many loads, restores, reloads and registrations are in progress (ChangeScope).
  std::atomic<int> changing{0};
  // Of those, how many passed their checks and run (their stop hooks and log lines may call
  // in): what a call refused then is told (THICKET_ERR_BUSY, not "during a tick").
  std::atomic<int> changes_running{0};

  thicket::Runtime rt;
};

namespace {

// Failures of calls given no runtime, and of thicket_runtime_new*, per thread.
thread_local std::string null_error;
thread_local int null_errcode = THICKET_OK;
// What thicket_last_error returns: a copy, so that another thread's failure cannot change it
// under the caller's feet.
thread_local std::string error_copy;

// Text handed to C as a NUL-terminated string: a NUL inside it (a name written "L\0x" in a
// YAML file, a Lua string) as the two characters \0, or C would see the text end there (and
// the diagnostics after it would be lost); and UTF-8, as thicket.h promises: a byte that is
// not (a path or a key written in Latin-1) as U+FFFD.
std::string c_text(std::string s) {
  for (size_t at = s.find('\0'); at != std::string::npos; at = s.find('\0', at + 2)) s.replace(at, 1, "\\0");
  if (thicket::first_invalid_utf8(s) < s.size()) s = thicket::valid_utf8(s);
  return s;
}

// Records a failure (the message is `what: why`) and returns its code. Never throws: if even
// the message cannot be made, the code is still recorded.
int fail(thicket_runtime* rt, int code, std::string_view what, std::string_view why) noexcept {
  try {
    std::string message;
    message.reserve(what.size() + 2 + why.size());
    message.append(what).append(": ").append(why);
    message = c_text(std::move(message));
    if (!rt) {
      null_error = std::move(message);
      null_errcode = code;
      return code;
    }
    std::lock_guard<std::mutex> lock(rt->error_mutex);
    rt->error = std::move(message);
    rt->errcode = code;
  } catch (...) {
    if (rt) rt->errcode = code;
    else null_errcode = code;
  }
  return code;
}

// Runs an entry point's body: any exception becomes a code and a message, and `on_error`.
template <class R, class F>
R guard(thicket_runtime* rt, const char* what, R on_error, F&& body) noexcept {
  try {
    return body();
  } catch (const std::bad_alloc&) {
    fail(rt, THICKET_ERR_NOMEM, what, "out of memory");
  } catch (const std::exception& e) {
    fail(rt, THICKET_ERR_INTERNAL, what, e.what());
  } catch (...) {
    fail(rt, THICKET_ERR_INTERNAL, what, "an unknown exception");
  }
  return on_error;
}

// Handles: generation (31 bits, so the handle stays >= 0) << 32 | index. A generation that
// wraps past 2^31 in one slot makes that slot's handles fail as stale, never match another agent.
int64_t pack(AgentHandle h) {
  if (!h.valid()) return -1;
  return static_cast<int64_t>(static_cast<uint64_t>(h.generation & 0x7FFFFFFFu) << 32 | h.index);
}
AgentHandle unpack(int64_t v) {
  if (v < 0) return {};
  return AgentHandle{static_cast<uint32_t>(static_cast<uint64_t>(v) & 0xFFFFFFFFu), static_cast<uint32_t>(static_cast<uint64_t>(v) >> 32)};
}

int no_runtime(const char* what) noexcept { return fail(nullptr, THICKET_ERR_ARG, what, "the runtime is NULL"); }

// The largest agent id the runtime gives (0 is "no agent"; ids run 1 .. this).
constexpr uint32_t kMaxAgentId = 0xFFFFFFFEu;

// A tick in progress on the runtime, for the calls it refuses then (they would change what the
// tick walks): THICKET_ERR_IN_TICK with the reason, before anything is touched (a leaf on an
// executor's thread may be the caller).
bool in_tick(const thicket_runtime* rt) { return rt->ticking.load(std::memory_order_seq_cst) > 0; }
int refuse_in_tick(thicket_runtime* rt, const char* what) noexcept {
  return fail(rt, THICKET_ERR_IN_TICK, what,
              "cannot be called during a tick (from a leaf, a callback or another thread): call it before or after the tick");
}

// A load, restore, reload or registration (which change what a tick walks), for the length of
// the call. With TickScope it is a handshake: each side first announces itself (an atomic
// read-modify-write), then looks at the other (seq_cst both), so of a tick and a load started
// at once on two threads at least one sees the other and steps back. Before, a load that
// passed its look at `ticking` just before another thread's tick began ran beside the tick (a
// use after free). `busy()`: another change was in progress when this one began (a load from
// a callback of a load, or two threads loading at once): refused too, after the tick's refusal
// (leaves on two of the executor's threads that both load are told "during a tick").
struct ChangeScope {
  explicit ChangeScope(thicket_runtime* r) : rt(r), busy_(rt->changing.fetch_add(1, std::memory_order_seq_cst) > 0) {}
  ~ChangeScope() {
    if (running_) rt->changes_running.fetch_sub(1, std::memory_order_seq_cst);
    rt->changing.fetch_sub(1, std::memory_order_seq_cst);
  }
  ChangeScope(const ChangeScope&) = delete;
  ChangeScope& operator=(const ChangeScope&) = delete;
  bool busy() const { return busy_; }
  void run() {
    running_ = true;
    rt->changes_running.fetch_add(1, std::memory_order_seq_cst);
  }
  thicket_runtime* rt;
  bool busy_;
  bool running_ = false;
};
bool changing(const thicket_runtime* rt) { return rt->changing.load(std::memory_order_seq_cst) > 0; }
int refuse_busy(thicket_runtime* rt, const char* what) noexcept {
  return fail(rt, THICKET_ERR_BUSY, what,
              "cannot be called while the runtime loads, restores, reloads or registers a leaf (from one of its "
              "callbacks or another thread): a runtime is used by one thread at a time");
}

// A call refused because a tick is in progress (`ticking`): a change that runs marks its stop
// hooks as ticking too, and a call from them (or from its log lines, or another thread then) is
// told the runtime is busy with that change, as thicket.h says.
int refuse_ticking(thicket_runtime* rt, const char* what) noexcept {
  return rt->changes_running.load(std::memory_order_seq_cst) > 0 ? refuse_busy(rt, what) : refuse_in_tick(rt, what);
}
// The checks a change makes as it begins: THICKET_OK lets it run (and marks it running).
int begin_change(thicket_runtime* rt, ChangeScope& change, const char* what) noexcept {
  if (in_tick(rt)) return refuse_ticking(rt, what);
  if (change.busy()) return refuse_busy(rt, what);
  change.run();
  return THICKET_OK;
}

// Marks a tick in progress for the length of a thicket_tick* call. `first()`: no tick was in
// progress when it began. A tick call marks itself and then looks (one atomic step): of two
// threads that call thicket_tick_all at once, one sees the other and is refused. (Looking first
// and marking after let both through, ticking the same agents at once.)
struct TickScope {
  explicit TickScope(thicket_runtime* r) : rt(r), first_(rt->ticking.fetch_add(1, std::memory_order_seq_cst) == 0) {}
  bool first() const { return first_; }
  ~TickScope() { rt->ticking.fetch_sub(1, std::memory_order_seq_cst); }
  TickScope(const TickScope&) = delete;
  TickScope& operator=(const TickScope&) = delete;
  thicket_runtime* rt;
  bool first_;
};

// Checks the runtime and the agent handle; THICKET_OK or the failure's code.
int check_agent(thicket_runtime* rt, const char* what, int64_t agent, AgentHandle& h) noexcept {
  if (!rt) return no_runtime(what);
  h = unpack(agent);
  if (h.valid() && rt->rt.agent_id(h) != 0) return THICKET_OK;
  try {
    return fail(rt, THICKET_ERR_STALE, what,
                "agent handle " + std::to_string(agent) + " is stale (despawned, restored over, or never valid)");
  } catch (...) {
    return fail(rt, THICKET_ERR_STALE, what, "the agent handle is stale");
  }
}

bool check_brain(thicket_runtime* rt, int32_t brain) { return brain >= 0 && static_cast<size_t>(brain) < rt->rt.brain_count(); }

bool good_dt(double dt) { return dt > 0 && dt <= thicket::kMaxDt; }  // as Runtime::tick_all (NaN and inf fail)

std::string joined(const std::vector<thicket::Diagnostic>& diagnostics) {
  std::string text;
  for (const auto& d : diagnostics) {
    if (!text.empty()) text += '\n';
    text += thicket::format_diagnostic(d);
  }
  return c_text(std::move(text));
}

// Where load warnings go when the load succeeds: the log callback, or standard error.
void log_line(thicket_runtime* rt, const std::string& line) {
  const std::string text = c_text(line);
  if (rt->log_fn) rt->log_fn(text.c_str(), rt->log_user);
  else std::fprintf(stderr, "%s\n", text.c_str());
}

const char* type_name(const Value& v) {
  switch (v.index()) {
    case 0: return "nil";
    case 1: return "number";
    case 2: return "integer";
    case 3: return "boolean";
    default: return "string";
  }
}

// Copies a string into a caller's buffer (see thicket_get_string).
int copy_out(const std::string& s, char* buf, size_t size, size_t* len) {
  if (len) *len = s.size();
  if (size == 0) return THICKET_ERR_RANGE;  // not even the NUL fits
  const size_t n = s.size() < size ? s.size() : size - 1;
  std::memcpy(buf, s.data(), n);
  buf[n] = '\0';
  return n == s.size() ? THICKET_OK : THICKET_ERR_RANGE;
}

// A typed read: T is the C++ alternative of Value the caller asks for.
template <class T>
int read_value(const std::optional<Value>& v, T& out) {
  if (!v) return THICKET_ERR_KEY;
  if (const T* x = std::get_if<T>(&*v)) {
    out = *x;
    return THICKET_OK;
  }
  return THICKET_ERR_TYPE;
}

// "" when `text` is UTF-8, else why a name that is not could never match a brain's (brains are
// UTF-8 YAML): "the leaf name is not UTF-8 (byte 0xff at offset 0), so no brain could name it".
std::string not_utf8(const char* text, const char* noun, const char* verb) {
  const std::string_view s(text);
  const size_t at = thicket::first_invalid_utf8(s);
  if (at >= s.size()) return "";
  return std::string("the ") + noun + " is not UTF-8 (byte " + thicket::hex_byte(s[at]) +
         " at offset " + std::to_string(at) + "), so no brain could " + verb + " it";
}

// ---- The runtime-level blackboard calls ----

std::string key_message(thicket_runtime* rt, AgentHandle h, const char* key_arg, int code, const char* wanted) {
  const std::string key = thicket::clipped(key_arg);  // a 100 kB key is not echoed whole
  if (code == THICKET_ERR_KEY)
    return std::string("agent ") + std::to_string(rt->rt.agent_id(h)) + " has no blackboard key '" + key + "'" +
           thicket::did_you_mean(key, rt->rt.blackboard_keys(rt->rt.brain_of(h)));
  std::optional<Value> v = rt->rt.get(h, key);
  const std::string held = v ? type_name(*v) : "value of another type";
  const auto a = [](const std::string& noun) { return (noun[0] == 'i' ? "an " : "a ") + noun; };
  return std::string("blackboard key '") + key + "' holds " + (held == "nil" ? held : a(held)) + ", not " + a(wanted);
}

template <class T>
int get_typed(thicket_runtime* rt, const char* what, int64_t agent, const char* key, T* out, const char* wanted) {
  return guard(rt, what, THICKET_ERR_INTERNAL, [&] {
    AgentHandle h;
    if (int c = check_agent(rt, what, agent, h)) return c;
    if (!key || !out) return fail(rt, THICKET_ERR_ARG, what, !key ? "the key is NULL" : "the output pointer is NULL");
    int code = read_value<T>(rt->rt.get(h, key), *out);
    return code == THICKET_OK ? code : fail(rt, code, what, key_message(rt, h, key, code, wanted));
  });
}

int set_typed(thicket_runtime* rt, const char* what, int64_t agent, const char* key, const Value& v, const char* wanted) {
  return guard(rt, what, THICKET_ERR_INTERNAL, [&] {
    AgentHandle h;
    if (int c = check_agent(rt, what, agent, h)) return c;
    if (!key) return fail(rt, THICKET_ERR_ARG, what, "the key is NULL");
    if (rt->rt.set(h, key, v)) return THICKET_OK;
    const auto now = rt->rt.get(h, key);
    if (now && std::holds_alternative<double>(*now) && std::holds_alternative<double>(v) && std::isnan(std::get<double>(v)))
      return fail(rt, THICKET_ERR_ARG, what,
                  "blackboard key '" + thicket::clipped(key) + "' takes no nan (nan compares false with everything: a health of nan never reaches 0)");
    const int code = now ? THICKET_ERR_TYPE : THICKET_ERR_KEY;
    return fail(rt, code, what, key_message(rt, h, key, code, wanted));
  });
}

// ---- Leaves ----

thicket::LeafContext& lc(thicket_leaf_ctx* ctx) { return *reinterpret_cast<thicket::LeafContext*>(ctx); }
const thicket::LeafContext& lc(const thicket_leaf_ctx* ctx) { return *reinterpret_cast<const thicket::LeafContext*>(ctx); }
thicket_leaf_ctx* cctx(thicket::LeafContext& c) { return reinterpret_cast<thicket_leaf_ctx*>(&c); }

// The leaf's answer as the engine takes it: another value than a status goes to the engine
// as it is (0 to 255; others as 0, their value kept in tl_raw_leaf_answers), which reports it (the value, the leaf, the node, the
// agent, the tick), counts it with the script errors and takes it as failure, as it does a
// C++ leaf's. (It was turned into failure here, without a word.)
Status c_tick(thicket::LeafContext& c, void* user) {
  const CLeaf* leaf = static_cast<const CLeaf*>(user);
  const int answer = leaf->tick(cctx(c), leaf->user);
  if (answer >= 0 && answer <= 255) return static_cast<Status>(answer);
  thicket::tl_raw_leaf_answers.push_back({c.agent_id(), answer});  // for the error's "returned the value -5"
  return Status::Invalid;
}
void c_start(thicket::LeafContext& c, void* user) {
  const CLeaf* leaf = static_cast<const CLeaf*>(user);
  leaf->start(cctx(c), leaf->user);
}
void c_stop(thicket::LeafContext& c, Status s, void* user) {
  const CLeaf* leaf = static_cast<const CLeaf*>(user);
  leaf->stop(cctx(c), static_cast<int>(s), leaf->user);
}

// Leaf-context calls leave no message (they may run on several threads at once): codes only.
template <class T>
int leaf_get(thicket_leaf_ctx* ctx, const char* key, T* out) noexcept {
  if (!ctx || !key || !out) return THICKET_ERR_ARG;
  try {
    Value v;
    if (!lc(ctx).get(key, v)) return THICKET_ERR_KEY;
    return read_value<T>(std::optional<Value>(std::move(v)), *out);
  } catch (const std::bad_alloc&) {
    return THICKET_ERR_NOMEM;
  } catch (...) {
    return THICKET_ERR_INTERNAL;
  }
}
int leaf_set(thicket_leaf_ctx* ctx, const char* key, const Value& v) noexcept {
  if (!ctx || !key) return THICKET_ERR_ARG;
  try {
    if (lc(ctx).set(key, v)) return THICKET_OK;
    Value old;
    if (!lc(ctx).get(key, old)) return THICKET_ERR_KEY;
    // A number key refuses nan (THICKET_ERR_ARG), as thicket_set_number does.
    return std::holds_alternative<double>(old) && std::holds_alternative<double>(v) && std::isnan(std::get<double>(v))
               ? THICKET_ERR_ARG
               : THICKET_ERR_TYPE;
  } catch (const std::bad_alloc&) {
    return THICKET_ERR_NOMEM;
  } catch (...) {
    return THICKET_ERR_INTERNAL;
  }
}

// ---- The executor: a C job system runs the C++ jobs ----
void run_job(void* job, size_t i) {
  try {
    (*static_cast<const std::function<void(size_t)>*>(job))(i);
  } catch (...) {  // the runtime's jobs catch their own errors; nothing may unwind into C
  }
}

// ---- Snapshots ----
int give_bytes(thicket_runtime* rt, const char* what, const std::string& s, void** bytes, size_t* len) {
  void* p = std::malloc(s.empty() ? 1 : s.size());
  if (!p) return fail(rt, THICKET_ERR_NOMEM, what, "out of memory");
  std::memcpy(p, s.data(), s.size());
  *bytes = p;
  *len = s.size();
  return THICKET_OK;
}

}  // namespace

// ======================================================================================
extern "C" {

const char* thicket_version(void) { return THICKET_VERSION_STRING; }

void thicket_options_init(thicket_options* options) {
  if (!options) return;
  const thicket::RuntimeOptions d;
  std::memset(options, 0, sizeof *options);
  options->struct_size = sizeof *options;
  options->seed = d.seed;
  options->trusted = d.trusted;
  options->script_states = d.script_states;
  options->instruction_budget = d.instruction_budget;
  options->budget_all_leaves = d.budget_all_leaves;
  options->leaf_timeout = d.leaf_timeout;
  options->lua_memory_limit = d.lua_memory_limit;
  options->max_script_agents = d.max_script_agents;
  options->max_script_state_bytes = d.max_script_state_bytes;
}

thicket_runtime* thicket_runtime_new(void) { return thicket_runtime_new_with(nullptr); }

thicket_runtime* thicket_runtime_new_with(const thicket_options* given) {
  const char* what = "thicket_runtime_new";
  return guard<thicket_runtime*>(nullptr, what, nullptr, [&]() -> thicket_runtime* {
    thicket_options o;
    thicket_options_init(&o);
    if (given) {
      if (given->struct_size < offsetof(thicket_options, seed) + sizeof o.seed) {
        fail(nullptr, THICKET_ERR_ARG, what, "options.struct_size is too small: fill the options with thicket_options_init");
        return nullptr;
      }
      // A program built against an older header passes a shorter struct: its fields only.
      std::memcpy(&o, given, given->struct_size < sizeof o ? given->struct_size : sizeof o);
      o.struct_size = sizeof o;
    }
    if (o.script_states == 0 || o.script_states > thicket::RuntimeOptions::kMaxScriptStates) {
      fail(nullptr, THICKET_ERR_ARG, what,
           "options.script_states must be 1 to " + std::to_string(thicket::RuntimeOptions::kMaxScriptStates) + ", got " +
               std::to_string(o.script_states));
      return nullptr;
    }
    if (!(o.leaf_timeout >= 0)) {
      fail(nullptr, THICKET_ERR_ARG, what, "options.leaf_timeout must be >= 0");
      return nullptr;
    }
    thicket::RuntimeOptions options;
    options.seed = o.seed;
    options.trusted = o.trusted != 0;
    options.script_states = o.script_states;
    options.instruction_budget = o.instruction_budget;
    options.budget_all_leaves = o.budget_all_leaves != 0;
    options.leaf_timeout = o.leaf_timeout;
    options.lua_memory_limit = o.lua_memory_limit;
    options.max_script_agents = o.max_script_agents;
    options.max_script_state_bytes = o.max_script_state_bytes;
    return new thicket_runtime(std::move(options));
  });
}

void thicket_runtime_free(thicket_runtime* rt) {
  guard(nullptr, "thicket_runtime_free", 0, [&] {  // nullptr: rt is gone when it could fail
    // From a leaf or a callback during a tick (or another thread's while one runs): the tick
    // would walk freed memory. Refused, the runtime kept (thicket_last_error(NULL) says so).
    if (rt && (in_tick(rt) || rt->changing.load(std::memory_order_seq_cst) > 0))
      return fail(nullptr, THICKET_ERR_IN_TICK, "thicket_runtime_free",
                  "cannot be called during a tick or a load (from a leaf, a callback or another thread): the runtime "
                  "was not freed; free it after the tick");
    delete rt;
    return 0;
  });
}

const char* thicket_last_error(thicket_runtime* rt) {
  try {
    if (!rt) {
      // A copy too: the next failing call given a NULL runtime replaces null_error.
      error_copy = null_error;
      return error_copy.c_str();
    }
    std::lock_guard<std::mutex> lock(rt->error_mutex);
    error_copy = rt->error;
    return error_copy.c_str();
  } catch (...) {
    return "out of memory (while copying the error message)";
  }
}

int thicket_errcode(thicket_runtime* rt) {
  if (!rt) return null_errcode;
  std::lock_guard<std::mutex> lock(rt->error_mutex);
  return rt->errcode;
}

// ---- Brains ----

static int32_t load(thicket_runtime* rt, const char* what, const char* yaml, const char* path) {
  return guard<int32_t>(rt, what, -1, [&]() -> int32_t {
    if (!rt) return no_runtime(what), -1;
    ChangeScope change(rt);
    if (begin_change(rt, change, what) != THICKET_OK) return -1;
    std::vector<thicket::Diagnostic> diagnostics;
    std::optional<BrainHandle> brain;
    if (yaml && path && !*path)
      return fail(rt, THICKET_ERR_ARG, what, "the name is empty (it stands for the file in messages: give one, or NULL)"), -1;
    if (yaml) brain = rt->rt.load_string(yaml, path ? path : "<string>", diagnostics);
    else if (path && !*path) return fail(rt, THICKET_ERR_ARG, what, "the path is empty"), -1;
    else if (path) brain = rt->rt.load_file(path, diagnostics);
    else return fail(rt, THICKET_ERR_ARG, what, "the path is NULL"), -1;
    if (!brain) {
      std::string text = joined(diagnostics);
      if (text.empty()) text = std::string(yaml ? (path ? path : "<string>") : path) + ": error: the brain did not load";
      // The diagnostics as they are, one a line: a caller can print thicket_last_error.
      std::lock_guard<std::mutex> lock(rt->error_mutex);
      rt->error = std::move(text);
      rt->errcode = THICKET_ERR_LOAD;
      return -1;
    }
    for (const auto& d : diagnostics) log_line(rt, thicket::format_diagnostic(d));  // warnings, notes
    return static_cast<int32_t>(brain->index);
  });
}

int32_t thicket_load_file(thicket_runtime* rt, const char* path) { return load(rt, "thicket_load_file", nullptr, path); }

int32_t thicket_load_string(thicket_runtime* rt, const char* yaml, const char* name) {
  if (rt && !yaml) return fail(rt, THICKET_ERR_ARG, "thicket_load_string", "the YAML text is NULL"), -1;
  return load(rt, "thicket_load_string", yaml, name);
}

int32_t thicket_brain_count(thicket_runtime* rt) {
  if (!rt) return no_runtime("thicket_brain_count");
  return static_cast<int32_t>(rt->rt.brain_count());
}

static const char* brain_string(thicket_runtime* rt, const char* what, int32_t brain, bool name) {
  return guard<const char*>(rt, what, nullptr, [&]() -> const char* {
    if (!rt) return no_runtime(what), nullptr;
    if (!check_brain(rt, brain)) return fail(rt, THICKET_ERR_ARG, what, "no brain " + std::to_string(brain)), nullptr;
    std::deque<std::string>& cache = name ? rt->brain_names : rt->brain_paths;
    while (cache.size() <= static_cast<size_t>(brain)) cache.emplace_back();
    const BrainHandle b{static_cast<uint32_t>(brain)};
    std::string now = c_text(name ? rt->rt.brain_name(b) : rt->rt.brain_path(b));
    std::string& kept = cache[static_cast<size_t>(brain)];
    if (kept != now) kept = std::move(now);  // the same text keeps the same pointer
    return kept.c_str();
  });
}

const char* thicket_brain_name(thicket_runtime* rt, int32_t brain) { return brain_string(rt, "thicket_brain_name", brain, true); }
const char* thicket_brain_path(thicket_runtime* rt, int32_t brain) { return brain_string(rt, "thicket_brain_path", brain, false); }

int thicket_reload_changed(thicket_runtime* rt) {
  return guard(rt, "thicket_reload_changed", THICKET_ERR_INTERNAL, [&] {
    if (!rt) return no_runtime("thicket_reload_changed");
    ChangeScope change(rt);
    if (int c = begin_change(rt, change, "thicket_reload_changed")) return c;
    std::vector<thicket::ReloadReport> reports;
    size_t n;
    {
      TickScope hooks(rt);  // stop hooks of removed nodes run: leaves to the calls they make
      n = rt->rt.reload_changed(&reports);
    }
    for (const auto& r : reports) {
      if (r.ok) {
        rt->broken_files.erase(r.file);
        continue;
      }
      std::string& lines = rt->broken_files[r.file];
      lines.clear();
      for (const auto& d : r.diagnostics) lines += c_text(thicket::format_diagnostic(d)) + "\n";
    }
    // Each line once: a brain's failed reload repeats the errors of a leaf file it lists that
    // failed too (said as that file's already).
    rt->reload_failures.clear();
    std::set<std::string_view> said;
    for (const auto& [file, lines] : rt->broken_files)
      for (size_t at = 0, end; at < lines.size(); at = end + 1) {
        end = lines.find('\n', at);
        if (said.insert(std::string_view(lines).substr(at, end - at)).second) rt->reload_failures.append(lines, at, end - at + 1);
      }
    return n > static_cast<size_t>(INT32_MAX) ? INT32_MAX : static_cast<int>(n);
  });
}

int thicket_reload_failures(thicket_runtime* rt, const char** text) {
  return guard(rt, "thicket_reload_failures", THICKET_ERR_INTERNAL, [&] {
    if (!rt) return no_runtime("thicket_reload_failures");
    if (text) *text = rt->reload_failures.c_str();
    return rt->broken_files.size() > static_cast<size_t>(INT32_MAX) ? INT32_MAX : static_cast<int>(rt->broken_files.size());
  });
}

// ---- Agents ----

static int64_t spawn(thicket_runtime* rt, const char* what, int32_t brain, uint32_t id, bool with_id) {
  return guard<int64_t>(rt, what, -1, [&]() -> int64_t {
    if (!rt) return no_runtime(what), -1;
    if (!check_brain(rt, brain)) return fail(rt, THICKET_ERR_ARG, what, "no brain " + std::to_string(brain)), -1;
    if (with_id) {
      if (id == 0) return fail(rt, THICKET_ERR_ARG, what, "agent id 0: ids start at 1"), -1;
      if (id > kMaxAgentId)
        return fail(rt, THICKET_ERR_ARG, what,
                    "agent id " + std::to_string(id) + " is past the largest, " + std::to_string(kMaxAgentId)),
               -1;
    }
    // Read before the spawn: a tick in progress defers it (the runtime answers with an invalid
    // handle then, as for a spawn it refuses), and a deferred one's id is checked when it is
    // made, after the tick's earlier deferred calls (a despawn of that id among them). Asked of
    // the runtime, not of `ticking`: a callback of a parallel tick (its lines are handed out
    // after the jobs) spawns at once, and an id in use there is THICKET_ERR_ARG, not "deferred".
    const bool deferred = rt->rt.defers_spawns();
    if (with_id && !deferred && rt->rt.find_agent(id))
      return fail(rt, THICKET_ERR_ARG, what, "agent id " + std::to_string(id) + " is in use"), -1;
    const BrainHandle b{static_cast<uint32_t>(brain)};
    AgentHandle h = with_id ? rt->rt.spawn(b, {}, id) : rt->rt.spawn(b);
    if (h.valid()) return pack(h);
    if (deferred) return fail(rt, THICKET_ERR_DEFERRED, what, "called during a tick: the agent is spawned at its end"), -1;
    // Refused. The brain and the id were checked above: what is left is the run's ids.
    if (!with_id)
      return fail(rt, THICKET_ERR_ARG, what,
                  "every agent id (1 to " + std::to_string(kMaxAgentId) + ") is in use: no agent spawned"),
             -1;
    return fail(rt, THICKET_ERR_ARG, what, "agent id " + std::to_string(id) + " was refused (the log says why)"), -1;
  });
}

int64_t thicket_spawn(thicket_runtime* rt, int32_t brain) { return spawn(rt, "thicket_spawn", brain, 0, false); }
int64_t thicket_spawn_with_id(thicket_runtime* rt, int32_t brain, uint32_t id) {
  return spawn(rt, "thicket_spawn_with_id", brain, id, true);
}

int thicket_despawn(thicket_runtime* rt, int64_t agent) {
  return guard(rt, "thicket_despawn", THICKET_ERR_INTERNAL, [&] {
    AgentHandle h;
    if (int c = check_agent(rt, "thicket_despawn", agent, h)) return c;
    TickScope hooks(rt);  // its stop hooks run: leaves to the calls they make (a spawn is deferred)
    rt->rt.despawn(h);
    return THICKET_OK;
  });
}

int64_t thicket_agent_count(thicket_runtime* rt) {
  if (!rt) return no_runtime("thicket_agent_count");
  return static_cast<int64_t>(rt->rt.agent_count());
}

int64_t thicket_agents(thicket_runtime* rt, int64_t* out, size_t capacity) {
  return guard<int64_t>(rt, "thicket_agents", THICKET_ERR_INTERNAL, [&]() -> int64_t {
    if (!rt) return no_runtime("thicket_agents");
    if (!out && capacity > 0) return fail(rt, THICKET_ERR_ARG, "thicket_agents", "out is NULL with a capacity above 0");
    const std::vector<AgentHandle> all = rt->rt.agents();
    for (size_t i = 0; i < all.size() && i < capacity; ++i) out[i] = pack(all[i]);
    return static_cast<int64_t>(all.size());
  });
}

int64_t thicket_agent_id(thicket_runtime* rt, int64_t agent) {
  AgentHandle h;
  if (int c = check_agent(rt, "thicket_agent_id", agent, h)) return c;
  return rt->rt.agent_id(h);
}

int64_t thicket_find_agent(thicket_runtime* rt, uint32_t id) {
  return guard<int64_t>(rt, "thicket_find_agent", -1, [&]() -> int64_t {
    if (!rt) return no_runtime("thicket_find_agent"), -1;
    std::optional<AgentHandle> h = rt->rt.find_agent(id);
    if (!h) return fail(rt, THICKET_ERR_ARG, "thicket_find_agent", "no live agent has id " + std::to_string(id)), -1;
    return pack(*h);
  });
}

// ---- Ticking ----

int thicket_tick_all(thicket_runtime* rt, double dt) { return thicket_tick_all_parallel(rt, dt, nullptr, nullptr); }

int thicket_tick(thicket_runtime* rt, int64_t agent, double dt) {
  return guard(rt, "thicket_tick", THICKET_ERR_INTERNAL, [&] {
    AgentHandle h;
    if (int c = check_agent(rt, "thicket_tick", agent, h)) return c;
    if (!good_dt(dt)) return fail(rt, THICKET_ERR_ARG, "thicket_tick", "dt must be a positive number of seconds, at most 1000000");
    TickScope scope(rt);
    if (!scope.first()) return refuse_ticking(rt, "thicket_tick");  // a leaf's tick would run inside its own
    if (changing(rt)) return refuse_busy(rt, "thicket_tick");
    return static_cast<int>(rt->rt.tick(h, dt));
  });
}

int thicket_tick_all_parallel(thicket_runtime* rt, double dt, thicket_executor_fn executor, void* user) {
  const char* what = executor ? "thicket_tick_all_parallel" : "thicket_tick_all";
  return guard(rt, what, THICKET_ERR_INTERNAL, [&] {
    if (!rt) return no_runtime(what);
    if (!good_dt(dt)) return fail(rt, THICKET_ERR_ARG, what, "dt must be a positive number of seconds, at most 1000000");
    TickScope scope(rt);
    if (!scope.first()) return refuse_ticking(rt, what);  // a leaf's tick_all would tick its agent inside its own tick
    if (changing(rt)) return refuse_busy(rt, what);
    if (!executor) {
      rt->rt.tick_all(dt);
      return THICKET_OK;
    }
    rt->rt.tick_all(dt, [executor, user](size_t n, const std::function<void(size_t)>& job) {
      executor(n, run_job, const_cast<void*>(static_cast<const void*>(&job)), user);
    });
    return THICKET_OK;
  });
}

int thicket_set_tick_every(thicket_runtime* rt, int64_t agent, uint32_t k) {
  return guard(rt, "thicket_set_tick_every", THICKET_ERR_INTERNAL, [&] {
    AgentHandle h;
    if (int c = check_agent(rt, "thicket_set_tick_every", agent, h)) return c;
    // At most INT32_MAX: thicket_tick_every gives k back as an int (a larger k read back clipped).
    if (k == 0 || k > static_cast<uint32_t>(INT32_MAX))
      return fail(rt, THICKET_ERR_ARG, "thicket_set_tick_every", "k must be from 1 to 2147483647, got " + std::to_string(k));
    rt->rt.set_tick_every(h, k);
    return THICKET_OK;
  });
}

int thicket_tick_every(thicket_runtime* rt, int64_t agent) {
  AgentHandle h;
  if (int c = check_agent(rt, "thicket_tick_every", agent, h)) return c;
  const uint32_t k = rt->rt.tick_every(h);  // (a C++ set_tick_every may have set more)
  return k > static_cast<uint32_t>(INT32_MAX) ? INT32_MAX : static_cast<int>(k);
}

// ---- Reading an agent ----

int thicket_status(thicket_runtime* rt, int64_t agent) {
  AgentHandle h;
  if (int c = check_agent(rt, "thicket_status", agent, h)) return c;
  return static_cast<int>(rt->rt.status(h));
}

int thicket_running_nodes(thicket_runtime* rt, int64_t agent, thicket_node_fn fn, void* user) {
  return guard(rt, "thicket_running_nodes", THICKET_ERR_INTERNAL, [&] {
    AgentHandle h;
    if (int c = check_agent(rt, "thicket_running_nodes", agent, h)) return c;
    const std::vector<std::string> ids = rt->rt.running_nodes(h);
    if (fn)
      for (const auto& id : ids) fn(c_text(id).c_str(), user);  // (as the trace's ids)
    return static_cast<int>(ids.size());
  });
}

int64_t thicket_script_errors(thicket_runtime* rt) {
  if (!rt) return no_runtime("thicket_script_errors");
  return static_cast<int64_t>(rt->rt.script_errors());
}

// ---- Blackboard ----

int thicket_set_number(thicket_runtime* rt, int64_t agent, const char* key, double v) {
  return set_typed(rt, "thicket_set_number", agent, key, Value(v), "number");
}
int thicket_get_number(thicket_runtime* rt, int64_t agent, const char* key, double* out) {
  return get_typed<double>(rt, "thicket_get_number", agent, key, out, "number");
}
int thicket_set_integer(thicket_runtime* rt, int64_t agent, const char* key, int64_t v) {
  return set_typed(rt, "thicket_set_integer", agent, key, Value(v), "integer");
}
int thicket_get_integer(thicket_runtime* rt, int64_t agent, const char* key, int64_t* out) {
  return get_typed<int64_t>(rt, "thicket_get_integer", agent, key, out, "integer");
}
int thicket_set_bool(thicket_runtime* rt, int64_t agent, const char* key, int v) {
  return set_typed(rt, "thicket_set_bool", agent, key, Value(v != 0), "boolean");
}
int thicket_get_bool(thicket_runtime* rt, int64_t agent, const char* key, int* out) {
  if (!out) return get_typed<bool>(rt, "thicket_get_bool", agent, key, static_cast<bool*>(nullptr), "boolean");
  bool b = false;
  const int code = get_typed<bool>(rt, "thicket_get_bool", agent, key, &b, "boolean");
  if (code == THICKET_OK) *out = b ? 1 : 0;
  return code;
}
int thicket_set_string(thicket_runtime* rt, int64_t agent, const char* key, const char* v) {
  if (!v) {
    AgentHandle h;
    if (int c = check_agent(rt, "thicket_set_string", agent, h)) return c;
    return fail(rt, THICKET_ERR_ARG, "thicket_set_string", "the string is NULL");
  }
  return guard(rt, "thicket_set_string", THICKET_ERR_INTERNAL,
               [&] { return set_typed(rt, "thicket_set_string", agent, key, Value(std::string(v)), "string"); });
}
int thicket_get_string(thicket_runtime* rt, int64_t agent, const char* key, char* buf, size_t size, size_t* len) {
  const char* what = "thicket_get_string";
  return guard(rt, what, THICKET_ERR_INTERNAL, [&] {
    if (len) *len = 0;
    if (!buf && size > 0) {
      if (!rt) return no_runtime(what);
      return fail(rt, THICKET_ERR_ARG, what, "buf is NULL with a size above 0");
    }
    std::string s;
    if (int c = get_typed<std::string>(rt, what, agent, key, &s, "string")) return c;
    const int code = copy_out(s, buf, size, len);
    return code == THICKET_OK ? code
                              : fail(rt, code, what, "the string has " + std::to_string(s.size()) + " bytes: the buffer needs " +
                                                         std::to_string(s.size() + 1) + ", it has " + std::to_string(size));
  });
}

int thicket_send(thicket_runtime* rt, int64_t agent, const char* event) {
  return guard(rt, "thicket_send", THICKET_ERR_INTERNAL, [&] {
    AgentHandle h;
    if (int c = check_agent(rt, "thicket_send", agent, h)) return c;
    if (!event || !*event) return fail(rt, THICKET_ERR_ARG, "thicket_send", "the event name is NULL or empty");
    if (std::string why = not_utf8(event, "event name", "take"); !why.empty()) return fail(rt, THICKET_ERR_ARG, "thicket_send", why);
    if (!rt->rt.send(h, event))  // the handle was checked: the queue is full
      return fail(rt, THICKET_ERR_RANGE, "thicket_send",
                  "the agent's event queue is full (4096 events): the event is dropped (events sent in a loop, by a leaf or the game?)");
    return THICKET_OK;
  });
}

// ---- C leaves ----

int thicket_register_leaf_hooks(thicket_runtime* rt, const char* name, thicket_leaf_fn tick, thicket_leaf_start_fn start,
                                thicket_leaf_stop_fn stop, void* user, unsigned flags) {
  const char* what = "thicket_register_leaf";
  return guard(rt, what, THICKET_ERR_INTERNAL, [&] {
    if (!rt) return no_runtime(what);
    if (!name || !*name) return fail(rt, THICKET_ERR_ARG, what, "the leaf name is NULL or empty");
    if (std::string why = not_utf8(name, "leaf name", "name"); !why.empty()) return fail(rt, THICKET_ERR_ARG, what, why);
    if (!tick) return fail(rt, THICKET_ERR_ARG, what, std::string("leaf '") + name + "': the tick function is NULL");
    if (flags & ~THICKET_LEAF_AGENT_LOCAL) return fail(rt, THICKET_ERR_ARG, what, "unknown flags");
    // Before rt->leaves is touched: a leaf on an executor's thread may be calling.
    ChangeScope change(rt);
    if (int c = begin_change(rt, change, what)) return c;
    auto leaf = std::make_unique<CLeaf>(CLeaf{tick, start, stop, user});
    thicket::NativeLeafFn fn;
    fn.tick = c_tick;
    fn.start = start ? c_start : nullptr;
    fn.stop = stop ? c_stop : nullptr;
    fn.user = leaf.get();
    fn.agent_local = (flags & THICKET_LEAF_AGENT_LOCAL) != 0;
    rt->leaves.push_back(std::move(leaf));  // kept until the runtime is freed: a replaced
    rt->rt.register_leaf(name, fn);         // leaf's record is small, and nothing dangles
    return THICKET_OK;
  });
}

int thicket_register_leaf(thicket_runtime* rt, const char* name, thicket_leaf_fn tick, void* user) {
  return thicket_register_leaf_hooks(rt, name, tick, nullptr, nullptr, user, 0);
}

int64_t thicket_leaf_agent(const thicket_leaf_ctx* ctx) { return ctx ? pack(lc(ctx).handle()) : -1; }
int64_t thicket_leaf_agent_id(const thicket_leaf_ctx* ctx) { return ctx ? static_cast<int64_t>(lc(ctx).agent_id()) : -1; }
double thicket_leaf_time(const thicket_leaf_ctx* ctx) { return ctx ? lc(ctx).time() : 0.0; }
double thicket_leaf_dt(const thicket_leaf_ctx* ctx) { return ctx ? lc(ctx).dt() : 0.0; }
uint64_t thicket_leaf_tick(const thicket_leaf_ctx* ctx) { return ctx ? lc(ctx).tick() : 0; }
const char* thicket_leaf_node_id(const thicket_leaf_ctx* ctx) { return ctx ? lc(ctx).node_id().c_str() : ""; }
double thicket_leaf_random(thicket_leaf_ctx* ctx) { return ctx ? lc(ctx).random() : 0.0; }

int thicket_leaf_get_number(thicket_leaf_ctx* ctx, const char* key, double* out) { return leaf_get<double>(ctx, key, out); }
int thicket_leaf_set_number(thicket_leaf_ctx* ctx, const char* key, double v) { return leaf_set(ctx, key, Value(v)); }
int thicket_leaf_get_integer(thicket_leaf_ctx* ctx, const char* key, int64_t* out) { return leaf_get<int64_t>(ctx, key, out); }
int thicket_leaf_set_integer(thicket_leaf_ctx* ctx, const char* key, int64_t v) { return leaf_set(ctx, key, Value(v)); }
int thicket_leaf_get_bool(thicket_leaf_ctx* ctx, const char* key, int* out) {
  if (!out) return THICKET_ERR_ARG;
  bool b = false;
  const int code = leaf_get<bool>(ctx, key, &b);
  if (code == THICKET_OK) *out = b ? 1 : 0;
  return code;
}
int thicket_leaf_set_bool(thicket_leaf_ctx* ctx, const char* key, int v) { return leaf_set(ctx, key, Value(v != 0)); }
int thicket_leaf_get_string(thicket_leaf_ctx* ctx, const char* key, char* buf, size_t size, size_t* len) {
  if (len) *len = 0;
  if (!buf && size > 0) return THICKET_ERR_ARG;
  std::string s;
  if (int c = leaf_get<std::string>(ctx, key, &s)) return c;
  return copy_out(s, buf, size, len);
}
int thicket_leaf_set_string(thicket_leaf_ctx* ctx, const char* key, const char* v) {
  if (!v) return THICKET_ERR_ARG;
  try {
    return leaf_set(ctx, key, Value(std::string(v)));
  } catch (...) {
    return THICKET_ERR_NOMEM;
  }
}

// ---- Trace and log ----

int thicket_set_trace(thicket_runtime* rt, thicket_trace_fn fn, void* user, int ticks) {
  return guard(rt, "thicket_set_trace", THICKET_ERR_INTERNAL, [&] {
    if (!rt) return no_runtime("thicket_set_trace");
    rt->trace_fn = fn;
    rt->trace_user = user;
    if (!fn) {
      rt->rt.on_trace({});
      return THICKET_OK;
    }
    rt->rt.on_trace(
        [rt](const thicket::TraceEvent& e) {
          // Each text as C can take it: as it is, unless it holds a NUL (C would see it end
          // there: two node ids "s\0x" and "s\0x/act" read alike) or bytes that are not UTF-8
          // (the header promises UTF-8); then a copy, kept for the call.
          std::deque<std::string> kept;
          auto text = [&kept](const std::string& s) -> const char* {
            if (s.find('\0') == std::string::npos && thicket::first_invalid_utf8(s) >= s.size()) return s.c_str();
            return kept.emplace_back(c_text(s)).c_str();
          };
          std::vector<const char*> running;
          running.reserve(e.running.size() + 1);
          for (const auto& id : e.running) running.push_back(text(id));
          running.push_back(nullptr);  // so the array is never NULL, and ends like argv
          thicket_trace_event c;
          std::memset(&c, 0, sizeof c);
          c.type = static_cast<int>(e.type);
          c.tick = e.tick;
          c.agent = e.agent;
          c.status = static_cast<int>(e.status);
          c.running = running.data();
          c.running_count = e.running.size();
          c.composite = text(e.composite);
          c.condition = text(e.condition);
          c.aborted = text(e.aborted);
          c.condition_label = text(e.condition_label);
          c.aborted_label = text(e.aborted_label);
          c.from_status = static_cast<int>(e.from);
          c.to_status = static_cast<int>(e.to);
          c.brain = text(e.brain);
          c.from_name = text(e.from_name);
          c.to_name = text(e.to_name);
          c.transition = text(e.transition);
          c.cause = text(e.cause);
          c.cause_label = text(e.cause_label);
          c.event = text(e.event);
          c.taken_by = text(e.taken_by);
          c.ended = e.ended ? 1 : 0;
          rt->trace_fn(&c, rt->trace_user);
        },
        ticks != 0);
    return THICKET_OK;
  });
}

int thicket_set_log(thicket_runtime* rt, thicket_log_fn fn, void* user) {
  return guard(rt, "thicket_set_log", THICKET_ERR_INTERNAL, [&] {
    if (!rt) return no_runtime("thicket_set_log");
    rt->log_fn = fn;
    rt->log_user = user;
    if (!fn) rt->rt.on_log({});
    else rt->rt.on_log([rt](const std::string& line) { rt->log_fn(c_text(line).c_str(), rt->log_user); });
    return THICKET_OK;
  });
}

int thicket_set_print(thicket_runtime* rt, thicket_log_fn fn, void* user) {
  return guard(rt, "thicket_set_print", THICKET_ERR_INTERNAL, [&] {
    if (!rt) return no_runtime("thicket_set_print");
    rt->print_fn = fn;
    rt->print_user = user;
    if (!fn) rt->rt.on_print({});
    else rt->rt.on_print([rt](const std::string& line) { rt->print_fn(c_text(line).c_str(), rt->print_user); });
    return THICKET_OK;
  });
}

// ---- Snapshots ----

// A snapshot's refusal as a C caller reads it: the runtime names its C++ methods.
static std::string in_c_names(std::string why) {
  for (const auto& [cpp, c] : {std::pair<std::string, std::string>{"add it with restore_agent", "add it with thicket_restore_agent"},
                               {"restore it with restore", "restore it with thicket_restore"}})
    if (size_t at = why.find(cpp); at != std::string::npos) why.replace(at, cpp.size(), c);
  return why;
}

static int refuse_save(thicket_runtime* rt, const char* what, const std::vector<thicket::Diagnostic>& diagnostics) {
  const std::string why = joined(diagnostics);
  return fail(rt, THICKET_ERR_SNAPSHOT, what, why.empty() ? "the snapshot was not saved" : why);
}

int thicket_save(thicket_runtime* rt, void** bytes, size_t* len) {
  const char* what = "thicket_save";
  if (bytes) *bytes = nullptr;
  if (len) *len = 0;
  return guard(rt, what, THICKET_ERR_INTERNAL, [&] {
    if (!rt) return no_runtime(what);
    if (!bytes || !len) return fail(rt, THICKET_ERR_ARG, what, "bytes or len is NULL");
    // From a leaf, the agents would be saved half ticked (some this tick's, some the last's).
    if (in_tick(rt)) return refuse_ticking(rt, what);
    thicket::SnapshotWriter out;
    std::vector<thicket::Diagnostic> diagnostics;
    // Refused (a value past the Lua heap's cap): said as an error, never an empty buffer as OK.
    if (!rt->rt.save(out, diagnostics)) return refuse_save(rt, what, diagnostics);
    return give_bytes(rt, what, out.bytes(), bytes, len);
  });
}

int thicket_save_agent(thicket_runtime* rt, int64_t agent, void** bytes, size_t* len) {
  const char* what = "thicket_save_agent";
  if (bytes) *bytes = nullptr;
  if (len) *len = 0;
  return guard(rt, what, THICKET_ERR_INTERNAL, [&] {
    AgentHandle h;
    if (int c = check_agent(rt, what, agent, h)) return c;
    if (!bytes || !len) return fail(rt, THICKET_ERR_ARG, what, "bytes or len is NULL");
    if (in_tick(rt)) return refuse_ticking(rt, what);
    thicket::SnapshotWriter out;
    std::vector<thicket::Diagnostic> diagnostics;
    if (!rt->rt.save(h, out, diagnostics)) return refuse_save(rt, what, diagnostics);
    return give_bytes(rt, what, out.bytes(), bytes, len);
  });
}

void thicket_free_bytes(void* bytes) { std::free(bytes); }

int thicket_restore(thicket_runtime* rt, const void* bytes, size_t len) {
  const char* what = "thicket_restore";
  return guard(rt, what, THICKET_ERR_INTERNAL, [&] {
    if (!rt) return no_runtime(what);
    ChangeScope change(rt);
    if (int c = begin_change(rt, change, what)) return c;
    if (!bytes && len > 0) return fail(rt, THICKET_ERR_ARG, what, "bytes is NULL");
    const std::string_view given(static_cast<const char*>(bytes), bytes ? len : 0);
    // One snapshot's bytes: more than it holds (a wrong len, two joined) are refused.
    if (std::string extra = thicket::snapshot_extra_bytes(given); !extra.empty())
      return fail(rt, THICKET_ERR_SNAPSHOT, what, extra + "; nothing was restored");
    thicket::SnapshotReader in(given);
    std::vector<thicket::Diagnostic> diagnostics;
    bool restored;
    {
      TickScope hooks(rt);  // stop hooks of restarted nodes run: leaves to the calls they make
      restored = rt->rt.restore(in, diagnostics);
    }
    if (!restored) {
      std::string why = in_c_names(joined(diagnostics));
      return fail(rt, THICKET_ERR_SNAPSHOT, what, why.empty() ? "the snapshot was refused" : why);
    }
    // What a restore that worked says (a brain changed since the save: its agents remapped) goes
    // to the log, as a load's warnings do.
    for (const auto& d : diagnostics) log_line(rt, in_c_names(thicket::format_diagnostic(d)));
    return THICKET_OK;
  });
}

int64_t thicket_restore_agent(thicket_runtime* rt, const void* bytes, size_t len) {
  const char* what = "thicket_restore_agent";
  return guard<int64_t>(rt, what, -1, [&]() -> int64_t {
    if (!rt) return no_runtime(what), -1;
    ChangeScope change(rt);
    if (begin_change(rt, change, what) != THICKET_OK) return -1;
    if (!bytes && len > 0) return fail(rt, THICKET_ERR_ARG, what, "bytes is NULL"), -1;
    const std::string_view given(static_cast<const char*>(bytes), bytes ? len : 0);
    // One snapshot's bytes: more than it holds (a wrong len, two joined) are refused.
    if (std::string extra = thicket::snapshot_extra_bytes(given); !extra.empty())
      return fail(rt, THICKET_ERR_SNAPSHOT, what, extra + "; nothing was restored"), -1;
    thicket::SnapshotReader in(given);
    std::vector<thicket::Diagnostic> diagnostics;
    std::optional<AgentHandle> h;
    {
      TickScope hooks(rt);
      h = rt->rt.restore_agent(in, diagnostics);
    }
    if (!h) {
      std::string why = in_c_names(joined(diagnostics));
      return fail(rt, THICKET_ERR_SNAPSHOT, what, why.empty() ? "the snapshot was refused" : why), -1;
    }
    for (const auto& d : diagnostics) log_line(rt, in_c_names(thicket::format_diagnostic(d)));
    return pack(*h);
  });
}

}  // extern "C"
