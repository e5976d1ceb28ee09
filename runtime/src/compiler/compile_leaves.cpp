// Leaf nodes (SPEC 3.4): action and condition calls with their args checked against the
// leaf's declaration, wait, and `check:` expressions compiled against the blackboard.
#include <algorithm>
#include <cctype>
#include <sstream>

#include "tree_compiler.hpp"
#include "suggest.hpp"
#include "yaml_scalar.hpp"

namespace thicket {

// Resolves a leaf name, reporting unknown names with a suggestion.
bool TreeCompiler::resolve_leaf(const YAML::Node& at, const std::string& name, bool is_condition) {
  auto it = leaves_.find(name);
  if (it != leaves_.end() && name == "on_reload") {  // the file's hook, kept out of the leaves
    error(at, "'on_reload' is a leaf file's reload hook (called once after a reload succeeds), not a leaf a node "
              "can call; give the leaf another name");
    return false;
  }
  if (it == leaves_.end()) {
    if (auto data = src_.data_entries.find(name); data != src_.data_entries.end()) {
      // `leaves.Patrol = 42` in the leaf file: there, but no leaf.
      // (Appended: one + chain here made GCC 12 warn of an overflow that cannot happen.)
      std::string msg = "'";
      msg += shown_name(name);
      msg += "' is no leaf: ";
      msg += data->second;  // where and what, and what a leaf is
      error(at, msg);
      return false;
    }
    std::string near = did_you_mean(name, leaf_names_);
    // leaves.Attack, as the Lua file writes it: the leaf is its key.
    if (const size_t dot = name.rfind('.'); near.empty() && dot != std::string::npos && leaves_.count(name.substr(dot + 1)))
      near = "; did you mean '" + shown_name(name.substr(dot + 1)) +
             "'? (a leaf is named by its key in the table its file returns)";
    std::string msg = "unknown leaf '" + shown_name(name) + "'" + near;
    // `condition: "hp > 5"`: a comparison where a leaf's name goes.
    if (near.empty() && is_condition && name.find_first_of("<>=!") != std::string::npos) {
      msg += " (a leaf is called by its name; a comparison of blackboard values is a check: condition: {check: \"" +
             shown_name(name) + "\"})";
      error(at, msg);
      return false;
    }
    if (!src_.failed_leaf_files.empty())
      msg += maybe_in_failed(src_.failed_leaf_files);
    else if (src_.leaf_files_failed)
      msg += " (a file listed under 'leaves:' was not loaded: see the error there)";
    else if (leaf_names_.empty() && !src_.leaf_files.empty())  // listed, loaded, and empty of leaves
      msg += std::string(" (") + (src_.leaf_files.size() > 1 ? "the leaf files " : "the leaf file ") +
             join_names(src_.leaf_files) + (src_.leaf_files.size() > 1 ? " define" : " defines") +
             " no leaves: a leaf is a function, a table of hooks or thicket.task(fn) under a name in the table the file returns)";
    else if (leaf_names_.empty())
      msg += " (no leaves are defined: list Lua files under 'leaves:' at the top of the brain file)";
    else if (near.empty())
      msg += " (defined: " + join_names(leaf_names_) + ")";
    error(at, msg);
    return false;
  }
  if (is_condition && (it->second == LeafShape::Hooks || it->second == LeafShape::Task)) {
    error(at, "leaf '" + name + "' is " + (it->second == LeafShape::Task ? "a task" : "a table of start/tick/stop hooks") +
                  "; a condition needs a plain function returning true or false");
    return false;
  }
  return true;
}

uint32_t TreeCompiler::leaf(NodeKind kind, const YAML::Node& v, const std::string& path, const std::string& prefix) {
  const std::string kind_name = kind_info(kind).name;
  if (kind == NodeKind::Wait) {
    if (v.IsMap()) {
      check_params(kind, v, kind_name);
      uint32_t index = emit(kind, v, path, read_name(v, prefix, path), "wait");
      if (!v["seconds"]) {
        if (!misspelt(v, "seconds")) error(v, "wait needs 'seconds'");
      }
      else if (auto s = read_seconds(v["seconds"], "'seconds'")) p_.nodes[index].seconds = *s;
      p_.nodes[index].end = index + 1;
      return index;
    }
    uint32_t index = emit(kind, v, path, "", "wait");
    if (auto s = read_seconds(v, "wait")) p_.nodes[index].seconds = *s;
    p_.nodes[index].end = index + 1;
    return index;
  }
  const bool is_condition = kind == NodeKind::Condition;
  const std::string shown = leaf_shown_as_.empty() ? kind_name : leaf_shown_as_;  // in messages
  std::string leaf_name, name;
  YAML::Node leaf_at = v, args;
  bool negate = false;
  if (v.IsScalar() && classify_scalar(v).kind == ScalarKind::String && !v.Scalar().empty()) {
    leaf_name = v.Scalar();
  } else if (v.IsMap()) {
    check_params(kind, v, shown);
    name = read_name(v, prefix, path);
    if (is_condition && v["negate"]) {
      Scalar s = classify_scalar(v["negate"]);
      if (s.kind != ScalarKind::Bool)
        error(v["negate"], std::string("'negate' must be true or false, got ") + describe_node(v["negate"]) + yaml11_boolean_hint(v["negate"]));
      negate = s.boolean;
    }
    if (is_condition && v["check"]) {
      if (v["leaf"]) error(v["leaf"], "a condition has either 'leaf' or 'check', not both");
      if (v["args"]) error(v["args"], "'args' goes with 'leaf'; a check expression reads the blackboard");
      return check(v["check"], path, name, negate);
    }
    if (!v["leaf"]) {
      error(v, shown + " needs 'leaf', the name of the leaf to call" +
                   std::string(is_condition ? " (or 'check', an expression)" : ""));
    } else if (!v["leaf"].IsScalar() || v["leaf"].Scalar().empty()) {  // `leaf: ""`, `leaf: !tag`
      error(v["leaf"], std::string("'leaf' must be a leaf name, got ") + describe_node(v["leaf"]));
    } else {
      leaf_name = v["leaf"].Scalar();
      leaf_at.reset(v["leaf"]);
    }
    if (v["args"]) args.reset(v["args"]);
    if (args && !args.IsMap() && !args.IsNull())
      error(args, std::string("'args' must be a mapping (args: {radius: 10}), got ") + describe_node(args));
  } else {
    error(v, shown + " takes a leaf name (" + shown + ": Name) or a mapping {leaf: Name, args: {...}}" +
                 std::string(is_condition ? " or {check: \"expression\"}" : "") + "; got " +
                 (v.IsScalar() && v.Scalar().empty() && !v.IsNull() ? std::string("an empty name ('')") : describe_node(v)));
    return kNone;
  }
  // A negated condition's label says so (`dot`, --explain, traces): "condition No" read as the
  // opposite of its test.
  uint32_t index = emit(kind, v, path, name, (negate ? "not " : "") + kind_name + " " + leaf_name);
  p_.nodes[index].end = index + 1;
  if (negate) p_.nodes[index].flags |= kNegate;
  if (!leaf_name.empty() && resolve_leaf(leaf_at, leaf_name, is_condition)) check_args(leaf_name, v, args);
  if (args) args_keys(args);
  LeafCall call;
  call.leaf = leaf_name;
  call.args = args && !budget_->bytes_passed ? yaml_to_arg(args) : ArgValue{};
  if (call.args.type == ArgValue::Type::Nil) call.args.type = ArgValue::Type::Map;
  if (!within_bytes(args ? args : v, arg_bytes(call.args), false)) {  // (the load fails: no more copies kept)
    call.args = ArgValue{};
    call.args.type = ArgValue::Type::Map;
  }
  p_.nodes[index].a = static_cast<uint32_t>(p_.calls.size());
  p_.calls.push_back(std::move(call));
  return index;
}

bool TreeCompiler::within_bytes(const YAML::Node& at, size_t bytes, bool check) {
  if (budget_->bytes_passed) return false;
  size_t& total = check ? budget_->check_bytes : budget_->arg_bytes;
  const size_t most = check ? Budget::kMaxCheckBytes : Budget::kMaxArgBytes;
  total += bytes;
  if (total <= most) return true;
  budget_->bytes_passed = true;
  error(at, std::string(check ? "the checks" : "the leaves' args") + " pass " + std::to_string(most >> 20) +
                " MB here (subtrees count once per use, each use with its own copy" +
                (check ? "" : " of its leaves' args") + "; " + (check ? "this check comes" : "these come") + " to " +
                std::to_string(bytes) + " bytes)");
  return false;
}

// An arg's size in memory, near enough: its texts and keys, and a slot per value.
size_t TreeCompiler::arg_bytes(const ArgValue& v) {
  size_t bytes = sizeof(ArgValue) + v.text.size();
  for (const ArgValue& item : v.items) bytes += arg_bytes(item);
  for (const auto& [key, value] : v.entries) bytes += key.size() + arg_bytes(value);
  return bytes;
}

// The args of a call against the types its leaf declares (when it declares them).
void TreeCompiler::check_args(const std::string& leaf_name, const YAML::Node& at, const YAML::Node& args) {
  auto declared = src_.leaf_args.find(leaf_name);
  if (declared == src_.leaf_args.end()) return;
  std::vector<std::string> names;
  for (const auto& spec : declared->second) names.push_back(spec.name);
  const bool have = args && args.IsMap();
  if (have)
    for (auto it = args.begin(); it != args.end(); ++it) {
      std::string key = it->first.Scalar();
      if (std::find(names.begin(), names.end(), key) == names.end())
        error(it->first, unknown_arg_message(leaf_name, key, names));
    }
  for (const auto& spec : declared->second) {
    const YAML::Node value = have ? args[spec.name] : YAML::Node(YAML::NodeType::Undefined);
    bool misspelt = false;  // then the unknown-arg error above says what was meant
    if (have)
      for (auto it = args.begin(); it != args.end(); ++it)
        misspelt = misspelt || (!args[it->first.Scalar()].IsNull() && it->first.Scalar() != spec.name &&
                                closest_name(it->first.Scalar(), names) == spec.name);
    if (!value || value.IsNull()) {
      if (!spec.optional && !misspelt)
        error(have ? args : at, missing_arg_message(leaf_name, spec));
      continue;
    }
    if (!arg_fits(value, spec.type))
      error(value, wrong_arg_message(leaf_name, spec, shown_arg(value)) +
                       (spec.type == "integer" ? whole_number_hint(value) : std::string()));
  }
}

std::vector<std::string> call_args_errors(const std::string& leaf_name, const LeafArgs& declared, const ArgValue& args) {
  std::vector<std::string> errors, names;
  for (const auto& spec : declared) names.push_back(spec.name);
  auto given = [&](const std::string& name) -> const ArgValue* {
    for (const auto& [key, value] : args.entries)
      if (key == name) return &value;
    return nullptr;
  };
  for (const auto& [key, value] : args.entries)
    if (std::find(names.begin(), names.end(), key) == names.end())
      errors.push_back(TreeCompiler::unknown_arg_message(leaf_name, key, names));
  for (const auto& spec : declared) {
    const ArgValue* value = given(spec.name);
    if (!value || value->type == ArgValue::Type::Nil) {
      bool misspelt = false;  // then the unknown-arg error above says what was meant
      for (const auto& [key, v] : args.entries)
        misspelt = misspelt || (v.type != ArgValue::Type::Nil && key != spec.name && closest_name(key, names) == spec.name);
      if (!spec.optional && !misspelt)
        errors.push_back(TreeCompiler::missing_arg_message(leaf_name, spec));
      continue;
    }
    using T = ArgValue::Type;
    const T t = value->type;
    const bool fits = spec.type == "table"     ? t == T::List || t == T::Map
                      : spec.type == "number"  ? t == T::Integer || t == T::Number
                      : spec.type == "integer" ? t == T::Integer
                      : spec.type == "string"  ? t == T::String
                      : spec.type == "boolean" ? t == T::Bool
                                               : false;
    if (fits) continue;
    std::ostringstream shown;
    if (t == T::String) shown << "the text '" << value->text << "'";
    else if (t == T::Integer || t == T::Number) shown << "the number ", write_arg(shown, *value);
    else if (t == T::Bool) shown << (value->boolean ? "true" : "false");
    else shown << (t == T::List ? "a list" : "a mapping");
    errors.push_back(TreeCompiler::wrong_arg_message(leaf_name, spec, shown.str()));
  }
  return errors;
}

// The words of the args checks, the compiler's of the YAML and call_args_errors' of a reload's.
std::string TreeCompiler::unknown_arg_message(const std::string& leaf, const std::string& key,
                                              const std::vector<std::string>& names) {
  return "leaf '" + leaf + "' has no arg '" + key + "'" + did_you_mean(key, names) +
         (names.empty() ? " (it takes no args)" : " (args: " + join_names(names) + ")");
}

std::string TreeCompiler::missing_arg_message(const std::string& leaf, const LeafArgSpec& spec) {
  return "leaf '" + leaf + "' needs arg '" + spec.name + "' (" + arg_type_phrase(spec.type) + "): args: {" + spec.name +
         ": ...}";
}

std::string TreeCompiler::wrong_arg_message(const std::string& leaf, const LeafArgSpec& spec, const std::string& got) {
  return "arg '" + spec.name + "' of leaf '" + leaf + "' must be " + arg_type_phrase(spec.type) + ", got " + got;
}

std::string TreeCompiler::arg_type_phrase(const std::string& type) {
  if (type == "number") return "a number";
  if (type == "integer") return "a whole number";
  if (type == "string") return "text";
  if (type == "boolean") return "true or false";
  return "a table (a list or a mapping)";
}

bool TreeCompiler::arg_fits(const YAML::Node& v, const std::string& type) {
  if (type == "table") return v.IsMap() || v.IsSequence();
  if (!v.IsScalar()) return false;
  Scalar s = classify_scalar(v);
  if (type == "number") return s.kind == ScalarKind::Integer || s.kind == ScalarKind::Float;
  if (type == "integer") return s.kind == ScalarKind::Integer;
  if (type == "string") return s.kind == ScalarKind::String;
  if (type == "boolean") return s.kind == ScalarKind::Bool;
  return false;
}

std::string TreeCompiler::shown_arg(const YAML::Node& v) {
  if (!v.IsScalar()) return describe_node(v);
  Scalar s = classify_scalar(v);
  switch (s.kind) {
    case ScalarKind::String: return "the text '" + s.text + "'";
    case ScalarKind::Integer:
    case ScalarKind::Float: return "the number " + v.Scalar();
    case ScalarKind::Bool: return v.Scalar();
    case ScalarKind::Null: return "nothing";
  }
  return describe_node(v);
}

uint32_t TreeCompiler::check(const YAML::Node& e, const std::string& path, const std::string& name, bool negate,
                             const std::string& what) {
  uint32_t index = emit(NodeKind::Check, e, path, name,
                        (negate ? "not check " : "check ") + (e.IsScalar() ? e.Scalar() : std::string()));
  p_.nodes[index].end = index + 1;
  if (negate) p_.nodes[index].flags |= kNegate;
  p_.nodes[index].a = expr_of(e, what);
  return index;
}

// An error at byte `column` of a scalar's text: its line and column in the file.
void TreeCompiler::error_in_scalar(const YAML::Node& e, size_t column, const std::string& msg) {
  const int quote = e.Tag() == "!" ? 1 : 0;  // a quoted scalar's mark is at its opening quote
  Diagnostic d;
  d.severity = Severity::Error;
  d.file = src_.files[file_].path;
  d.line = e.Mark().line + 1;
  d.column = e.Mark().column + 1 + quote + static_cast<int>(column);
  // In a block scalar, a quoted text with escapes or a folded line: where it is in the file.
  const auto text = src_.texts.find(src_.files[file_].path);
  if (text != src_.texts.end())
    if (auto [line, col] = scalar_position(text->second, e.Mark(), static_cast<uint32_t>(column)); line > 0) {
      d.line = line;
      d.column = col;
    }
  d.message = msg;
  diags_.push_back(std::move(d));
}

// A bt_script's code: statements `key = expression` separated by `;` (an empty one, e.g. after
// a last `;`, is allowed), each expression of its key's type. The steps run in order at the
// tick, so a later one reads what an earlier one wrote.
uint32_t TreeCompiler::script_of(const YAML::Node& e, const std::string& what) {
  if (!e.IsScalar() || classify_scalar(e).kind != ScalarKind::String) {
    error(e, what + " must be text in quotes, statements `key = expression` separated by ';', e.g. \"count = count + 1; "
                    "seen = true\"; got " + describe_node(e));
    return kNoNode;
  }
  const std::string& code = e.Scalar();
  auto errors = [&] { return std::count_if(diags_.begin(), diags_.end(), [](const Diagnostic& d) { return d.severity == Severity::Error; }); };
  const auto errors_before = errors();
  Program::Range range{static_cast<uint32_t>(p_.script_steps.size()), 0};
  std::vector<std::string> names;
  for (const auto& k : expr_keys_) names.push_back(k.name);
  size_t at = 0;
  auto space = [&](size_t k) { return k < code.size() && std::isspace(static_cast<unsigned char>(code[k])); };
  auto shown = [&](size_t b, size_t e2) {  // a statement as written, without the spaces around it
    while (e2 > b && space(e2 - 1)) --e2;
    return code.substr(b, e2 - b);
  };
  bool statements = false;
  while (at <= code.size()) {
    // The statement's end: the next ';' outside quotes.
    size_t end = at;
    for (char quote = 0; end < code.size() && (quote || code[end] != ';'); ++end) {
      if (quote && code[end] == '\\' && end + 1 < code.size()) ++end;
      else if (code[end] == quote) quote = 0;
      else if (!quote && (code[end] == '"' || code[end] == '\'')) quote = code[end];
    }
    size_t k = at;
    while (k < end && space(k)) ++k;
    if (k < end) {
      statements = true;
      size_t key_end = k;
      while (key_end < end && (std::isalnum(static_cast<unsigned char>(code[key_end])) || code[key_end] == '_')) ++key_end;
      const std::string key = code.substr(k, key_end - k);
      size_t eq = key_end;
      while (eq < end && space(eq)) ++eq;
      if (key.empty() || std::isdigit(static_cast<unsigned char>(key[0])) || eq >= end || code[eq] != '=' ||
          (eq + 1 < end && code[eq + 1] == '=')) {
        error_in_scalar(e, k, "in " + what + ": a statement is `key = expression`, got '" + shown(k, end) + "'");
      } else {
        auto it = std::find_if(expr_keys_.begin(), expr_keys_.end(), [&](const ExprKey& x) { return x.name == key; });
        if (it == expr_keys_.end()) {
          error_in_scalar(e, k, "in " + what + ": '" + key + "' is not a declared blackboard key" + did_you_mean(key, names));
        } else if (it->type == ValueType::Any) {
          error_in_scalar(e, k, "in " + what + ": '" + key + "' has type any; a script writes number, integer, boolean and string keys");
        } else if (!it->broken) {
          size_t value = eq + 1;
          while (value < end && space(value)) ++value;
          if (value >= end) {
            error_in_scalar(e, eq, "in " + what + ": '" + key + " =' has no value after it");
          } else {
            const uint32_t x = expr_of(e, what + ", the value of '" + key + "' (" + std::string(value_type_name(it->type)) + ")",
                                       it->type, value, end - value);
            p_.script_steps.push_back({it->slot, it->type, x});
          }
        }
      }
    }
    at = end + 1;
  }
  if (!statements) error(e, what + " has no statement; write `key = expression`, several separated by ';'");
  if (errors() != errors_before) {
    p_.script_steps.resize(range.begin);
    return kNoNode;
  }
  range.count = static_cast<uint32_t>(p_.script_steps.size()) - range.begin;
  p_.scripts.push_back(range);
  return static_cast<uint32_t>(p_.scripts.size() - 1);
}

uint32_t TreeCompiler::expr_of(const YAML::Node& e, const std::string& what, ValueType want, size_t begin, size_t size) {
  if (!e.IsScalar() || classify_scalar(e).kind != ScalarKind::String) {
    error(e, what + " must be an expression in quotes, e.g. check: \"health < 30\"; got " + describe_node(e));
    p_.exprs.emplace_back();
    return static_cast<uint32_t>(p_.exprs.size() - 1);
  }
  if (!within_bytes(e, std::min(size, e.Scalar().size()), true)) {  // (the load fails: not compiled)
    p_.exprs.emplace_back();
    return static_cast<uint32_t>(p_.exprs.size() - 1);
  }
  std::vector<ExprError> errors;
  auto compiled = compile_expr(std::string_view(e.Scalar()).substr(begin, size), expr_keys_, strings_, errors, want);
  for (auto& err : errors) err.column += static_cast<uint32_t>(begin);
  // A key whose default was written `no` (text in YAML 1.2) and is used here as true/false:
  // the mistake is at the declaration, so the error goes there, and this one points to it.
  std::string because;
  if (!errors.empty())
    for (const auto& yb : src_.yaml11_bools) {
      if (!mentions(e.Scalar(), yb.key)) continue;
      std::string decl = src_.files[yb.pos.file].path + ":" + std::to_string(yb.pos.line) + ":" + std::to_string(yb.pos.column);
      because += " ('" + yb.key + "' is text: its default `" + yb.text + "` at " + decl + " is the text '" + yb.text +
                 "' in YAML 1.2)";
      if (yaml11_misused_.insert(yb.key).second)
        diags_.push_back({Severity::Error, src_.files[yb.pos.file].path, yb.pos.line, yb.pos.column,
                          "`" + yb.text + "` is the text '" + yb.text + "' in YAML 1.2, not a boolean; write " +
                              yaml11_meaning(yb.text) + " ('" + yb.key + "' is used as true/false at " +
                              src_.files[file_].path + ":" + std::to_string(e.Mark().line + 1) + ":" +
                              std::to_string(e.Mark().column + 1) + ")"});
    }
  for (const auto& err : errors)
    error_in_scalar(e, err.column,
                    (want == ValueType::Boolean && begin == 0 ? "in check expression: " : "in " + what + ": ") + err.message + because);
  if (compiled) p_.exprs.push_back(std::move(*compiled));
  else p_.exprs.emplace_back();
  return static_cast<uint32_t>(p_.exprs.size() - 1);
}

// Whether `expr` has `name` as a whole word outside quotes.
bool TreeCompiler::mentions(const std::string& expr, const std::string& name) {
  char quote = 0;
  for (size_t i = 0; i < expr.size(); ++i) {
    char c = expr[i];
    if (quote) {
      if (c == quote) quote = 0;
      continue;
    }
    if (c == '"' || c == '\'') {
      quote = c;
      continue;
    }
    if (!std::isalpha(static_cast<unsigned char>(c)) && c != '_') continue;
    size_t j = i;
    while (j < expr.size() && (std::isalnum(static_cast<unsigned char>(expr[j])) || expr[j] == '_')) ++j;
    if (expr.compare(i, j - i, name) == 0 && j - i == name.size()) return true;
    i = j - 1;
  }
  return false;
}

std::string TreeCompiler::yaml11_meaning(const std::string& text) {
  std::string lower = text;
  for (char& c : lower) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return lower == "yes" || lower == "on" || lower == "y" ? "true" : "false";
}

// Mappings in args become Lua tables with text keys: a key given as nothing (`~: x`) or as a
// list or mapping has no text, and was dropped or read as "" without a word.
// (The file's nesting is bounded at load, kMaxYamlDepth, and so is this recursion.)
void TreeCompiler::args_keys(const YAML::Node& value) {
  if (value.IsSequence())
    for (const auto& item : value) args_keys(item);
  if (!value.IsMap()) return;
  for (auto it = value.begin(); it != value.end(); ++it) {
    if (!it->first.IsScalar() || classify_scalar(it->first).kind == ScalarKind::Null)
      error(it->first, std::string("a key in 'args' must be a name, a number or true/false (Lua gets it as text), got ") +
                           describe_node(it->first));
    // {x:1, speed:2.5}: keys 'x:1' and 'speed:2.5' with no values, which the leaf read as nil.
    // (A key written in quotes, "x:1", is that text.)
    else if (it->second.IsNull() && it->first.Tag() == "?")
      if (std::string hint = colon_hint(it->first.Scalar()); !hint.empty())
        error(it->first, "the args key '" + it->first.Scalar() + "' has no value" + hint);
    args_keys(it->second);
  }
}

}  // namespace thicket
