// Fuzz target: the `check:` expression compiler (runtime/src/compiler/expr.cpp). The input is the
// expression's source, compiled against a blackboard with a key of every type; an expression
// that compiles is disassembled and evaluated on two different blackboards.
#include <cmath>
#include <memory>
#include <string_view>
#include <vector>

#include "expr.hpp"
#include "fuzz_target.hpp"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size > thicket::fuzz::kMaxInput) return -1;
  using thicket::ValueType;
  static const std::vector<thicket::ExprKey> keys = {
      {"health", ValueType::Number, 0}, {"ammo", ValueType::Integer, 1}, {"alert", ValueType::Boolean, 2},
      {"mood", ValueType::String, 3},   {"target", ValueType::Any, 4},   {"armed", ValueType::Boolean, 5},
      {"name", ValueType::String, 6},   {"x", ValueType::Number, 7},
  };
  // One table for a thousand inputs, then a fresh one (what the inputs intern stays bounded): a
  // table per input allocated and zeroed its 512 KiB chunk directory each time, which under ASan
  // took most of the ~3 ms an input cost (the target reached 45-byte inputs in 300 s).
  static std::unique_ptr<thicket::StringTable> table;
  static unsigned inputs = 0;
  if (!table || ++inputs % 1000 == 0) table = std::make_unique<thicket::StringTable>();
  thicket::StringTable& strings = *table;
  thicket::Slot slots[8] = {};
  slots[0].num = 100;
  slots[1].i = 6;
  slots[3].str = strings.intern("calm");
  slots[4].ref = -2;
  slots[5].i = 1;
  slots[6].str = strings.intern("");
  slots[7].num = NAN;

  std::vector<thicket::ExprError> errors;
  const std::string_view src(reinterpret_cast<const char*>(data), size);
  auto expr = thicket::compile_expr(src, keys, strings, errors);
  if (!expr) {
    if (errors.empty()) __builtin_trap();  // a failed compile always says why
    for (const auto& e : errors)
      if (e.column > size) __builtin_trap();  // columns point into the source
    return 0;
  }
  if (!errors.empty()) __builtin_trap();
  (void)expr->disassemble();
  (void)expr->eval(slots, strings);
  slots[0].num = -0.0;
  slots[1].i = INT64_MIN;
  slots[2].i = 1;
  slots[3].str = strings.intern("zz");
  slots[7].num = INFINITY;
  (void)expr->eval(slots, strings);
  return 0;
}
