// behavior3 editor exports (a tree, or a project of trees) -> a thicket b3_tree (SPEC 13,
// docs/import.md). Node names resolve as behavior3js 0.2.2's BehaviorTree.load does: custom
// nodes first, then the built-ins; a name that is another tree's id in a project runs that tree.
#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdlib>
#include <nlohmann/json.hpp>

#include <set>

#include "import_tree.hpp"
#include "json_shown.hpp"
#include "json_text.hpp"
#include "suggest.hpp"
#include "yaml_limits.hpp"  // kMaxYamlBytes
#include "yaml_scalar.hpp"

namespace thicket::cli {

namespace {

struct B3Builtin {
  const char* name;
  const char* kind;
  char shape;  // 'c' composite, 'd' decorator, 'l' leaf
};
const std::vector<B3Builtin>& b3_builtins() {
  static const std::vector<B3Builtin> table = {
      {"Sequence", "b3_sequence", 'c'},       {"Priority", "b3_priority", 'c'},
      {"MemSequence", "b3_mem_sequence", 'c'}, {"MemPriority", "b3_mem_priority", 'c'},
      {"Inverter", "b3_inverter", 'd'},       {"Limiter", "b3_limiter", 'd'},
      {"MaxTime", "b3_max_time", 'd'},        {"Repeater", "b3_repeater", 'd'},
      {"RepeatUntilFailure", "b3_repeat_until_failure", 'd'},
      {"RepeatUntilSuccess", "b3_repeat_until_success", 'd'},
      {"Succeeder", "always", 'l'},           {"Failer", "always", 'l'},
      {"Error", "always", 'l'},               {"Runner", "always", 'l'},
      {"Wait", "b3_wait", 'l'},
  };
  return table;
}

using json = nlohmann::json;

class B3Importer {
 public:
  B3Importer(const std::string& path, ImportedBrain& out, std::vector<ImportError>& errors)
      : path_(path), out_(out), errors_(errors) {}

