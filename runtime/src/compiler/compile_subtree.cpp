// Subtree nodes: a named tree compiled in place, with its ids prefixed, and cycles refused.
#include <algorithm>

#include "tree_compiler.hpp"
#include "suggest.hpp"
#include "yaml_scalar.hpp"

namespace thicket {

uint32_t TreeCompiler::subtree(const YAML::Node& v, const std::string& path, const std::string& prefix) {
  std::string target, name;
  YAML::Node at = v;
  if (v.IsScalar()) {
    target = v.Scalar();
  } else if (v.IsMap()) {
    for (auto it = v.begin(); it != v.end(); ++it) {
      std::string key = it->first.Scalar();
      if (key != "tree" && key != "name")
        error(it->first, "unknown parameter '" + key + "' for subtree" + did_you_mean(key, {"tree", "name"}) + " (allowed: tree, name)");
    }
    if (!v["tree"] || !v["tree"].IsScalar()) {
      error(v, "subtree needs 'tree', the name of the tree to insert");
      return kNone;
    }
    target = v["tree"].Scalar();
    at.reset(v["tree"]);
    name = read_name(v, prefix, path);
  } else {
    error(v, std::string("subtree takes a tree name, got ") + describe_node(v));
    return kNone;
  }
  auto it = src_.trees.find(target);
  if (it == src_.trees.end()) {
    const auto& failed = src_.failed_imports;
    const std::string near = did_you_mean(target, tree_names_);
    std::string known = !failed.empty() ? maybe_in_failed(failed)
                        : tree_names_.empty() ? " (no trees are defined: add them under 'trees:' or list files under 'import:')"
                        : near.empty() ? " (trees: " + join_names(tree_names_) + ")"
                                       : "";
    error(at, "unknown tree '" + target + "'" + near + known);
    return kNone;
  }
  used_trees_.insert(target);
  if (std::find(subtrees_.begin(), subtrees_.end(), target) != subtrees_.end()) {
    std::string cycle;
    for (const auto& s : subtrees_) cycle += s + " -> ";
    error(at, "subtree cycle: " + cycle + target);
    return kNone;
  }
  // The subtree's root takes this node's place (and its name, if it has one); names inside
  // are prefixed with this node's id so two uses of one tree keep distinct ids.
  uint32_t saved_file = file_;
  file_ = it->second.file;
  subtrees_.push_back(target);
  size_t first = p_.nodes.size();
  uint32_t index = node(it->second.root, path, (name.empty() ? path : name) + "/");
  subtrees_.pop_back();
  file_ = saved_file;
  if (index != kNone && !name.empty() && index == first) {
    ids_.erase(p_.ids[index]);
    p_.ids[index] = name;
    p_.named[index] = true;  // (its id is a name now: for a later clash's words, and dot's label)
    if (!ids_.emplace(name, index).second) error(v, "node id '" + name + "' is used twice");
  }
  return index;
}

}  // namespace thicket
