// A program linked with thicket_core alone (no Lua binding): native leaves and `any`
// blackboard values work, and a brain that lists a Lua leaf file is a clear load error.
// Run by ctest (native_only_core); exits non-zero on the first failed check.
#include <unistd.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <string>
#include <variant>
#include <vector>

#include "thicket/runtime.hpp"

namespace {
int failures = 0;
void check(bool ok, const char* what) {
  if (!ok) {
    std::printf("FAIL: %s\n", what);
    ++failures;
  }
}
}  // namespace

int main() {
  thicket::Runtime rt;
  thicket::NativeLeaf note;
  note.tick = [](thicket::LeafContext& ctx) {
    ctx.set("target", thicket::Value(std::string("wolf")));
    return thicket::Status::Success;
  };
  rt.register_leaf("Note", note);
  std::vector<thicket::Diagnostic> d;
  auto brain = rt.load_string("tree: t\nblackboard: {target: {type: any}}\nroot: {action: Note}\n", "t.yaml", d);
  check(brain.has_value(), "a native brain loads without a script binding");
  if (brain) {
    auto a = rt.spawn(*brain);
    check(rt.tick(a, 0.1) == thicket::Status::Success, "the native leaf runs");
    auto v = rt.get(a, "target");
    check(v && std::holds_alternative<std::string>(*v) && std::get<std::string>(*v) == "wolf",
          "an `any` value written by a native leaf reads back");
    check(rt.set(a, "target", thicket::Value(int64_t{3})), "the game writes an `any` value");
    v = rt.get(a, "target");
    check(v && std::holds_alternative<int64_t>(*v) && std::get<int64_t>(*v) == 3, "and reads it back");
  }
  d.clear();
  const auto dir = std::filesystem::temp_directory_path() / ("thicket_native_only_" + std::to_string(::getpid()));
  std::filesystem::create_directories(dir);
  std::ofstream(dir / "leaves.lua") << "return { X = function() return true end }\n";
  auto lua = rt.load_string("tree: l\nleaves: [leaves.lua]\nroot: {action: X}\n", (dir / "l.yaml").string(), d);
  std::filesystem::remove_all(dir);
  std::string all;
  for (const auto& x : d) all += thicket::format_diagnostic(x) + "\n";
  check(!lua.has_value(), "a brain with Lua leaf files does not load");
  check(all.find("leaves.lua: error: this program has no script binding: Lua leaf files need the thicket_lua "
                 "library") != std::string::npos,
        "the error names the leaf file and the missing binding");
  if (failures) std::printf("%s", all.c_str());
  std::printf("native_only_core: %s\n", failures ? "FAILED" : "ok");
  return failures ? 1 : 0;
}