  bool run(const json& doc, const std::string& wanted) {
    if (!doc.is_object()) return fail("", "the file is not a behavior3 export (a JSON object with nodes and root)");
    if (!text_fields(doc)) return false;
    if (doc.contains("custom_nodes") && !doc["custom_nodes"].is_array())
      fail("", "'custom_nodes' must be a list of {name, category}, got " + shown(doc["custom_nodes"]));
    if (doc.contains("custom_nodes") && doc["custom_nodes"].is_array())
      for (const auto& c : doc["custom_nodes"])
        if (c.is_object() && c.contains("name") && c["name"].is_string())
          custom_[c["name"].get<std::string>()] = c.value("category", std::string("action"));
    const json* main = &doc;
    if (doc.value("scope", std::string()) == "project" || doc.contains("trees")) {
      if (!doc.contains("trees") || !doc["trees"].is_array())
        return fail("", "a project export needs 'trees', a list of trees");
      if (doc["trees"].empty()) return fail("", "'trees' is empty: the project has no tree to import");
      for (const auto& t : doc["trees"]) {
        if (!t.is_object()) return fail("", "each of 'trees' must be a tree export");
        std::string id = t.value("id", std::string());
        if (auto [it, fresh] = trees_.emplace(id, &t); !fresh)  // one would be lost (the last kept)
          return fail("", "two trees have the id '" + id + "' ('" + it->second->value("title", std::string()) + "' and '" +
                              t.value("title", std::string()) + "'); a project's tree ids are its trees' names");
        tree_ids_.push_back(id);
      }
      std::string pick = wanted.empty() ? (doc.contains("selectedTree") && doc["selectedTree"].is_string()
                                               ? doc["selectedTree"].get<std::string>()
                                               : tree_ids_.front())
                                        : wanted;
      main = nullptr;
      std::vector<std::string> titled;  // ids of the trees whose title is `pick`
      for (const auto& [id, t] : trees_)
        if (id == pick) main = t;
      if (!main)
        for (const auto& [id, t] : trees_)
          if (t->value("title", std::string()) == pick) {
            main = t;
            titled.push_back(id);
          }
      if (titled.size() > 1)  // one was taken silently (the last)
        return fail("", "several trees have the title '" + pick + "' (ids: " + join_names(titled) + "): pick one by its id with --tree");
      if (!main) {
        // A did-you-mean over ids and titles, and the trees listed (an id alone says little).
        std::vector<std::string> names = tree_ids_, listed;
        for (const std::string& id : tree_ids_) {
          const std::string title = trees_[id]->value("title", std::string());
          if (!title.empty() && title != id) names.push_back(title);
          listed.push_back(title.empty() || title == id ? "'" + id + "'" : "'" + id + "' (" + title + ")");
        }
        std::string trees;
        for (size_t k = 0; k < listed.size() && k < 20; ++k) trees += (k ? ", " : "") + listed[k];
        if (listed.size() > 20) trees += ", ... (" + std::to_string(listed.size()) + " trees)";
        fail("", "no tree with the id or title '" + pick + "'" + did_you_mean(pick, names) + " (trees: " + trees + ")");
        // Every tree is read for its errors all the same (all errors of a file at once), within
        // twice a brain's nodes in all (each tree may expand to kMaxNodes through the others).
        size_t walked = 0;
        for (const std::string& id : tree_ids_) {
          const json& t = *trees_[id];
          size_t size = 1;
          if (t.contains("nodes") && t["nodes"].is_object() && t.contains("root") && t["root"].is_string())
            size = expanded(t["nodes"], t["root"].get<std::string>(), 0).nodes;
          if (size > kMaxNodes) continue;  // too big to walk (said when it is imported)
          if ((walked += size) > 2 * kMaxNodes) break;
          (void)tree(t);
        }
        return false;
      }
    } else if (!wanted.empty() && doc.value("id", std::string()) != wanted && doc.value("title", std::string()) != wanted) {
      return fail("", "--tree " + wanted + ": this file holds one tree, '" + doc.value("title", std::string()) + "'");
    }
    out_.source = "behavior3";
    out_.name = identifier(main->value("title", std::string()), "tree");
    const Expanded size = main->contains("nodes") && (*main)["nodes"].is_object() && main->contains("root") && (*main)["root"].is_string()
                              ? expanded((*main)["nodes"], (*main)["root"].get<std::string>(), 0)
                              : Expanded{};
    if (size.nodes > kMaxNodes)
      return fail("", "the tree passes " + std::to_string(kMaxNodes) +
                          " nodes once its shared nodes are expanded (each use of a node or a tree is a node of its own)");
    if (size.bytes > kMaxYamlBytes)
      return fail("", "the tree's properties pass " + std::to_string(kMaxYamlBytes >> 20) +
                          " MB once its shared nodes are expanded (each use of a node or a tree writes its own copy of"
                          " them), more than a brain may hold");
    ImportNode body = tree(*main);
    out_.root.kind = "b3_tree";
    out_.root.children.push_back(std::move(body));
    return errors_.empty();
  }

 private:
  // The fields the importer reads as text without asking their type first (ids, titles,
  // categories), checked first, all at once and where they are: a number for a title came out
  // as nlohmann's "type must be string, but is number", one a run. A node's name is asked
  // again where the node is read (node_at: the same message, said once), and the walk goes
  // on for the file's other errors; false when one of the others is wrong (the walk cannot).
  bool text_fields(const json& doc) {
    bool walkable = true;
    auto text = [&](const json& where, const char* key, const std::string& node, const std::string& in) {
      if (!where.contains(key) || where[key].is_string()) return;
      fail(node, in + "'" + key + "' must be text in quotes, got " + shown(where[key]));
      walkable = walkable && std::string(key) == "name";
    };
    auto tree = [&](const json& t, const std::string& in) {
      for (const char* key : {"id", "title"}) text(t, key, "", in);
      if (!t.contains("nodes") || !t["nodes"].is_object()) return;
      for (const auto& [id, spec] : t["nodes"].items())
        if (spec.is_object())  // (a node that is not is said by the walk)
          for (const char* key : {"id", "name", "title", "category"}) text(spec, key, id, "");
    };
    if (doc.contains("custom_nodes") && doc["custom_nodes"].is_array())
      for (const auto& c : doc["custom_nodes"])
        if (c.is_object())
          for (const char* key : {"name", "category"}) text(c, key, "", "a custom node's ");
    if (doc.contains("trees") && doc["trees"].is_array()) {
      for (size_t k = 0; k < doc["trees"].size(); ++k)
        if (doc["trees"][k].is_object()) tree(doc["trees"][k], "tree " + std::to_string(k + 1) + " of 'trees': ");
    } else {
      tree(doc, "");
    }
    return walkable;
  }
  bool fail(const std::string& node, const std::string& msg) {
    // Once each: a node named from many parents is walked once per use.
    // (Control characters escaped: a name with a NUL or a line break, from the file, would
    // otherwise be written raw into the one-line message.)
    std::string text = shown_name(node.empty() ? msg : "node \"" + node + "\": " + msg, size_t(1) << 20);
    if (said_.insert(text).second) errors_.push_back({path_, 0, 0, std::move(text)});
    return false;
  }
  // A JSON value in a message: short ones whole, long ones cut.
  static std::string shown(const json& v) { return shown_json(v); }
  static std::string identifier(const std::string& s, const std::string& fallback) {
    std::string out;
    for (char ch : s) out += (std::isalnum(static_cast<unsigned char>(ch)) || ch == '_') ? ch : '_';
    if (out.empty() || std::isdigit(static_cast<unsigned char>(out[0]))) out = fallback + (out.empty() ? "" : "_" + out);
    return out;
  }

