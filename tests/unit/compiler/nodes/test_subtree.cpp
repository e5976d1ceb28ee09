// Subtree nodes: trees of the same file and of imported files compiled in place, and cycles.
#include <doctest/doctest.h>

#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include <unistd.h>

#include "nodes_fixture.hpp"

using thicket::LeafContext;
using thicket::NativeLeaf;
using thicket::Status;
using thicket_test::Bt;
using thicket_test::text;

TEST_CASE("nodes: subtree from the same file's trees: map is compiled inline, with ids from the root") {
  Bt t;
  t.act("a", "S");
  t.act("b", "R");
  t.act("c", "R");
  t.load(R"(
tree: main
trees:
  attack:
    sequence: [ {action: a}, {action: b} ]
root:
  selector:
    - subtree: attack
    - action: c
)");
  CHECK(t.run(2) == text(R"(
1 start a
1 tick a success
1 stop a success
1 start b
1 tick b running
2 tick b running
status 1 running
status 2 running
)"));
  CHECK(t.node_of["b"] == "root/0/1");
  CHECK(t.rt.running_nodes(t.agent) == std::vector<std::string>{"root", "root/0", "root/0/1"});
}

TEST_CASE("nodes: subtree from an imported file") {
  namespace fs = std::filesystem;
  fs::path dir = fs::temp_directory_path() / ("thicket_test_nodes_" + std::to_string(::getpid()));
  fs::create_directories(dir);
  struct Cleanup {
    fs::path p;
    ~Cleanup() {
      std::error_code ec;
      fs::remove_all(p, ec);
    }
  } cleanup{dir};
  {
    std::ofstream(dir / "lib.yaml") << "tree: patrol_loop\nroot:\n  sequence: [ {action: a}, {wait: 0.5}, {action: b} ]\n";
  }
  Bt t;
  t.act("a", "S");
  t.act("b", "S");
  t.act("c", "S");
  t.load(R"(
tree: main
import: [lib.yaml]
root:
  sequence:
    - subtree: patrol_loop
    - action: c
)",
         (dir / "main.yaml").string());
  CHECK(t.run(2) == text(R"(
1 start a
1 tick a success
1 stop a success
2 start b
2 tick b success
2 stop b success
2 start c
2 tick c success
2 stop c success
status 1 running
status 2 success
)"));
}

TEST_CASE("nodes: subtree cycles are load errors") {
  thicket::Runtime rt(thicket::RuntimeOptions{.log = [](const std::string&) {}});
  rt.register_leaf("a", NativeLeaf{.tick = [](LeafContext&) { return Status::Success; }, .start = {}, .stop = {}});
  std::vector<thicket::Diagnostic> d;
  auto b = rt.load_string(R"(
tree: main
trees:
  x:
    sequence: [ {action: a}, {subtree: y} ]
  y:
    selector: [ {subtree: x} ]
root:
  subtree: x
)",
                          "cycle.yaml", d);
  CHECK_FALSE(b.has_value());
  bool cycle = false;
  for (const auto& x : d) cycle = cycle || (x.severity == thicket::Severity::Error && x.message.find("cycle") != std::string::npos);
  CHECK(cycle);
}
