// A native leaf answering with a status its kind does not give (an action: success, failure or
// running; a condition: success or failure) is reported as a Lua leaf's answer would be (an
// error in the log, counted by script_errors) and taken as failure, on every path the tick loop
// calls native leaves by: the walk's shortcuts, the general path, the batched walk.
#include <doctest/doctest.h>

#include <string>
#include <vector>

#include "thicket/runtime.hpp"

namespace {

using thicket::LeafContext;
using thicket::Status;

struct Seen {
  Status answer = Status::Invalid;
  int marks = 0;
  std::vector<std::string> log;
};

// Bad answers `seen.answer`; Mark counts the calls that follow it. `form`: 0 NativeLeafFn,
// 1 NativeLeafFn agent_local (batched past 32 agents), 2 NativeLeaf (std::function), 3 with a
// start hook (the general path).
void run(Seen& seen, const char* kind, int form, int agents, uint64_t& errors) {
  thicket::RuntimeOptions o;
  o.log = [&seen](const std::string& line) { seen.log.push_back(line); };
  thicket::Runtime rt(std::move(o));
  thicket::NativeLeafFn mark;
  mark.user = &seen;
  mark.tick = [](LeafContext&, void* u) {
    ++static_cast<Seen*>(u)->marks;
    return Status::Success;
  };
  rt.register_leaf("Mark", mark);
  if (form == 2) {
    thicket::NativeLeaf bad;
    bad.tick = [&seen](LeafContext&) { return seen.answer; };
    rt.register_leaf("Bad", bad);
  } else {
    thicket::NativeLeafFn bad;
    bad.user = &seen;
    bad.tick = [](LeafContext&, void* u) { return static_cast<Seen*>(u)->answer; };
    bad.agent_local = form == 1;
    if (form == 3) bad.start = [](LeafContext&, void*) {};
    rt.register_leaf("Bad", bad);
  }
  std::vector<thicket::Diagnostic> d;
  auto brain = rt.load_string(std::string("tree: t\nroot:\n  sequence:\n    - ") + kind + ": Bad\n    - action: Mark\n", "t.yaml", d);
  REQUIRE(brain);
  for (int k = 0; k < agents; ++k) rt.spawn(*brain);
  rt.tick_all(0.1);
  errors = rt.script_errors();
  for (const auto& a : rt.agents()) CHECK(rt.status(a) == Status::Failure);
}

}  // namespace

TEST_CASE("a native leaf answering a status its kind does not give fails, with an error, on every path") {
  struct Case {
    const char* kind;
    Status answer;
    const char* said;
  };
  const Case cases[] = {
      {"action", Status::Invalid, "action 'Bad' returned invalid, not success, failure or running; taken as failure"},
      {"action", Status::Aborted, "action 'Bad' returned aborted, not success, failure or running; taken as failure"},
      {"action", static_cast<Status>(99), "action 'Bad' returned the value 99, not success, failure or running; taken as failure"},
      {"condition", Status::Running,
       "condition 'Bad' returned running; a condition answers success or failure in the tick it is called"},
      {"condition", Status::Invalid, "condition 'Bad' returned invalid, not success or failure; taken as failure"},
  };
  for (const Case& c : cases) {
    for (int form = 0; form < 4; ++form) {
      for (int agents : {1, 40}) {
        CAPTURE(c.said);
        CAPTURE(form);
        CAPTURE(agents);
        Seen seen;
        seen.answer = c.answer;
        uint64_t errors = 0;
        run(seen, c.kind, form, agents, errors);
        CHECK(seen.marks == 0);  // the sequence stopped at the failure
        CHECK(errors == static_cast<uint64_t>(agents));
        REQUIRE(!seen.log.empty());
        CHECK(seen.log[0].rfind(std::string("error: ") + c.said + "\n  in leaf 'Bad' at node root/0, agent ", 0) == 0);
      }
    }
  }
}
