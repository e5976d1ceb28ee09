// The spec's worked examples (SPEC 12), run with native leaves: each prints the expected log
// kept in tests/spec_examples/.
#include <doctest/doctest.h>

#include <string>

#include "nodes_fixture.hpp"

using thicket::LeafContext;
using thicket::NativeLeaf;
using thicket::Status;
using thicket_test::Bt;
using thicket_test::text;
using thicket_test::read_text;

// ---------------------------------------------------------------- worked examples (SPEC 12)

TEST_CASE("nodes: seed 000's guard, with native leaves, prints examples/seed000_guard.expected") {
  Bt t;
  t.cond("see", {3, 4, 5, 6, 7, 8, 9});
  t.cond("low", {7, 8});
  t.cond("dead", {5});
  t.act("runaway", "R");
  t.act("attack", "R");
  t.act("patrol", "R");
  t.load(R"(
tree: seed000_guard
root:
  active_selector:
    - sequence:
        - condition: see
        - active_selector:
            - sequence:
                - condition: low
                - action: runaway
            - monitor:
                - condition: {leaf: dead, negate: true}
                - action: attack
    - action: patrol
)");
  std::string expected = read_text(THICKET_SOURCE_DIR "/tests/spec_examples/seed000_guard.expected");
  REQUIRE(!expected.empty());
  CHECK(t.run(12) == expected);
}

TEST_CASE("nodes: seed 001's nested aborts, with native leaves, prints examples/seed001_nested_aborts.expected") {
  Bt t;
  t.cond("can_see", {5, 6});
  t.cond("can_hear", {3, 9});
  t.act("patrol", "RRS");
  t.act("smoke", "R");
  t.load(R"(
tree: abort_lower
root:
  selector:
    - sequence:
        abort: lower_priority
        children:
          - selector:
              abort: lower_priority
              children:
                - condition: can_see
                - condition: can_hear
          - action: patrol
    - action: smoke
)");
  std::string expected = read_text(THICKET_SOURCE_DIR "/tests/spec_examples/seed001_nested_aborts.expected");
  REQUIRE(!expected.empty());
  CHECK(t.run(12) == expected);
}
