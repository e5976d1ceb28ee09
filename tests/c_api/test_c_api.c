/* The C API (thicket/thicket.h), tested from C99: every function, its codes on bad input, C
** leaves beside a Lua leaf, traces and the log, snapshots, the parallel tick on pthreads and time
** slicing. Usage: test_c_api FIXTURES_DIR (tests/c_api). Exits non-zero on the first failure. */
#define _POSIX_C_SOURCE 200809L
#include "thicket/thicket.h"

#include <limits.h>
#include <math.h>
#include <pthread.h>
#include <sched.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static int checks = 0;
#define CHECK(cond)                                                            \
  do {                                                                         \
    ++checks;                                                                  \
    if (!(cond)) {                                                             \
      fprintf(stderr, "%s:%d: CHECK failed: %s\n", __FILE__, __LINE__, #cond); \
      exit(1);                                                                 \
    }                                                                          \
  } while (0)
/* A call that must succeed; prints the runtime's message when it does not. */
#define OK(rt, call)                                                                               \
  do {                                                                                             \
    int ok_code_ = (int)(call);                                                                    \
    ++checks;                                                                                      \
    if (ok_code_ < 0) {                                                                            \
      fprintf(stderr, "%s:%d: %s returned %d: %s\n", __FILE__, __LINE__, #call, ok_code_,          \
              thicket_last_error(rt));                                                             \
      exit(1);                                                                                     \
    }                                                                                              \
  } while (0)

static char fixtures[1024];
static const char *fixture(const char *name) {
  static char path[2][1200];
  static int which = 0;
  which ^= 1;
  snprintf(path[which], sizeof path[which], "%s/%s", fixtures, name);
  return path[which];
}

/* ---- A growable text buffer (traces and logs to compare) ---- */
typedef struct {
  char *s;
  size_t len, cap;
} text;
static void text_add(text *t, const char *fmt, ...) {
  va_list ap;
  int n;
  va_start(ap, fmt);
  n = vsnprintf(NULL, 0, fmt, ap);
  va_end(ap);
  CHECK(n >= 0);
  if (t->len + (size_t)n + 1 > t->cap) {
    t->cap = (t->len + (size_t)n + 1) * 2;
    t->s = realloc(t->s, t->cap);
    CHECK(t->s != NULL);
  }
  va_start(ap, fmt);
  vsnprintf(t->s + t->len, (size_t)n + 1, fmt, ap);
  va_end(ap);
  t->len += (size_t)n;
}
static void text_clear(text *t) {
  t->len = 0;
  if (t->s) t->s[0] = '\0';
}
static const char *text_str(const text *t) { return t->s ? t->s : ""; }

/* ---- C leaves ---- */
static long ccount_calls = 0; /* single-threaded tests only */
static long chold_starts = 0, chold_stops = 0, chold_last_stop = -1;
static int64_t ccount_last_agent = -1;
static double ccount_last_time = -1;

/* Counts its calls (when user points at a counter) and in the blackboard (`calls`), and checks
** its context: time, handle and a blackboard key that does not exist. */
static int ccount(thicket_leaf_ctx *ctx, void *user) {
  double calls = 0, out = 0;
  if (user) ++*(long *)user;
  ccount_last_agent = thicket_leaf_agent(ctx);
  ccount_last_time = thicket_leaf_time(ctx);
  if (thicket_leaf_get_number(ctx, "calls", &calls) != THICKET_OK) return THICKET_FAILURE;
  if (thicket_leaf_set_number(ctx, "calls", calls + 1) != THICKET_OK) return THICKET_FAILURE;
  if (thicket_leaf_get_number(ctx, "nope", &out) != THICKET_ERR_KEY) return THICKET_FAILURE;
  if (thicket_leaf_get_number(ctx, "ammo", &out) != THICKET_ERR_TYPE) return THICKET_FAILURE;
  if (thicket_leaf_set_number(ctx, "mood", 1.0) != THICKET_ERR_TYPE) return THICKET_FAILURE;
  if (thicket_leaf_set_number(ctx, "calls", NAN) != THICKET_ERR_ARG) return THICKET_FAILURE; /* no nan */
  if (thicket_leaf_get_number(ctx, NULL, &out) != THICKET_ERR_ARG) return THICKET_FAILURE;
  return THICKET_SUCCESS;
}

/* Runs forever, with hooks. */
static int chold(thicket_leaf_ctx *ctx, void *user) {
  (void)ctx;
  (void)user;
  return THICKET_RUNNING;
}
static void chold_start(thicket_leaf_ctx *ctx, void *user) {
  (void)ctx;
  (void)user;
  ++chold_starts;
}
static void chold_stop(thicket_leaf_ctx *ctx, int status, void *user) {
  (void)ctx;
  (void)user;
  ++chold_stops;
  chold_last_stop = status;
}

/* Every ctx call of every type, from a leaf (leaf_types brain). */
static int ctypes_ok = 0;
static int ctypes(thicket_leaf_ctx *ctx, void *user) {
  int64_t i = 0;
  int b = -1;
  char buf[16];
  size_t len = 0;
  double r;
  (void)user;
  if (thicket_leaf_get_integer(ctx, "ammo", &i) != THICKET_OK || i != 6) return THICKET_FAILURE;
  if (thicket_leaf_set_integer(ctx, "ammo", i - 1) != THICKET_OK) return THICKET_FAILURE;
  if (thicket_leaf_set_integer(ctx, "alert", 1) != THICKET_ERR_TYPE) return THICKET_FAILURE;
  if (thicket_leaf_get_bool(ctx, "alert", &b) != THICKET_OK || b != 0) return THICKET_FAILURE;
  if (thicket_leaf_set_bool(ctx, "alert", 7) != THICKET_OK) return THICKET_FAILURE;
  if (thicket_leaf_get_bool(ctx, "alert", &b) != THICKET_OK || b != 1) return THICKET_FAILURE;
  if (thicket_leaf_get_bool(ctx, "ammo", &b) != THICKET_ERR_TYPE) return THICKET_FAILURE;
  if (thicket_leaf_get_string(ctx, "mood", buf, sizeof buf, &len) != THICKET_OK || strcmp(buf, "calm") || len != 4)
    return THICKET_FAILURE;
  if (thicket_leaf_get_string(ctx, "mood", buf, 3, &len) != THICKET_ERR_RANGE || strcmp(buf, "ca") || len != 4)
    return THICKET_FAILURE;
  if (thicket_leaf_set_string(ctx, "mood", "wary") != THICKET_OK) return THICKET_FAILURE;
  if (thicket_leaf_set_string(ctx, "mood", NULL) != THICKET_ERR_ARG) return THICKET_FAILURE;
  if (thicket_leaf_set_string(ctx, "nope", "x") != THICKET_ERR_KEY) return THICKET_FAILURE;
  if (strcmp(thicket_leaf_node_id(ctx), "root/0") != 0) return THICKET_FAILURE;
  if (thicket_leaf_agent_id(ctx) < 1 || thicket_leaf_tick(ctx) < 1 || !(thicket_leaf_dt(ctx) > 0)) return THICKET_FAILURE;
  r = thicket_leaf_random(ctx);
  if (!(r >= 0 && r < 1)) return THICKET_FAILURE;
  ctypes_ok = 1;
  return 42; /* not a status: counts as failure */
}

/* ---- Trace and log sinks ---- */
typedef struct {
  text out;
  long ticks_by_agent[16];
  long events;
  char last_event[64], last_taken_by[64];
} trace_log;

static void trace_to_text(const thicket_trace_event *e, void *user) {
  trace_log *t = (trace_log *)user;
  size_t i;
  text_add(&t->out, "%d t%llu a%u", e->type, (unsigned long long)e->tick, e->agent);
  switch (e->type) {
    case THICKET_TRACE_TICK:
      text_add(&t->out, " s%d", e->status);
      for (i = 0; i < e->running_count; ++i) text_add(&t->out, " %s", e->running[i]);
      CHECK(e->running[e->running_count] == NULL);
      if (e->agent < 16) ++t->ticks_by_agent[e->agent];
      break;
    case THICKET_TRACE_EVENT:
      text_add(&t->out, " event %s taken_by '%s'", e->event, e->taken_by);
      ++t->events;
      snprintf(t->last_event, sizeof t->last_event, "%s", e->event);
      snprintf(t->last_taken_by, sizeof t->last_taken_by, "%s", e->taken_by);
      break;
    default:
      text_add(&t->out, " %s %s %s %s %s", e->composite, e->condition, e->aborted, e->from_name, e->to_name);
  }
  /* fields that do not apply are "" (never NULL) */
  CHECK(e->composite && e->condition && e->aborted && e->condition_label && e->aborted_label && e->brain &&
        e->from_name && e->to_name && e->transition && e->cause && e->cause_label && e->event && e->taken_by);
  text_add(&t->out, "\n");
}

static void log_to_text(const char *line, void *user) { text_add((text *)user, "%s\n", line); }

static void count_node(const char *id, void *user) { text_add((text *)user, "%s;", id); }

/* ---- Loading ---- */
static void register_guard_leaves(thicket_runtime *rt, long *counter) {
  OK(rt, thicket_register_leaf(rt, "CCount", ccount, counter));
  OK(rt, thicket_register_leaf_hooks(rt, "CHold", chold, chold_start, chold_stop, NULL, 0));
}

static void test_version_and_null(void) {
  int64_t handles[2];
  double d;
  void *bytes = (void *)1;
  size_t len = 7;
  CHECK(strcmp(thicket_version(), "0.3.0") == 0);
  CHECK(strcmp(thicket_version(), THICKET_VERSION_STRING) == 0 && THICKET_VERSION_MAJOR == 0); /* thicket.h has the macros */
  /* A NULL runtime: a negative code and a message, never a crash. */
  CHECK(thicket_load_file(NULL, "x.yaml") == -1);
  CHECK(thicket_errcode(NULL) == THICKET_ERR_ARG);
  CHECK(strstr(thicket_last_error(NULL), "thicket_load_file") != NULL);
  CHECK(strstr(thicket_last_error(NULL), "NULL") != NULL);
  CHECK(thicket_load_string(NULL, "tree: x", "x") == -1);
  CHECK(thicket_spawn(NULL, 0) == -1);
  CHECK(thicket_spawn_with_id(NULL, 0, 5) == -1);
  CHECK(thicket_despawn(NULL, 0) == THICKET_ERR_ARG);
  CHECK(thicket_tick_all(NULL, 0.1) == THICKET_ERR_ARG);
  CHECK(thicket_tick_all_parallel(NULL, 0.1, NULL, NULL) == THICKET_ERR_ARG);
  CHECK(thicket_tick(NULL, 0, 0.1) == THICKET_ERR_ARG);
  CHECK(thicket_status(NULL, 0) == THICKET_ERR_ARG);
  CHECK(thicket_set_number(NULL, 0, "k", 1) == THICKET_ERR_ARG);
  CHECK(thicket_get_number(NULL, 0, "k", &d) == THICKET_ERR_ARG);
  CHECK(thicket_send(NULL, 0, "e") == THICKET_ERR_ARG);
  CHECK(thicket_register_leaf(NULL, "L", ccount, NULL) == THICKET_ERR_ARG);
  CHECK(thicket_reload_changed(NULL) == THICKET_ERR_ARG);
  CHECK(thicket_brain_count(NULL) == THICKET_ERR_ARG);
  CHECK(thicket_brain_name(NULL, 0) == NULL);
  CHECK(thicket_brain_path(NULL, 0) == NULL);
  CHECK(thicket_agent_count(NULL) == THICKET_ERR_ARG);
  CHECK(thicket_agents(NULL, handles, 2) == THICKET_ERR_ARG);
  CHECK(thicket_agent_id(NULL, 0) == THICKET_ERR_ARG);
  CHECK(thicket_find_agent(NULL, 1) == -1);
  CHECK(thicket_set_tick_every(NULL, 0, 2) == THICKET_ERR_ARG);
  CHECK(thicket_tick_every(NULL, 0) == THICKET_ERR_ARG);
  CHECK(thicket_running_nodes(NULL, 0, NULL, NULL) == THICKET_ERR_ARG);
  CHECK(thicket_script_errors(NULL) == THICKET_ERR_ARG);
  CHECK(thicket_set_trace(NULL, NULL, NULL, 1) == THICKET_ERR_ARG);
  CHECK(thicket_set_log(NULL, NULL, NULL) == THICKET_ERR_ARG);
  CHECK(thicket_save(NULL, &bytes, &len) == THICKET_ERR_ARG);
  CHECK(bytes == NULL && len == 0);
  CHECK(thicket_save_agent(NULL, 0, &bytes, &len) == THICKET_ERR_ARG);
  CHECK(thicket_restore(NULL, "x", 1) == THICKET_ERR_ARG);
  CHECK(thicket_restore_agent(NULL, "x", 1) == -1);
  CHECK(thicket_leaf_agent(NULL) == -1);
  CHECK(thicket_leaf_get_number(NULL, "k", &d) == THICKET_ERR_ARG);
  CHECK(thicket_leaf_set_number(NULL, "k", 1) == THICKET_ERR_ARG);
  CHECK(strcmp(thicket_leaf_node_id(NULL), "") == 0);
  thicket_runtime_free(NULL); /* a no-op */
  thicket_free_bytes(NULL);
  thicket_options_init(NULL);
}

static void test_options(void) {
  thicket_options o;
  thicket_runtime *rt;
  thicket_options_init(&o);
  CHECK(o.struct_size == sizeof o && o.seed == 1 && o.trusted == 0 && o.script_states == 1);
  CHECK(o.instruction_budget == 10000000u && o.leaf_timeout > 0 && o.lua_memory_limit > 0);
  CHECK(o.max_script_agents == 100000u);
  CHECK(o.max_script_state_bytes == (size_t)4 << 30);
  o.script_states = 0;
  CHECK(thicket_runtime_new_with(&o) == NULL);
  CHECK(thicket_errcode(NULL) == THICKET_ERR_ARG);
  CHECK(strstr(thicket_last_error(NULL), "script_states") != NULL);
  o.script_states = 65; /* the most is 64 (it was brought to 64 without a word) */
  CHECK(thicket_runtime_new_with(&o) == NULL);
  CHECK(strstr(thicket_last_error(NULL), "options.script_states must be 1 to 64, got 65") != NULL);
  o.script_states = 1;
  o.struct_size = 0; /* not filled by thicket_options_init */
  CHECK(thicket_runtime_new_with(&o) == NULL);
  thicket_options_init(&o);
  o.seed = 7;
  o.script_states = 2;
  rt = thicket_runtime_new_with(&o);
  CHECK(rt != NULL);
  CHECK(strcmp(thicket_last_error(rt), "") == 0 && thicket_errcode(rt) == THICKET_OK);
  thicket_runtime_free(rt);
  rt = thicket_runtime_new_with(NULL);
  CHECK(rt != NULL);
  thicket_runtime_free(rt);
}

static void test_load(void) {
  thicket_runtime *rt = thicket_runtime_new();
  text log = {0};
  const char *err;
  int32_t brain;
  CHECK(rt != NULL);
  OK(rt, thicket_set_log(rt, log_to_text, &log));
  register_guard_leaves(rt, NULL);
  CHECK(thicket_brain_count(rt) == 0);

  /* A bad brain: -1, every diagnostic, each FILE:LINE:COL. */
  CHECK(thicket_load_file(rt, fixture("broken.yaml")) == -1);
  CHECK(thicket_errcode(rt) == THICKET_ERR_LOAD);
  err = thicket_last_error(rt);
  CHECK(strstr(err, "broken.yaml:7:15: error: unknown leaf 'CCuont'") != NULL);
  CHECK(strstr(err, "did you mean 'CCount'") != NULL);
  CHECK(strstr(err, "broken.yaml:8:23: error: 'times' must be >= 1, got -2") != NULL);
  CHECK(strchr(err, '\n') != NULL); /* one diagnostic a line */
  CHECK(thicket_brain_count(rt) == 0); /* nothing half-loaded */
  CHECK(thicket_load_file(rt, fixture("missing.yaml")) == -1);
  CHECK(thicket_errcode(rt) == THICKET_ERR_LOAD);
  CHECK(strstr(thicket_last_error(rt), "missing.yaml") != NULL);
  CHECK(thicket_load_file(rt, NULL) == -1);
  CHECK(thicket_errcode(rt) == THICKET_ERR_ARG);
  CHECK(thicket_load_string(rt, NULL, "x.yaml") == -1);
  CHECK(thicket_errcode(rt) == THICKET_ERR_ARG);
  CHECK(thicket_load_string(rt, "tree: s\nroot:\n  action: Nope\n", "s.yaml") == -1);
  CHECK(strstr(thicket_last_error(rt), "s.yaml:3:11: error: unknown leaf 'Nope'") != NULL);

  /* Good brains: ids 0, 1 in load order, with names and paths. */
  brain = thicket_load_file(rt, fixture("guard.yaml"));
  OK(rt, brain);
  CHECK(brain == 0);
  brain = thicket_load_string(rt, "tree: small\nroot:\n  action: CCount\n", "small.yaml");
  OK(rt, brain);
  CHECK(brain == 1);
  CHECK(thicket_brain_count(rt) == 2);
  CHECK(strcmp(thicket_brain_name(rt, 0), "guard") == 0);
  CHECK(strcmp(thicket_brain_name(rt, 1), "small") == 0);
  CHECK(strstr(thicket_brain_path(rt, 0), "guard.yaml") != NULL);
  CHECK(strcmp(thicket_brain_path(rt, 1), "small.yaml") == 0);
  CHECK(thicket_brain_name(rt, 0) == thicket_brain_name(rt, 0)); /* stable pointer */
  CHECK(thicket_brain_name(rt, 2) == NULL && thicket_errcode(rt) == THICKET_ERR_ARG);
  CHECK(thicket_brain_path(rt, -1) == NULL);
  CHECK(thicket_reload_changed(rt) == 0); /* nothing changed */
  thicket_runtime_free(rt);
  free(log.s);
}

/* Agents, ticks, statuses, the blackboard of every type, stale handles, the C and Lua leaves,
** running nodes, hooks, events and the log. */
static void test_agents(void) {
  thicket_runtime *rt = thicket_runtime_new();
  trace_log tl;
  text log = {0}, nodes = {0};
  int64_t a, b, c, list[4];
  int32_t brain;
  double d;
  int64_t i;
  int flag;
  char buf[32];
  size_t len;
  memset(&tl, 0, sizeof tl);
  CHECK(rt != NULL);
  OK(rt, thicket_set_log(rt, log_to_text, &log));
  OK(rt, thicket_set_trace(rt, trace_to_text, &tl, 1));
  ccount_calls = chold_starts = chold_stops = 0;
  register_guard_leaves(rt, &ccount_calls);
  CHECK(thicket_register_leaf(rt, NULL, ccount, NULL) == THICKET_ERR_ARG);
  CHECK(thicket_register_leaf(rt, "X", NULL, NULL) == THICKET_ERR_ARG);
  CHECK(thicket_register_leaf(rt, "L\xff", ccount, NULL) == THICKET_ERR_ARG);
  CHECK(strstr(thicket_last_error(rt), "the leaf name is not UTF-8 (byte 0xff at offset 1), so no brain could name it") != NULL);
  CHECK(thicket_register_leaf_hooks(rt, "X", ccount, NULL, NULL, NULL, 0x80) == THICKET_ERR_ARG);
  brain = thicket_load_file(rt, fixture("guard.yaml"));
  OK(rt, brain);

  CHECK(thicket_spawn(rt, 5) == -1 && thicket_errcode(rt) == THICKET_ERR_ARG);
  CHECK(thicket_spawn(rt, -1) == -1);
  a = thicket_spawn(rt, brain);
  b = thicket_spawn(rt, brain);
  OK(rt, a);
  OK(rt, b);
  CHECK(a != b);
  CHECK(thicket_agent_id(rt, a) == 1 && thicket_agent_id(rt, b) == 2);
  CHECK(thicket_find_agent(rt, 2) == b);
  CHECK(thicket_find_agent(rt, 99) == -1);
  CHECK(thicket_spawn_with_id(rt, brain, 2) == -1 && thicket_errcode(rt) == THICKET_ERR_ARG);
  CHECK(thicket_spawn_with_id(rt, brain, 0) == -1);
  c = thicket_spawn_with_id(rt, brain, 10);
  OK(rt, c);
  CHECK(thicket_agent_id(rt, c) == 10);
  CHECK(thicket_agent_count(rt) == 3);
  CHECK(thicket_agents(rt, NULL, 0) == 3);
  CHECK(thicket_agents(rt, NULL, 2) == THICKET_ERR_ARG);
  CHECK(thicket_agents(rt, list, 2) == 3 && list[0] == a && list[1] == b);
  CHECK(thicket_agents(rt, list, 4) == 3 && list[2] == c);
  CHECK(thicket_status(rt, a) == THICKET_INVALID); /* not ticked yet */

  /* The blackboard, every type, before the first tick. */
  CHECK(thicket_get_number(rt, a, "health", &d) == THICKET_OK && d == 100);
  OK(rt, thicket_set_number(rt, a, "health", 42.5));
  CHECK(thicket_get_number(rt, a, "health", &d) == THICKET_OK && d == 42.5);
  CHECK(thicket_get_number(rt, b, "health", &d) == THICKET_OK && d == 100); /* its own blackboard */
  CHECK(thicket_get_integer(rt, a, "ammo", &i) == THICKET_OK && i == 6);
  OK(rt, thicket_set_integer(rt, a, "ammo", 5000000000LL));
  CHECK(thicket_get_integer(rt, a, "ammo", &i) == THICKET_OK && i == 5000000000LL);
  OK(rt, thicket_set_integer(rt, a, "health", 40)); /* a number key takes an integer */
  CHECK(thicket_get_number(rt, a, "health", &d) == THICKET_OK && d == 40);
  CHECK(thicket_get_bool(rt, a, "alert", &flag) == THICKET_OK && flag == 0);
  OK(rt, thicket_set_bool(rt, a, "alert", 2));
  CHECK(thicket_get_bool(rt, a, "alert", &flag) == THICKET_OK && flag == 1);
  CHECK(thicket_get_string(rt, a, "mood", buf, sizeof buf, &len) == THICKET_OK && strcmp(buf, "calm") == 0 && len == 4);
  OK(rt, thicket_set_string(rt, a, "mood", "a rather long mood string"));
  CHECK(thicket_get_string(rt, a, "mood", buf, 8, &len) == THICKET_ERR_RANGE);
  CHECK(len == 25 && strcmp(buf, "a rathe") == 0);
  CHECK(strstr(thicket_last_error(rt), "needs 26") != NULL);
  CHECK(thicket_get_string(rt, a, "mood", NULL, 0, &len) == THICKET_ERR_RANGE && len == 25);
  CHECK(thicket_get_string(rt, a, "mood", NULL, 5, &len) == THICKET_ERR_ARG);
  CHECK(thicket_get_string(rt, a, "mood", buf, sizeof buf, NULL) == THICKET_OK);
  OK(rt, thicket_set_string(rt, a, "mood", "calm"));
  /* any keys: whatever they hold (nil at first) */
  CHECK(thicket_get_number(rt, a, "target", &d) == THICKET_ERR_TYPE);
  OK(rt, thicket_set_number(rt, a, "target", 3.5));
  CHECK(thicket_get_number(rt, a, "target", &d) == THICKET_OK && d == 3.5);
  /* a number key takes no nan (an any key takes it); infinity is fine */
  CHECK(thicket_set_number(rt, a, "health", NAN) == THICKET_ERR_ARG);
  CHECK(strstr(thicket_last_error(rt), "blackboard key 'health' takes no nan") != NULL);
  CHECK(thicket_get_number(rt, a, "health", &d) == THICKET_OK && d == 40);
  OK(rt, thicket_set_number(rt, a, "health", INFINITY));
  OK(rt, thicket_set_number(rt, a, "health", 40));
  OK(rt, thicket_set_number(rt, a, "target", NAN));
  OK(rt, thicket_set_number(rt, a, "target", 3.5));
  /* unknown keys, wrong types, NULLs */
  CHECK(thicket_get_number(rt, a, "nope", &d) == THICKET_ERR_KEY);
  CHECK(strstr(thicket_last_error(rt), "no blackboard key 'nope'") != NULL);
  CHECK(thicket_set_number(rt, a, "nope", 1) == THICKET_ERR_KEY);
  {
    /* a huge unknown key is named by its start, not echoed whole */
    static char big[100001];
    memset(big, 'k', 100000);
    CHECK(thicket_set_number(rt, a, big, 1) == THICKET_ERR_KEY);
    CHECK(strlen(thicket_last_error(rt)) < 300);
  }
  CHECK(thicket_get_number(rt, a, "ammo", &d) == THICKET_ERR_TYPE);
  CHECK(strstr(thicket_last_error(rt), "blackboard key 'ammo' holds an integer, not a number") != NULL);
  CHECK(thicket_set_number(rt, a, "ammo", 1.5) == THICKET_ERR_TYPE);
  CHECK(thicket_set_bool(rt, a, "health", 1) == THICKET_ERR_TYPE);
  CHECK(thicket_get_bool(rt, a, "mood", &flag) == THICKET_ERR_TYPE);
  CHECK(thicket_set_string(rt, a, "health", "x") == THICKET_ERR_TYPE);
  CHECK(thicket_get_integer(rt, a, "alert", &i) == THICKET_ERR_TYPE);
  CHECK(thicket_set_integer(rt, a, "mood", 1) == THICKET_ERR_TYPE);
  CHECK(thicket_get_string(rt, a, "health", buf, sizeof buf, &len) == THICKET_ERR_TYPE);
  CHECK(thicket_get_number(rt, a, NULL, &d) == THICKET_ERR_ARG);
  CHECK(thicket_get_number(rt, a, "health", NULL) == THICKET_ERR_ARG);
  CHECK(thicket_set_number(rt, a, NULL, 1) == THICKET_ERR_ARG);
  CHECK(thicket_get_bool(rt, a, "alert", NULL) == THICKET_ERR_ARG);
  CHECK(thicket_get_integer(rt, a, "ammo", NULL) == THICKET_ERR_ARG);
  CHECK(thicket_set_string(rt, a, "mood", NULL) == THICKET_ERR_ARG);
  /* bad handles */
  CHECK(thicket_get_number(rt, -1, "health", &d) == THICKET_ERR_STALE);
  CHECK(thicket_get_number(rt, a + ((int64_t)1 << 32), "health", &d) == THICKET_ERR_STALE); /* wrong generation */
  CHECK(thicket_get_number(rt, 12345, "health", &d) == THICKET_ERR_STALE);                /* no such slot */
  CHECK(thicket_status(rt, 12345) == THICKET_ERR_STALE);
  CHECK(strstr(thicket_last_error(rt), "stale") != NULL);

  /* Ticks: the C leaf counts, the Lua leaf runs for three ticks and logs, then CHold runs. */
  CHECK(thicket_tick_all(rt, 0) == THICKET_ERR_ARG);
  CHECK(thicket_tick_all(rt, -1) == THICKET_ERR_ARG);
  CHECK(thicket_tick_all(rt, NAN) == THICKET_ERR_ARG);
  OK(rt, thicket_tick_all(rt, 0.5));
  CHECK(ccount_calls == 3);
  CHECK(ccount_last_agent == c && ccount_last_time == 0); /* the leaf saw its agent's handle */
  CHECK(thicket_status(rt, a) == THICKET_RUNNING);
  CHECK(thicket_get_number(rt, a, "calls", &d) == THICKET_OK && d == 1);
  CHECK(thicket_get_integer(rt, b, "lua_calls", &i) == THICKET_OK && i == 1);
  CHECK(strstr(text_str(&log), "lua step 1 of agent 1") != NULL);
  CHECK(strstr(text_str(&log), "lua step 1 of agent 10") != NULL);
  CHECK(thicket_running_nodes(rt, a, count_node, &nodes) == 2);
  CHECK(strcmp(text_str(&nodes), "root;root/1;") == 0);
  CHECK(thicket_running_nodes(rt, a, NULL, NULL) == 2);
  CHECK(strstr(text_str(&tl.out), "0 t1 a1 s3 root root/1\n") != NULL);
  CHECK(thicket_tick(rt, a, 0.5) == THICKET_RUNNING);
  CHECK(thicket_tick(rt, a, 0.5) == THICKET_RUNNING);
  CHECK(thicket_tick(rt, a, 0) == THICKET_ERR_ARG);
  CHECK(thicket_tick(rt, 12345, 0.5) == THICKET_ERR_STALE);
  CHECK(chold_starts == 1);
  text_clear(&nodes);
  CHECK(thicket_running_nodes(rt, a, count_node, &nodes) == 2);
  CHECK(strcmp(text_str(&nodes), "root;root/2;") == 0);
  CHECK(thicket_get_number(rt, a, "calls", &d) == THICKET_OK && d == 1); /* the sequence resumed at root/1 */
  CHECK(ccount_calls == 3);

  /* A Lua error: its leaf fails for that tick, the log says so, script_errors counts it. */
  CHECK(thicket_script_errors(rt) == 0);
  OK(rt, thicket_set_string(rt, b, "mood", "boom"));
  CHECK(thicket_tick(rt, b, 0.5) == THICKET_FAILURE);
  CHECK(thicket_script_errors(rt) == 1);
  CHECK(strstr(text_str(&log), "boom!") != NULL);
  CHECK(strstr(text_str(&log), "guard.lua:7") != NULL);

  /* Events: a tree takes none, so the event is dropped, and traced. */
  CHECK(thicket_send(rt, a, NULL) == THICKET_ERR_ARG);
  CHECK(thicket_send(rt, a, "") == THICKET_ERR_ARG);
  /* a name no brain (UTF-8 YAML) could take */
  CHECK(thicket_send(rt, a, "\xc3") == THICKET_ERR_ARG);
  CHECK(strstr(thicket_last_error(rt), "the event name is not UTF-8 (byte 0xc3 at offset 0), so no brain could take it") != NULL);
  CHECK(thicket_send(rt, 12345, "noise") == THICKET_ERR_STALE);
  OK(rt, thicket_send(rt, a, "noise"));
  CHECK(tl.events == 0);
  /* (Runtime::tick of one agent leaves its queue alone: events are taken by tick_all.) */
  OK(rt, thicket_tick_all(rt, 0.5));
  CHECK(tl.events == 1);
  CHECK(strcmp(tl.last_event, "noise") == 0 && strcmp(tl.last_taken_by, "") == 0);
  CHECK(strstr(text_str(&tl.out), " a1 event noise taken_by ''\n") != NULL);
  /* events only (no Tick records) */
  OK(rt, thicket_set_trace(rt, trace_to_text, &tl, 0));
  text_clear(&tl.out);
  OK(rt, thicket_send(rt, a, "again"));
  OK(rt, thicket_tick_all(rt, 0.5));
  CHECK(strcmp(text_str(&tl.out), "4 t5 a1 event again taken_by ''\n") == 0);
  OK(rt, thicket_set_trace(rt, NULL, NULL, 1));
  /* A full queue (4096 events): the send is dropped, and says so. */
  {
    int i, sent = 0;
    for (i = 0; i < 4096; ++i) sent += thicket_send(rt, a, "flood") == THICKET_OK;
    CHECK(sent == 4096);
    CHECK(thicket_send(rt, a, "flood") == THICKET_ERR_RANGE);
    CHECK(strstr(thicket_last_error(rt), "thicket_send: the agent's event queue is full (4096 events): the event is dropped") != NULL);
    OK(rt, thicket_tick_all(rt, 0.5)); /* 64 a tick are taken off */
    OK(rt, thicket_send(rt, a, "flood"));
  }
  text_clear(&tl.out);
  OK(rt, thicket_tick_all(rt, 0.5));
  CHECK(tl.out.len == 0);

  /* Despawn: the running CHold is aborted (its stop hook says so); handles go stale. */
  CHECK(chold_stops == 0);
  OK(rt, thicket_despawn(rt, a));
  CHECK(chold_stops == 1 && chold_last_stop == THICKET_ABORTED);
  CHECK(thicket_despawn(rt, a) == THICKET_ERR_STALE);
  CHECK(thicket_status(rt, a) == THICKET_ERR_STALE);
  CHECK(thicket_get_number(rt, a, "health", &d) == THICKET_ERR_STALE);
  CHECK(thicket_set_number(rt, a, "health", 1) == THICKET_ERR_STALE);
  CHECK(thicket_tick(rt, a, 0.5) == THICKET_ERR_STALE);
  CHECK(thicket_send(rt, a, "x") == THICKET_ERR_STALE);
  CHECK(thicket_agent_id(rt, a) == THICKET_ERR_STALE);
  CHECK(thicket_running_nodes(rt, a, NULL, NULL) == THICKET_ERR_STALE);
  CHECK(thicket_set_tick_every(rt, a, 2) == THICKET_ERR_STALE);
  CHECK(thicket_agent_count(rt) == 2);
  /* The slot is reused with a new generation: the old handle stays stale. */
  c = thicket_spawn(rt, brain);
  OK(rt, c);
  CHECK(c != a && (c & 0xFFFFFFFF) == (a & 0xFFFFFFFF));
  CHECK(thicket_status(rt, a) == THICKET_ERR_STALE && thicket_status(rt, c) == THICKET_INVALID);
  CHECK(thicket_agent_id(rt, c) == 11);

  thicket_runtime_free(rt);
  free(log.s);
  free(nodes.s);
  free(tl.out.s);
}

/* Every ctx call from a leaf, with each type. */
static void test_leaf_ctx_types(void) {
  thicket_runtime *rt = thicket_runtime_new();
  text log = {0};
  int32_t brain;
  int64_t a, i;
  char buf[8];
  OK(rt, thicket_set_log(rt, log_to_text, &log));
  OK(rt, thicket_register_leaf(rt, "CTypes", ctypes, NULL));
  brain = thicket_load_string(rt,
                              "tree: types\nblackboard:\n  ammo: {type: integer, default: 6}\n  alert: false\n"
                              "  mood: calm\nroot:\n  sequence:\n    - action: CTypes\n",
                              "types.yaml");
  OK(rt, brain);
  a = thicket_spawn(rt, brain);
  CHECK(thicket_tick(rt, a, 0.25) == THICKET_FAILURE); /* 42 is not a status */
  CHECK(ctypes_ok == 1);
  CHECK(thicket_get_integer(rt, a, "ammo", &i) == THICKET_OK && i == 5);
  CHECK(thicket_get_string(rt, a, "mood", buf, sizeof buf, NULL) == THICKET_OK && strcmp(buf, "wary") == 0);
  /* ... and said as a C++ leaf's would be: the value, the leaf, the node; counted. */
  CHECK(thicket_script_errors(rt) == 1);
  CHECK(log.s && strstr(log.s, "error: action 'CTypes' returned the value 42, not success, failure or running; taken as "
                               "failure\n  in leaf 'CTypes' at node root/0, agent 1, tick 1") != NULL);
  free(log.s);
  thicket_runtime_free(rt);
}

/* An int no status holds (a THICKET_ERR_* code, 1000) is said as it was returned ("returned
** invalid" sent the reader looking for a return 0). */
static int cint_answer;
static int creturns(thicket_leaf_ctx *ctx, void *user) {
  (void)ctx;
  (void)user;
  return cint_answer;
}
/* The batched walk (agent-local leaves, 32 agents or more) calls the node's leaf for every
** agent before it reports their bad answers: each is said with its own agent's value (agent 1's
** 0 was said as agent 2's -5 when one value was kept for the thread). */
static int cby_agent(thicket_leaf_ctx *ctx, void *user) {
  const int64_t id = thicket_leaf_agent_id(ctx);
  (void)user;
  return id == 1 ? 0 : id == 2 ? THICKET_ERR_TYPE : id == 3 ? 1000 : THICKET_SUCCESS;
}
static void test_leaf_answer_values_batched(void) {
  thicket_runtime *rt = thicket_runtime_new();
  text log = {0};
  int32_t brain;
  int k;
  OK(rt, thicket_set_log(rt, log_to_text, &log));
  OK(rt, thicket_register_leaf_hooks(rt, "ByAgent", cby_agent, NULL, NULL, NULL, THICKET_LEAF_AGENT_LOCAL));
  brain = thicket_load_string(rt, "tree: b\nroot: {sequence: [{action: ByAgent}]}\n", "b.yaml");
  for (k = 0; k < 40; ++k) thicket_spawn(rt, brain);
  OK(rt, thicket_tick_all(rt, 0.1));
  CHECK(thicket_script_errors(rt) == 3);
  CHECK(log.s && strstr(log.s, "returned invalid, not success, failure or running; taken as failure\n  in leaf 'ByAgent' at "
                               "node root/0, agent 1,") != NULL);
  CHECK(log.s && strstr(log.s, "returned the value -5, not success, failure or running; taken as failure\n  in leaf "
                               "'ByAgent' at node root/0, agent 2,") != NULL);
  CHECK(log.s && strstr(log.s, "returned the value 1000, not success, failure or running; taken as failure\n  in leaf "
                               "'ByAgent' at node root/0, agent 3,") != NULL);
  free(log.s);
  thicket_runtime_free(rt);
}

/* thicket_runtime_free from a leaf during the tick is refused (the tick would walk freed memory). */
static int cfree_self(thicket_leaf_ctx *ctx, void *user) {
  (void)ctx;
  thicket_runtime_free((thicket_runtime *)user);
  return THICKET_SUCCESS;
}
static void test_free_in_tick(void) {
  thicket_runtime *rt = thicket_runtime_new();
  int64_t a;
  OK(rt, thicket_register_leaf(rt, "FreeSelf", cfree_self, rt));
  a = thicket_spawn(rt, thicket_load_string(rt, "tree: f\nroot: {action: FreeSelf}\n", "f.yaml"));
  CHECK(thicket_tick(rt, a, 0.1) == THICKET_SUCCESS);
  CHECK(strstr(thicket_last_error(NULL), "thicket_runtime_free: cannot be called during a tick") != NULL);
  CHECK(thicket_tick(rt, a, 0.1) == THICKET_SUCCESS); /* still there */
  thicket_runtime_free(rt);
}

static void test_leaf_answer_values(void) {
  static const int answers[] = {THICKET_ERR_TYPE, 1000, INT_MIN, 0};
  static const char *said[] = {"returned the value -5,", "returned the value 1000,", "returned the value -2147483648,",
                               "returned invalid,"};
  size_t k;
  for (k = 0; k < sizeof answers / sizeof answers[0]; ++k) {
    thicket_runtime *rt = thicket_runtime_new();
    text log = {0};
    int64_t a;
    OK(rt, thicket_set_log(rt, log_to_text, &log));
    OK(rt, thicket_register_leaf(rt, "CReturns", creturns, NULL));
    a = thicket_spawn(rt, thicket_load_string(rt, "tree: r\nroot: {action: CReturns}\n", "r.yaml"));
    cint_answer = answers[k];
    CHECK(thicket_tick(rt, a, 0.25) == THICKET_FAILURE);
    CHECK(log.s && strstr(log.s, said[k]) != NULL);
    free(log.s);
    thicket_runtime_free(rt);
  }
}

/* A log callback of a one-thread tick runs inside the leaf's call: a spawn from it is deferred.
** On a parallel tick it runs after the leaves, as the lines are handed out, still inside the
** tick: the spawn is deferred too (thicket.h, thicket_spawn). */
static thicket_runtime *log_spawn_rt;
static int32_t log_spawn_brain;
static int64_t log_spawned = -2, log_spawned_in_use = -2;
static int log_spawn_code = -100, log_spawn_in_use_code = -100;
static void log_spawns(const char *line, void *user) {
  (void)line;
  (void)user;
  if (log_spawned != -2) return;
  log_spawned = thicket_spawn(log_spawn_rt, log_spawn_brain);
  log_spawn_code = thicket_errcode(log_spawn_rt);
  /* an id in use: refused at once where the spawn is made at once (it was told "deferred") */
  log_spawned_in_use = thicket_spawn_with_id(log_spawn_rt, log_spawn_brain, 1);
  log_spawn_in_use_code = thicket_errcode(log_spawn_rt);
}
static void serial_executor(size_t n, void (*job)(void *, size_t), void *ctx, void *user) {
  size_t i;
  (void)user;
  for (i = 0; i < n; ++i) job(ctx, i);
}
static void test_spawn_from_log_callback(void) {
  int parallel;
  for (parallel = 0; parallel <= 1; ++parallel) {
    thicket_runtime *rt = thicket_runtime_new();
    log_spawn_rt = rt;
    log_spawned = -2;
    log_spawn_brain = thicket_load_string(rt, "tree: talker\nroot:\n  log: {message: hi, child: {wait: 1}}\n", "talker.yaml");
    OK(rt, log_spawn_brain);
    OK(rt, thicket_spawn(rt, log_spawn_brain));
    OK(rt, thicket_set_log(rt, log_spawns, NULL));
    OK(rt, parallel ? thicket_tick_all_parallel(rt, 0.1, serial_executor, NULL) : thicket_tick_all(rt, 0.1));
    /* Inside the tick in both forms (a parallel tick's callbacks, handed out after its leaves,
    ** made their spawns at once: the two forms differed). */
    CHECK(log_spawned == -1 && log_spawn_code == THICKET_ERR_DEFERRED);
    CHECK(log_spawned_in_use == -1 && log_spawn_in_use_code == THICKET_ERR_DEFERRED);
    CHECK(thicket_agent_count(rt) == 2); /* made at the tick's end */
    thicket_runtime_free(rt);
  }
}

/* ---- Snapshots ---- */
static void test_snapshots(void) {
  thicket_runtime *rt = thicket_runtime_new(), *fresh = thicket_runtime_new();
  int32_t brain;
  int64_t a, b, list[4], one;
  void *bytes = NULL, *agent_bytes = NULL;
  size_t len = 0, agent_len = 0;
  double d;
  int64_t i;
  char buf[32];
  text log = {0};
  OK(rt, thicket_set_log(rt, log_to_text, &log));
  OK(fresh, thicket_set_log(fresh, log_to_text, &log));
  register_guard_leaves(rt, NULL);
  register_guard_leaves(fresh, NULL);
  brain = thicket_load_file(rt, fixture("guard.yaml"));
  OK(rt, brain);
  OK(fresh, thicket_load_file(fresh, fixture("guard.yaml")));
  a = thicket_spawn(rt, brain);
  b = thicket_spawn(rt, brain);
  OK(rt, thicket_tick_all(rt, 0.5));
  OK(rt, thicket_tick_all(rt, 0.5));
  OK(rt, thicket_set_number(rt, a, "health", 12.25));
  OK(rt, thicket_set_string(rt, b, "mood", "saved"));
  CHECK(thicket_save(rt, NULL, &len) == THICKET_ERR_ARG);
  OK(rt, thicket_save(rt, &bytes, &len));
  CHECK(bytes != NULL && len > 16);

  /* Into a fresh runtime: the same agents and values. */
  OK(fresh, thicket_restore(fresh, bytes, len));
  CHECK(thicket_agents(fresh, list, 4) == 2);
  CHECK(thicket_agent_id(fresh, list[0]) == 1 && thicket_agent_id(fresh, list[1]) == 2);
  CHECK(thicket_get_number(fresh, list[0], "health", &d) == THICKET_OK && d == 12.25);
  CHECK(thicket_get_string(fresh, list[1], "mood", buf, sizeof buf, NULL) == THICKET_OK && strcmp(buf, "saved") == 0);
  CHECK(thicket_get_integer(fresh, list[0], "lua_calls", &i) == THICKET_OK && i == 2);
  CHECK(thicket_status(fresh, list[0]) == THICKET_RUNNING);
  /* Both go on alike. */
  OK(rt, thicket_tick_all(rt, 0.5));
  OK(fresh, thicket_tick_all(fresh, 0.5));
  CHECK(thicket_get_integer(fresh, list[0], "lua_calls", &i) == THICKET_OK && i == 3);
  CHECK(thicket_get_integer(rt, a, "lua_calls", &i) == THICKET_OK && i == 3);
  CHECK(thicket_status(fresh, list[0]) == THICKET_RUNNING && chold_starts > 0);

  /* Into the same runtime: the old handles are stale; the agents are found by listing. */
  OK(rt, thicket_restore(rt, bytes, len));
  CHECK(thicket_status(rt, a) == THICKET_ERR_STALE);
  CHECK(thicket_agents(rt, list, 4) == 2);
  CHECK(thicket_get_number(rt, list[0], "health", &d) == THICKET_OK && d == 12.25);
  CHECK(thicket_get_integer(rt, list[0], "lua_calls", &i) == THICKET_OK && i == 2);

  /* Bad bytes: refused, the runtime as it was. */
  CHECK(thicket_restore(rt, "not a snapshot", 14) == THICKET_ERR_SNAPSHOT);
  CHECK(strlen(thicket_last_error(rt)) > strlen("thicket_restore: "));
  CHECK(thicket_restore(rt, bytes, len / 2) == THICKET_ERR_SNAPSHOT);
  CHECK(thicket_restore(rt, NULL, 4) == THICKET_ERR_ARG);
  /* More bytes than the snapshot holds (a wrong len, two joined): refused, not half read. */
  {
    char *longer = malloc(len + 5);
    CHECK(longer != NULL);
    memcpy(longer, bytes, len);
    memcpy(longer + len, "junk!", 5);
    OK(rt, thicket_despawn(rt, list[1]));
    CHECK(thicket_restore(rt, longer, len + 5) == THICKET_ERR_SNAPSHOT);
    CHECK(strstr(thicket_last_error(rt), "the bytes go on past the snapshot: it is ") != NULL);
    CHECK(strstr(thicket_last_error(rt), " were given (a wrong length, or two snapshots joined?); nothing was restored") != NULL);
    CHECK(thicket_agent_count(rt) == 1); /* as it was */
    free(longer);
    OK(rt, thicket_restore(rt, bytes, len));
    CHECK(thicket_agents(rt, list, 4) == 2);
  }
  CHECK(thicket_agent_count(rt) == 2);
  CHECK(thicket_get_number(rt, list[0], "health", &d) == THICKET_OK && d == 12.25);

  /* One agent. */
  CHECK(thicket_save_agent(rt, 12345, &agent_bytes, &agent_len) == THICKET_ERR_STALE);
  CHECK(agent_bytes == NULL && agent_len == 0);
  OK(rt, thicket_save_agent(rt, list[1], &agent_bytes, &agent_len));
  OK(rt, thicket_despawn(rt, list[1]));
  CHECK(thicket_agent_count(rt) == 1);
  one = thicket_restore_agent(rt, agent_bytes, agent_len);
  OK(rt, one);
  CHECK(thicket_agent_id(rt, one) == 2);
  CHECK(thicket_get_string(rt, one, "mood", buf, sizeof buf, NULL) == THICKET_OK && strcmp(buf, "saved") == 0);
  CHECK(thicket_restore_agent(rt, agent_bytes, agent_len) == -1); /* its id is taken now */
  CHECK(thicket_errcode(rt) == THICKET_ERR_SNAPSHOT);
  /* One agent's snapshot given to thicket_restore: the message names the C call to use. */
  CHECK(thicket_restore(rt, agent_bytes, agent_len) == THICKET_ERR_SNAPSHOT);
  CHECK(strstr(thicket_last_error(rt), "add it with thicket_restore_agent") != NULL);
  {
    /* two agents' snapshots joined: the second was dropped without a word */
    char *two = malloc(2 * agent_len);
    CHECK(two != NULL);
    memcpy(two, agent_bytes, agent_len);
    memcpy(two + agent_len, agent_bytes, agent_len);
    OK(rt, thicket_despawn(rt, one));
    CHECK(thicket_restore_agent(rt, two, 2 * agent_len) == -1);
    CHECK(thicket_errcode(rt) == THICKET_ERR_SNAPSHOT);
    CHECK(strstr(thicket_last_error(rt), "two snapshots joined?") != NULL);
    CHECK(thicket_agent_count(rt) == 1);
    free(two);
  }

  thicket_free_bytes(bytes);
  thicket_free_bytes(agent_bytes);
  thicket_runtime_free(rt);
  thicket_runtime_free(fresh);
  free(log.s);
}

/* ---- The parallel tick: a C executor on pthreads, jobs in scrambled order ---- */
typedef struct {
  thicket_runtime *rt;
  int send; /* 0 for the agent_local runs: such a leaf promises to send nothing */
} crowd_data;

static int ctired(thicket_leaf_ctx *ctx, void *user) {
  int64_t steps = 0;
  (void)user;
  if (thicket_leaf_get_integer(ctx, "steps", &steps) != THICKET_OK) return THICKET_FAILURE;
  return steps % 5 == 4 ? THICKET_SUCCESS : THICKET_FAILURE;
}
static int crest(thicket_leaf_ctx *ctx, void *user) {
  int64_t steps = 0;
  (void)user;
  thicket_leaf_get_integer(ctx, "steps", &steps);
  thicket_leaf_set_integer(ctx, "steps", steps + 1);
  return THICKET_SUCCESS;
}
/* A random step; every 7th step it sends itself an event (dropped and traced), from whatever
** thread runs it. */
static int cwalk(thicket_leaf_ctx *ctx, void *user) {
  crowd_data *data = (crowd_data *)user;
  double x = 0;
  int64_t steps = 0;
  thicket_leaf_get_number(ctx, "x", &x);
  thicket_leaf_get_integer(ctx, "steps", &steps);
  thicket_leaf_set_number(ctx, "x", x + thicket_leaf_random(ctx) * thicket_leaf_dt(ctx));
  thicket_leaf_set_integer(ctx, "steps", steps + 1);
  thicket_leaf_set_integer(ctx, "me", thicket_leaf_agent(ctx));
  if (data->send && steps % 7 == 6 && thicket_send(data->rt, thicket_leaf_agent(ctx), "step7") != THICKET_OK) return THICKET_FAILURE;
  return THICKET_RUNNING;
}

typedef struct {
  size_t n, threads, self;
  size_t *order;
  void (*job)(void *, size_t);
  void *job_ctx;
} worker;

static void *work(void *p) {
  worker *w = (worker *)p;
  size_t k;
  /* this thread's share of the scrambled order, last first */
  for (k = w->n; k-- > 0;)
    if (k % w->threads == w->self) w->job(w->job_ctx, w->order[k]);
  return NULL;
}

static long executor_calls = 0, executor_jobs = 0;
/* Runs the jobs on 3 threads, in an order scrambled by a fixed permutation. */
static void scrambled_executor(size_t n, void (*job)(void *job_ctx, size_t i), void *job_ctx, void *user) {
  enum { kThreads = 3 };
  pthread_t threads[kThreads];
  worker workers[kThreads];
  size_t *order = malloc((n ? n : 1) * sizeof *order), i, t;
  (void)user;
  CHECK(order != NULL);
  for (i = 0; i < n; ++i) order[i] = (i * 7 + 3) % n; /* a permutation when gcd(7, n) == 1 */
  for (i = 0; i < n; ++i) {                            /* otherwise: reversed */
    size_t j;
    for (j = 0; j < i; ++j)
      if (order[j] == order[i]) break;
    if (j < i) {
      for (j = 0; j < n; ++j) order[j] = n - 1 - j;
      break;
    }
  }
  ++executor_calls;
  executor_jobs += (long)n;
  for (t = 0; t < kThreads; ++t) {
    workers[t].n = n;
    workers[t].threads = kThreads;
    workers[t].self = t;
    workers[t].order = order;
    workers[t].job = job;
    workers[t].job_ctx = job_ctx;
    CHECK(pthread_create(&threads[t], NULL, work, &workers[t]) == 0);
  }
  for (t = 0; t < kThreads; ++t) CHECK(pthread_join(threads[t], NULL) == 0);
  free(order);
}

/* A crowd of 600 native agents (3 native jobs) and 6 Lua agents over 2 script states, ticked 12
** times; appends its trace, log and blackboards to `out`. With agent_local, the crowd's leaves
** are registered so (and send nothing), and nothing is traced: tick_all then ticks the crowd
** by the batched walk (guide 9, agent_local), which a trace sink would turn off. */
static void run_crowd(int parallel, text *out, int agent_local) {
  thicket_options o;
  thicket_runtime *rt;
  crowd_data data;
  trace_log tl;
  text log = {0};
  int32_t crowd, guard;
  int k;
  int64_t list[700], n, j;
  memset(&tl, 0, sizeof tl);
  thicket_options_init(&o);
  o.script_states = 2;
  o.seed = 99;
  rt = thicket_runtime_new_with(&o);
  CHECK(rt != NULL);
  data.rt = rt;
  data.send = !agent_local;
  if (!agent_local) OK(rt, thicket_set_trace(rt, trace_to_text, &tl, 1));
  OK(rt, thicket_set_log(rt, log_to_text, &log));
  OK(rt, thicket_register_leaf_hooks(rt, "CTired", ctired, NULL, NULL, NULL, agent_local ? THICKET_LEAF_AGENT_LOCAL : 0));
  OK(rt, thicket_register_leaf_hooks(rt, "CRest", crest, NULL, NULL, NULL, agent_local ? THICKET_LEAF_AGENT_LOCAL : 0));
  OK(rt, thicket_register_leaf_hooks(rt, "CWalk", cwalk, NULL, NULL, &data, agent_local ? THICKET_LEAF_AGENT_LOCAL : 0));
  register_guard_leaves(rt, NULL);
  crowd = thicket_load_file(rt, fixture("crowd.yaml"));
  OK(rt, crowd);
  guard = thicket_load_file(rt, fixture("guard.yaml"));
  OK(rt, guard);
  for (k = 0; k < 606; ++k) OK(rt, thicket_spawn(rt, k % 101 == 50 ? guard : crowd));
  for (k = 0; k < 12; ++k) {
    if (parallel) OK(rt, thicket_tick_all_parallel(rt, 0.1, scrambled_executor, NULL));
    else OK(rt, thicket_tick_all(rt, 0.1));
  }
  text_add(out, "%s--log--\n%s--bb--\n", text_str(&tl.out), text_str(&log));
  n = thicket_agents(rt, list, 700);
  CHECK(n == 606);
  for (j = 0; j < n; ++j) {
    double x = -1;
    int64_t me = -1;
    if (thicket_get_number(rt, list[j], "x", &x) == THICKET_OK) text_add(out, "%lld %.17g\n", (long long)j, x);
    /* the handle a crowd leaf saw, on whatever thread and walk, is its agent's */
    if (thicket_get_integer(rt, list[j], "me", &me) == THICKET_OK) CHECK(me == list[j]);
  }
  CHECK(agent_local ? tl.events == 0 : tl.events > 0);
  thicket_runtime_free(rt);
  free(log.s);
  free(tl.out.s);
}

static void test_parallel(void) {
  text serial = {0}, parallel = {0}, local = {0};
  run_crowd(0, &serial, 0);
  executor_calls = executor_jobs = 0;
  run_crowd(1, &parallel, 0);
  CHECK(executor_calls == 12);
  CHECK(executor_jobs >= 12 * 4); /* 2 Lua lanes + 3 native chunks a tick */
  CHECK(serial.len > 10000);
  CHECK(strstr(text_str(&serial), "lua step 3 of agent 51") != NULL);
  CHECK(strstr(text_str(&serial), "event step7 taken_by ''") != NULL);
  CHECK(strcmp(text_str(&serial), text_str(&parallel)) == 0);
  /* agent_local leaves, untraced: the batched walk; the same blackboards and log */
  run_crowd(0, &local, 1);
  CHECK(strstr(text_str(&local), "--log--\n") == text_str(&local)); /* no trace */
  CHECK(strcmp(strstr(text_str(&serial), "--log--"), text_str(&local)) == 0);
  text_clear(&local);
  run_crowd(1, &local, 1);
  CHECK(strcmp(strstr(text_str(&serial), "--log--"), text_str(&local)) == 0);
  free(serial.s);
  free(parallel.s);
  free(local.s);
}

/* ---- Time slicing ---- */
static void test_time_slicing(void) {
  thicket_runtime *rt = thicket_runtime_new();
  trace_log tl;
  int32_t brain;
  int64_t a, b;
  int k;
  memset(&tl, 0, sizeof tl);
  OK(rt, thicket_set_trace(rt, trace_to_text, &tl, 1));
  register_guard_leaves(rt, NULL);
  OK(rt, thicket_set_log(rt, log_to_text, &tl.out));
  brain = thicket_load_file(rt, fixture("guard.yaml"));
  a = thicket_spawn(rt, brain);
  b = thicket_spawn(rt, brain);
  CHECK(thicket_tick_every(rt, a) == 1);
  CHECK(thicket_set_tick_every(rt, a, 0) == THICKET_ERR_ARG);
  /* past INT32_MAX: thicket_tick_every could not give it back */
  CHECK(thicket_set_tick_every(rt, a, 0xFFFFFFFFu) == THICKET_ERR_ARG);
  CHECK(strstr(thicket_last_error(rt), "k must be from 1 to 2147483647, got 4294967295") != NULL);
  OK(rt, thicket_set_tick_every(rt, a, 2147483647u));
  CHECK(thicket_tick_every(rt, a) == 2147483647);
  OK(rt, thicket_set_tick_every(rt, a, 3));
  CHECK(thicket_tick_every(rt, a) == 3);
  CHECK(thicket_tick_every(rt, 12345) == THICKET_ERR_STALE);
  for (k = 0; k < 6; ++k) OK(rt, thicket_tick_all(rt, 0.5));
  CHECK(tl.ticks_by_agent[1] == 2); /* every 3rd call */
  CHECK(tl.ticks_by_agent[2] == 6);
  for (k = 0; k < 6; ++k) OK(rt, thicket_tick_all_parallel(rt, 0.5, scrambled_executor, NULL));
  CHECK(tl.ticks_by_agent[1] == 4);
  CHECK(tl.ticks_by_agent[2] == 12);
  (void)b;
  thicket_runtime_free(rt);
  free(tl.out.s);
}

/* ---- Hot reload ---- */
static void write_file(const char *path, const char *content) {
  FILE *f = fopen(path, "w");
  CHECK(f != NULL);
  CHECK(fputs(content, f) >= 0);
  CHECK(fclose(f) == 0);
}

/* The keys CCount looks at. */
#define LAMP_KEYS "tree: lamp\nblackboard:\n  calls: 0\n  ammo: {type: integer, default: 0}\n  mood: calm\n"

static void test_reload(void) {
  char dir[] = "/tmp/thicket_c_api_XXXXXX", path[64];
  thicket_runtime *rt = thicket_runtime_new();
  text log = {0};
  int32_t brain;
  int64_t a;
  double d;
  const char *failures = NULL, *first;
  void *saved = NULL;
  size_t saved_len = 0;
  char lua[96], brain_path[96];
  CHECK(mkdtemp(dir) != NULL);
  snprintf(path, sizeof path, "%s/lamp.yaml", dir);
  write_file(path, LAMP_KEYS "root:\n  action: CCount\n");
  OK(rt, thicket_set_log(rt, log_to_text, &log));
  register_guard_leaves(rt, NULL);
  brain = thicket_load_file(rt, path);
  OK(rt, brain);
  a = thicket_spawn(rt, brain);
  CHECK(thicket_tick(rt, a, 0.5) == THICKET_SUCCESS);
  CHECK(thicket_reload_changed(rt) == 0);
  write_file(path, LAMP_KEYS "root:\n  sequence:\n    - action: CCount\n    - action: CCount\n");
  CHECK(thicket_reload_changed(rt) == 1);
  CHECK(thicket_tick(rt, a, 0.5) == THICKET_SUCCESS);
  CHECK(thicket_get_number(rt, a, "calls", &d) == THICKET_OK && d == 3);
  OK(rt, thicket_save(rt, &saved, &saved_len)); /* restored below, once the brain has changed */
  /* A broken edit: not reloaded, the old brain stays, the log says why. */
  CHECK(thicket_reload_failures(rt, &failures) == 0 && strcmp(failures, "") == 0);
  write_file(path, "tree: lamp\nroot:\n  action: CCuont\n");
  CHECK(thicket_reload_changed(rt) == 0);
  CHECK(strstr(text_str(&log), "CCuont") != NULL);
  /* ... and thicket_reload_failures gives the modder's diagnostics, as thicket_load_file would. */
  CHECK(thicket_reload_failures(rt, &failures) == 1);
  CHECK(strstr(failures, "lamp.yaml:3:11: error: ") != NULL && strstr(failures, "did you mean 'CCount'") != NULL);
  CHECK(thicket_reload_failures(rt, NULL) == 1);
  CHECK(thicket_reload_failures(NULL, &failures) == THICKET_ERR_ARG);
  /* A NUL in the diagnostics (a leaf named "CC\0x") reads \0, as in thicket_last_error, and the
  ** text after it is there for C to see. */
  write_file(path, "tree: lamp\nroot:\n  sequence: [{action: \"CC\\0x\"}, {action: CCuont}]\n");
  CHECK(thicket_reload_changed(rt) == 0);
  CHECK(thicket_reload_failures(rt, &failures) == 1);
  CHECK(strstr(failures, "CC\\0x") != NULL && strstr(failures, "CCuont") != NULL);
  CHECK(thicket_tick(rt, a, 0.5) == THICKET_SUCCESS);
  /* The file stays broken through a call that finds nothing changed (a game calls it every
  ** frame): it is still counted, its diagnostics still given, until a reload of it succeeds. */
  CHECK(thicket_reload_changed(rt) == 0);
  CHECK(thicket_reload_failures(rt, &failures) == 1);
  CHECK(strstr(failures, "CCuont") != NULL);
  write_file(path, LAMP_KEYS "root:\n  action: CCount\n");
  CHECK(thicket_reload_changed(rt) == 1);
  CHECK(thicket_reload_failures(rt, &failures) == 0 && strcmp(failures, "") == 0);
  /* A snapshot of the brain before that change restores with the remap note in the log, as
  ** C++'s restore gives it in its diagnostics (it was dropped). */
  OK(rt, thicket_restore(rt, saved, saved_len));
  CHECK(strstr(text_str(&log), "changed since the snapshot: its agents are remapped") != NULL);
  thicket_free_bytes(saved);
  /* A broken leaf file and a broken brain that lists it: two broken files, and the leaf file's
  ** error said once (the brain's failed reload repeats it). */
  snprintf(lua, sizeof lua, "%s/l.lua", dir);
  snprintf(brain_path, sizeof brain_path, "%s/l.yaml", dir);
  write_file(lua, "local leaves = {}\nfunction leaves.L(agent) return true end\nreturn leaves\n");
  write_file(brain_path, "tree: l\nleaves: [l.lua]\nroot:\n  action: L\n");
  OK(rt, thicket_load_file(rt, brain_path));
  write_file(lua, "local leaves = {}\nfunction leaves.L(agent) return true\nreturn leaves\n");
  write_file(brain_path, "tree: l\nleaves: [l.lua]\nroot:\n  action: LL\n");
  CHECK(thicket_reload_changed(rt) == 0);
  CHECK(thicket_reload_failures(rt, &failures) == 2);
  first = strstr(failures, "l.lua:");
  CHECK(first != NULL && strstr(first + 1, "'end' expected") != NULL && strstr(strstr(first + 1, "'end' expected") + 1, "'end' expected") == NULL);
  thicket_runtime_free(rt);
  remove(lua);
  remove(brain_path);
  remove(path);
  rmdir(dir);
  free(log.s);
}

/* options.max_script_state_bytes reaches the runtime: a leaf spawning in a loop stops at it (1
** byte: no script spawn at all; 0: no cap), and the program's own spawn is not held to it. */
static void test_script_state_cap(void) {
  char dir[] = "/tmp/thicket_c_api_XXXXXX", lua[96], brain_path[96];
  size_t cap;
  CHECK(mkdtemp(dir) != NULL);
  snprintf(lua, sizeof lua, "%s/breed.lua", dir);
  snprintf(brain_path, sizeof brain_path, "%s/breed.yaml", dir);
  write_file(lua, "local thicket = require(\"thicket\")\nreturn {Breed = function() thicket.spawn(\"breeder\") return true end}\n");
  write_file(brain_path, "tree: breeder\nleaves: [breed.lua]\nroot: {action: Breed}\n");
  for (cap = 0; cap < 2; ++cap) {
    thicket_options o;
    thicket_runtime *rt;
    int32_t brain;
    thicket_options_init(&o);
    o.max_script_state_bytes = cap;
    o.leaf_timeout = 0;
    rt = thicket_runtime_new_with(&o);
    CHECK(rt != NULL);
    brain = thicket_load_file(rt, brain_path);
    CHECK(brain >= 0);
    CHECK(thicket_spawn(rt, brain) >= 0);
    CHECK(thicket_tick_all(rt, 0.1) == THICKET_OK);
    CHECK(thicket_tick_all(rt, 0.1) == THICKET_OK);
    CHECK(thicket_agent_count(rt) == (cap == 1 ? 1 : 4)); /* 1, 2, 4 without the cap */
    thicket_runtime_free(rt);
  }
  remove(lua);
  remove(brain_path);
  rmdir(dir);
}

/* ---- Calls refused or deferred during a tick; agent ids; the NULL runtime's message ---- */

/* What the Meddle leaf tries from inside a tick, and the brain it spawns. */
typedef struct {
  thicket_runtime *rt;
  int32_t idle;
  const void *snapshot;
  size_t snapshot_len;
  int parallel; /* then thicket_errcode is another thread's as often as not: not read */
} meddle_data;

static int cnoop(thicket_leaf_ctx *ctx, void *user) {
  (void)ctx;
  (void)user;
  return THICKET_SUCCESS;
}

/* Once per agent, from whatever thread runs it: every call a tick defers or refuses, each code
** kept in the agent's blackboard (the leaf ctx calls are safe on any thread). The registration
** comes last, so that the runtime's last message is its refusal. */
static int cmeddle(thicket_leaf_ctx *ctx, void *user) {
  meddle_data *m = (meddle_data *)user;
  const int64_t id = thicket_leaf_agent_id(ctx);
  int64_t done = 0;
  if (thicket_leaf_get_integer(ctx, "done", &done) != THICKET_OK) return THICKET_FAILURE;
  if (done) return THICKET_SUCCESS;
  thicket_leaf_set_integer(ctx, "spawn",
                           thicket_spawn_with_id(m->rt, m->idle, (uint32_t)(1000 * thicket_leaf_tick(ctx) + id)));
  if (!m->parallel) thicket_leaf_set_integer(ctx, "spawn_err", thicket_errcode(m->rt));
  thicket_leaf_set_integer(ctx, "bad_id", thicket_spawn_with_id(m->rt, m->idle, 0xFFFFFFFFu));
  if (!m->parallel) thicket_leaf_set_integer(ctx, "bad_id_err", thicket_errcode(m->rt));
  thicket_leaf_set_integer(ctx, "load", thicket_load_string(m->rt, "tree: late\nroot:\n  wait: 1\n", "late.yaml"));
  if (!m->parallel) thicket_leaf_set_integer(ctx, "load_err", thicket_errcode(m->rt));
  thicket_leaf_set_integer(ctx, "restore", thicket_restore(m->rt, m->snapshot, m->snapshot_len));
  thicket_leaf_set_integer(ctx, "restore_agent", thicket_restore_agent(m->rt, m->snapshot, m->snapshot_len));
  thicket_leaf_set_integer(ctx, "reload", thicket_reload_changed(m->rt));
  {
    void *b = NULL;
    size_t l = 0;
    thicket_leaf_set_integer(ctx, "save", thicket_save(m->rt, &b, &l));
    thicket_free_bytes(b);
  }
  /* a tick inside a tick: the leaf's own agent would be ticked inside its own walk */
  thicket_leaf_set_integer(ctx, "tick_all", thicket_tick_all(m->rt, 0.1));
  thicket_leaf_set_integer(ctx, "tick", thicket_tick(m->rt, thicket_find_agent(m->rt, (uint32_t)id), 0.1));
  thicket_leaf_set_integer(ctx, "hooks", thicket_register_leaf_hooks(m->rt, "Other", cnoop, NULL, NULL, NULL, 0));
  thicket_leaf_set_integer(ctx, "reg", thicket_register_leaf(m->rt, "Other", cnoop, NULL));
  thicket_leaf_set_integer(ctx, "done", 1);
  return THICKET_SUCCESS;
}

static void check_meddled(thicket_runtime *rt, int64_t agent, int parallel) {
  int64_t v = 0;
  CHECK(thicket_get_integer(rt, agent, "done", &v) == THICKET_OK && v == 1);
  CHECK(thicket_get_integer(rt, agent, "spawn", &v) == THICKET_OK && v == -1);
  CHECK(thicket_get_integer(rt, agent, "bad_id", &v) == THICKET_OK && v == -1);
  CHECK(thicket_get_integer(rt, agent, "load", &v) == THICKET_OK && v == -1);
  if (!parallel) {
    CHECK(thicket_get_integer(rt, agent, "spawn_err", &v) == THICKET_OK && v == THICKET_ERR_DEFERRED);
    CHECK(thicket_get_integer(rt, agent, "bad_id_err", &v) == THICKET_OK && v == THICKET_ERR_ARG);
    CHECK(thicket_get_integer(rt, agent, "load_err", &v) == THICKET_OK && v == THICKET_ERR_IN_TICK);
  }
  CHECK(thicket_get_integer(rt, agent, "restore", &v) == THICKET_OK && v == THICKET_ERR_IN_TICK);
  CHECK(thicket_get_integer(rt, agent, "restore_agent", &v) == THICKET_OK && v == -1);
  CHECK(thicket_get_integer(rt, agent, "reload", &v) == THICKET_OK && v == THICKET_ERR_IN_TICK);
  CHECK(thicket_get_integer(rt, agent, "save", &v) == THICKET_OK && v == THICKET_ERR_IN_TICK);
  CHECK(thicket_get_integer(rt, agent, "tick_all", &v) == THICKET_OK && v == THICKET_ERR_IN_TICK);
  CHECK(thicket_get_integer(rt, agent, "tick", &v) == THICKET_OK && v == THICKET_ERR_IN_TICK);
  CHECK(thicket_get_integer(rt, agent, "hooks", &v) == THICKET_OK && v == THICKET_ERR_IN_TICK);
  CHECK(thicket_get_integer(rt, agent, "reg", &v) == THICKET_OK && v == THICKET_ERR_IN_TICK);
}

#define MEDDLE_YAML                                                                                       \
  "tree: meddler\nblackboard:\n  done: {type: integer, default: 0}\n  spawn: {type: integer, default: 0}\n" \
  "  spawn_err: {type: integer, default: 0}\n  bad_id: {type: integer, default: 0}\n"                    \
  "  bad_id_err: {type: integer, default: 0}\n  load_err: {type: integer, default: 0}\n"                \
  "  load: {type: integer, default: 0}\n  restore: {type: integer, default: 0}\n"                        \
  "  restore_agent: {type: integer, default: 0}\n  reload: {type: integer, default: 0}\n"                \
  "  hooks: {type: integer, default: 0}\n  reg: {type: integer, default: 0}\n"                              \
  "  save: {type: integer, default: 0}\n"                                                                   \
  "  tick_all: {type: integer, default: 0}\n  tick: {type: integer, default: 0}\nroot:\n  action: Meddle\n"

static void test_in_tick(int parallel) {
  thicket_runtime *rt = thicket_runtime_new();
  meddle_data m;
  text log = {0};
  int32_t brain;
  static int64_t list[1300];
  int64_t n, j, agent, keep;
  void *bytes = NULL;
  size_t len = 0;
  const int agents = parallel ? 600 : 3; /* 600: three native jobs, on three threads */
  CHECK(rt != NULL);
  OK(rt, thicket_set_log(rt, log_to_text, &log));
  m.rt = rt;
  m.parallel = parallel;
  OK(rt, thicket_register_leaf(rt, "Meddle", cmeddle, &m));
  brain = thicket_load_string(rt, MEDDLE_YAML, "meddler.yaml");
  OK(rt, brain);
  m.idle = thicket_load_string(rt, "tree: idle\nroot:\n  wait: 5\n", "idle.yaml");
  OK(rt, m.idle);
  for (j = 0; j < agents; ++j) OK(rt, thicket_spawn(rt, brain));
  keep = thicket_spawn_with_id(rt, m.idle, 999); /* a snapshot to offer restore and restore_agent */
  OK(rt, keep);
  OK(rt, thicket_save_agent(rt, keep, &bytes, &len));
  OK(rt, thicket_despawn(rt, keep));
  m.snapshot = bytes;
  m.snapshot_len = len;
  if (parallel) OK(rt, thicket_tick_all_parallel(rt, 0.1, scrambled_executor, NULL));
  else OK(rt, thicket_tick_all(rt, 0.1));
  /* Every call was refused with THICKET_ERR_IN_TICK (spawns deferred), and the message says why. */
  CHECK(thicket_errcode(rt) == THICKET_ERR_IN_TICK);
  CHECK(strstr(thicket_last_error(rt), "thicket_register_leaf: cannot be called during a tick") != NULL);
  n = thicket_agents(rt, list, 1300);
  CHECK(n == 2 * agents); /* the meddlers and their deferred spawns; nothing restored */
  for (j = 0; j < n; ++j) {
    const int64_t id = thicket_agent_id(rt, list[j]);
    if (id <= agents) check_meddled(rt, list[j], parallel);
    else CHECK(id > 1000 && id <= 1000 + agents);
  }
  CHECK(thicket_find_agent(rt, 999) == -1);
  /* Nothing was registered or loaded. */
  CHECK(thicket_brain_count(rt) == 2);
  CHECK(thicket_load_string(rt, "tree: u\nroot:\n  action: Other\n", "u.yaml") == -1);
  CHECK(thicket_errcode(rt) == THICKET_ERR_LOAD && strstr(thicket_last_error(rt), "unknown leaf 'Other'") != NULL);
  /* The tick is over: the same calls work again. */
  OK(rt, thicket_register_leaf(rt, "Other", cnoop, NULL));
  OK(rt, thicket_load_string(rt, "tree: u\nroot:\n  action: Other\n", "u.yaml"));
  OK(rt, thicket_reload_changed(rt));
  agent = thicket_restore_agent(rt, bytes, len);
  OK(rt, agent);
  CHECK(thicket_agent_id(rt, agent) == 999);
  /* From a leaf of one agent's tick too. */
  OK(rt, thicket_set_integer(rt, list[0], "done", 0));
  m.parallel = 0;
  CHECK(thicket_tick(rt, list[0], 0.1) == THICKET_SUCCESS);
  check_meddled(rt, list[0], 0);
  CHECK(thicket_errcode(rt) == THICKET_ERR_IN_TICK);
  CHECK(thicket_find_agent(rt, 2001) >= 0); /* its deferred spawn (its second tick) */
  thicket_free_bytes(bytes);
  thicket_runtime_free(rt);
  free(log.s);
}

/* Stop hooks that run between ticks (a despawn's, a reload's, a restore's) are leaves to the
** calls they make: their spawn is deferred to the end of the call that ran them, a despawn of
** their own agent too, and a tick, restore or registration is refused. Made at once, the spawn
** grew the agent array under the despawn running the hook (use after free), and the despawn of
** its own agent recursed until the stack overflowed. */
typedef struct {
  thicket_runtime *rt;
  int32_t loot;
  int spawn_err, tick_err, reg_err, restore_err, stops;
  const void *snapshot;
  size_t snapshot_len;
} reentry_data;
static int crun(thicket_leaf_ctx *ctx, void *user) {
  (void)ctx;
  (void)user;
  return THICKET_RUNNING;
}
static void creenter(thicket_leaf_ctx *ctx, int status, void *user) {
  reentry_data *r = (reentry_data *)user;
  int k;
  (void)status;
  ++r->stops;
  for (k = 0; k < 40; ++k) { /* enough to move the agent array, were they made at once */
    CHECK(thicket_spawn(r->rt, r->loot) == -1);
    r->spawn_err = thicket_errcode(r->rt);
  }
  CHECK(thicket_despawn(r->rt, thicket_leaf_agent(ctx)) == THICKET_OK);
  r->tick_err = thicket_tick(r->rt, thicket_leaf_agent(ctx), 0.1);
  r->restore_err = thicket_restore(r->rt, r->snapshot, r->snapshot_len);
  r->reg_err = thicket_register_leaf(r->rt, "Late", cnoop, NULL);
}
static void test_stop_hooks_between_ticks(void) {
  thicket_runtime *rt = thicket_runtime_new();
  reentry_data r;
  text log = {0};
  int32_t guard;
  int64_t a, b, x, y;
  void *bytes = NULL;
  size_t len = 0;
  memset(&r, 0, sizeof r);
  r.rt = rt;
  OK(rt, thicket_set_log(rt, log_to_text, &log));
  OK(rt, thicket_register_leaf_hooks(rt, "Reenter", crun, NULL, creenter, &r, 0));
  guard = thicket_load_string(rt, "tree: guard\nroot:\n  action: Reenter\n", "guard.yaml");
  OK(rt, guard);
  r.loot = thicket_load_string(rt, "tree: loot\nroot:\n  wait: 5\n", "loot.yaml");
  OK(rt, r.loot);
  a = thicket_spawn(rt, guard);
  b = thicket_spawn(rt, guard);
  OK(rt, a);
  OK(rt, b);
  OK(rt, thicket_save(rt, &bytes, &len));
  r.snapshot = bytes;
  r.snapshot_len = len;
  OK(rt, thicket_tick_all(rt, 0.1));
  OK(rt, thicket_despawn(rt, a));
  CHECK(r.stops == 1);
  CHECK(r.spawn_err == THICKET_ERR_DEFERRED);
  CHECK(r.tick_err == THICKET_ERR_IN_TICK);
  CHECK(r.restore_err == THICKET_ERR_IN_TICK);
  CHECK(r.reg_err == THICKET_ERR_IN_TICK);
  CHECK(thicket_agent_count(rt) == 1 + 40);
  CHECK(thicket_despawn(rt, a) == THICKET_ERR_STALE);
  x = thicket_spawn(rt, r.loot);
  y = thicket_spawn(rt, r.loot);
  OK(rt, x);
  OK(rt, y);
  CHECK(x != y && thicket_agent_id(rt, x) != thicket_agent_id(rt, y));
  CHECK(thicket_agent_count(rt) == 1 + 40 + 2);
  /* The other guard, despawned by the game: the same again. */
  OK(rt, thicket_despawn(rt, b));
  CHECK(r.stops == 2);
  CHECK(thicket_agent_count(rt) == 40 + 2 + 40);
  thicket_free_bytes(bytes);
  thicket_runtime_free(rt);
  free(log.s);
}

/* A refused spawn between ticks is THICKET_ERR_ARG with its reason, never DEFERRED. */
static void test_agent_ids(void) {
  thicket_runtime *rt = thicket_runtime_new();
  text log = {0};
  int32_t brain;
  int64_t a;
  CHECK(rt != NULL);
  OK(rt, thicket_set_log(rt, log_to_text, &log));
  brain = thicket_load_string(rt, "tree: idle\nroot:\n  wait: 5\n", "idle.yaml");
  OK(rt, brain);
  CHECK(thicket_spawn_with_id(rt, brain, 0xFFFFFFFFu) == -1);
  CHECK(thicket_errcode(rt) == THICKET_ERR_ARG);
  CHECK(strstr(thicket_last_error(rt), "thicket_spawn_with_id: agent id 4294967295 is past the largest, 4294967294") != NULL);
  a = thicket_spawn_with_id(rt, brain, 0xFFFFFFFEu); /* the largest id: the count passes it */
  OK(rt, a);
  CHECK(thicket_agent_id(rt, a) == 0xFFFFFFFEu);
  a = thicket_spawn_with_id(rt, brain, 2); /* a free id still spawns */
  OK(rt, a);
  CHECK(thicket_agent_id(rt, a) == 2);
  a = thicket_spawn(rt, brain); /* automatic ids take ids no live agent has (it was refused) */
  OK(rt, a);
  CHECK(thicket_agent_id(rt, a) == 1);
  a = thicket_spawn(rt, brain);
  OK(rt, a);
  CHECK(thicket_agent_id(rt, a) == 3);
  CHECK(strstr(log.s, "warning: spawn: automatic agent ids have passed the largest") != NULL);
  CHECK(thicket_agent_count(rt) == 4);
  thicket_runtime_free(rt);
  free(log.s);
}

/* A leaf's despawn of agent 2 and a later leaf's spawn of id 2 in the same tick: both wait for
** the end of the tick and are made in agent order, so the id is free when the spawn is made (it
** was checked at the call, and refused as "in use"). */
static thicket_runtime *reuse_rt;
static int32_t reuse_brain;
static int64_t reuse_second, reuse_spawned = 0;
static int reuse_code = 0;
static int creuse(thicket_leaf_ctx *ctx, void *user) {
  (void)user;
  if (thicket_leaf_agent_id(ctx) == 1) thicket_despawn(reuse_rt, reuse_second);
  if (thicket_leaf_agent_id(ctx) == 3) {
    reuse_spawned = thicket_spawn_with_id(reuse_rt, reuse_brain, 2);
    reuse_code = thicket_errcode(reuse_rt);
  }
  return THICKET_RUNNING;
}
static void test_deferred_id_reuse(void) {
  thicket_runtime *rt = reuse_rt = thicket_runtime_new();
  int64_t again;
  OK(rt, thicket_register_leaf(rt, "Reuse", creuse, NULL));
  reuse_brain = thicket_load_string(rt, "tree: reuse\nroot:\n  action: Reuse\n", "reuse.yaml");
  OK(rt, reuse_brain);
  OK(rt, thicket_spawn(rt, reuse_brain));
  reuse_second = thicket_spawn(rt, reuse_brain);
  OK(rt, reuse_second);
  OK(rt, thicket_spawn(rt, reuse_brain));
  OK(rt, thicket_tick_all(rt, 0.1));
  CHECK(reuse_spawned == -1);
  CHECK(reuse_code == THICKET_ERR_DEFERRED);
  CHECK(thicket_agent_count(rt) == 3);
  again = thicket_find_agent(rt, 2);
  CHECK(again >= 0 && again != reuse_second);
  CHECK(thicket_status(rt, reuse_second) == THICKET_ERR_STALE);
  thicket_runtime_free(rt);
}

/* An fsm brain's trace: its transitions, and its end (the top-level final state left) a
** TRANSITION record of its own, ended 1, to_name "". */
static void trace_fsm(const thicket_trace_event *e, void *user) {
  if (e->type == THICKET_TRACE_TRANSITION)
    text_add((text *)user, "t%llu %s>%s ended=%d;", (unsigned long long)e->tick, e->from_name, e->to_name, e->ended);
}

static void test_fsm_end_trace(void) {
  thicket_runtime *rt = thicket_runtime_new();
  text out = {0};
  int32_t brain;
  int64_t a;
  CHECK(rt != NULL);
  brain = thicket_load_string(rt, "fsm: door\ninitial: closed\nstates:\n  closed: {transitions: {leave: gone}}\n"
                                  "  gone: {final: true}\n", "door.yaml");
  OK(rt, brain);
  a = thicket_spawn(rt, brain);
  OK(rt, a);
  OK(rt, thicket_set_trace(rt, trace_fsm, &out, 0));
  OK(rt, thicket_tick_all(rt, 0.1));
  OK(rt, thicket_send(rt, a, "leave"));
  OK(rt, thicket_tick_all(rt, 0.1));
  OK(rt, thicket_tick_all(rt, 0.1));
  CHECK(strcmp(text_str(&out), "t1 >closed ended=0;t2 closed>gone ended=0;t2 gone> ended=1;t3 >closed ended=0;") == 0);
  thicket_runtime_free(rt);
  free(out.s);
}

/* thicket_last_error(NULL)'s pointer stays valid (and unchanged) until the thread's next
** thicket_last_error call, whatever fails meanwhile. */
static void test_null_error_pointer(void) {
  const char *e;
  char before[128];
  CHECK(thicket_load_file(NULL, "x.yaml") == -1);
  e = thicket_last_error(NULL);
  snprintf(before, sizeof before, "%s", e);
  CHECK(strcmp(before, "thicket_load_file: the runtime is NULL") == 0);
  CHECK(thicket_status(NULL, 3) == THICKET_ERR_ARG); /* another failure, another message */
  CHECK(thicket_spawn_with_id(NULL, 0, 77) == -1);
  CHECK(strcmp(e, before) == 0);
  CHECK(strcmp(thicket_last_error(NULL), "thicket_spawn_with_id: the runtime is NULL") == 0);
}

/* tick_all's order is the slot order thicket_agents lists: a spawn takes the slot of the agent
** despawned most recently whose slot is still free, else a new slot after the others. */
static void tick_order_trace(const thicket_trace_event *e, void *user) {
  if (e->type == THICKET_TRACE_TICK) text_add((text *)user, " %u", e->agent);
}
static void check_order(thicket_runtime *rt, const char *expected) {
  text order = {0}, listed = {0};
  int64_t list[16], n, j;
  OK(rt, thicket_set_trace(rt, tick_order_trace, &order, 1));
  OK(rt, thicket_tick_all(rt, 0.1));
  OK(rt, thicket_set_trace(rt, NULL, NULL, 0));
  n = thicket_agents(rt, list, 16);
  CHECK(n >= 0 && n <= 16);
  for (j = 0; j < n; ++j) text_add(&listed, " %lld", (long long)thicket_agent_id(rt, list[j]));
  if (strcmp(text_str(&order), expected) != 0 || strcmp(text_str(&listed), expected) != 0)
    fprintf(stderr, "tick order '%s', agents '%s', expected '%s'\n", text_str(&order), text_str(&listed), expected);
  CHECK(strcmp(text_str(&order), expected) == 0);
  CHECK(strcmp(text_str(&listed), expected) == 0);
  free(order.s);
  free(listed.s);
}
static void test_tick_order(void) {
  thicket_runtime *rt = thicket_runtime_new();
  int32_t brain;
  int64_t a[8];
  void *bytes = NULL;
  size_t len = 0;
  int k;
  CHECK(rt != NULL);
  brain = thicket_load_string(rt, "tree: idle\nroot:\n  wait: 5\n", "idle.yaml");
  OK(rt, brain);
  for (k = 1; k <= 3; ++k) a[k] = thicket_spawn(rt, brain);
  check_order(rt, " 1 2 3");
  OK(rt, thicket_despawn(rt, a[1]));
  a[4] = thicket_spawn(rt, brain); /* takes agent 1's slot */
  check_order(rt, " 4 2 3");
  a[5] = thicket_spawn(rt, brain); /* no free slot: last */
  check_order(rt, " 4 2 3 5");
  OK(rt, thicket_despawn(rt, a[2]));
  OK(rt, thicket_despawn(rt, a[4]));
  a[6] = thicket_spawn(rt, brain); /* the slot of the most recent despawn (4's) */
  check_order(rt, " 6 3 5");
  a[7] = thicket_spawn(rt, brain); /* then 2's */
  check_order(rt, " 6 7 3 5");
  /* A restore keeps the order, and the free slots with it. */
  OK(rt, thicket_despawn(rt, a[3]));
  OK(rt, thicket_save(rt, &bytes, &len));
  OK(rt, thicket_restore(rt, bytes, len));
  check_order(rt, " 6 7 5");
  OK(rt, thicket_spawn(rt, brain)); /* id 8, in 3's slot */
  check_order(rt, " 6 7 8 5");
  thicket_free_bytes(bytes);
  thicket_runtime_free(rt);
}

/* A NUL inside a text (a YAML "\0" escape) reaches C as the two characters \0: it cut
** thicket_last_error short (the diagnostics after it were lost) and brain names with it. */
/* A trace's brain, state and running ids, as text. */
static void trace_names(const thicket_trace_event *e, void *user) {
  size_t k;
  if (e->type == THICKET_TRACE_TRANSITION) text_add((text *)user, "transition %s -> %s;", e->brain, e->to_name);
  if (e->type != THICKET_TRACE_TICK) return;
  text_add((text *)user, "running");
  for (k = 0; k < e->running_count; ++k) text_add((text *)user, " %s", e->running[k]);
  text_add((text *)user, ";");
}

static void test_nul_in_text(void) {
  thicket_runtime *rt = thicket_runtime_new();
  int32_t b;
  CHECK(rt != NULL);
  b = thicket_load_string(rt, "tree: t\nroot:\n  sequence:\n    - action: \"L\\0x\"\n    - action: Nope\n", "nul.yaml");
  CHECK(b == -1);
  CHECK(strstr(thicket_last_error(rt), "nul.yaml:4:") != NULL);
  CHECK(strstr(thicket_last_error(rt), "L\\0x") != NULL);
  CHECK(strstr(thicket_last_error(rt), "nul.yaml:5:") != NULL); /* the error after it */
  CHECK(thicket_load_file(rt, "") == -1); /* an empty path is a bad argument, as a NULL one */
  CHECK(thicket_errcode(rt) == THICKET_ERR_ARG);
  CHECK(strcmp(thicket_last_error(rt), "thicket_load_file: the path is empty") == 0);
  b = thicket_load_string(rt, "tree: \"guard\\0x\"\nroot:\n  wait: 1\n", "name.yaml");
  OK(rt, b);
  CHECK(strcmp(thicket_brain_name(rt, b), "guard\\0x") == 0);
  CHECK(thicket_load_string(rt, "tree: u\nroot: {action: \"M\\0y\"}\n", "u.yaml") == -1);
  CHECK(strstr(thicket_last_error(rt), "M\\0y") != NULL);
  /* A name (a path) with a byte that is no UTF-8 (Latin-1's e-acute): U+FFFD in what C gets back,
  ** which thicket.h promises is UTF-8 (the byte went through raw). */
  b = thicket_load_string(rt, "tree: w\nroot: {wait: 1}\n", "caf\xE9.yaml");
  OK(rt, b);
  CHECK(strcmp(thicket_brain_path(rt, b), "caf\xEF\xBF\xBD.yaml") == 0);
  CHECK(thicket_load_string(rt, "tree: v\nroot: {action: Nope}\n", "caf\xE9.yaml") == -1);
  CHECK(strstr(thicket_last_error(rt), "caf\xEF\xBF\xBD.yaml:2:") != NULL);
  CHECK(strchr(thicket_last_error(rt), '\xE9') == NULL);
  /* An fsm whose name and state hold a NUL: the trace's texts and the running ids escape it
  ** as thicket_brain_name does (they were cut at it: "s\0x" and "s\0x/act" read as "s"). */
  {
    text seen = {0};
    int64_t a;
    b = thicket_load_string(rt, "fsm: \"d\\0oor\"\ninitial: \"s\\0x\"\nstates:\n  \"s\\0x\": {tree: {wait: 1}}\n", "door.yaml");
    OK(rt, b);
    a = thicket_spawn(rt, b);
    OK(rt, a);
    OK(rt, thicket_set_trace(rt, trace_names, &seen, 1));
    OK(rt, thicket_tick(rt, a, 0.1));
    CHECK(seen.s && strstr(seen.s, "transition d\\0oor -> s\\0x;") != NULL);
    CHECK(seen.s && strstr(seen.s, "running root s\\0x s\\0x/tree;") != NULL);
    OK(rt, thicket_set_trace(rt, NULL, NULL, 0));
    free(seen.s);
  }
  thicket_runtime_free(rt);
}

static void quiet_log(const char *line, void *user) {
  (void)line;
  (void)user;
}

/* A save the runtime refuses (the scripts' values would pass the Lua heap's cap) is an error
** with the reason, *bytes NULL and *len 0: it was THICKET_OK with an empty buffer, which a game
** wrote as its save file. */
static void test_save_refused(void) {
  char dir[] = "/tmp/thicket_c_api_XXXXXX", yaml[64], lua[64];
  FILE *f;
  thicket_options o;
  thicket_runtime *rt;
  int32_t b;
  int64_t a;
  void *bytes = (void *)1;
  size_t len = 77;
  CHECK(mkdtemp(dir) != NULL);
  snprintf(yaml, sizeof yaml, "%s/hoard.yaml", dir);
  snprintf(lua, sizeof lua, "%s/hoard.lua", dir);
  CHECK((f = fopen(lua, "w")) != NULL);
  fputs("return {Hoard = function(agent)\n"
        "  local s = string.rep('x', 1024 * 1024)\n"
        "  for k = 1, 6 do agent['f' .. k] = s end\n"
        "  return 'running'\nend}\n", f);
  fclose(f);
  CHECK((f = fopen(yaml, "w")) != NULL);
  fputs("tree: hoard\nleaves: [hoard.lua]\nroot: {action: Hoard}\n", f);
  fclose(f);
  thicket_options_init(&o);
  o.lua_memory_limit = (size_t)4 << 20;
  rt = thicket_runtime_new_with(&o);
  CHECK(rt != NULL);
  OK(rt, thicket_set_log(rt, quiet_log, NULL));
  OK(rt, b = thicket_load_file(rt, yaml));
  OK(rt, a = thicket_spawn(rt, b));
  OK(rt, thicket_tick_all(rt, 0.1));
  CHECK(thicket_script_errors(rt) == 0);
  CHECK(thicket_save(rt, &bytes, &len) == THICKET_ERR_SNAPSHOT);
  CHECK(bytes == NULL && len == 0);
  CHECK(strstr(thicket_last_error(rt), "thicket_save: ") == thicket_last_error(rt));
  CHECK(strstr(thicket_last_error(rt), "Lua heap's cap") != NULL);
  bytes = (void *)1;
  len = 77;
  CHECK(thicket_save_agent(rt, a, &bytes, &len) == THICKET_ERR_SNAPSHOT);
  CHECK(bytes == NULL && len == 0);
  CHECK(strstr(thicket_last_error(rt), "Lua heap's cap") != NULL);
  thicket_runtime_free(rt);
  remove(yaml);
  remove(lua);
  rmdir(dir);
}

/* Two threads calling thicket_tick_all on one runtime at once: one of each pair of overlapping
** calls is refused (THICKET_ERR_IN_TICK), never both run. Each call looked at the tick flag
** before it set it, so both could pass: two ticks of the same agent at once (a data race), or
** one refused inside the runtime while THICKET_OK was returned for a tick that never ran. */
static thicket_runtime *twin_rt;
static long twin_logged;
static void twin_log(const char *line, void *user) {
  (void)line;
  (void)user;
  __atomic_add_fetch(&twin_logged, 1, __ATOMIC_SEQ_CST);
}
static long twin_ok, twin_refused, twin_other, twin_in_leaf, twin_overlaps, twin_leaf_calls;
static int twin_leaf(thicket_leaf_ctx *ctx, void *user) {
  (void)ctx;
  (void)user;
  if (__atomic_add_fetch(&twin_in_leaf, 1, __ATOMIC_SEQ_CST) > 1) __atomic_add_fetch(&twin_overlaps, 1, __ATOMIC_SEQ_CST);
  __atomic_add_fetch(&twin_leaf_calls, 1, __ATOMIC_SEQ_CST);
  {
    volatile int k;
    for (k = 0; k < 50; ++k) {
    }
  }
  __atomic_sub_fetch(&twin_in_leaf, 1, __ATOMIC_SEQ_CST);
  return THICKET_SUCCESS;
}
/* Both threads call at the same moment: a spin barrier before each call. */
static long twin_arrived;
static void *twin_ticker(void *unused) {
  long round, spins;
  (void)unused;
  for (round = 1; round <= 20000; ++round) {
    int code;
    __atomic_add_fetch(&twin_arrived, 1, __ATOMIC_SEQ_CST);
    for (spins = 0; __atomic_load_n(&twin_arrived, __ATOMIC_SEQ_CST) < 2 * round; ++spins)
      if (spins > 20000) sched_yield(); /* the other thread is not running: let it */
    code = thicket_tick_all(twin_rt, 0.01);
    if (code == THICKET_OK) __atomic_add_fetch(&twin_ok, 1, __ATOMIC_SEQ_CST);
    else if (code == THICKET_ERR_IN_TICK) __atomic_add_fetch(&twin_refused, 1, __ATOMIC_SEQ_CST);
    else __atomic_add_fetch(&twin_other, 1, __ATOMIC_SEQ_CST);
  }
  return NULL;
}
static void test_two_threads_tick(void) {
  pthread_t t[2];
  int k;
  int32_t b;
  thicket_runtime *rt = thicket_runtime_new();
  twin_rt = rt;
  OK(rt, thicket_set_log(rt, twin_log, NULL));
  OK(rt, thicket_register_leaf(rt, "Count", twin_leaf, NULL));
  OK(rt, b = thicket_load_string(rt, "tree: twin\nroot: {action: Count}\n", "twin.yaml"));
  OK(rt, thicket_spawn(rt, b));
  for (k = 0; k < 2; ++k) CHECK(pthread_create(&t[k], NULL, twin_ticker, NULL) == 0);
  for (k = 0; k < 2; ++k) CHECK(pthread_join(t[k], NULL) == 0);
  CHECK(twin_other == 0);
  CHECK(twin_overlaps == 0);
  CHECK(twin_ok + twin_refused == 40000);
  CHECK(twin_leaf_calls == twin_ok); /* each THICKET_OK ticked the agent once, and only those */
  CHECK(twin_logged == 0);           /* none got past this check to be refused by the runtime's own */
  thicket_runtime_free(rt);
}

/* Loads on one thread while another ticks: each load is made or refused, each tick made or
** refused, never both at once (a load that passed its look at the tick flag just before the
** other thread's tick began ran beside it: a use after free, a crash within a few runs). And a
** load from a log callback of a load is refused: THICKET_ERR_BUSY. */
static thicket_runtime *race_rt;
static volatile int race_stop;
static long race_ticks, race_busy_ticks;
static void *race_ticker(void *unused) {
  (void)unused;
  while (!__atomic_load_n(&race_stop, __ATOMIC_SEQ_CST)) {
    int code = thicket_tick_all(race_rt, 0.01);
    if (code == THICKET_OK) __atomic_add_fetch(&race_ticks, 1, __ATOMIC_SEQ_CST);
    else if (code == THICKET_ERR_BUSY) __atomic_add_fetch(&race_busy_ticks, 1, __ATOMIC_SEQ_CST);
    else {
      fprintf(stderr, "tick_all returned %d\n", code);
      exit(1);
    }
  }
  return NULL;
}
static int nested_code;
static void load_from_log(const char *line, void *user) {
  thicket_runtime *rt = (thicket_runtime *)user;
  (void)line;
  if (nested_code == 0)
    nested_code = thicket_load_string(rt, "tree: inner\nroot:\n  wait: 1\n", "inner.yaml") < 0 ? thicket_errcode(rt) : 1;
}
static void test_load_beside_a_tick(void) {
  pthread_t t;
  int k, loaded = 0, refused = 0, b;
  thicket_runtime *rt = thicket_runtime_new();
  race_rt = rt;
  b = thicket_load_string(rt, "tree: w\nroot:\n  wait: 100\n", "w.yaml");
  CHECK(b >= 0);
  for (k = 0; k < 300; ++k) OK(rt, thicket_spawn(rt, b));
  CHECK(pthread_create(&t, NULL, race_ticker, NULL) == 0);
  /* The loads start once the other thread ticks: on a busy machine it could be scheduled only
  ** after all 400 loads were done, and no load ran beside a tick (a CI run failed so). */
  while (__atomic_load_n(&race_ticks, __ATOMIC_SEQ_CST) + __atomic_load_n(&race_busy_ticks, __ATOMIC_SEQ_CST) == 0)
    sched_yield();
  for (k = 0; k < 400; ++k) {
    if (thicket_load_string(rt, "tree: late\nroot:\n  wait: 1\n", "late.yaml") >= 0) ++loaded;
    else ++refused;
  }
  __atomic_store_n(&race_stop, 1, __ATOMIC_SEQ_CST);
  CHECK(pthread_join(t, NULL) == 0);
  CHECK(loaded + refused == 400);
  CHECK(race_ticks + race_busy_ticks > 0);
  /* between ticks, on one thread: made */
  CHECK(thicket_load_string(rt, "tree: late\nroot:\n  wait: 1\n", "late.yaml") >= 0);
  /* a load from a log callback of a load (its leaf file logs as it loads): refused */
  {
    char dir[] = "/tmp/thicket_c_api_XXXXXX", yaml[64], lua[64];
    FILE *f;
    CHECK(mkdtemp(dir) != NULL);
    snprintf(yaml, sizeof yaml, "%s/noisy.yaml", dir);
    snprintf(lua, sizeof lua, "%s/noisy.lua", dir);
    CHECK((f = fopen(lua, "w")) != NULL);
    fputs("require('thicket').log('loading')\nreturn {Quiet = function() return true end}\n", f);
    fclose(f);
    CHECK((f = fopen(yaml, "w")) != NULL);
    fputs("tree: noisy\nleaves: [noisy.lua]\nroot: {action: Quiet}\n", f);
    fclose(f);
    OK(rt, thicket_set_log(rt, load_from_log, rt));
    OK(rt, thicket_load_file(rt, yaml));
    CHECK(nested_code == THICKET_ERR_BUSY);
    remove(yaml);
    remove(lua);
    rmdir(dir);
  }
  thicket_runtime_free(rt);
}

/* A reload's log lines (its notice, a line the reloaded leaf file logs as it loads) come while
** it runs: a tick or another reload called from them is refused with THICKET_ERR_BUSY, as during
** a load (they were told THICKET_ERR_IN_TICK: a reload marks its stop hooks as ticking). */
static thicket_runtime *busy_rt;
static int busy_calls, busy_tick_code, busy_reload_code;
static void calls_from_log(const char *line, void *user) {
  (void)line;
  (void)user;
  ++busy_calls;
  busy_tick_code = thicket_tick_all(busy_rt, 0.1);
  busy_reload_code = thicket_reload_changed(busy_rt);
}
static void test_calls_during_a_reload(void) {
  char dir[] = "/tmp/thicket_c_api_XXXXXX", yaml[64], lua[64];
  thicket_runtime *rt = thicket_runtime_new();
  int32_t b;
  busy_rt = rt;
  CHECK(mkdtemp(dir) != NULL);
  snprintf(yaml, sizeof yaml, "%s/a.yaml", dir);
  snprintf(lua, sizeof lua, "%s/a.lua", dir);
  write_file(yaml, "tree: a\nleaves: [a.lua]\nroot:\n  action: A\n");
  write_file(lua, "local t = require('thicket')\nreturn {A = function() return t.RUNNING end}\n");
  b = thicket_load_file(rt, yaml);
  OK(rt, b);
  OK(rt, thicket_spawn(rt, b));
  OK(rt, thicket_tick_all(rt, 0.1));
  OK(rt, thicket_set_log(rt, calls_from_log, NULL));
  write_file(lua, "local t = require('thicket')\nt.log('a.lua loads again')\nreturn {A = function() return t.SUCCESS end}\n");
  CHECK(thicket_reload_changed(rt) == 1);
  CHECK(busy_calls >= 1);
  CHECK(busy_tick_code == THICKET_ERR_BUSY);
  CHECK(busy_reload_code == THICKET_ERR_BUSY);
  /* After it, both are made again. */
  OK(rt, thicket_set_log(rt, NULL, NULL));
  OK(rt, thicket_tick_all(rt, 0.1));
  CHECK(thicket_reload_changed(rt) == 0);
  thicket_runtime_free(rt);
  remove(yaml);
  remove(lua);
  rmdir(dir);
}

/* Lua's print lines to thicket_set_print's callback, in agent order; NULL: standard output again. */
static void test_print(void) {
  thicket_runtime *rt = thicket_runtime_new();
  text printed = {0};
  int32_t brain;
  CHECK(thicket_set_print(NULL, NULL, NULL) == THICKET_ERR_ARG);
  OK(rt, thicket_set_print(rt, log_to_text, &printed));
  brain = thicket_load_string(rt, "tree: talk\nleaves: [print.lua]\nroot: {action: Say}\n", fixture("talk.yaml"));
  OK(rt, brain);
  OK(rt, thicket_spawn(rt, brain));
  OK(rt, thicket_spawn(rt, brain));
  OK(rt, thicket_tick_all(rt, 0.1));
  CHECK(printed.s && strcmp(printed.s, "agent 1 says hi\nagent 2 says hi\n") == 0);
  OK(rt, thicket_set_print(rt, NULL, NULL));
  /* An empty name would start every message with ":LINE:COL": refused, as an empty path is. */
  CHECK(thicket_load_string(rt, "tree: t\nroot: {wait: 1}\n", "") == -1 && thicket_errcode(rt) == THICKET_ERR_ARG &&
        strstr(thicket_last_error(rt), "the name is empty") != NULL);
  free(printed.s);
  thicket_runtime_free(rt);
}

int main(int argc, char **argv) {
  if (argc != 2) {
    fprintf(stderr, "usage: %s FIXTURES_DIR\n", argv[0]);
    return 2;
  }
  snprintf(fixtures, sizeof fixtures, "%s", argv[1]);
  test_version_and_null();
  test_options();
  test_load();
  test_agents();
  test_leaf_ctx_types();
  test_leaf_answer_values();
  test_free_in_tick();
  test_leaf_answer_values_batched();
  test_snapshots();
  test_stop_hooks_between_ticks();
  test_parallel();
  test_time_slicing();
  test_reload();
  test_script_state_cap();
  test_in_tick(0);
  test_in_tick(1);
  test_agent_ids();
  test_deferred_id_reuse();
  test_fsm_end_trace();
  test_null_error_pointer();
  test_tick_order();
  test_nul_in_text();
  test_spawn_from_log_callback();
  test_load_beside_a_tick();
  test_save_refused();
  test_two_threads_tick();
  test_calls_during_a_reload();
  test_print();
  printf("c_api: %d checks passed\n", checks);
  return 0;
}
