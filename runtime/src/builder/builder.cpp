// The fluent tree builder (SPEC 8): a chain of calls becomes a small node tree, the node tree
// becomes YAML, and the YAML goes through the ordinary loader, so a built brain and the
// equivalent file compile to the same array by construction.
#include "thicket/builder.hpp"

#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <charconv>
#include <cmath>

#include "builder_parts.hpp"
#include "yaml_scalar.hpp"

namespace thicket {
namespace builder {

const char* abort_name(Abort a) {
  switch (a) {
    case Abort::None: return "none";
    case Abort::Self: return "self";
    case Abort::LowerPriority: return "lower_priority";
    case Abort::Both: return "both";
  }
  return "none";
}

std::string quoted(const std::string& s) { return "\"" + s + "\""; }

// ---- YAML text ----

// Plain text that the loader would read as a number, true/false or null must be quoted to
// stay text; the loader's own classifier decides, so the two can never disagree. So is text
// with a control character (yaml-cpp writes a lone carriage return plain: the loader read it
// as an old Mac line end, or the value as null) and YAML 1.1's words for a boolean (`yes`
// plain draws the loader's "quote it" warning, which a builder's user cannot act on).
void write_text(YAML::Emitter& out, const std::string& s) {
  const bool control = std::any_of(s.begin(), s.end(), [](char ch) {
    const auto byte = static_cast<unsigned char>(ch);
    return byte < 0x20 || byte == 0x7f;
  });
  const YAML::Node node(s);
  if (control || classify_scalar(node).kind != ScalarKind::String || !yaml11_boolean_hint(node).empty())
    out << YAML::DoubleQuoted;
  out << s;
}

// A double keeps a fraction or exponent so it stays a float (10.0, not the integer 10): Lua
// leaves see math.type "float" as they would for `10.0` in a file.
std::string number_text(double v) {
  if (std::isnan(v)) return ".nan";
  if (std::isinf(v)) return v > 0 ? ".inf" : "-.inf";
  char buf[64];
  auto r = std::to_chars(buf, buf + sizeof buf, v);
  std::string s(buf, r.ptr);
  if (s.find_first_of(".eE") == std::string::npos) s += ".0";
  return s;
}

void write_value(YAML::Emitter& out, const Value& v) {
  if (std::holds_alternative<std::monostate>(v)) out << YAML::Null;
  else if (auto* d = std::get_if<double>(&v)) out << number_text(*d);
  else if (auto* i = std::get_if<int64_t>(&v)) out << std::to_string(*i);
  else if (auto* b = std::get_if<bool>(&v)) out << (*b ? "true" : "false");
  else write_text(out, std::get<std::string>(v));
}

void write_args(YAML::Emitter& out, const Args& args) {
  if (args.empty()) return;
  out << YAML::Key << "args" << YAML::Value << YAML::BeginMap;
  for (const auto& [key, value] : args) {
    out << YAML::Key;
    write_text(out, key);
    out << YAML::Value;
    write_value(out, value);
  }
  out << YAML::EndMap;
}

void write_leaf_call(YAML::Emitter& out, const std::string& leaf, const Args& args, bool negate) {
  if (args.empty() && !negate) {
    write_text(out, leaf);
    return;
  }
  out << YAML::Flow << YAML::BeginMap << YAML::Key << "leaf" << YAML::Value;
  write_text(out, leaf);
  if (negate) out << YAML::Key << "negate" << YAML::Value << "true";
  write_args(out, args);
  out << YAML::EndMap;
}

void write_threshold(YAML::Emitter& out, const Threshold& t) {
  if (t.policy) out << (*t.policy == Policy::One ? "one" : "all");
  else out << std::to_string(t.count);
}

bool is_default(const Threshold& t, Policy p) { return t.policy && *t.policy == p; }

void write_children(YAML::Emitter& out, const std::vector<BuiltNode>& nodes, size_t from, size_t to) {
  out << YAML::BeginSeq;
  for (size_t i = from; i < to; ++i) write_node(out, nodes[i]);
  out << YAML::EndSeq;
}

void write_composite(YAML::Emitter& out, const BuiltNode& n) {
  const bool parallel = n.kind == "parallel";
  const bool params = !n.name.empty() || n.abort != Abort::None || !n.weights.empty() || n.kind == "filter" ||
                      (parallel && (!is_default(n.success, Policy::All) || !is_default(n.failure, Policy::One)));
  if (!params) {  // short form: sequence: [...]
    write_children(out, n.children, 0, n.children.size());
    return;
  }
  out << YAML::BeginMap;
  if (!n.name.empty()) {
    out << YAML::Key << "name" << YAML::Value;
    write_text(out, n.name);
  }
  if (n.abort != Abort::None) out << YAML::Key << "abort" << YAML::Value << abort_name(n.abort);
  if (parallel && !is_default(n.success, Policy::All)) {
    out << YAML::Key << "success" << YAML::Value;
    write_threshold(out, n.success);
  }
  if (parallel && !is_default(n.failure, Policy::One)) {
    out << YAML::Key << "failure" << YAML::Value;
    write_threshold(out, n.failure);
  }
  if (!n.weights.empty()) {
    out << YAML::Key << "weights" << YAML::Value << YAML::Flow << YAML::BeginSeq;
    for (double w : n.weights) out << number_text(w);
    out << YAML::EndSeq;
  }
  if (n.kind == "filter") {
    size_t split = n.in_do ? n.conditions : n.children.size();
    if (split > 0) {
      out << YAML::Key << "conditions" << YAML::Value;
      write_children(out, n.children, 0, split);
    }
    if (split < n.children.size()) {
      out << YAML::Key << "do" << YAML::Value;
      write_children(out, n.children, split, n.children.size());
    }
  } else {
    out << YAML::Key << "children" << YAML::Value;
    write_children(out, n.children, 0, n.children.size());
  }
  out << YAML::EndMap;
}

void write_decorator(YAML::Emitter& out, const BuiltNode& n) {
  const bool params = !n.name.empty() || n.times || n.seconds || !n.text.empty();
  if (!params) {  // short form: invert: {action: X}
    if (n.children.empty()) out << YAML::Null;
    else write_node(out, n.children[0]);
    return;
  }
  out << YAML::BeginMap;
  if (!n.name.empty()) {
    out << YAML::Key << "name" << YAML::Value;
    write_text(out, n.name);
  }
  if (n.times) out << YAML::Key << "times" << YAML::Value << std::to_string(*n.times);
  if (n.seconds) out << YAML::Key << "seconds" << YAML::Value << number_text(*n.seconds);
  if (!n.text.empty()) {
    out << YAML::Key << "message" << YAML::Value;
    write_text(out, n.text);
  }
  if (!n.children.empty()) {
    out << YAML::Key << "child" << YAML::Value;
    write_node(out, n.children[0]);
  }
  out << YAML::EndMap;
}

void write_leaf(YAML::Emitter& out, const BuiltNode& n) {
  if (n.kind == "wait") {
    if (n.name.empty()) {
      out << number_text(*n.seconds);
      return;
    }
    out << YAML::Flow << YAML::BeginMap << YAML::Key << "seconds" << YAML::Value << number_text(*n.seconds);
  } else if (n.kind == "subtree") {
    if (n.name.empty()) {
      write_text(out, n.text);
      return;
    }
    out << YAML::Flow << YAML::BeginMap << YAML::Key << "tree" << YAML::Value;
    write_text(out, n.text);
  } else if (n.kind == "check") {
    // Always quoted, as SPEC writes it: an expression reads better as one string.
    out << YAML::Flow << YAML::BeginMap << YAML::Key << "check" << YAML::Value << YAML::DoubleQuoted << n.text;
    if (n.negate) out << YAML::Key << "negate" << YAML::Value << "true";
  } else {  // action, condition
    if (n.name.empty() && n.args.empty() && !n.negate) {
      write_text(out, n.text);
      return;
    }
    out << YAML::Flow << YAML::BeginMap << YAML::Key << "leaf" << YAML::Value;
    write_text(out, n.text);
    if (n.negate) out << YAML::Key << "negate" << YAML::Value << "true";
    write_args(out, n.args);
  }
  if (!n.name.empty()) {
    out << YAML::Key << "name" << YAML::Value;
    write_text(out, n.name);
  }
  out << YAML::EndMap;
}

void write_node(YAML::Emitter& out, const BuiltNode& n) {
  out << YAML::BeginMap << YAML::Key << (n.kind == "check" ? "condition" : n.kind.c_str()) << YAML::Value;
  switch (n.shape) {
    case Form::Composite: write_composite(out, n); break;
    case Form::Decorator: write_decorator(out, n); break;
    case Form::Leaf: write_leaf(out, n); break;
  }
  out << YAML::EndMap;
}

void write_blackboard_entry(YAML::Emitter& out, const BlackboardDecl& d) {
  out << YAML::Key;
  write_text(out, d.key);
  out << YAML::Value;
  std::optional<ValueType> type = d.type;
  // An integer or nil default needs the long form: `kills: 0` would declare a number.
  if (!type && std::holds_alternative<int64_t>(d.default_value)) type = ValueType::Integer;
  if (!type && std::holds_alternative<std::monostate>(d.default_value)) type = ValueType::Any;
  if (!type) {
    write_value(out, d.default_value);
    return;
  }
  out << YAML::Flow << YAML::BeginMap << YAML::Key << "type" << YAML::Value << std::string(value_type_name(*type));
  if (!std::holds_alternative<std::monostate>(d.default_value)) {
    out << YAML::Key << "default" << YAML::Value;
    write_value(out, d.default_value);
  }
  out << YAML::EndMap;
}

void write_blackboard(YAML::Emitter& out, const std::vector<BlackboardDecl>& keys) {
  if (keys.empty()) return;
  out << YAML::Key << "blackboard" << YAML::Value << YAML::BeginMap;
  for (const auto& d : keys) write_blackboard_entry(out, d);
  out << YAML::EndMap;
}

void write_list(YAML::Emitter& out, const char* key, const std::vector<std::string>& items) {
  if (items.empty()) return;
  out << YAML::Key << key << YAML::Value << YAML::Flow << YAML::BeginSeq;
  for (const auto& item : items) write_text(out, item);
  out << YAML::EndSeq;
}

}  // namespace builder

using namespace builder;

std::string TreeBuilder::State::yaml() const {
  YAML::Emitter out;
  out << YAML::BeginMap << YAML::Key << "tree" << YAML::Value;
  write_text(out, tree);
  write_list(out, "leaves", leaves);
  write_list(out, "import", imports);
  write_blackboard(out, blackboard);
  if (root) {
    out << YAML::Key << "root" << YAML::Value;
    write_node(out, *root);
  }
  if (!trees.empty()) {
    out << YAML::Key << "trees" << YAML::Value << YAML::BeginMap;
    for (const auto& [name, node] : trees) {
      out << YAML::Key;
      write_text(out, name);
      out << YAML::Value;
      write_node(out, node);
    }
    out << YAML::EndMap;
  }
  out << YAML::EndMap;
  return std::string(out.c_str()) + "\n";
}

namespace {

BuiltNode make(const char* kind, Form shape) {
  BuiltNode n;
  n.kind = kind;
  n.shape = shape;
  return n;
}

std::string with_abort(const char* method, Abort a) {
  return std::string(method) + (a == Abort::None ? "()" : std::string("(abort: ") + abort_name(a) + ")");
}

}  // namespace

TreeBuilder::TreeBuilder(std::string tree_name) : s_(std::make_unique<State>()) { s_->tree = std::move(tree_name); }
TreeBuilder::~TreeBuilder() = default;
TreeBuilder::TreeBuilder(const TreeBuilder& other) : s_(std::make_unique<State>(*other.s_)) {}
TreeBuilder& TreeBuilder::operator=(const TreeBuilder& other) {
  if (this != &other) s_ = std::make_unique<State>(*other.s_);
  return *this;
}
TreeBuilder::TreeBuilder(TreeBuilder&&) noexcept = default;
TreeBuilder& TreeBuilder::operator=(TreeBuilder&&) noexcept = default;

// ---- Settings ----

TreeBuilder& TreeBuilder::Leaves(const std::vector<std::string>& files) {
  s_->begin("Leaves()", false);
  s_->leaves.insert(s_->leaves.end(), files.begin(), files.end());
  return *this;
}

TreeBuilder& TreeBuilder::Import(const std::vector<std::string>& files) {
  s_->begin("Import()", false);
  s_->imports.insert(s_->imports.end(), files.begin(), files.end());
  return *this;
}

TreeBuilder& TreeBuilder::Blackboard(const std::string& key, const Value& default_value) {
  s_->begin("Blackboard(" + quoted(key) + ")", false);
  for (const auto& d : s_->blackboard)
    if (d.key == key) {
      s_->error("blackboard key '" + key + "' is declared twice");
      return *this;
    }
  s_->blackboard.push_back({key, std::nullopt, default_value});
  return *this;
}

TreeBuilder& TreeBuilder::Blackboard(const std::string& key, ValueType type, const Value& default_value) {
  s_->begin("Blackboard(" + quoted(key) + ")", false);
  for (const auto& d : s_->blackboard)
    if (d.key == key) {
      s_->error("blackboard key '" + key + "' is declared twice");
      return *this;
    }
  s_->blackboard.push_back({key, type, default_value});
  return *this;
}

TreeBuilder& TreeBuilder::Define(const TreeBuilder& tree) {
  s_->begin("Define(" + quoted(tree.s_->tree) + ")", false);
  State sub = tree.s_->finished("Define()");
  for (const auto& e : sub.errors) s_->errors.push_back("in tree '" + sub.tree + "': " + e);
  if (sub.root) s_->trees.emplace_back(sub.tree, std::move(*sub.root));
  for (auto& t : sub.trees) s_->trees.push_back(std::move(t));
  return *this;
}

TreeBuilder* TreeBuilder::Named(const std::string& name) {
  if (!s_->begin("Named(" + quoted(name) + ")")) return this;
  if (s_->pending_name) s_->error("follows Named(\"" + *s_->pending_name + "\") with no node between them");
  s_->pending_name = name;
  return this;
}

// ---- Composites ----

TreeBuilder* TreeBuilder::Sequence(Abort abort) {
  BuiltNode n = make("sequence", Form::Composite);
  n.abort = abort;
  if (s_->begin(with_abort("Sequence", abort))) s_->add(std::move(n));
  return this;
}

TreeBuilder* TreeBuilder::Selector(Abort abort) {
  BuiltNode n = make("selector", Form::Composite);
  n.abort = abort;
  if (s_->begin(with_abort("Selector", abort))) s_->add(std::move(n));
  return this;
}

TreeBuilder* TreeBuilder::ActiveSelector() {
  if (s_->begin("ActiveSelector()")) s_->add(make("active_selector", Form::Composite));
  return this;
}

TreeBuilder* TreeBuilder::Parallel(Threshold success, Threshold failure) {
  BuiltNode n = make("parallel", Form::Composite);
  n.success = success;
  n.failure = failure;
  if (s_->begin("Parallel()")) s_->add(std::move(n));
  return this;
}

TreeBuilder* TreeBuilder::Monitor() {
  if (s_->begin("Monitor()")) s_->add(make("monitor", Form::Composite));
  return this;
}

TreeBuilder* TreeBuilder::Filter(Abort abort) {
  BuiltNode n = make("filter", Form::Composite);
  n.abort = abort;
  if (s_->begin(with_abort("Filter", abort))) s_->add(std::move(n));
  return this;
}

TreeBuilder* TreeBuilder::Do() {
  if (!s_->begin("Do()")) return this;
  if (s_->pending_name) {
    s_->error("Named(\"" + *s_->pending_name + "\") must come right before a node, not before Do()");
    s_->pending_name.reset();
  }
  if (s_->open.empty() || s_->open.back().kind != "filter") {
    s_->error("no filter is open; Do() separates a Filter()'s conditions from its do nodes");
  } else if (s_->open.back().in_do) {
    s_->error("this filter's Do() was already called");
  } else {
    s_->open.back().in_do = true;
    s_->open.back().conditions = s_->open.back().children.size();
  }
  return this;
}

TreeBuilder* TreeBuilder::RandomSelector(const std::vector<double>& weights, Abort abort) {
  BuiltNode n = make("random_selector", Form::Composite);
  n.weights = weights;
  n.abort = abort;
  if (s_->begin(with_abort("RandomSelector", abort))) s_->add(std::move(n));
  return this;
}

TreeBuilder* TreeBuilder::RandomSequence(const std::vector<double>& weights, Abort abort) {
  BuiltNode n = make("random_sequence", Form::Composite);
  n.weights = weights;
  n.abort = abort;
  if (s_->begin(with_abort("RandomSequence", abort))) s_->add(std::move(n));
  return this;
}

TreeBuilder* TreeBuilder::Back() {
  if (!s_->begin("Back()")) return this;
  if (s_->pending_name) {
    s_->error("Named(\"" + *s_->pending_name + "\") has no node after it");
    s_->pending_name.reset();
  }
  if (s_->open.empty()) s_->error("no composite is open");
  else if (s_->open.back().shape == Form::Decorator)
    s_->error(s_->open.back().call + " is still waiting for its child; a decorator takes the next node");
  else s_->close_composite();
  return this;
}

// ---- Decorators ----

TreeBuilder* TreeBuilder::Invert() {
  if (s_->begin("Invert()")) s_->add(make("invert", Form::Decorator));
  return this;
}

TreeBuilder* TreeBuilder::ForceSuccess() {
  if (s_->begin("ForceSuccess()")) s_->add(make("force_success", Form::Decorator));
  return this;
}

TreeBuilder* TreeBuilder::ForceFailure() {
  if (s_->begin("ForceFailure()")) s_->add(make("force_failure", Form::Decorator));
  return this;
}

TreeBuilder* TreeBuilder::Repeat() {
  if (s_->begin("Repeat()")) s_->add(make("repeat", Form::Decorator));
  return this;
}

TreeBuilder* TreeBuilder::Repeat(int64_t times) {
  BuiltNode n = make("repeat", Form::Decorator);
  n.times = times;
  if (s_->begin("Repeat(" + std::to_string(times) + ")")) s_->add(std::move(n));
  return this;
}

TreeBuilder* TreeBuilder::UntilFail() {
  if (s_->begin("UntilFail()")) s_->add(make("until_fail", Form::Decorator));
  return this;
}

TreeBuilder* TreeBuilder::UntilSuccess() {
  if (s_->begin("UntilSuccess()")) s_->add(make("until_success", Form::Decorator));
  return this;
}

TreeBuilder* TreeBuilder::Limit(int64_t times) {
  BuiltNode n = make("limit", Form::Decorator);
  n.times = times;
  if (s_->begin("Limit(" + std::to_string(times) + ")")) s_->add(std::move(n));
  return this;
}

TreeBuilder* TreeBuilder::Timeout(double seconds) {
  BuiltNode n = make("timeout", Form::Decorator);
  n.seconds = seconds;
  if (s_->begin("Timeout(" + number_text(seconds) + ")")) s_->add(std::move(n));
  return this;
}

TreeBuilder* TreeBuilder::Cooldown(double seconds) {
  BuiltNode n = make("cooldown", Form::Decorator);
  n.seconds = seconds;
  if (s_->begin("Cooldown(" + number_text(seconds) + ")")) s_->add(std::move(n));
  return this;
}

TreeBuilder* TreeBuilder::Log(const std::string& message) {
  BuiltNode n = make("log", Form::Decorator);
  n.text = message;
  if (s_->begin("Log(" + quoted(message) + ")")) s_->add(std::move(n));
  return this;
}

// ---- Leaves ----

TreeBuilder* TreeBuilder::Action(const std::string& leaf, const Args& args) {
  BuiltNode n = make("action", Form::Leaf);
  n.text = leaf;
  n.args = args;
  if (s_->begin("Action(" + quoted(leaf) + ")")) s_->add(std::move(n));
  return this;
}

TreeBuilder* TreeBuilder::Condition(const std::string& leaf, const Args& args, bool negate) {
  BuiltNode n = make("condition", Form::Leaf);
  n.text = leaf;
  n.args = args;
  n.negate = negate;
  if (s_->begin("Condition(" + quoted(leaf) + ")")) s_->add(std::move(n));
  return this;
}

TreeBuilder* TreeBuilder::Condition(const std::string& leaf, bool negate) { return Condition(leaf, Args{}, negate); }

TreeBuilder* TreeBuilder::Check(const std::string& expression, bool negate) {
  BuiltNode n = make("check", Form::Leaf);
  n.text = expression;
  n.negate = negate;
  if (s_->begin("Check(" + quoted(expression) + ")")) s_->add(std::move(n));
  return this;
}

TreeBuilder* TreeBuilder::Wait(double seconds) {
  BuiltNode n = make("wait", Form::Leaf);
  n.seconds = seconds;
  if (s_->begin("Wait(" + number_text(seconds) + ")")) s_->add(std::move(n));
  return this;
}

TreeBuilder* TreeBuilder::Subtree(const std::string& tree) {
  BuiltNode n = make("subtree", Form::Leaf);
  n.text = tree;
  if (s_->begin("Subtree(" + quoted(tree) + ")")) s_->add(std::move(n));
  return this;
}

// ---- Results ----

TreeBuilder& TreeBuilder::End() {
  if (s_->begin("End()")) s_->finish();
  return *this;
}

std::string TreeBuilder::Yaml() const {
  if (s_->ended) return s_->yaml();
  return s_->finished("Yaml()").yaml();
}

const std::vector<std::string>& TreeBuilder::Errors() const { return s_->errors; }

std::optional<BrainHandle> TreeBuilder::Load(Runtime& rt, std::vector<Diagnostic>& diagnostics,
                                             const std::string& name) const {
  const std::string file = name.empty() ? s_->tree + ".yaml" : name;
  std::vector<std::string> errors = s_->errors;
  if (!s_->ended) errors.push_back("the tree is not finished: call End() before Load()");
  if (!errors.empty()) {
    for (const auto& e : errors) diagnostics.push_back({Severity::Error, file, 0, 0, "builder: " + e});
    return std::nullopt;
  }
  return rt.load_string(s_->yaml(), file, diagnostics);
}

}  // namespace thicket
