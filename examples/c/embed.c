/* Embedding thicket from C (thicket/thicket.h): load a brain from a string, give it a C leaf,
** spawn two agents, tick them, read and write their blackboards, and watch the trace.
** The C twin of docs/examples/cpp/embed.cpp; the guide's "The C API" (chapter 9) walks through it.
**
** Build (from the repository root, after building the library; c_api.cpp is in the core):
**   gcc -std=c99 -Iruntime/include -c examples/c/embed.c -o /tmp/embed_c.o &&
**   g++ /tmp/embed_c.o build/libthicket_core.a -lyaml-cpp -o /tmp/embed_c && /tmp/embed_c
** (CMake builds it as build/embed_c.) */
#include <stdio.h>

#include "thicket/thicket.h"

/* A C leaf: it spends one unit of stamina per tick and keeps running until the stamina is
** gone; then it fails. `user` is whatever was given at registration (unused here). */
static int train(thicket_leaf_ctx *ctx, void *user) {
  double stamina = 0;
  (void)user;
  if (thicket_leaf_get_number(ctx, "stamina", &stamina) != THICKET_OK) return THICKET_FAILURE;
  stamina -= 1;
  thicket_leaf_set_number(ctx, "stamina", stamina);
  printf("  agent %lld trains at t=%.1f (stamina %.0f)\n", (long long)thicket_leaf_agent_id(ctx),
         thicket_leaf_time(ctx), stamina);
  return stamina <= 0 ? THICKET_FAILURE : THICKET_RUNNING;
}

static void stop_training(thicket_leaf_ctx *ctx, int status, void *user) {
  (void)user;
  printf("  agent %lld stops training (%s)\n", (long long)thicket_leaf_agent_id(ctx),
         status == THICKET_ABORTED ? "aborted" : status == THICKET_FAILURE ? "failure" : "success");
}

/* Conditional aborts, from the trace (THICKET_TRACE_TICK records are not asked for). */
static void on_trace(const thicket_trace_event *e, void *user) {
  (void)user;
  if (e->type == THICKET_TRACE_ABORT)
    printf("  abort in agent %u: %s interrupts %s\n", e->agent, e->condition_label, e->aborted);
}

static void print_node(const char *id, void *user) {
  (void)user;
  printf(" %s", id);
}

int main(void) {
  static const char yaml[] =
      "tree: trainee\n"
      "blackboard:\n"
      "  stamina: 3\n"
      "  resting: false\n"
      "root:\n"
      "  selector:\n"
      "    - sequence:\n"
      "        abort: self\n"
      "        children:\n"
      "          - condition: {check: \"not resting\"}\n"
      "          - action: Train\n"
      "    - wait: 1.0\n";
  thicket_runtime *rt = thicket_runtime_new(); /* seed 1, sandboxed Lua (when linked), log to stderr */
  int32_t brain;
  int64_t a, b;
  double stamina = 0;
  int tick, status;
  if (!rt) {
    fprintf(stderr, "%s\n", thicket_last_error(NULL));
    return 1;
  }
  /* Leaves before the brains that use them. */
  thicket_register_leaf_hooks(rt, "Train", train, NULL, stop_training, NULL, 0);
  thicket_set_trace(rt, on_trace, NULL, 0);

  brain = thicket_load_string(rt, yaml, "trainee.yaml");
  if (brain < 0) {
    printf("%s\n", thicket_last_error(rt)); /* every diagnostic, one a line */
    thicket_runtime_free(rt);
    return 2;
  }

  /* Two agents; the second starts with more stamina. */
  a = thicket_spawn(rt, brain);
  b = thicket_spawn(rt, brain);
  thicket_set_number(rt, b, "stamina", 5);

  for (tick = 1; tick <= 3; ++tick) {
    printf("tick %d\n", tick);
    thicket_tick_all(rt, 0.5);
  }
  /* The game tells agent b to rest: its sequence re-checks the condition (abort: self) and
  ** interrupts the training. */
  thicket_set_bool(rt, b, "resting", 1);
  printf("tick 4\n");
  status = thicket_tick(rt, b, 0.5); /* one agent only */
  printf("agent %lld: root %s, running:", (long long)thicket_agent_id(rt, b),
         status == THICKET_RUNNING ? "running" : "not running");
  thicket_running_nodes(rt, b, print_node, NULL);
  thicket_get_number(rt, b, "stamina", &stamina);
  printf(", stamina %.0f\n", stamina);

  /* A despawned agent's handle is stale: calls on it fail, they never crash. */
  thicket_despawn(rt, a);
  if (thicket_status(rt, a) == THICKET_ERR_STALE) printf("agent 1 despawned: %s\n", thicket_last_error(rt));

  /* A brain with a mistake loads as nothing, with every problem listed. */
  if (thicket_load_string(rt, "tree: broken\nroot: {action: Trian}\n", "broken.yaml") < 0)
    printf("%s\nbroken brain loaded: no\n", thicket_last_error(rt));
  thicket_runtime_free(rt);
  return 0;
}
