// Interned strings: blackboard string values and string literals in check
// expressions are ids into one table, so equality is an integer compare.
#pragma once
#include <cstdint>
#include <deque>
#include <string>
#include <string_view>
#include <unordered_map>

namespace thicket {

class StringTable {
 public:
  StringTable() { intern(""); }
  // Returns the id of s, adding it on first sight (allocates only then).
  uint32_t intern(std::string_view s) {
    auto it = ids_.find(s);
    if (it != ids_.end()) return it->second;
    auto id = static_cast<uint32_t>(strings_.size());
    strings_.emplace_back(s);
    ids_.emplace(std::string_view(strings_.back()), id);
    return id;
  }
  std::string_view get(uint32_t id) const { return strings_[id]; }
  size_t size() const { return strings_.size(); }

 private:
  std::deque<std::string> strings_;  // deque: views into it stay valid as it grows
  std::unordered_map<std::string_view, uint32_t> ids_;
};

}  // namespace thicket
