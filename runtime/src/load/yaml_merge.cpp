// YAML merge keys: `<<: *defaults` expanded in place (yaml_merge.hpp).
#include "yaml_merge.hpp"

#include <string>
#include <unordered_set>
#include <utility>

namespace thicket {

namespace {

class MergeExpander {
 public:
  MergeExpander(const std::string& path, std::vector<Diagnostic>& diags) : path_(path), diags_(diags) {}

  // Every node under `node`, each mapping after the ones it merges.
  void walk(YAML::Node node) {
    if (node.IsMap()) {
      expand(node);
      for (auto it = node.begin(); it != node.end(); ++it) walk(it->second);
    } else if (node.IsSequence()) {
      for (auto it = node.begin(); it != node.end(); ++it) walk(*it);
    }
  }

 private:
  static bool is_merge_key(const YAML::Node& key) {
    return key.IsScalar() && key.Tag() == "?" && key.Scalar() == "<<";  // "?": a plain scalar
  }

  void error(const YAML::Node& at, const std::string& message) {
    const YAML::Mark mark = at.Mark();
    diags_.push_back({Severity::Error, path_, mark.line + 1, mark.column + 1, message});
  }

  // One mapping's own `<<`, if it has one (the sources' own first).
  void expand(YAML::Node map) {
    bool merges = false;
    for (auto it = map.begin(); it != map.end() && !merges; ++it) merges = is_merge_key(it->first);
    if (!merges) return;
    for (const YAML::Node& open : open_)
      if (open.is(map)) {  // a cycle of merges through other mappings (the loader refuses aliases to open nodes)
        error(map, "this mapping merges itself (a `<<` leads back to it)");
        drop_merge_keys(map);
        return;
      }
    if (open_.size() >= 1000) {
      error(map, "merge keys (`<<`) chained more than 1000 deep");
      drop_merge_keys(map);
      return;
    }
    open_.push_back(map);
    // The entries as they stand (expanding a source may change this mapping if it is one).
    std::vector<std::pair<YAML::Node, YAML::Node>> items;
    for (auto it = map.begin(); it != map.end(); ++it) items.emplace_back(it->first, it->second);
    // The mapping's own keys win, then each source's in order.
    // The scalar keys taken so far, the mapping's own first (a set: a scan of the entries for
    // each source key took 180 s to merge one 60,000-key mapping).
    std::unordered_set<std::string> taken;
    for (const auto& item : items)
      if (!is_merge_key(item.first) && item.first.IsScalar()) taken.insert(item.first.Scalar());
    std::vector<std::pair<YAML::Node, YAML::Node>> entries;  // in the order to keep
    for (const auto& [key, value] : items) {
      if (!is_merge_key(key)) {
        entries.emplace_back(key, value);
        continue;
      }
      std::vector<YAML::Node> sources;
      if (value.IsMap()) {
        sources.push_back(value);
      } else if (value.IsSequence()) {
        for (auto s = value.begin(); s != value.end(); ++s) {
          if (s->IsMap())
            sources.push_back(*s);
          else
            error(*s, std::string("a merge key's list holds mappings only (`<<: [*walk, *talk]`); this is ") +
                          kind(*s));
        }
      } else {
        error(value, std::string("a merge key (`<<`) takes a mapping, `<<: *defaults`, or a list of them; this is ") +
                         kind(value));
      }
      for (YAML::Node source : sources) {
        if (source.is(map)) {
          error(value, "this mapping merges itself (its `<<` names the mapping it stands in)");
          continue;
        }
        expand(source);
        for (auto s = source.begin(); s != source.end(); ++s) {
          if (is_merge_key(s->first)) continue;  // a source whose own merge failed (reported)
          if (s->first.IsScalar() && !taken.insert(s->first.Scalar()).second) continue;
          entries.emplace_back(s->first, s->second);
        }
      }
    }
    open_.pop_back();
    // Rebuilt in order: the key and value nodes themselves, so their marks stay.
    std::vector<YAML::Node> keys;
    for (auto it = map.begin(); it != map.end(); ++it) keys.push_back(it->first);
    for (const YAML::Node& k : keys) map.remove(k);
    for (const auto& [k, v] : entries) map.force_insert(k, v);
  }

  void drop_merge_keys(YAML::Node map) {
    std::vector<YAML::Node> keys;
    for (auto it = map.begin(); it != map.end(); ++it)
      if (is_merge_key(it->first)) keys.push_back(it->first);
    for (const YAML::Node& k : keys) map.remove(k);
  }

  static const char* kind(const YAML::Node& n) {
    if (n.IsSequence()) return "a list";
    if (n.IsNull()) return "empty";
    if (n.IsScalar()) return "a single value";
    return "not a mapping";
  }

  const std::string& path_;
  std::vector<Diagnostic>& diags_;
  std::vector<YAML::Node> open_;  // the mappings whose merges are being expanded
};

}  // namespace

void expand_merge_keys(YAML::Node doc, const std::string& path, std::vector<Diagnostic>& diags) {
  MergeExpander(path, diags).walk(doc);
}

}  // namespace thicket
