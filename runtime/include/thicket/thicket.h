/* thicket's C API (SPEC 8.3): a C99 face over thicket::Runtime, the stable base for other
** languages (C#, Python, Rust, GDScript via GDExtension). In the manner of sqlite3.h: opaque
** handles, plain C types, and every call that can fail returns a status code and leaves a
** message that thicket_last_error(rt) reads. No C++ exception ever crosses this header.
**
** Units: time in seconds of sim time. Strings are UTF-8 (any bytes, NUL-terminated on input).
**
** Return codes. 0 (THICKET_OK) is success; a negative value is an error, one of THICKET_ERR_*
** below; thicket_errcode(rt) gives the code of the last failure, thicket_last_error(rt) its
** message. Calls that return a count, an id or a handle return it (>= 0) on success. The calls
** documented to return -1 on any error (thicket_load_*, thicket_spawn*, ...) record the real
** code for thicket_errcode.
**
** Handles. A brain is an int32_t id, 0 .. thicket_brain_count()-1, in load order. An agent is an
** int64_t handle >= 0 that packs its slot and the slot's generation, so a handle whose agent
** was despawned (or replaced by a restore) is caught: calls on it return THICKET_ERR_STALE,
** never touch another agent, never crash. Handles are not agent ids: an id (1, 2, ...) is what
** traces and scripts show; thicket_agent_id and thicket_find_agent convert.
**
** Threads. A runtime is used by one thread at a time, with two exceptions during
** thicket_tick_all_parallel: (1) C leaves run concurrently on the executor's threads, for
** different agents; the thicket_leaf_* calls are safe there (they touch only the leaf's own
** agent and return codes only, leaving no message); (2) a leaf may call thicket_spawn*,
** thicket_despawn and thicket_send (on any agent): they take effect at the end of the tick, in
** a deterministic order. Nothing else may be called while a tick is in progress, except, from
** trace and log callbacks (called on the thread that called the tick), calls that only read.
** Loading, restoring, reloading and registering leaves, which would change what the tick
** walks, are refused during a tick (from a leaf, a callback or another thread) with
** THICKET_ERR_IN_TICK and the message "...: cannot be called during a tick ...", and change
** nothing. While one of them is in progress, a tick, or another of them (from one of its
** callbacks or another thread), is refused with THICKET_ERR_BUSY and changes nothing.
**
** Using a runtime after thicket_runtime_free is undefined behaviour (as for any freed
** pointer); so is using a thicket_leaf_ctx outside the call it was given to.
*/
#ifndef THICKET_THICKET_H
#define THICKET_THICKET_H

#include <stddef.h>
#include <stdint.h>

#include "version.hpp" /* THICKET_VERSION_MAJOR, _MINOR, _PATCH, THICKET_VERSION_STRING */