  ImportNode tree(const json& t) {
    if (!t.contains("nodes") || !t["nodes"].is_object()) {
      fail("", "a tree needs 'nodes', an object of nodes by id");
      return always_node("error");
    }
    if (!t.contains("root") || !t["root"].is_string()) {
      const json& title = t.contains("title") ? t["title"] : json();
      fail("", std::string(title.is_string() && !title.get<std::string>().empty() ? "the tree '" + title.get<std::string>() + "'" : "the tree") +
                   " has no root node ('root' must be the id of one of its 'nodes', got " + (t.contains("root") ? shown(t["root"]) : "none") + ")");
      return always_node("error");
    }
    std::string tid = t.value("id", std::string());
    if (auto from = std::find(stack_.begin(), stack_.end(), tid); from != stack_.end()) {
      std::string path;  // the trees on the way round, as BT.CPP's message gives them
      for (auto it = from; it != stack_.end(); ++it) path += *it + " -> ";
      fail("", "the tree '" + tid + "' runs itself (" + path + tid + ")");
      return always_node("error");
    }
    check_nodes(t["nodes"], t["root"].get<std::string>());
    stack_.push_back(tid);
    ImportNode n = node(t["nodes"], t["root"].get<std::string>(), "the root");
    stack_.pop_back();
    return n;
  }

  // Text as JavaScript's Number() (and so its < against a number) reads it: spaces around it
  // dropped, "" is 0, Infinity with a sign or none, 0x / 0o / 0b integers without a sign, else a
  // decimal number; false where it gives NaN ("0x1p3", "-0x10", "inf", "5 apples").
  static bool js_number(const std::string& text, double& out) {
    size_t a = 0, b = text.size();
    auto space = [&](size_t i) { return std::string(" \t\n\v\f\r").find(text[i]) != std::string::npos; };
    while (a < b && space(a)) ++a;
    while (b > a && space(b - 1)) --b;
    const std::string s = text.substr(a, b - a);
    if (s.empty()) {
      out = 0;
      return true;
    }
    if (s == "Infinity" || s == "+Infinity" || s == "-Infinity") {
      out = s[0] == '-' ? -HUGE_VAL : HUGE_VAL;
      return true;
    }
    if (s.size() > 2 && s[0] == '0' && std::string("xXoObB").find(s[1]) != std::string::npos) {
      const int base = (s[1] == 'x' || s[1] == 'X') ? 16 : (s[1] == 'o' || s[1] == 'O') ? 8 : 2;
      double v = 0;
      for (size_t i = 2; i < s.size(); ++i) {
        const char c = static_cast<char>(std::tolower(static_cast<unsigned char>(s[i])));
        const int d = std::isdigit(static_cast<unsigned char>(c)) ? c - '0' : (c >= 'a' && c <= 'f') ? c - 'a' + 10 : 99;
        if (d >= base) return false;
        v = v * base + d;
      }
      out = v;
      return true;
    }
    // [+-] digits [. digits] [e [+-] digits], or [+-] . digits [e ...]: nothing else.
    size_t i = 0, digits = 0;
    if (s[i] == '+' || s[i] == '-') ++i;
    while (i < s.size() && std::isdigit(static_cast<unsigned char>(s[i]))) ++i, ++digits;
    if (i < s.size() && s[i] == '.') {
      ++i;
      while (i < s.size() && std::isdigit(static_cast<unsigned char>(s[i]))) ++i, ++digits;
    }
    if (digits == 0) return false;
    if (i < s.size() && (s[i] == 'e' || s[i] == 'E')) {
      ++i;
      if (i < s.size() && (s[i] == '+' || s[i] == '-')) ++i;
      size_t exp = 0;
      while (i < s.size() && std::isdigit(static_cast<unsigned char>(s[i]))) ++i, ++exp;
      if (exp == 0) return false;
    }
    if (i != s.size()) return false;
    out = c_strtod(s.c_str());
    return true;
  }

