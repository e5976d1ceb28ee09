// The machine brain (SPEC 5): a Machine root over {check, run} pairs in priority order.
#include <algorithm>
#include <set>

#include "tree_compiler.hpp"
#include "suggest.hpp"
#include "yaml_scalar.hpp"

namespace thicket {

// machine := {check_every: seconds, behaviors: [{name, check, run | tree}, ...]} (SPEC 5)
void TreeCompiler::machine(const YAML::Node& doc, const std::string& machine_name) {
  file_ = 0;
  subtrees_.push_back(machine_name);
  machine_node(doc, doc, "root", "", "machine " + machine_name);
  subtrees_.pop_back();
}

// A Machine node at `path` (the brain's root, or a state's body), its behaviors' ids prefixed.
uint32_t TreeCompiler::machine_node(const YAML::Node& doc, const YAML::Node& at, const std::string& path,
                                    const std::string& prefix, const std::string& label) {
  uint32_t root = emit(NodeKind::Machine, at, path, "", label);
  p_.nodes[root].seconds = -1;  // every tick
  p_.nodes[root].b = static_cast<uint32_t>(p_.behaviors.size());
  if (doc["check_every"]) {
    if (auto s = read_seconds(doc["check_every"], "'check_every'")) p_.nodes[root].seconds = *s;
  }
  std::vector<uint32_t> children;
  const YAML::Node behaviors = doc["behaviors"];
  if (!doc.IsMap()) {
    error(doc, std::string("a machine is a mapping {check_every: S, behaviors: [{name, check, run}, ...]}, got ") + describe_node(doc));
  } else if (!behaviors) {
    error(doc, "a machine needs 'behaviors', a list of {name, check, run} in priority order");
  } else if (!behaviors.IsSequence() || behaviors.size() == 0) {
    error(behaviors, std::string("'behaviors' must be a non-empty list of {name, check, run}, got ") +
                         (behaviors.IsSequence() ? "an empty list" : describe_node(behaviors)));
  } else {
    static const std::vector<std::string> keys = {"name", "check", "run", "tree"};
    std::set<std::string> names;
    size_t index = 0;
    for (const auto& b : behaviors) {
      std::string fallback = "behavior " + std::to_string(index + 1);  // counted from 1, as a modder counts them
      ++index;
      if (!b.IsMap()) {
        error(b, std::string("a behavior is a mapping {name, check, run}, got ") + describe_node(b));
        continue;
      }
      for (auto it = b.begin(); it != b.end(); ++it) {
        std::string key = it->first.Scalar();
        if (std::find(keys.begin(), keys.end(), key) == keys.end())
          error(it->first, "unknown key '" + key + "' in a behavior" + did_you_mean(key, keys) + " (allowed: name, check, run, tree)");
      }
      std::string name = fallback;
      if (!b["name"]) {
        error(b, "a behavior needs 'name' (text)");
      } else if (!b["name"].IsScalar() || classify_scalar(b["name"]).kind != ScalarKind::String || b["name"].Scalar().empty()) {
        // (the schema's rule, which `check` said and a run did not: "" or 5 made ids "" and "/check")
        const bool empty = b["name"].IsScalar() && b["name"].Scalar().empty() && classify_scalar(b["name"]).kind != ScalarKind::Null;
        error(b["name"], std::string("a behavior's name must be text, got ") + (empty ? "empty text" : describe_node(b["name"])));
      } else {
        name = b["name"].Scalar();
      }
      const bool twice = !names.insert(name).second;
      if (twice) error(b["name"], "two behaviors are named '" + name + "'");
      // (a second one's nodes get ids of their own: the clash is said once, above)
      // (Appended: this + chain made GCC 12 warn of an overflow that cannot happen.)
      std::string id = prefix;
      id += name;
      if (twice) {
        id += '#';
        id += std::to_string(index - 1);
      }
      uint32_t check = kNone;  // without one, the rest of the behavior is still checked
      if (!b["check"]) error(b, "behavior '" + name + "' needs 'check', the condition that selects it");
      else {
        leaf_shown_as_ = "'check'";  // messages name the key the modder wrote
        check = leaf(NodeKind::Condition, b["check"], id + "/check", "");
        leaf_shown_as_.clear();
      }
      uint32_t run = kNone;
      if (b["run"] && b["tree"]) error(b["tree"], "behavior '" + name + "' has both 'run' and 'tree'; give one");
      if (b["run"]) {
        leaf_shown_as_ = "'run'";
        run = leaf(NodeKind::Action, b["run"], id, "");
        leaf_shown_as_.clear();
      }
      else if (b["tree"] && b["tree"].IsScalar()) run = subtree(b["tree"], id, "");
      else if (b["tree"]) run = node(b["tree"], id, id + "/");
      else error(b, "behavior '" + name + "' needs 'run' (a task leaf) or 'tree' (a tree to run)");
      if (check != kNone && run != kNone) {
        children.push_back(check);
        children.push_back(run);
        p_.behaviors.push_back(name);
      }
    }
  }
  finish_children(root, children);
  return root;
}

}  // namespace thicket