#ifdef __cplusplus
extern "C" {
#endif

/* ---- Return codes ---- */
#define THICKET_OK 0
#define THICKET_ERR_ARG (-1)      /* a NULL or bad argument: NULL runtime/key/path, unknown brain, dt <= 0, ... */
#define THICKET_ERR_STALE (-2)    /* the agent handle is stale: despawned, replaced by a restore, or never valid */
#define THICKET_ERR_LOAD (-3)     /* a brain did not load: every diagnostic is in thicket_last_error */
#define THICKET_ERR_KEY (-4)      /* the blackboard key is not declared by the agent's brain */
#define THICKET_ERR_TYPE (-5)     /* the key is declared with another type */
#define THICKET_ERR_NOMEM (-6)    /* out of memory */
#define THICKET_ERR_RANGE (-7)    /* a caller's buffer is too small (the size needed is returned beside) */
#define THICKET_ERR_SNAPSHOT (-8) /* a snapshot could not be saved or restored (the message says why) */
#define THICKET_ERR_DEFERRED (-9) /* spawn from a leaf during a tick: the agent comes at the end of the tick */
#define THICKET_ERR_INTERNAL (-10) /* an unexpected failure inside the runtime (the message says what) */
#define THICKET_ERR_IN_TICK (-11) /* refused during a tick: ticking, loading, restoring, reloading, registering a leaf */
#define THICKET_ERR_BUSY (-12)    /* refused while a load, restore, reload or registration is in progress */

/* ---- Statuses (thicket_status, thicket_tick, leaf results and stop hooks) ---- */
#define THICKET_INVALID 0  /* not ticked yet */
#define THICKET_SUCCESS 1
#define THICKET_FAILURE 2
#define THICKET_RUNNING 3
#define THICKET_ABORTED 4

/* ---- Version ---- */
/* The library's version, THICKET_VERSION_STRING of thicket/version.hpp, e.g. "0.3.0". */
const char *thicket_version(void);

/* ---- The runtime ---- */
typedef struct thicket_runtime thicket_runtime;

/* Options at creation. Fill with thicket_options_init (the defaults, and struct_size: fields
** appended by later versions are then left at their defaults for a program built against this
** header), change what you need, pass to thicket_runtime_new_with. */
typedef struct thicket_options {
  uint32_t struct_size;         /* sizeof(thicket_options), set by thicket_options_init */
  uint64_t seed;                /* run seed: agents' random streams derive from it (default 1) */
  int trusted;                  /* nonzero: scripts get io, os, debug and C modules (default 0) */
  uint32_t script_states;       /* Lua states the agents are spread over, 1 to 64 (default 1):
                                ** more lets thicket_tick_all_parallel run Lua leaves on more threads */
  uint64_t instruction_budget;  /* Lua instructions per task resume, 0 = no limit (default 10,000,000) */
  int budget_all_leaves;        /* nonzero: the budget guards plain Lua leaves too (default 0) */
  double leaf_timeout;          /* seconds one Lua call may run, 0 = no limit (default 0.05; a task's
                                ** resume at least 100 ns per instruction of its budget); a
                                ** watchdog thread stops it with SIGURG, which thicket unblocks in a
                                ** thread at its first Lua call (guide 8.11 and 16) */
  size_t lua_memory_limit;      /* bytes of Lua heap, 0 = no cap (default 512 MiB) */
  size_t max_script_agents;     /* agents Lua leaves' thicket.spawn may bring the runtime to, live
                                ** and queued; 0 = no cap (default 100,000). thicket_spawn is not held to it */
  size_t max_script_state_bytes; /* the agents' node state, in bytes, that thicket.spawn may bring the
                                ** runtime to (each agent one block of its brain's size); 0 = no cap
                                ** (default 4 GiB). thicket_spawn is not held to it */
} thicket_options;

void thicket_options_init(thicket_options *options);

/* A runtime with the default options, or with these (NULL: the defaults). NULL on failure:
** thicket_last_error(NULL) says why. */
thicket_runtime *thicket_runtime_new(void);
thicket_runtime *thicket_runtime_new_with(const thicket_options *options);
/* Frees the runtime, its agents and its C leaves' bookkeeping (never the leaves' `user` data).
** Its agents go as they are: no stop hooks, no task cleanups (despawn them first when those
** release resources of yours). NULL is a no-op. During a tick or a load (from a leaf or a
** callback, or another thread while one runs) it is refused: nothing is freed, and
** thicket_last_error(NULL) says why. */
void thicket_runtime_free(thicket_runtime *rt);

/* The message of the last failed call on this runtime ("" if none has failed yet; a call that
** succeeds leaves it as it was). NULL rt: the message of the last failure of a call given a NULL
** runtime, or of thicket_runtime_new*, on this thread. The pointer stays valid until the next
** thicket_last_error call on the same thread. Never NULL. */
const char *thicket_last_error(thicket_runtime *rt);
/* The code (THICKET_ERR_*) of that failure; THICKET_OK if none. */
int thicket_errcode(thicket_runtime *rt);

/* ---- Brains ---- */
/* Loads a brain file with its imports and leaf files. Returns its brain id (>= 0), or -1 with
** every diagnostic ("FILE:LINE:COL: error: MESSAGE", one a line) in thicket_last_error; the
** runtime is then as it was. Register C leaves before loading brains that use them. An empty
** or NULL path is THICKET_ERR_ARG. */
int32_t thicket_load_file(thicket_runtime *rt, const char *path);
/* The same from YAML text; `name` stands for the file in messages, and relative leaf files
** resolve against its folder (NULL: "<string>", leaf files from the working folder; an empty
** name is THICKET_ERR_ARG: its messages would start ":2:16: error"). NULL yaml is
** THICKET_ERR_ARG; a text over 16 MB is THICKET_ERR_LOAD, as a file of that size is. */
int32_t thicket_load_string(thicket_runtime *rt, const char *yaml, const char *name);
/* How many brains are loaded (ids 0 .. count-1), or negative. */
int32_t thicket_brain_count(thicket_runtime *rt);
/* A brain's name (the one after its kind key: `tree: guard` -> "guard") and the path it was
** loaded from (the name given to thicket_load_string). NULL for a bad id. Valid until the
** runtime is freed or the brain is reloaded with another name. As every text this library
** returns (thicket_last_error, log and print lines too), UTF-8: a NUL reads \0 and a byte that is
** not UTF-8 (a path named in Latin-1) U+FFFD. Blackboard values are data, not such texts:
** thicket_get_string gives a string key's bytes as they were written (a Lua string may hold
** NULs and any byte), with its length in *len. */
const char *thicket_brain_name(thicket_runtime *rt, int32_t brain);
const char *thicket_brain_path(thicket_runtime *rt, int32_t brain);

/* Checks loaded files for changes and reloads them (SPEC 10): how many reloaded (>= 0), or
** negative: THICKET_ERR_IN_TICK during a tick (nothing is reloaded then; call it between
** ticks). A file that fails to reload keeps its old version; the log says why, and so does
** thicket_reload_failures. */
int thicket_reload_changed(thicket_runtime *rt);
/* How many loaded files are broken now: a reload of theirs by thicket_reload_changed failed,
** and none has succeeded since (0: none, or no reload was tried yet), or negative on error. A
** file stays counted while it stays broken, through calls that find nothing changed, and leaves
** the count once it reloads well. *text (when text is not NULL) gets their diagnostics, each
** file's from its latest failed reload, in file order, one a line ("FILE:LINE:COL: error:
** MESSAGE", warnings too), as thicket_load_file's: what a game shows its modder until the
** mistake is mended. Valid until the next thicket_reload_changed or the runtime is freed. */
int thicket_reload_failures(thicket_runtime *rt, const char **text);

/* ---- Agents ---- */
/* Spawns an agent of a loaded brain with its blackboard defaults. Returns its handle (>= 0), or
** -1 on error. Agent ids count 1, 2, ... per runtime, up to 4294967294 (they go on after the
** largest id given, a chosen one too; past 4294967294, ids no live agent has). Called by a leaf during
** a tick, the spawn waits for the end of the tick and this returns -1 with
** THICKET_ERR_DEFERRED (only then): use thicket_spawn_with_id and find it afterwards with
** thicket_find_agent. A log, print or trace callback runs inside the tick, whichever form of
** it (one thread: as the line is made; parallel: the lines handed out after the tick's
** leaves, in agent order): a spawn there is deferred likewise, the same in both forms.
** Refused (-1, THICKET_ERR_ARG, the reason in thicket_last_error): an
** unknown brain, or every id in use. */
int64_t thicket_spawn(thicket_runtime *rt, int32_t brain);
/* The same with a chosen agent id (1 .. 4294967294, unused; else THICKET_ERR_ARG). A deferred
** one (from a leaf) is checked when it is made at the end of the tick, with the tick's other
** deferred calls in agent order: when two leaves spawn one id in a tick, the first in agent
** order is made and the other is dropped with a log line "spawn: agent id N is in use"
** (checked at the call, which one was refused would depend on the threads of a parallel tick). */
int64_t thicket_spawn_with_id(thicket_runtime *rt, int32_t brain, uint32_t id);
/* Despawns: its running nodes are aborted (stop hooks get THICKET_ABORTED). Its handle is stale
** from then on, so a second despawn returns THICKET_ERR_STALE. From a leaf during a tick: at the
** end of the tick (until then its handle is valid, and another despawn of it returns THICKET_OK:
** it is despawned once). Its stop hooks are leaves to the calls they make: a spawn there is deferred
** to the end of this despawn (THICKET_ERR_DEFERRED), a tick, load, restore, reload or
** registration refused (THICKET_ERR_IN_TICK). The stop hooks a reload or restore runs (and its
** log lines) are leaves to their calls likewise, but a call refused there gets THICKET_ERR_BUSY:
** that change is in progress. */
int thicket_despawn(thicket_runtime *rt, int64_t agent);
/* How many agents are live, or negative. */
int64_t thicket_agent_count(thicket_runtime *rt);
/* Writes the handles of the live agents, in tick order, into out[0 .. min(count, capacity)-1]
** and returns their count (which may exceed capacity: call again with a bigger array), or
** negative. out may be NULL when capacity is 0. After a thicket_restore, list the agents again. */
int64_t thicket_agents(thicket_runtime *rt, int64_t *out, size_t capacity);
/* The agent's id (>= 1), or negative. */
int64_t thicket_agent_id(thicket_runtime *rt, int64_t agent);
/* The handle of the live agent with this id, or -1 (THICKET_ERR_ARG: no such agent). Costs a
** scan of the agents. */
int64_t thicket_find_agent(thicket_runtime *rt, uint32_t id);

/* ---- Ticking ---- */
/* Ticks every live agent by dt seconds (more than 0, at most 1,000,000; else THICKET_ERR_ARG), in slot order (thicket_agents' order): an agent
** takes the slot of the agent despawned most recently whose slot is still free, else a new slot
** after all the others; a restore keeps the saved order. Without despawns that is spawn order.
** 0 or negative. */
int thicket_tick_all(thicket_runtime *rt, double dt);
/* Ticks one agent by dt seconds (whatever its time slicing); returns its root status
** (THICKET_SUCCESS, THICKET_FAILURE or THICKET_RUNNING), or negative. */
int thicket_tick(thicket_runtime *rt, int64_t agent, double dt);

/* The game's job system (SPEC 8.2): must call job(job_ctx, i) exactly once for every i < n, in
** any order, on any threads, and return when all have returned. */
typedef void (*thicket_executor_fn)(size_t n, void (*job)(void *job_ctx, size_t i), void *job_ctx, void *user);
/* thicket_tick_all on the game's threads: the agents are split into n independent jobs that
** `executor` runs. The result is that of thicket_tick_all, byte for byte (blackboards, traces,
** log lines, random streams), whatever order the jobs run in; traces and log lines are
** delivered after the jobs, in agent order, on this thread (so a trace callback that reads
** another agent sees it after the whole call, where thicket_tick_all's sees it as the walk left
** it: read the agent the record is about). A job the executor never runs is
** run here after it returns. C leaves run concurrently (see Threads above); Lua leaves on as
** many threads as thicket_options.script_states allows. executor NULL: thicket_tick_all. */
int thicket_tick_all_parallel(thicket_runtime *rt, double dt, thicket_executor_fn executor, void *user);

/* Time slicing (SPEC 8.2): the agent is ticked only by every k-th tick_all (k >= 1), and then
** gets the sim time since its last tick as its dt. Default: its brain's `tick_every`, or 1.
** k from 1 to 2147483647 (else THICKET_ERR_ARG). */
int thicket_set_tick_every(thicket_runtime *rt, int64_t agent, uint32_t k);
/* The agent's k (>= 1), or negative. */
int thicket_tick_every(thicket_runtime *rt, int64_t agent);

/* ---- Reading an agent ---- */
/* The root status of the agent's last tick: THICKET_INVALID (0, not ticked yet), _SUCCESS,
** _FAILURE, _RUNNING, _ABORTED; or negative (THICKET_ERR_STALE for a stale handle). */
int thicket_status(thicket_runtime *rt, int64_t agent);
/* Calls fn(node_id, user) for each running node of the agent, depth-first (the ids traces use;
** each string valid during its call), and returns how many (>= 0), or negative. fn may be NULL
** (just the count). */
typedef void (*thicket_node_fn)(const char *node_id, void *user);
int thicket_running_nodes(thicket_runtime *rt, int64_t agent, thicket_node_fn fn, void *user);
/* How many script errors (Lua errors in leaves) the runtime has reported so far, or negative. */
int64_t thicket_script_errors(thicket_runtime *rt);

/* ---- Blackboard (SPEC 6) ----
** Keys are declared and typed by the brain: number (double), integer (int64_t), boolean (int:
** 0 or 1) and string. Undeclared key: THICKET_ERR_KEY; another type: THICKET_ERR_TYPE (a number
** key also takes an integer through thicket_set_integer, as in C++). An `any` key (a Lua value)
** takes and gives numbers, integers, booleans and strings; other Lua values in it (a table, a
** function) read as nil. A number key takes no NaN (THICKET_ERR_ARG; nan compares false with
** everything), as a Lua write of it is refused; infinities are fine. */
int thicket_set_number(thicket_runtime *rt, int64_t agent, const char *key, double v);
int thicket_get_number(thicket_runtime *rt, int64_t agent, const char *key, double *out);
int thicket_set_integer(thicket_runtime *rt, int64_t agent, const char *key, int64_t v);
int thicket_get_integer(thicket_runtime *rt, int64_t agent, const char *key, int64_t *out);
int thicket_set_bool(thicket_runtime *rt, int64_t agent, const char *key, int v);  /* nonzero = true */
int thicket_get_bool(thicket_runtime *rt, int64_t agent, const char *key, int *out); /* 0 or 1 */
int thicket_set_string(thicket_runtime *rt, int64_t agent, const char *key, const char *v);
/* Copies the string into buf (at most size-1 bytes, then a NUL; nothing when size is 0) and
** stores its full length (without the NUL) in *len when len is not NULL. Returns THICKET_OK
** when it fitted, THICKET_ERR_RANGE when it was cut short (then *len says how much room to
** give: len+1 bytes), or another error. buf may be NULL when size is 0 (to ask the length). */
int thicket_get_string(thicket_runtime *rt, int64_t agent, const char *key, char *buf, size_t size, size_t *len);

/* ---- Events (SPEC 4.1) ---- */
/* Queues a named event for the agent, taken at its next tick (at most 64 a tick); a brain with no
** state machine that takes it drops it, with a trace event (THICKET_TRACE_EVENT, taken_by "").
** From a leaf during a tick: at the end of the tick (to its own agent: at once). An agent's
** queue holds 4096 events: a send to a full queue drops the event and returns
** THICKET_ERR_RANGE (a send a leaf made to another agent returns THICKET_OK, and the drop is
** traced and logged at the end of the tick). */
int thicket_send(thicket_runtime *rt, int64_t agent, const char *event);

/* ---- C leaves ---- */
/* What a C leaf sees of the agent it runs for; valid only during the call it is given to. */
typedef struct thicket_leaf_ctx thicket_leaf_ctx;
/* A leaf's tick: an action returns THICKET_SUCCESS (1), THICKET_FAILURE (2) or THICKET_RUNNING
** (3); a condition success or failure. Any other value (THICKET_RUNNING from a condition too)
** counts as failure, and is logged as an error (the value, the leaf, the node, the agent and the
** tick) and counted by thicket_script_errors. */
typedef int (*thicket_leaf_fn)(thicket_leaf_ctx *ctx, void *user);
/* Optional hooks (SPEC 7): start before the first tick of a run, stop when a run ends, with how
** it ended (THICKET_SUCCESS, THICKET_FAILURE or THICKET_ABORTED). */
typedef void (*thicket_leaf_start_fn)(thicket_leaf_ctx *ctx, void *user);
typedef void (*thicket_leaf_stop_fn)(thicket_leaf_ctx *ctx, int status, void *user);

/* Registers (or replaces) a native leaf, in the same name space as Lua leaves. Register before
** loading the brains that use it; never during a tick (THICKET_ERR_IN_TICK). `user` is passed
** back unchanged; it is the caller's and must outlive the runtime (or the leaf's replacement).
** A node running when its leaf is replaced goes on with the new functions (the new stop ends
** its run: a start/stop pair that holds something is best replaced while no agent runs it). */
int thicket_register_leaf(thicket_runtime *rt, const char *name, thicket_leaf_fn tick, void *user);
/* With hooks (either may be NULL; a hook costs a little per tick, so leave unused ones NULL) and
** flags: THICKET_LEAF_AGENT_LOCAL promises that the leaf touches only its own agent (its ctx)
** and data no leaf changes during the tick, spawns, despawns and sends nothing: thicket_tick_all
** may then tick many agents of a brain of such leaves together (guide 10, `agent_local`). */
#define THICKET_LEAF_AGENT_LOCAL 1u
int thicket_register_leaf_hooks(thicket_runtime *rt, const char *name, thicket_leaf_fn tick,
                                thicket_leaf_start_fn start, thicket_leaf_stop_fn stop, void *user,
                                unsigned flags);

/* The leaf's agent and clock. Safe on any thread, during the call only. */
int64_t thicket_leaf_agent(const thicket_leaf_ctx *ctx);    /* the handle thicket_spawn returned (-1 for NULL ctx) */
int64_t thicket_leaf_agent_id(const thicket_leaf_ctx *ctx); /* its id (>= 1) */
double thicket_leaf_time(const thicket_leaf_ctx *ctx);      /* sim time of this tick, seconds */
double thicket_leaf_dt(const thicket_leaf_ctx *ctx);        /* dt of this tick, seconds */
uint64_t thicket_leaf_tick(const thicket_leaf_ctx *ctx);    /* the agent's tick count, 1 on its first */
const char *thicket_leaf_node_id(const thicket_leaf_ctx *ctx); /* the node's id, as traces show it */
double thicket_leaf_random(thicket_leaf_ctx *ctx);          /* [0, 1) from the agent's own stream */
/* The agent's blackboard, as the thicket_get_* / thicket_set_* calls above (same codes; no
** message is recorded: these may run on several threads at once). */
int thicket_leaf_get_number(thicket_leaf_ctx *ctx, const char *key, double *out);
int thicket_leaf_set_number(thicket_leaf_ctx *ctx, const char *key, double v);
int thicket_leaf_get_integer(thicket_leaf_ctx *ctx, const char *key, int64_t *out);
int thicket_leaf_set_integer(thicket_leaf_ctx *ctx, const char *key, int64_t v);
int thicket_leaf_get_bool(thicket_leaf_ctx *ctx, const char *key, int *out);
int thicket_leaf_set_bool(thicket_leaf_ctx *ctx, const char *key, int v);
int thicket_leaf_get_string(thicket_leaf_ctx *ctx, const char *key, char *buf, size_t size, size_t *len);
int thicket_leaf_set_string(thicket_leaf_ctx *ctx, const char *key, const char *v);

/* ---- Trace and log ---- */
#define THICKET_TRACE_TICK 0       /* one per agent tick: status, running */
#define THICKET_TRACE_ABORT 1      /* a conditional abort: composite, condition, aborted, labels, from/to */
#define THICKET_TRACE_TRANSITION 2 /* an fsm changed state: brain, from_name, to_name, transition, cause */
#define THICKET_TRACE_SWITCH 3     /* a behavior machine changed behavior: brain, from_name, to_name, cause */
#define THICKET_TRACE_EVENT 4      /* an event taken off the queue: event, taken_by ("" = dropped) */

/* One trace record (SPEC 9 --trace). Owned by the runtime and valid during the callback only;
** fields that do not apply to its type are "" (never NULL) or 0. Its texts are UTF-8: a NUL in
** a name reads \0 (as in thicket_brain_name), a byte that is not UTF-8 U+FFFD. Later versions may append
** fields: never allocate one yourself. */
typedef struct thicket_trace_event {
  int type;                   /* THICKET_TRACE_* */
  uint64_t tick;              /* the agent's tick count */
  uint32_t agent;             /* the agent's id (thicket_find_agent gives its handle) */
  int status;                 /* TICK: the root's status */
  const char *const *running; /* TICK: ids of the running nodes, depth-first ... */
  size_t running_count;       /* ... and how many */
  const char *composite, *condition, *aborted;  /* ABORT: node ids: where, which condition, what it interrupted */
  const char *condition_label, *aborted_label;  /* ABORT: what those are, e.g. "condition SeesEnemy" */
  int from_status, to_status;                   /* ABORT: the condition's old and new result */
  const char *brain;                            /* TRANSITION, SWITCH: the fsm's or machine's name */
  const char *from_name, *to_name;              /* TRANSITION, SWITCH: states or behaviors ("" = none before) */
  const char *transition;                       /* TRANSITION: the name its reason returned */
  const char *cause, *cause_label;              /* TRANSITION, SWITCH: the leaf or check that caused it */
  const char *event, *taken_by;                 /* EVENT: its name, the state that took it ("" = dropped);
                                                   TRANSITION: event is the event that caused it ("" = none) */
  int ended;                                    /* TRANSITION: 1 = the brain ended: its top-level final state
                                                   from_name was left (to_name "") */
} thicket_trace_event;

typedef void (*thicket_trace_fn)(const thicket_trace_event *event, void *user);
/* Sends trace records to fn (NULL: none are made, the default). ticks 0: only the ABORT,
** TRANSITION, SWITCH and EVENT records (no per-tick record is built). Called on the thread that
** ticks, in agent order; events of a tick come before its TICK record. */
int thicket_set_trace(thicket_runtime *rt, thicket_trace_fn fn, void *user, int ticks);

typedef void (*thicket_log_fn)(const char *line, void *user);
/* Sends the run's log (log decorators, thicket.log, script errors, reloads) to fn, one message a
** call, without a final newline (NULL: standard error, the default). A message is one line but
** for the reports that hold several, whose lines are joined by '\n': a failed reload's
** diagnostics, a script error's traceback, a once-only report's "reported once" line. */
int thicket_set_log(thicket_runtime *rt, thicket_log_fn fn, void *user);
/* Sends Lua's print lines to fn, one line a call without its newline (NULL: standard output,
** the default), on the thread that called the tick, in agent order (as the log). */
int thicket_set_print(thicket_runtime *rt, thicket_log_fn fn, void *user);

/* ---- Snapshots (guide 10.1) ---- */
/* Saves every live agent into a new byte buffer: *bytes (free it with thicket_free_bytes) and
** *len. On error *bytes is NULL and *len 0: THICKET_ERR_IN_TICK from a leaf during a tick (the
** agents would be saved half ticked; save between ticks); THICKET_ERR_SNAPSHOT when the save is
** refused (the scripts' values would take more than the Lua heap's cap, a running task that
** cannot be saved exactly), the reason in thicket_last_error. The same for thicket_save_agent. */
int thicket_save(thicket_runtime *rt, void **bytes, size_t *len);
/* One agent's snapshot, for thicket_restore_agent. */
int thicket_save_agent(thicket_runtime *rt, int64_t agent, void **bytes, size_t *len);
void thicket_free_bytes(void *bytes);
/* Replaces every agent with the snapshot's (same ids, same tick order), each with the brain of
** this runtime loaded from the same file (load the brains first). Every handle from before is
** stale afterwards: list the agents again (thicket_agents, thicket_find_agent). On error
** (THICKET_ERR_SNAPSHOT, with the reasons) the runtime is exactly as it was. */
int thicket_restore(thicket_runtime *rt, const void *bytes, size_t len);
/* Adds the one agent of a thicket_save_agent snapshot (its id must be free): its handle, or -1. */
int64_t thicket_restore_agent(thicket_runtime *rt, const void *bytes, size_t len);

#ifdef __cplusplus
}  /* extern "C" */
#endif

#endif /* THICKET_THICKET_H */