  static std::string value_yaml(const json& v) {
    if (v.is_boolean()) return v.get<bool>() ? "true" : "false";
    // behavior3 is JavaScript, whose numbers are doubles: an integer past 2^53 is the double
    // nearest it (and one past 2^63 wrapped round to a negative int64 here).
    if (v.is_number_unsigned()) {
      const uint64_t u = v.get<uint64_t>();
      return u <= (uint64_t(1) << 53) ? std::to_string(u) : yaml_number(static_cast<double>(u));
    }
    if (v.is_number_integer()) {
      const int64_t i = v.get<int64_t>();
      return i >= -(int64_t(1) << 53) && i <= (int64_t(1) << 53) ? std::to_string(i) : yaml_number(static_cast<double>(i));
    }
    if (v.is_number()) return yaml_number(v.get<double>());
    if (v.is_string()) return yaml_quote(v.get<std::string>());
    if (v.is_null()) return "null";
    if (v.is_array()) {
      std::string s = "[";
      for (size_t i = 0; i < v.size(); ++i) s += (i ? ", " : "") + value_yaml(v[i]);
      return s + "]";
    }
    std::string s = "{";
    bool first = true;
    for (auto it = v.begin(); it != v.end(); ++it) {
      s += (first ? "" : ", ") + yaml_name(it.key()) + ": " + value_yaml(it.value());
      first = false;
    }
    return s + "}";
  }
  // behavior3's `params.x || default`: a falsy value (0, "", false, null, missing) is the default.
  static bool truthy(const json& props, const char* key) {
    if (!props.is_object() || !props.contains(key)) return false;
    const json& v = props[key];
    if (v.is_boolean()) return v.get<bool>();
    if (v.is_number()) return v.get<double>() != 0;
    if (v.is_string()) return !v.get<std::string>().empty();
    return !v.is_null();
  }

  // What `id`'s subtree becomes (a behavior3 node or tree may be named by many parents: each use
  // is imported as a node of its own): its nodes, at most kMaxNodes + 1, and the bytes of the
  // properties it writes, each use with its own copy, at most kMaxYamlBytes + 1; counted once per
  // (nodes, id). A file past either is refused before the walk, which took seconds to reach the
  // node cap one use at a time (a DAG of 2^40 uses), and 64 s and 4.2 GB to write a 1 MB
  // property used 1,024 times (4,096 uses: std::bad_alloc). A loop back counts 1 node (the walk
  // reports it).
  struct Expanded {
    size_t nodes = 1, bytes = 0;
  };
  Expanded expanded(const json& nodes, const std::string& id, int depth) {
    if (depth > kMaxDepth || !nodes.contains(id)) return {};
    const auto key = std::make_pair(&nodes, id);
    if (auto it = sizes_.find(key); it != sizes_.end()) return it->second;
    sizes_[key] = {};  // while it is counted
    const json& spec = nodes[id];
    Expanded n;
    auto add_bytes = [&](size_t k) { n.bytes = std::min(kMaxYamlBytes + 1, n.bytes + k); };
    auto add = [&](const Expanded& k) {
      n.nodes = std::min(kMaxNodes + 1, n.nodes + k.nodes);
      add_bytes(k.bytes);
    };
    if (spec.is_object() && spec.contains("properties")) add_bytes(spec["properties"].dump().size());
    const std::string name = spec.is_object() && spec.contains("name") && spec["name"].is_string() ? spec["name"].get<std::string>() : "";
    if (custom_.count(name)) {
      // a leaf
    } else if (auto t = trees_.find(name); t != trees_.end()) {
      const json& tree = *t->second;
      if (tree.contains("nodes") && tree["nodes"].is_object() && tree.contains("root") && tree["root"].is_string()) {
        const Expanded used = expanded(tree["nodes"], tree["root"].get<std::string>(), depth + 1);
        n.nodes = used.nodes;  // (the tree's root stands where the node is)
        add_bytes(used.bytes);
      }
    } else if (spec.is_object()) {
      if (spec.contains("children") && spec["children"].is_array())
        for (const json& c : spec["children"])
          if (c.is_string()) add(expanded(nodes, c.get<std::string>(), depth + 1));
      if (spec.contains("child") && spec["child"].is_string()) add(expanded(nodes, spec["child"].get<std::string>(), depth + 1));
    }
    sizes_[key] = n;
    return n;
  }

