// `thicket export FILE --to btcpp [-o OUT.xml]` (SPEC 13): a compiled tree brain as
// BehaviorTree.CPP 4 XML, refusing what BT.CPP would read as something else (docs/import.md).
#include <algorithm>
#include <cctype>
#include <charconv>
#include <cmath>
#include <cstdio>
#include <iostream>
#include <map>
#include <optional>
#include <set>
#include <sstream>
#include <system_error>
#include <vector>

#include "cli_args.hpp"
#include "import_tree.hpp"
#include "program.hpp"
#include "runtime_impl.hpp"
#include "thicket/runtime.hpp"
#include "suggest.hpp"  // did_you_mean

namespace thicket::cli {

namespace {

std::string xml_escape(const std::string& s) {
  std::string out;
  for (char ch : s) {
    switch (ch) {
      case '&': out += "&amp;"; break;
      case '<': out += "&lt;"; break;
      case '>': out += "&gt;"; break;
      case '"': out += "&quot;"; break;
      // In an attribute value a reader turns a raw tab, newline or carriage return into a space.
      case '\t': out += "&#9;"; break;
      case '\n': out += "&#10;"; break;
      case '\r': out += "&#13;"; break;
      default: out += ch;
    }
  }
  return out;
}

// True when s can be an XML element or attribute name as written here: a letter or '_' first,
// then letters, digits, '_', '-' or '.' (non-ASCII letters are left out: BT.CPP's own names are
// ASCII). A leaf or port named otherwise cannot be written as BT.CPP XML.
bool xml_name(const std::string& s) {
  if (s.empty()) return false;
  auto letter = [](char c) { return std::isalpha(static_cast<unsigned char>(c)) || c == '_'; };
  if (!letter(s[0])) return false;
  for (char c : s)
    if (!letter(c) && !std::isdigit(static_cast<unsigned char>(c)) && c != '-' && c != '.') return false;
  return true;
}

// A check expression in BT.CPP's script language (and -> &&, or -> ||, not -> !, "x" -> 'x'),
// or "" with `why` when BT.CPP's language cannot say it: it has no '%', and its texts are
// written in '...' with no escape, so a text cannot hold a '.
// thicket's `not` takes everything up to the next `and`, `or` or closing parenthesis (it binds
// looser than comparisons: `not ammo < 3` is `not (ammo < 3)`); BT.CPP's `!` takes one operand
// (it binds tighter than any other operator: `! ammo < 3` is `(!ammo) < 3`, always true). So
// `not` is written `!(` and closed where its operand ends.
std::string bt_script(const std::string& check, std::string& why) {
  std::string out;
  size_t i = 0;
  int depth = 0;            // parentheses open
  std::vector<int> nots;    // the depth of each `!(` not closed yet
  const auto digit = [&](size_t k) { return k < check.size() && std::isdigit(static_cast<unsigned char>(check[k])); };
  auto close_nots = [&] {   // at an `and`, an `or`, a `)` or the end: the operands there end
    while (!nots.empty() && nots.back() == depth) {
      out += ")";
      nots.pop_back();
    }
  };
  while (i < check.size()) {
    char ch = check[i];
    if (ch == '"' || ch == '\'') {
      size_t j = i + 1;
      std::string body;
      while (j < check.size() && check[j] != ch) {
        if (check[j] == '\\' && j + 1 < check.size()) ++j;
        body += check[j++];
      }
      if (body.find('\'') != std::string::npos) {
        why = "the text \"" + body + "\" holds a ', which BT.CPP's script texts ('...', without escapes) cannot hold";
        return "";
      }
      out += "'" + body + "'";
      i = j + 1;
      continue;
    }
    if (ch == '%') {
      why = "BT.CPP's script language has no '%' (remainder)";
      return "";
    }
    if (std::isalpha(static_cast<unsigned char>(ch)) || ch == '_') {
      size_t j = i;
      while (j < check.size() && (std::isalnum(static_cast<unsigned char>(check[j])) || check[j] == '_')) ++j;
      std::string word = check.substr(i, j - i);
      if (word == "and" || word == "or") {
        while (!out.empty() && out.back() == ' ') out.pop_back();  // `)` against its operand
        close_nots();
        out += word == "and" ? " &&" : " ||";
      } else if (word == "not") {
        out += "!(";
        nots.push_back(depth);
        while (j < check.size() && check[j] == ' ') ++j;  // `!(x`, not `!( x`
      } else {
        out += word;
      }
      i = j;
      continue;
    }
    if (digit(i) || (ch == '.' && digit(i + 1))) {
      // A number as BT.CPP's tokenizer reads it: digits, then '.' and digits, then an exponent.
      // thicket's `.5`, `5.` and `1.e3` are errors there, so they are written 0.5, 5.0 and
      // 1.0e3; an integer past int64 (BT.CPP reads it as 0) is written as the real it is here.
      std::string number;
      if (ch == '.') number.push_back('0');
      bool real = false;
      while (digit(i)) number.push_back(check[i++]);
      if (i < check.size() && check[i] == '.') {
        real = true;
        number.push_back(check[i++]);
        if (!digit(i)) number.push_back('0');
        while (digit(i)) number.push_back(check[i++]);
      }
      if (i < check.size() && (check[i] == 'e' || check[i] == 'E')) {
        real = true;
        number.push_back(check[i++]);
        if (i < check.size() && (check[i] == '+' || check[i] == '-')) number.push_back(check[i++]);
        while (digit(i)) number.push_back(check[i++]);
      }
      int64_t fits = 0;
      if (!real && std::from_chars(number.data(), number.data() + number.size(), fits).ec != std::errc()) {
        number.push_back('.');
        number.push_back('0');
      }
      out.append(number);
      continue;
    }
    if (ch == '(') ++depth;
    if (ch == ')') {
      close_nots();
      --depth;
    }
    out += ch;
    ++i;
  }
  while (!out.empty() && out.back() == ' ') out.pop_back();
  close_nots();
  return out;
}

// `and` binds tighter than `or` in thicket, as `&&` than `||` in BT.CPP 4.9 and later; BT.CPP
// 4.0-4.8 read the two at one level, left to right (`a || b && c` as `(a || b) && c`). So where
// `and` and `or` meet at one level of parentheses, each run of `and` is put in parentheses of
// its own (`a or b and c` -> `a or (b and c)`): every version of BT.CPP reads it as thicket does.
std::string grouped_and_or(const std::string& s) {
  const auto word_char = [](char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_'; };
  const auto skip_text = [&](size_t i) {  // i at a quote: the index after its closing quote
    const char q = s[i++];
    while (i < s.size() && s[i] != q) i += s[i] == '\\' ? 2 : 1;
    return std::min(i + 1, s.size());
  };
  // The parenthesised groups first, each grouped inside; the words and/or at this level noted.
  std::string t;
  std::vector<std::pair<size_t, bool>> ops;  // (where in t, is `or`) of each top-level and/or
  for (size_t i = 0; i < s.size();) {
    if (s[i] == '"' || s[i] == '\'') {
      const size_t j = skip_text(i);
      t.append(s, i, j - i);
      i = j;
    } else if (s[i] == '(') {
      size_t j = i + 1;
      for (int depth = 1; j < s.size(); ) {
        if (s[j] == '"' || s[j] == '\'') { j = skip_text(j); continue; }
        if (s[j] == '(') ++depth;
        if (s[j] == ')' && --depth == 0) break;
        ++j;
      }
      t += "(" + grouped_and_or(s.substr(i + 1, j - i - 1)) + (j < s.size() ? ")" : "");
      i = j + 1;
    } else if (word_char(s[i])) {
      size_t j = i;
      while (j < s.size() && word_char(s[j])) ++j;
      const std::string word = s.substr(i, j - i);
      if (word == "and" || word == "or") ops.emplace_back(t.size(), word == "or");
      t += word;
      i = j;
    } else {
      t += s[i++];
    }
  }
  const bool has_or = std::any_of(ops.begin(), ops.end(), [](const auto& o) { return o.second; });
  const bool has_and = std::any_of(ops.begin(), ops.end(), [](const auto& o) { return !o.second; });
  if (!has_or || !has_and) return t;
  // Split at each `or`; a part holding an `and` goes in parentheses (its spaces outside them).
  std::string out;
  size_t from = 0;
  auto part = [&](size_t begin, size_t end, bool with_and) {
    size_t b = begin, e = end;
    while (b < e && t[b] == ' ') ++b;
    while (e > b && t[e - 1] == ' ') --e;
    out.append(t, begin, b - begin);
    out += with_and ? "(" + t.substr(b, e - b) + ")" : t.substr(b, e - b);
    out.append(t, e, end - e);
  };
  bool with_and = false;
  for (const auto& [at, is_or] : ops) {
    if (!is_or) {
      with_and = true;
      continue;
    }
    part(from, at, with_and);
    out += "or";
    from = at + 2;
    with_and = false;
  }
  part(from, t.size(), with_and);
  return out;
}

// thicket's `==` and `!=` on numbers are exact; BT.CPP's count two numbers within FLT_EPSILON
// of each other as equal (scripting/operators.hpp, IsSame). So each such comparison of the
// compiled check is written `(L >= R and L <= R)`, or `(not (...))` for `!=`, which BT.CPP
// compares exactly (its `>=` and `<=` are plain); the rest of the text stays as written.
// The operands are found from the postfix code (numbers only: arithmetic, no jumps) and
// widened to their balanced parentheses in the source.
std::string exact_equalities(const CompiledExpr& e) {
  const auto code = e.code();
  const auto spans = e.spans();
  const std::string src(e.source());
  auto effect = [](ExprOp op) {  // values pushed minus values taken
    switch (op) {
      case ExprOp::PushNum: case ExprOp::PushBool: case ExprOp::PushStr: case ExprOp::LoadNum:
      case ExprOp::LoadInt: case ExprOp::LoadBool: case ExprOp::LoadStr: return 1;
      case ExprOp::Neg: case ExprOp::Not: return 0;
      default: return -1;
    }
  };
  // The instructions [start, end) of the operand that ends at end - 1.
  auto operand_start = [&](size_t end) {
    int needed = 1;
    size_t j = end;
    while (needed > 0 && j > 0) needed -= effect(code[--j].op);
    return j;
  };
  auto source_range = [&](size_t b, size_t e2) {
    size_t lo = src.size(), hi = 0;
    for (size_t k = b; k < e2; ++k) {
      lo = std::min<size_t>(lo, spans[k].begin);
      hi = std::max<size_t>(hi, spans[k].begin + spans[k].size);
    }
    // Parentheses the operand's first or last tokens sit in: taken in with their partners.
    for (;;) {
      int depth = 0, lowest = 0;
      for (size_t k = lo; k < hi; ++k) {
        if (src[k] == '(') ++depth;
        if (src[k] == ')') lowest = std::min(lowest, --depth);
      }
      if (lowest < 0) {  // a ')' closes a '(' before lo
        size_t k = lo;
        while (k > 0 && src[k - 1] != '(') --k;
        if (k == 0) break;
        lo = k - 1;
      } else if (depth > lowest) {  // a '(' closed after hi
        size_t k = hi;
        while (k < src.size() && src[k] != ')') ++k;
        if (k == src.size()) break;
        hi = k + 1;
      } else {
        break;
      }
    }
    // Parentheses around the whole operand are the operand's: `(a + 1) == 2` wrote from inside
    // them, `(((a + 1) >= 2 ...)`, one '(' left open (and `a == (1)` one ')' too many).
    for (;;) {
      size_t a = lo, z = hi;
      while (a > 0 && src[a - 1] == ' ') --a;
      while (z < src.size() && src[z] == ' ') ++z;
      if (a == 0 || src[a - 1] != '(' || z >= src.size() || src[z] != ')') break;
      lo = a - 1;
      hi = z + 1;
    }
    return std::pair<size_t, size_t>{lo, hi};
  };
  // Whether text is one parenthesised group, its first '(' closed by its last ')'.
  auto wrapped = [](const std::string& text) {
    if (text.size() < 2 || text.front() != '(' || text.back() != ')') return false;
    int depth = 0;
    for (size_t k = 0; k < text.size(); ++k) {
      if (text[k] == '(') ++depth;
      if (text[k] == ')' && --depth == 0) return k + 1 == text.size();
    }
    return false;
  };
  struct Edit {
    size_t lo, hi;
    std::string text;
  };
  std::vector<Edit> edits;
  for (size_t k = 0; k < code.size(); ++k) {
    if (code[k].op != ExprOp::EqNum && code[k].op != ExprOp::NeNum) continue;
    const size_t right = operand_start(k), left = operand_start(right);
    const auto [llo, lhi] = source_range(left, right);
    const auto [rlo, rhi] = source_range(right, k);
    // An operand of one key or one number as it is; others in parentheses.
    auto term = [&](size_t b, size_t e2, size_t lo, size_t hi) {
      const std::string text = src.substr(lo, hi - lo);
      return e2 - b == 1 || wrapped(text) ? text : "(" + text + ")";
    };
    const std::string l = term(left, right, llo, lhi), r = term(right, k, rlo, rhi);
    const std::string same = "(" + l + " >= " + r + " and " + l + " <= " + r + ")";
    edits.push_back({llo, rhi, code[k].op == ExprOp::EqNum ? same : "(not " + same + ")"});
  }
  std::string out = src;
  for (auto it = edits.rbegin(); it != edits.rend(); ++it) out.replace(it->lo, it->hi - it->lo, it->text);
  return out;
}

// Milliseconds, BT.CPP's unit of time, or -1 when `seconds` is no whole number of them (0.0004 s
// would become 0 ms: a Sleep that ends at once, a Timeout that never fires).
int64_t msec_exact(double seconds) {
  const double ms = seconds * 1000.0;
  const double whole = std::round(ms);
  if (!(std::fabs(ms - whole) <= 1e-6 * std::max(1.0, std::fabs(ms))) || whole > 9e15) return -1;
  return static_cast<int64_t>(whole);
}


struct XmlExporter {
  explicit XmlExporter(const Program& program) : p(program) {}
  const Program& p;
  // Every node that cannot be exported, with why (all of them: the walk goes on past one),
  // each said at its node's place in the brain file; `at` is the node being written.
  std::vector<std::pair<uint32_t, std::string>> errors;
  uint32_t at = 0;
  void say(const std::string& why) { errors.emplace_back(at, why); }
  std::map<std::string, bool> leaves;  // name -> condition
  std::map<std::string, std::set<std::string>> ports;  // name -> its args' names
  // name -> its args that are text at every call: declared type="std::string" in the model, so
  // that "007" or "true" is read back as text, not as a number or a boolean.
  std::map<std::string, std::map<std::string, bool>> text_ports;
  // name -> arg -> a text of it that BT.CPP would read as a number or a boolean ("007", "true"),
  // and whether some call gives it a value that is not text: both cannot come back as they were.
  std::map<std::string, std::map<std::string, std::string>> lookalike_texts;
  std::map<std::string, std::map<std::string, bool>> untext_ports;
  std::ostringstream out;
  std::map<std::string, std::string> subtrees;  // <BehaviorTree> ID -> its body
  std::string main_id;  // the main tree's <BehaviorTree> ID, which no subtree may take
  std::vector<std::string> subtree_order;

  static std::string port_name_problem(const std::string& k) {
    if (!xml_name(k))
      return "the leaf argument '" + k + "' cannot be a BT.CPP port (an XML attribute): its name must be an ASCII letter " +
             "followed by ASCII letters, digits, '_', '-' or '.'";
    return "the leaf argument '" + k + "' cannot be a BT.CPP port: " +
           (k[0] == '_' ? std::string("names starting with '_' are BT.CPP's own attributes (_skipIf, _onSuccess, ...)")
                        : "'" + k + "' is BT.CPP's own attribute of every node") + "; rename the argument";
  }

  // A time attribute in whole milliseconds, or false (with the error) when it is none.
  bool msec_attr(uint32_t i, const char* attr, double seconds, std::string& text) {
    const int64_t ms = msec_exact(seconds);
    if (ms < 0 && !(seconds * 1000.0 <= 9e15)) {  // (llround of these is undefined: it said -9223372036854775808 ms)
      say("node '" + p.ids[i] + "': " + yaml_number(seconds) + " s is more milliseconds than BT.CPP's " + attr +
          " holds here (at most 9000000000000000, about 285,000 years; BT.CPP has no wait for ever)");
      return false;
    }
    if (ms < 0) {
      say("node '" + p.ids[i] + "': " + yaml_number(seconds) + " s is no whole number of milliseconds, BT.CPP's unit (" +
          attr + "); it would become " + std::to_string(std::llround(seconds * 1000.0)) + " ms");
      return false;
    }
    text = std::string(" ") + attr + "=\"" + std::to_string(ms) + "\"";
    return true;
  }

  // A script's steps as BT.CPP statements, `key := value; ...` (`:=` creates the entry where
  // BT.CPP's blackboard has none yet), or false (with the error).
  bool statements_of(uint32_t i, uint32_t script, std::string& text) {
    text.clear();
    const Program::Range r = p.scripts[script];
    for (uint32_t k = r.begin; k < r.begin + r.count; ++k) {
      const Program::ScriptStep& step = p.script_steps[k];
      std::string value;
      if (!script_of(i, p.exprs[step.expr], value)) return false;
      text += (k != r.begin ? "; " : "") + p.blackboard[step.slot].name + " := " + value;
    }
    return true;
  }

  // A check expression as BT.CPP script, or false (with the error).
  bool script_of(uint32_t i, const CompiledExpr& check, std::string& text) {
    std::string why;
    text = bt_script(grouped_and_or(exact_equalities(check)), why);
    if (why.empty()) return true;
    say("node '" + p.ids[i] + "': " + why);
    return false;
  }

  // A text BT.CPP reads as a blackboard entry ("=", "{...}" with spaces around allowed:
  // TreeNode::isBlackboardPointer, getRemappedKey) that the import would not give back as the
  // same text: only "{key}" of a key name round-trips (written as the port {key}).
  static bool entry_not_kept(const std::string& text) {
    if (text == "=") return true;
    const size_t a = text.find_first_not_of(' '), b = text.find_last_not_of(' ');
    if (a == std::string::npos || b - a + 1 < 3 || text[a] != '{' || text[b] != '}') return false;
    if (a != 0 || b != text.size() - 1) return true;
    const std::string key = text.substr(1, text.size() - 2);
    if (std::isdigit(static_cast<unsigned char>(key[0]))) return true;
    for (char c : key)
      if (!std::isalnum(static_cast<unsigned char>(c)) && c != '_') return true;
    return false;
  }

  // A leaf's arguments as attributes, written to `o`; every argument that cannot be one is said,
  // each after `prefix` (the node's name and kind), not only the first.
  void arg_attrs(const ArgValue& args, std::ostream& o, const std::string& prefix) {
    for (const auto& [k, v] : args.entries) {
      if (!xml_name(k) || !btcpp_port_name(k)) {
        say(prefix + port_name_problem(k));
        continue;
      }
      std::string text;
      switch (v.type) {
        case ArgValue::Type::Bool: text = v.boolean ? "true" : "false"; break;
        case ArgValue::Type::Integer: text = std::to_string(v.integer); break;
        case ArgValue::Type::Number:
          if (!std::isfinite(v.number)) {  // written as .inf, it came back as the text ".inf"
            say(prefix + "the leaf argument '" + k + "' is " + yaml_number(v.number) + ", a number no BT.CPP port reads");
            continue;
          }
          text = yaml_number(v.number);
          break;
        case ArgValue::Type::String:
          // BT.CPP reads "=" and "{...}" (spaces around allowed) as blackboard entries
          // (TreeNode::isBlackboardPointer, getRemappedKey), and has no way to escape them.
          if (entry_not_kept(v.text)) {
            say(prefix + "the text '" + v.text + "' of leaf argument '" + k +
                "' would be read by BT.CPP as a blackboard entry, and not as the text it is; only \"{key}\" of a "
                "blackboard key name is written (as the port {key})");
            continue;
          }
          text = v.text;
          break;
        case ArgValue::Type::Nil:  // (`x: ~`: Lua reads it as absent; a port has no such value)
          say(prefix + "the leaf argument '" + k + "' is null (~), which no BT.CPP port holds: leave it out (the leaf then reads nil)");
          continue;
        default:
          say(prefix + "the leaf argument '" + k + "' is a list or mapping; BT.CPP ports take single values");
          continue;
      }
      o << " " << k << "=\"" << xml_escape(text) << "\"";
    }
  }

  int deepest = 0;  // the deepest node's depth (its element's nesting level less one)
  bool aborts_said = false;  // under a node whose conditional abort was said
  static constexpr const char* kNoAborts = "conditional aborts have no BT.CPP equivalent";

  bool node(uint32_t i, int depth) {
    struct Place {  // what is said while this node is written is said at its place
      XmlExporter& x;
      uint32_t outer;
      ~Place() { x.at = outer; }
    } place{*this, at};
    at = i;
    const Node& n = p.nodes[i];
    deepest = std::max(deepest, depth);
    const std::string pad(2 * depth, ' ');
    auto fail = [&](const std::string& why) {
      say("node '" + p.ids[i] + "' (" + kind_info(written_kind(n)).name + "): " + why);
      // The nodes under it are still looked at: every node that cannot be exported is said at
      // once (a conditional abort at the root hid all the rest). Not under a behavior3 tree,
      // whose every node would repeat its one reason.
      if (!is_b3_kind(n.kind)) {
        // (The conditions an abort observes were said with it.)
        const bool outer = aborts_said;
        aborts_said = aborts_said || why == kNoAborts;
        for (uint16_t k = 0; k < n.count; ++k) node(p.child(n, k), depth + 1);
        aborts_said = outer;
      }
      return false;
    };
    auto open = [&](const std::string& tag, const std::string& attrs) {
      out << pad << "<" << tag << attrs;
      if (n.count == 0) {
        out << "/>\n";
        return true;
      }
      out << ">\n";
      bool ok = true;
      for (uint16_t k = 0; k < n.count; ++k) ok = node(p.child(n, k), depth + 1) && ok;  // every child's errors
      out << pad << "</" << tag << ">\n";
      return ok;
    };
    auto count_attr = [&](const char* key, uint32_t v) { return std::string(" ") + key + "=\"" + std::to_string(static_cast<int32_t>(v)) + "\""; };
    switch (written_kind(n)) {  // a lowered node as it was written
      case NodeKind::Action:
      case NodeKind::Condition: {
        const LeafCall& call = p.calls[n.a];
        if (n.flags & kNegate) return fail("a negated condition has no BT.CPP attribute; wrap it in invert");
        if (n.kind == NodeKind::Condition && (n.flags & kObserved) && !aborts_said) return fail(kNoAborts);
        if (!xml_name(call.leaf))
          return fail("the leaf '" + call.leaf + "' cannot be a BT.CPP node (an XML element): its name must be an ASCII " +
                      "letter or '_' followed by ASCII letters, digits, '_', '-' or '.'");
        if (btcpp_reserved_id(call.leaf))
          return fail("the leaf '" + call.leaf + "' has the name of a node of BT.CPP's own (" + call.leaf +
                      " would be read as that node, and BT.CPP cannot register a leaf under it): rename the leaf");
        const std::string prefix = "node '" + p.ids[i] + "' (" + kind_info(written_kind(n)).name + "): ";
        for (const auto& [k, v] : call.args.entries)
          if (!xml_name(k) || !btcpp_port_name(k)) {  // every argument's problem said, then no more of this node
            std::ostringstream unused;
            arg_attrs(call.args, unused, prefix);
            return false;
          }
        // BT.CPP registers a node ID as one kind (an action or a condition), and the import
        // reads the kind from <TreeNodesModel>: a leaf called both ways would come back one way.
        if (auto [it, first] = leaves.emplace(call.leaf, n.kind == NodeKind::Condition);
            !first && it->second != (n.kind == NodeKind::Condition))
          return fail("the leaf '" + call.leaf + "' is called as an action and as a condition; BT.CPP registers a node " +
                      "as one kind, so the export cannot keep both: use two leaves (one can call the other)");
        for (const auto& [k, v] : call.args.entries) {
          ports[call.leaf].insert(k);
          const bool text = v.type == ArgValue::Type::String;
          auto [it, first] = text_ports[call.leaf].emplace(k, text);
          if (!first) it->second = it->second && text;
          if (text && yaml_literal(v.text).front() != '"') lookalike_texts[call.leaf].emplace(k, v.text);
          if (!text) untext_ports[call.leaf][k] = true;
          // A port is declared text only when every call gives it text: a "007" among numbers
          // would be read back as the number 7.
          if (auto t = lookalike_texts[call.leaf].find(k); t != lookalike_texts[call.leaf].end() && untext_ports[call.leaf][k]) {
            // This call's text when it is one such (the first call's had been quoted at each).
            const std::string& said = text && yaml_literal(v.text).front() != '"' ? v.text : t->second;
            return fail("the argument '" + k + "' of leaf '" + call.leaf + "' is the text \"" + said +
                        "\" at one call and not text at another; BT.CPP's model gives a port one type, so the text " +
                        "would come back as a " + (yaml_literal(said) == "true" || yaml_literal(said) == "false"
                                                       ? "boolean" : "number") +
                        ": give it text at every call, or no such text");
          }
        }
        out << pad << "<" << call.leaf;
        const size_t said = errors.size();
        arg_attrs(call.args, out, prefix);
        out << "/>\n";
        return errors.size() == said;
      }
      case NodeKind::Check: {
        if (n.flags & kNegate) return fail("a negated check has no BT.CPP attribute; write 'not (...)'");
        std::string code;
        if (!script_of(i, p.exprs[n.a], code)) return false;
        out << pad << "<ScriptCondition code=\"" << xml_escape(code) << "\"/>\n";
        return true;
      }
      case NodeKind::Sequence:
      case NodeKind::Filter:
        if (n.abort() != AbortMode::None) return fail(kNoAborts);
        return open("Sequence", "");
      case NodeKind::Selector:
        if (n.abort() != AbortMode::None) return fail(kNoAborts);
        return open("Fallback", "");
      case NodeKind::ActiveSelector: return open("ReactiveFallback", "");
      case NodeKind::Parallel:
        // thicket fails at `failure` failures; BT.CPP also as soon as success became impossible.
        if (n.b > n.count - n.a + 1) return fail("a parallel whose failure threshold is above children - success + 1 has no BT.CPP equivalent");
        // BT.CPP keeps its counts from tick to tick and tests them after each child it ticks;
        // thicket counts afresh each tick, a child that finished on an earlier tick when the walk
        // reaches it. With a threshold of 1 or of every child, both stop at the same child;
        // in between, BT.CPP may stop before a running child that thicket still ticks.
        for (uint32_t t : {n.a, n.b})
          if (t != 1 && t != n.count)
            return fail("a parallel with a threshold of " + std::to_string(t) + " of its " + std::to_string(n.count) +
                        " children has no BT.CPP equivalent: BT.CPP counts a child that finished on an earlier tick at once, "
                        "thicket when its walk reaches it, so they stop at different children (thresholds of 1 or of every "
                        "child export)");
        return open("Parallel", count_attr("success_count", n.a) + count_attr("failure_count", n.b));
      case NodeKind::Invert: return open("Inverter", "");
      case NodeKind::ForceSuccess: return open("ForceSuccess", "");
      case NodeKind::ForceFailure: return open("ForceFailure", "");
      case NodeKind::Wait:
      case NodeKind::BtSleep: {
        std::string attr;
        if (!msec_attr(i, "msec", n.seconds, attr)) return false;
        out << pad << "<Sleep" << attr << "/>\n";
        return true;
      }
      case NodeKind::BtSequence: return open(n.a ? "AsyncSequence" : "Sequence", "");
      case NodeKind::BtFallback: return open(n.a ? "AsyncFallback" : "Fallback", "");
      case NodeKind::BtSequenceMemory: return open("SequenceWithMemory", "");
      case NodeKind::BtTryCatch: return open("TryCatch", "");
      case NodeKind::BtReactiveSequence: return open("ReactiveSequence", "");
      case NodeKind::BtReactiveFallback: return open("ReactiveFallback", "");
      case NodeKind::BtParallel: return open("Parallel", count_attr("success_count", n.a) + count_attr("failure_count", n.b));
      case NodeKind::BtParallelAll: return open("ParallelAll", count_attr("max_failures", n.a));
      case NodeKind::BtIfThenElse: return open("IfThenElse", "");
      case NodeKind::BtWhileDoElse: return open("WhileDoElse", "");
      case NodeKind::BtSwitch: {
        if (n.count < 3 || n.count > 7) return fail("BT.CPP has Switch2 to Switch6");
        std::string attrs = " variable=\"" + xml_escape(p.messages[n.b]) + "\"";
        for (uint16_t k = 0; k + 1 < n.count; ++k)  // a null case: left out, as it came
          if (p.messages[n.b + n.count][k] == '1')
            attrs += " case_" + std::to_string(k + 1) + "=\"" + xml_escape(p.messages[n.b + 1 + k]) + "\"";
        return open("Switch" + std::to_string(n.count - 1), attrs);
      }
      case NodeKind::BtInverter: return open("Inverter", "");
      case NodeKind::BtForceSuccess: return open("ForceSuccess", "");
      case NodeKind::BtForceFailure: return open("ForceFailure", "");
      case NodeKind::BtRepeat: return open("Repeat", count_attr("num_cycles", n.a));
      case NodeKind::BtRetry: return open("RetryUntilSuccessful", count_attr("num_attempts", n.a));
      case NodeKind::BtKeepRunning: return open("KeepRunningUntilFailure", "");
      case NodeKind::BtRunOnce: return open("RunOnce", std::string(" then_skip=\"") + (n.a ? "true" : "false") + "\"");
      case NodeKind::BtTimeout:
      case NodeKind::BtDelay: {
        const bool timeout = n.kind == NodeKind::BtTimeout;
        std::string attr;
        if (!msec_attr(i, timeout ? "msec" : "delay_msec", n.seconds, attr)) return false;
        return open(timeout ? "Timeout" : "Delay", attr);
      }
      case NodeKind::BtSubtree: {
        // Its own <BehaviorTree>, shared by every use with the same body; _autoremap, since the
        // importer already gave its keys the brain's names.
        std::string id = p.messages[n.a].empty() ? "SubTree" : p.messages[n.a];
        std::ostringstream body;
        std::swap(body, out);
        bool ok = node(i + 1, 2);
        std::string text = out.str();
        std::swap(body, out);
        if (!ok) return false;
        std::string unique = id;
        for (int k = 2; (subtrees.count(unique) && subtrees[unique] != text) || unique == main_id; ++k)
          unique = id + "_" + std::to_string(k);
        if (!subtrees.count(unique)) {
          subtrees[unique] = text;
          subtree_order.push_back(unique);
        }
        out << pad << "<SubTree ID=\"" << xml_escape(unique) << "\" _autoremap=\"true\"/>\n";
        return true;
      }
      case NodeKind::BtPrecondition: {
        const std::string otherwise = std::string(status_name(static_cast<Status>(n.b & 0xFF)));
        std::string upper = otherwise == "invalid" ? "SKIPPED" : otherwise;
        for (char& ch : upper) ch = static_cast<char>(std::toupper(static_cast<unsigned char>(ch)));
        std::string code;
        if (!script_of(i, p.exprs[n.a], code)) return false;
        return open("Precondition", " if=\"" + xml_escape(code) + "\" else=\"" + upper + "\"");
      }
      case NodeKind::BtGuard: {
        // The attributes go on the node it holds; a guard's node that is a guard would take
        // both guards' attributes on one element: an attribute twice (no XML), or BT.CPP's
        // order of them in place of the nesting's.
        if (i + 1 < p.nodes.size() && p.nodes[i + 1].kind == NodeKind::BtGuard)
          return fail("a bt_guard directly around a bt_guard: BT.CPP puts both on one node, as attributes it tests in "
                      "its own order (and one kind of them once); join them into one bt_guard");
        static const char* attrs[8] = {"_failureIf", "_successIf", "_skipIf", "_while", "_onSuccess", "_onFailure", "_post", "_onHalted"};
        std::string extra;
        for (int k = 0; k < 8; ++k) {
          if (p.guards[n.a][k] == kNoNode) continue;
          std::string code;
          if (k < 4 ? !script_of(i, p.exprs[p.guards[n.a][k]], code) : !statements_of(i, p.guards[n.a][k], code)) return false;
          extra += std::string(" ") + attrs[k] + "=\"" + xml_escape(code) + "\"";
        }
        std::ostringstream inner;
        std::swap(inner, out);
        bool ok = node(i + 1, depth);
        std::string text = out.str();
        std::swap(inner, out);
        if (!ok) return false;
        size_t at = text.find_first_of(" />", text.find('<') + 1);
        out << text.substr(0, at) << extra << text.substr(at);
        return true;
      }
      case NodeKind::BtScript: {
        std::string code;
        if (n.a == kNoNode || !statements_of(i, n.a, code)) return false;
        out << pad << "<Script code=\"" << xml_escape(code) << "\"/>\n";
        return true;
      }
      case NodeKind::Always:
        if (n.a == static_cast<uint32_t>(Status::Success)) out << pad << "<AlwaysSuccess/>\n";
        else if (n.a == static_cast<uint32_t>(Status::Failure)) out << pad << "<AlwaysFailure/>\n";
        else return fail("BT.CPP has AlwaysSuccess and AlwaysFailure only");
        return true;
      default: break;
    }
    return fail("BT.CPP has no node that behaves as " + std::string(kind_info(n.kind).name) +
                " (docs/import.md lists what exports)");
  }
};

}  // namespace

int export_command(int argc, char** argv, const char* usage) {
  std::string file, to, out_path;
  for (int i = 2; i < argc; ++i) {
    std::optional<std::string> joined;
    const std::string a = option_name(argv[i], joined);
    if (a == "--to" || a == "-o" || a == "--out") {
      const std::optional<std::string> value = option_value(joined, i, argc, argv);
      if (!value) {  // at the end, or empty ('-o ""' wrote to stdout)
        std::cerr << "thicket: " << a << (a == "--to" ? " needs a format (--to btcpp)" : " needs a file") << "\n" << usage;
        return 64;
      }
      (a == "--to" ? to : out_path) = *value;
    } else if (a.rfind("-", 0) == 0) {
      std::cerr << "thicket: unknown option '" << a << "' for export" << did_you_mean(a, {"--to", "-o"})
                << " (options: --to btcpp, -o)\n" << usage;
      return 64;
    } else if (file.empty()) {
      file = a;
    } else {
      std::cerr << "thicket: export takes one file\n" << usage;
      return 64;
    }
  }
  if (!file.empty() && !to.empty() && to != "btcpp") {
    std::cerr << "thicket: export cannot write '" << to << "' (--to btcpp: BehaviorTree.CPP's XML, which Groot2 opens too)\n";
    return 64;
  }
  if (file.empty() || to != "btcpp") {
    std::cerr << "thicket: usage: thicket export FILE --to btcpp [-o OUT.xml]\n";
    return 64;
  }
  Runtime rt;
  std::vector<Diagnostic> diags;
  auto handle = rt.load_file(file, diags);
  bool failed = !handle;
  for (const auto& d : diags) {
    std::cerr << format_diagnostic(d) << "\n";  // (a file that cannot be read has no line: no ":0:0")
    failed = failed || d.severity == Severity::Error;
  }
  if (failed) return 2;
  const Brain& brain = *rt.impl().brains[handle->index];
  if (brain.kind != BrainKind::Tree) {
    std::cerr << file << ": error: only tree brains export to BT.CPP (an fsm or a machine has no BT.CPP form)\n";
    return 2;
  }
  const Program& p = *brain.program;
  XmlExporter x(p);
  std::string id = p.name.empty() ? "Main" : p.name;
  x.main_id = id;
  x.out << "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n";
  x.out << "<root BTCPP_format=\"4\" main_tree_to_execute=\"" << xml_escape(id) << "\">\n";
  // The brain's blackboard, which BT.CPP XML has no place for, in a comment that `thicket
  // import` reads back (BT.CPP and Groot2 skip it), so a round trip keeps every key.
  std::string keys;
  for (const BlackboardKey& k : p.blackboard) {
    std::string decl;
    switch (k.type) {
      case ValueType::Number: decl = yaml_number(k.initial.num); break;
      case ValueType::Integer: decl = "{type: integer, default: " + std::to_string(k.initial.i) + "}"; break;
      case ValueType::Boolean: decl = k.initial.i ? "true" : "false"; break;
      case ValueType::String: decl = yaml_quote(k.text_default); break;
      case ValueType::Any: decl = "{type: any}"; break;
    }
    // XML comments may not hold "--": a key or a text with it is written double-quoted with
    // each such second '-' as \x2d, which YAML (and so the import) reads back as '-'.
    std::string name = yaml_name(k.name);
    if (name.find("--") != std::string::npos) name = yaml_quote(k.name);
    keys += "    " + without_double_dash(name) + ": " + without_double_dash(decl) + "\n";
  }
  if (!keys.empty()) x.out << "  <!-- thicket blackboard (read back by thicket import):\n" << keys << "  -->\n";
  // Time slicing, which BT.CPP has no word for, likewise.
  if (p.tick_every > 1) x.out << "  <!-- thicket tick_every: " << p.tick_every << " (read back by thicket import) -->\n";
  x.out << "  <BehaviorTree ID=\"" << xml_escape(id) << "\">\n";
  x.node(0, 2);
  if (!x.errors.empty()) {
    std::set<std::string> said;  // (a subtree used twice is walked twice)
    for (const auto& [node, why] : x.errors) {
      Diagnostic d{Severity::Error, file, 0, 0, why};
      if (node < p.positions.size() && p.positions[node].file < p.files.size()) {
        const SourcePos& at = p.positions[node];
        d.file = p.files[at.file];
        d.line = at.line;
        d.column = at.column;
      }
      if (said.insert(format_diagnostic(d)).second) std::cerr << format_diagnostic(d) << "\n";
    }
    return 2;
  }
  x.out << "  </BehaviorTree>\n";
  for (const auto& sub : x.subtree_order)
    x.out << "  <BehaviorTree ID=\"" << xml_escape(sub) << "\">\n" << x.subtrees[sub] << "  </BehaviorTree>\n";
  x.out << "  <TreeNodesModel>\n";
  for (const auto& [leaf, condition] : x.leaves) {
    const char* tag = condition ? "Condition" : "Action";
    x.out << "    <" << tag << " ID=\"" << xml_escape(leaf) << "\"";
    if (x.ports[leaf].empty()) {
      x.out << "/>\n";
      continue;
    }
    x.out << ">\n";
    for (const auto& port : x.ports[leaf])
      x.out << "      <input_port name=\"" << xml_escape(port) << "\"" << (x.text_ports[leaf][port] ? " type=\"std::string\"" : "")
            << "/>\n";
    x.out << "    </" << tag << ">\n";
  }
  x.out << "  </TreeNodesModel>\n</root>\n";
  // A text no XML can hold (bytes that are not UTF-8, control characters): said, not written.
  const std::string xml = x.out.str();
  std::istringstream lines(xml);
  for (std::string line; std::getline(lines, line);) {
    const std::string problem = xml_text_problem(line);
    if (problem.empty()) continue;
    // The line it would be on, every byte outside printable ASCII as \xNN.
    std::string shown;
    for (unsigned char ch : line.substr(line.find_first_not_of(' '))) {
      char buf[8];
      std::snprintf(buf, sizeof buf, "\\x%02x", static_cast<unsigned>(ch));
      shown += ch >= 0x20 && ch < 0x7F ? std::string(1, static_cast<char>(ch)) : std::string(buf);
    }
    std::cerr << file << ": error: a text of the brain holds " << problem
              << ", so the brain cannot be written as BT.CPP XML; nothing is written. The line it would be on:\n  "
              << shown << "\n";
    return 2;
  }
  // node()'s depth is its indentation in pairs of spaces: <root> is level 1 at depth 0.
  if (x.deepest + 1 >= 100)
    std::cerr << file << ": warning: the XML nests " << x.deepest + 1 << " elements deep: BT.CPP reads it (its tinyxml2 "
              << "goes to 500 levels), but thicket import (the system's tinyxml2) stops at 100; a branch in a "
              << "bt_subtree of its own is a <BehaviorTree> of its own, which keeps the nesting low\n";
  std::vector<std::string> inputs = rt.impl().files_read();
  inputs.push_back(file);
  return write_output(out_path, xml, inputs);
}

}  // namespace thicket::cli
