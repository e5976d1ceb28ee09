// Blackboard value types and the 8-byte slot every blackboard key occupies (SPEC 6).
#pragma once
#include <cstdint>
#include <string_view>

namespace thicket {

enum class ValueType : uint8_t { Number, Integer, Boolean, String, Any };

constexpr std::string_view value_type_name(ValueType t) {
  switch (t) {
    case ValueType::Number: return "number";
    case ValueType::Integer: return "integer";
    case ValueType::Boolean: return "boolean";
    case ValueType::String: return "string";
    case ValueType::Any: return "any";
  }
  return "any";
}

// One blackboard value. Which member is live follows the key's declared type:
// Number -> num; Integer -> i; Boolean -> i (0 or 1); String -> str (an id in the
// runtime's StringTable); Any -> ref (a Lua registry reference, LUA_NOREF/-2 for nil).
union Slot {
  double num;
  int64_t i;
  uint32_t str;
  int32_t ref;
};
static_assert(sizeof(Slot) == 8);

}  // namespace thicket