  // What behavior3js's BehaviorTree.load refuses, or builds in a way that thicket's nodes do
  // not: it makes a node of every entry of `nodes` (an unknown name throws, used or not), one
  // object per entry (a node listed as the child of two parents, or twice, is one node with one
  // state there) whose state is kept by its `id` field (two entries with one id share it).
  // Refused here, each at its node id; a tree used as a subtree is checked once.
  void check_nodes(const json& nodes, const std::string& root) {
    if (!checked_.insert(&nodes).second) return;
    std::map<std::string, std::string> key_of_id;
    std::map<std::string, std::vector<std::string>> parents;  // child -> each place it is listed, by parent
    std::vector<std::string> order;                            // children in the order first met
    std::set<std::string> reached;
    std::vector<std::string> todo = {root};
    while (!todo.empty()) {  // the entries the root reaches, depth first in file order
      const std::string key = todo.back();
      todo.pop_back();
      if (!reached.insert(key).second || !nodes.contains(key) || !nodes[key].is_object()) continue;
      const json& spec = nodes[key];
      std::vector<std::string> kids;
      if (spec.contains("children") && spec["children"].is_array())
        for (const json& c : spec["children"])
          if (c.is_string()) kids.push_back(c.get<std::string>());
      if (spec.contains("child") && spec["child"].is_string()) kids.push_back(spec["child"].get<std::string>());
      for (const std::string& kid : kids) {
        if (parents[kid].empty()) order.push_back(kid);
        parents[kid].push_back(key);
      }
      for (auto it = kids.rbegin(); it != kids.rend(); ++it) todo.push_back(*it);
    }
    for (const std::string& kid : order) {
      const auto& places = parents[kid];
      if (places.size() < 2 || !nodes.contains(kid)) continue;
      std::string where;
      for (size_t k = 0; k < places.size(); ++k)
        where += (k == 0 ? "'" : k + 1 == places.size() ? " and '" : ", '") + places[k] + "'";
      fail(kid, "the node is listed as a child " + std::to_string(places.size()) + " times (under " + where +
                    "); behavior3 makes it one node with one state in all those places, thicket one node for each: "
                    "give each place a node of its own");
    }
    for (auto it = nodes.begin(); it != nodes.end(); ++it) {
      if (!it.value().is_object()) continue;
      const json& spec = it.value();
      const std::string id = spec.contains("id") && spec["id"].is_string() && !spec["id"].get<std::string>().empty()
                                 ? spec["id"].get<std::string>() : it.key();
      if (auto [at, fresh] = key_of_id.emplace(id, it.key()); !fresh)
        fail(it.key(), "the nodes '" + at->second + "' and '" + it.key() + "' have the same id '" + id +
                           "'; behavior3 keeps a node's state by its id, so they would share one: give each an id of its own");
      if (reached.count(it.key()) || !spec.contains("name") || !spec["name"].is_string()) continue;
      const std::string name = spec["name"].get<std::string>();
      bool known = custom_.count(name) || trees_.count(name);
      for (const auto& x : b3_builtins()) known = known || name == x.name;
      if (!known) {
        std::vector<std::string> names;
        for (const auto& x : b3_builtins()) names.push_back(x.name);
        for (const auto& [k, v] : custom_) names.push_back(k);
        fail(it.key(), "unknown node name '" + name + "'" + did_you_mean(name, names) +
                           " (neither a behavior3 built-in nor in custom_nodes; the node is not used, but behavior3 builds every "
                           "node of 'nodes' and refuses the file all the same)");
      } else if ((name == "Limiter" || name == "MaxTime") && !custom_.count(name) && !trees_.count(name)) {
        // Built, its constructor runs: these two throw without their number (Limiter.js, MaxTime.js).
        const json props = spec.contains("properties") && spec["properties"].is_object() ? spec["properties"] : json::object();
        const char* key = name == "Limiter" ? "maxLoop" : "maxTime";
        if (!truthy(props, key))
          fail(it.key(), name + " needs " + key + " (behavior3 throws without it; the node is not used, but behavior3 builds " +
                             "every node of 'nodes' and refuses the file all the same)");
      }
    }
  }

