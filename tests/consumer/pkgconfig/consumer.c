/* A C program linking the installed thicket through pkg-config and the C API alone:
**   cc $(pkg-config --cflags thicket) consumer.c $(pkg-config --libs thicket)
** Loads tests/consumer/data/counter.yaml (its leaf is Lua), spawns two agents, ticks them and
** checks their status and blackboard. Exit 0 when all is as expected.
**   consumer PATH/TO/counter.yaml */
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <thicket/thicket.h>
#include <thicket/version.hpp>

static int failures = 0;

static void expect(int ok, const char *what) {
  if (!ok) {
    fprintf(stderr, "consumer.c: FAILED: %s\n", what);
    ++failures;
  }
}

/* The agent's status and count after a tick: 3 = running, 1 = success, 2 = failure. */
static void check(thicket_runtime *rt, int64_t agent, int tick, int status, double count) {
  double got = -1;
  char what[128];
  snprintf(what, sizeof what, "tick %d: status %d, expected %d", tick, thicket_status(rt, agent), status);
  expect(thicket_status(rt, agent) == status, what);
  expect(thicket_get_number(rt, agent, "count", &got) == 0, "thicket_get_number(count)");
  snprintf(what, sizeof what, "tick %d: count %g, expected %g", tick, got, count);
  expect(got == count, what);
}

int main(int argc, char **argv) {
  thicket_runtime *rt;
  int32_t brain;
  int64_t a, b;
  int tick;

  if (argc != 2) {
    fprintf(stderr, "usage: consumer PATH/TO/counter.yaml\n");
    return 64;
  }
  printf("thicket %s\n", thicket_version());
  expect(strcmp(thicket_version(), THICKET_VERSION_STRING) == 0, "thicket_version() matches version.hpp");

  rt = thicket_runtime_new();
  if (!rt) {
    fprintf(stderr, "consumer.c: FAILED: thicket_runtime_new\n");
    return 1;
  }
  brain = thicket_load_file(rt, argv[1]);
  if (brain < 0) {
    fprintf(stderr, "consumer.c: FAILED: %s did not load (%d): %s\n", argv[1], (int)brain, thicket_last_error(rt));
    thicket_runtime_free(rt);
    return 1;
  }
  a = thicket_spawn(rt, brain);
  b = thicket_spawn(rt, brain);
  expect(a >= 0 && b >= 0 && a != b, "thicket_spawn");

  /* counter.yaml's default target is 5: running for four ticks, success on the fifth, and on
  ** the sixth the check count < target fails. */
  for (tick = 1; tick <= 6; ++tick) {
    expect(thicket_tick_all(rt, 0.1) == 0, "thicket_tick_all");
    if (tick == 4) check(rt, a, tick, 3, 4);
    if (tick == 5) check(rt, a, tick, 1, 5);
    if (tick == 6) check(rt, b, tick, 2, 5);
  }
  expect(thicket_tick_all(rt, -1) < 0, "thicket_tick_all with dt < 0 fails");
  thicket_runtime_free(rt);
  printf("%s\n", failures == 0 ? "ok" : "FAILED");
  return failures == 0 ? 0 : 1;
}
