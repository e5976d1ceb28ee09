// A JSON value from outside (a request, a file) shown in a message: its text, cut after `max`
// characters. nlohmann's dump recurses once per level, so a value nested deeper than
// kMaxShownDepth levels is named by its kind instead (a request holding 100,000 nested lists
// overflowed the stack of the thread answering it, and the run died).
#pragma once
#include <cstddef>
#include <string>
#include <utility>
#include <vector>

namespace thicket::cli {

inline constexpr int kMaxShownDepth = 64;

// Whether `v` nests more than `limit` levels (arrays and objects), asked without recursion.
template <class Json>
bool nests_deeper_than(const Json& v, int limit) {
  std::vector<std::pair<const Json*, int>> todo{{&v, 1}};
  while (!todo.empty()) {
    auto [at, depth] = todo.back();
    todo.pop_back();
    if (!at->is_structured()) continue;
    if (depth > limit) return true;
    for (const auto& item : *at) todo.emplace_back(&item, depth + 1);
  }
  return false;
}

template <class Json>
std::string shown_json(const Json& v, size_t max = 60) {
  if (nests_deeper_than(v, kMaxShownDepth))
    return std::string(v.is_array() ? "a list" : "an object") + " nested more than " + std::to_string(kMaxShownDepth) +
           " levels deep";
  std::string text = v.dump(-1, ' ', false, Json::error_handler_t::replace);
  return text.size() <= max ? text : text.substr(0, max - 3) + "...";
}

}  // namespace thicket::cli