  ImportNode node(const json& nodes, const std::string& id, const std::string& from) {
    // A chain of ids that leads back to one of its own: said where it closes, at once (it was
    // followed 250 levels deep from every path that reached it, ~100,000 nodes, seconds under
    // the sanitizers: a fuzz input of 882 bytes).
    if (on_path_.count(id)) {
      if (!looped_) fail(id, "the tree leads back to this node from below it (" + from + " names it): its ids loop");
      looped_ = true;
      return always_node("error");
    }
    if (depth_ >= kMaxDepth) {  // a tree too deep for thicket
      if (!too_deep_) fail(id, "the tree nests deeper than " + std::to_string(kMaxDepth) + " levels here");
      too_deep_ = true;
      return always_node("error");
    }
    ++depth_;
    on_path_.insert(id);
    struct Leave {
      std::set<std::string>& path;
      const std::string& id;
      int& depth;
      ~Leave() {
        path.erase(id);
        --depth;
      }
    } leave{on_path_, id, depth_};
    ImportNode n = node_at(nodes, id, from);
    named_as(n, id);
    return n;
  }

  // Gives n, and what was made for it within it, the id of the node it came from: errors found
  // only once the brain is written name it. (What has an id already came from a node of its
  // own, and so did all below it.)
  static void named_as(ImportNode& n, const std::string& id) {
    if (!n.node_id.empty()) return;
    n.node_id = id;
    for (ImportNode& c : n.children) named_as(c, id);
  }

