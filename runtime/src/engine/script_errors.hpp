// ScriptErrorBook: which of the leaves' error reports are printed and which only counted,
// judged in agent order (RuntimeImpl::script_error; a simulation's workers share one).
#pragma once
#include <cstdint>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <tuple>
#include <utility>

namespace thicket {

// A leaf's error reports, judged in agent order: the same error at a node (thousands of agents
// running one broken leaf) is printed kPrintedRepeats + 1 times, and a node prints
// kPrintedPerNode reports whatever they say (an agent id or the tick in each message); the
// rest are counted in the summary's script errors only. Keyed by brain name and node index,
// which are alike in every runtime of a simulation's workers.
struct ScriptErrorBook {
  struct Entry {
    std::string brain;
    uint32_t node = 0;
    std::string key;   // the message, as counted
    std::string text;  // the report
    bool warning = false;  // not an error: printed the first time it is said at its node, never counted
    // With warning: an error of the brain's said once per key (an fsm that cannot enter its
    // initial states, an unmapped transition), counted as a script error when it is said.
    bool counted = false;
  };
  // A brain's own reports (report_once: no node of it is to blame alone) use this node.
  static constexpr uint32_t kBrainNode = 0xFFFFFFFF;
  static constexpr uint64_t kPrintedRepeats = 5;
  static constexpr size_t kMaxRepeatKeys = 10000;
  static constexpr uint32_t kPrintedPerNode = 20;
  // Whether say() would not print it (key "": only whether the node prints no more); a true
  // answer holds for good.
  bool silenced(const std::string& brain, uint32_t node, const std::string& key) const {
    if (const auto at = printed_at.find({brain, node}); at != printed_at.end() && at->second >= kPrintedPerNode) return true;
    if (key.empty()) return false;
    const auto it = repeats.find({brain, node, key});
    return it != repeats.end() && it->second > kPrintedRepeats;
  }
  // Whether the warning `key` was said at the node (a true answer holds for good).
  bool warned_before(const std::string& brain, uint32_t node, const std::string& key) const {
    return warned.count({brain, node, key}) != 0;
  }
  // Counts it; the report to print (with a note when it is the last of its kind), or nothing.
  std::optional<std::string> say(Entry e) {
    if (e.warning) {
      if (warned.size() >= kMaxRepeatKeys || !warned.insert({e.brain, e.node, e.key}).second) return std::nullopt;
      if (e.counted) ++once_errors;
      return std::move(e.text);
    }
    uint32_t& printed = printed_at[{e.brain, e.node}];
    if (printed >= kPrintedPerNode) return std::nullopt;  // its messages are not kept either
    uint64_t seen = 0;
    if (repeats.size() < kMaxRepeatKeys || repeats.count({e.brain, e.node, e.key})) seen = ++repeats[{e.brain, e.node, e.key}];
    if (seen > kPrintedRepeats + 1) return std::nullopt;
    ++printed;
    if (seen == kPrintedRepeats + 1)
      e.text += "\n  (this error has now happened " + std::to_string(seen) +
                " times at this node; further ones are counted in the summary's script errors, not printed)";
    else if (printed == kPrintedPerNode)
      e.text += "\n  (" + std::to_string(kPrintedPerNode) +
                " errors at this node have now been printed; further ones, whatever they say, are counted in the "
                "summary's script errors, not printed)";
    return std::move(e.text);
  }
  std::map<std::tuple<std::string, uint32_t, std::string>, uint64_t> repeats;
  std::map<std::pair<std::string, uint32_t>, uint32_t> printed_at;
  std::set<std::tuple<std::string, uint32_t, std::string>> warned;
  // The counted warnings said (Entry::counted): script errors of the runtime (or the
  // simulation) that owns the book.
  uint64_t once_errors = 0;
};

}  // namespace thicket