  ImportNode node_at(const json& nodes, const std::string& id, const std::string& from) {
    if (!nodes.contains(id)) {
      fail(id, "missing: " + from + " names it, but 'nodes' has no such id");
      return always_node("error");
    }
    const json& spec = nodes[id];
    if (!spec.is_object() || !spec.contains("name") || !spec["name"].is_string()) {
      if (spec.is_object() && spec.contains("name")) fail(id, "'name' must be text in quotes, got " + shown(spec["name"]));
      else fail(id, "a node needs 'name', its kind");
      return always_node("error");
    }
    const std::string name = spec["name"].get<std::string>();
    const json props = spec.contains("properties") && spec["properties"].is_object() ? spec["properties"] : json::object();
    if (++visits_ > kMaxNodes) {  // (expanded() refuses such a file first) said once, where it happened
      if (visits_ == kMaxNodes + 1) fail(id, "the tree passes 100000 nodes (subtrees count once per use)");
      return always_node("error");
    }
    // A node that cannot be imported: its children are checked too, so that every error of
    // the file shows at once (at its first use; its other uses are the same error).
    auto check_children = [&] {
      if (spec.contains("children") && spec["children"].is_array())
        for (const auto& ch : spec["children"])
          if (ch.is_string()) node(nodes, ch.get<std::string>(), "node \"" + id + "\"");
      if (spec.contains("child") && spec["child"].is_string()) node(nodes, spec["child"].get<std::string>(), "node \"" + id + "\"");
    };
    // Custom nodes first, as BehaviorTree.load does.
    if (auto c = custom_.find(name); c != custom_.end()) {
      if (c->second != "action" && c->second != "condition") {
        if (!unknown_.insert(std::make_pair(&nodes, id)).second) return always_node("error");
        fail(id, "'" + name + "' is a custom " + c->second + "; only custom actions and conditions can be imported (as leaves)" +
                     (c->second == "composite" || c->second == "decorator"
                          ? std::string()
                          : did_you_mean(c->second, {"action", "condition", "composite", "decorator"})));
        check_children();
        return always_node("error");
      }
      ImportNode n;
      n.kind = c->second;
      n.leaf = name;
      for (auto it = props.begin(); it != props.end(); ++it) n.args.push_back({it.key(), value_yaml(it.value())});
      return n;
    }
    if (trees_.count(name)) return tree(*trees_[name]);
    const B3Builtin* b = nullptr;
    for (const auto& x : b3_builtins())
      if (name == x.name) b = &x;
    if (!b) {
      // Said and its children walked at its first use; its other uses are the same error.
      if (!unknown_.insert(std::make_pair(&nodes, id)).second) return always_node("error");
      std::vector<std::string> names;
      for (const auto& x : b3_builtins()) names.push_back(x.name);
      for (const auto& [k, v] : custom_) names.push_back(k);
      fail(id, "unknown node name '" + name + "'" + did_you_mean(name, names) +
                   " (neither a behavior3 built-in nor in custom_nodes)");
      check_children();
      return always_node("error");
    }
    ImportNode n;
    n.kind = b->kind;
    if (name == "Succeeder") n.value = "success";
    if (name == "Failer") n.value = "failure";
    if (name == "Error") n.value = "error";
    if (name == "Runner") n.value = "running";
    // A number property: a JSON number, or text that reads as one (behavior3 compares it with
    // JavaScript's <, which converts such text); anything else cannot be mapped.
    auto number = [&](const char* key, double& out) {
      const json& v = props[key];
      if (v.is_number()) {
        out = v.get<double>();
        if (out == out) return true;
      }
      if (v.is_string() && js_number(v.get<std::string>(), out)) return true;
      fail(id, std::string("'") + key + "' must be a number, got " + shown(v));
      return false;
    };
    // A loop count: behavior3 compares i < maxLoop, so 2.5 loops are 3 (the next whole number).
    // (Beyond about 2^53 it is "for ever" anyway: clamped rather than cast, which overflowed.)
    auto loops = [](double d) { return static_cast<int64_t>(std::clamp(std::ceil(d), -9.0e15, 9.0e15)); };
    // thicket's max_loop holds up to 2^31 - 1 loops: beyond, the file's own number is said.
    auto within = [&](double d) {
      if (std::ceil(d) <= 2147483647.0) return true;
      fail(id, "'maxLoop' must be at most 2147483647 (thicket's max_loop), got " + shown(props["maxLoop"]));
      return false;
    };
    double v = 0;
    if (name == "Limiter") {
      // Negative: i < maxLoop never holds, the child never runs: FAILURE each tick, as max_loop 0.
      if (!truthy(props, "maxLoop")) fail(id, "Limiter needs maxLoop (behavior3 throws without it)");
      else if (number("maxLoop", v) && within(v)) n.params.push_back({"max_loop", std::to_string(std::max<int64_t>(0, loops(v)))});
    }
    if (name == "Repeater" || name == "RepeatUntilFailure" || name == "RepeatUntilSuccess") {
      // Negative: maxLoop < 0 repeats for ever, as max_loop -1.
      if (!truthy(props, "maxLoop")) n.params.push_back({"max_loop", "-1"});
      else if (number("maxLoop", v) && within(v)) n.params.push_back({"max_loop", std::to_string(v < 0 ? -1 : loops(v))});
    }
    if (name == "MaxTime") {
      if (!truthy(props, "maxTime")) fail(id, "MaxTime needs maxTime in milliseconds (behavior3 throws without it)");
      else if (number("maxTime", v)) n.params.push_back({"seconds", yaml_number(v / 1000.0)});
    }
    if (name == "Wait") {
      if (!truthy(props, "milliseconds")) n.params.push_back({"seconds", yaml_number(0.0)});
      else if (number("milliseconds", v)) n.params.push_back({"seconds", yaml_number(v / 1000.0)});
    }
    if (b->shape == 'c') {
      if (spec.contains("children") && !spec["children"].is_array()) fail(id, "'children' must be a list of node ids, got " + shown(spec["children"]));
      if (spec.contains("children") && spec["children"].is_array()) {
        for (size_t k = 0; k < spec["children"].size(); ++k) {
          const json& ch = spec["children"][k];
          if (!ch.is_string()) {
            fail(id, "'children' must list node ids (text); child " + std::to_string(k + 1) + " is " + shown(ch));
            continue;
          }
          n.children.push_back(node(nodes, ch.get<std::string>(), "node \"" + id + "\""));
        }
      }
      if (n.children.empty()) {  // behavior3: an empty Sequence succeeds, an empty Priority fails
        n.kind = "always";
        n.value = name == "Sequence" || name == "MemSequence" ? "success" : "failure";
      }
    } else if (b->shape == 'd') {
      if (spec.contains("child") && !spec["child"].is_string() && !spec["child"].is_null())
        fail(id, "'child' must be a node id, got " + shown(spec["child"]));
      if (!spec.contains("child") || !spec["child"].is_string()) {  // behavior3: a decorator without a child errs
        return always_node("error");
      }
      n.children.push_back(node(nodes, spec["child"].get<std::string>(), "node \"" + id + "\""));
    }
    return n;
  }

  std::string path_;
  ImportedBrain& out_;
  std::vector<ImportError>& errors_;
  std::map<std::string, std::string> custom_;
  std::map<std::string, const json*> trees_;
  std::vector<std::string> tree_ids_, stack_;
  size_t visits_ = 0;
  static constexpr size_t kMaxNodes = 100000;
  std::map<std::pair<const json*, std::string>, Expanded> sizes_;  // expanded()'s counts
  std::set<std::pair<const json*, std::string>> unknown_;         // nodes of an unknown name, said
  std::set<const json*> checked_;                                 // `nodes` objects check_nodes has seen
  std::set<std::string> said_;                                     // the errors reported
  static constexpr int kMaxDepth = 250;  // thicket's trees nest at most 256 levels, b3_tree included
  int depth_ = 0;
  bool too_deep_ = false;
  std::set<std::string> on_path_;  // the ids from the root down to the node being read
  bool looped_ = false;
};

}  // namespace

bool import_b3(const std::string& path, const std::string& text, const std::string& tree, ImportedBrain& out,
               std::vector<ImportError>& errors) {
  out.file = path;
  // The line and column of byte `byte` (0-based) of the text.
  auto place = [&](size_t byte, int& line, int& column) {
    line = 1;
    column = 1;
    for (size_t i = 0; i < byte && i < text.size(); ++i) {
      if (text[i] == '\n') {
        ++line;
        column = 1;
      } else {
        ++column;
      }
    }
  };
  // Nesting first: nlohmann copies and prints a value by recursion, so a 2 MB `properties`
  // value of nested brackets overflowed the stack.
  constexpr int kMaxJsonNesting = 256;
  if (const JsonShape shape = json_shape(text, kMaxJsonNesting); shape.deep_at != std::string_view::npos) {
    int line, column;
    place(shape.deep_at, line, column);
    errors.push_back({path, line, column,
                      "the JSON nests deeper than " + std::to_string(kMaxJsonNesting) +
                          " levels here (arrays and objects; a behavior3 export nests a few)"});
    return false;
  }
  json doc;
  try {
    doc = json::parse(text);
  } catch (const json::parse_error& e) {
    // e.byte: where the parser stopped (1-based).
    int line, column;
    place(e.byte > 0 ? e.byte - 1 : 0, line, column);
    std::string what = e.what();
    // "[json.exception.parse_error.101] parse error at line 1, column 79: syntax error ...": the
    // place is said once, as FILE:LINE:COL, and the parser's own words follow.
    auto at = what.find("parse error");
    if (at != std::string::npos) what = what.substr(at);
    if (const size_t colon = what.find(": "); what.rfind("parse error at line", 0) == 0 && colon != std::string::npos)
      what = what.substr(colon + 2);
    // A comma just before the closing bracket the parser stopped at: JSON has no trailing comma.
    size_t k = e.byte > 0 ? std::min<size_t>(e.byte - 1, text.size()) : 0;
    const bool closing = k < text.size() && (text[k] == ']' || text[k] == '}');
    while (k > 0 && std::isspace(static_cast<unsigned char>(text[k - 1]))) --k;
    const std::string hint = closing && k > 0 && text[k - 1] == ',' ? " (a comma before a closing bracket: JSON allows none there)" : "";
    errors.push_back({path, line, column, "malformed JSON: " + what + hint});
    return false;
  } catch (const json::exception& e) {
    // A number beyond a double's range ("number overflow parsing '1e400'"): at the number's
    // first occurrence in the text.
    std::string what = e.what();
    int line = 0, column = 0;
    const size_t quote = what.find('\'');
    const size_t end = quote == std::string::npos ? quote : what.find('\'', quote + 1);
    if (end != std::string::npos) {
      const size_t at = text.find(what.substr(quote + 1, end - quote - 1));
      if (at != std::string::npos) place(at, line, column);
    }
    const size_t bracket = what.find("] ");
    errors.push_back({path, line, column,
                      "malformed JSON: " + (bracket == std::string::npos ? what : what.substr(bracket + 2)) +
                          " (a number beyond what a double holds, about 1.8e308)"});
    return false;
  }
  B3Importer imp(path, out, errors);
  try {
    return imp.run(doc, tree) && errors.empty();
  } catch (const json::exception& e) {
    // A field of the wrong type where the importer reads it (e.g. a number for a title or a
    // category): nlohmann says which type it found, not where.
    std::string what = e.what();
    const size_t bracket = what.find("] ");
    errors.push_back({path, 0, 0,
                      "not a behavior3 file as the importer reads it: " +
                          (bracket == std::string::npos ? what : what.substr(bracket + 2)) +
                          " (a name, id, title or category is text in quotes)"});
    return false;
  }
}

}  // namespace thicket::cli
