// `thicket import FILE.xml|FILE.json [-o OUT.yaml] [--tree ID] [--leaves LUA]...` and
// `thicket export FILE --to btcpp [-o OUT.xml]` (SPEC 13): the commands, the brain's YAML
// writer, and the BT.CPP XML writer over a compiled tree.
#include <algorithm>
#include <cerrno>
#include <charconv>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <set>
#include <sstream>

#include "import_tree.hpp"
#include "json_text.hpp"  // first_invalid_utf8
#include "output_target.hpp"
#include "program.hpp"
#include "runtime_impl.hpp"
#include "thicket/runtime.hpp"
#include "yaml_limits.hpp"

namespace thicket::cli {

namespace {

// The code point of the UTF-8 sequence at s[i] and its length, or length 0 where s[i] starts
// no well-formed sequence (a stray byte, a truncated or overlong sequence, a surrogate).
struct CodePoint {
  uint32_t value = 0;
  size_t length = 0;
};
CodePoint utf8_at(const std::string& s, size_t i) {
  const auto byte = [&](size_t k) { return static_cast<unsigned char>(s[k]); };
  const unsigned char b0 = byte(i);
  if (b0 < 0x80) return {b0, 1};
  size_t n = b0 >= 0xF0 && b0 <= 0xF4 ? 4 : b0 >= 0xE0 ? 3 : b0 >= 0xC2 && b0 < 0xE0 ? 2 : 0;
  if (n == 0 || i + n > s.size()) return {};
  uint32_t v = b0 & (0x7F >> n);
  for (size_t k = 1; k < n; ++k) {
    if ((byte(i + k) & 0xC0) != 0x80) return {};
    v = (v << 6) | (byte(i + k) & 0x3F);
  }
  const uint32_t least[] = {0, 0, 0x80, 0x800, 0x10000};
  if (v < least[n] || v > 0x10FFFF || (v >= 0xD800 && v <= 0xDFFF)) return {};
  return {v, n};
}

// YAML 1.2's printable characters (what a YAML file may hold as it is; the rest is escaped).
bool yaml_printable(uint32_t c) {
  return c == 0x9 || c == 0xA || c == 0xD || (c >= 0x20 && c <= 0x7E) || c == 0x85 || (c >= 0xA0 && c <= 0xD7FF) ||
         (c >= 0xE000 && c <= 0xFFFD) || (c >= 0x10000 && c <= 0x10FFFF);
}

}  // namespace

std::string yaml_quote(const std::string& s) {
  std::string out = "\"";
  for (size_t i = 0; i < s.size();) {
    const CodePoint c = utf8_at(s, i);
    if (c.length == 0) {  // not UTF-8: the byte as it is (YAML has no escape for a raw byte)
      out += s[i++];
      continue;
    }
    switch (c.value) {
      case '"': out += "\\\""; break;
      case '\\': out += "\\\\"; break;
      case '\n': out += "\\n"; break;
      case '\t': out += "\\t"; break;
      case '\r': out += "\\r"; break;
      default:
        if (c.value == 0x9 || !yaml_printable(c.value)) {  // control characters, U+FFFE, U+FFFF
          char buf[16];
          std::snprintf(buf, sizeof buf, c.value <= 0xFF ? "\\x%02x" : "\\u%04x", static_cast<unsigned>(c.value));
          out += buf;
        } else {
          out.append(s, i, c.length);
        }
    }
    i += c.length;
  }
  return out + "\"";
}

// What in s no XML 1.0 document can hold (empty: nothing): the first such byte or character.
static std::string xml_text_problem(const std::string& s) {
  for (size_t i = 0; i < s.size();) {
    const CodePoint c = utf8_at(s, i);
    char buf[96];
    if (c.length == 0) {
      return "byte " + hex_byte(s[i]) + ", which is not UTF-8";
    }
    // XML 1.0's Char: tab, newline, carriage return, and U+0020..U+D7FF, U+E000..U+FFFD, U+10000 on.
    const uint32_t v = c.value;
    if (!(v == 0x9 || v == 0xA || v == 0xD || (v >= 0x20 && v <= 0xD7FF) || (v >= 0xE000 && v <= 0xFFFD) || v >= 0x10000)) {
      std::snprintf(buf, sizeof buf, "the character U+%04X, which XML 1.0 cannot hold", static_cast<unsigned>(v));
      return buf;
    }
    i += c.length;
  }
  return "";
}

// A double-quoted YAML scalar with every '-' that follows a '-' written \x2d (the same text to
// YAML), so that it can stand in an XML comment.
std::string without_double_dash(const std::string& quoted) {
  std::string out;
  for (char ch : quoted) {
    if (ch == '-' && !out.empty() && out.back() == '-') out += "\\x2d";
    else out += ch;
  }
  return out;
}

std::string yaml_name(const std::string& s) {
  bool plain = !s.empty() && (std::isalpha(static_cast<unsigned char>(s[0])) || s[0] == '_');
  for (char ch : s) plain = plain && (std::isalnum(static_cast<unsigned char>(ch)) || ch == '_' || ch == '-' || ch == '.');
  static const char* reserved[] = {"true", "false", "null", "True", "False", "TRUE", "FALSE", "Null", "NULL", "y", "n", "yes", "no", "on", "off"};
  for (const char* r : reserved) plain = plain && s != r;
  return plain ? s : yaml_quote(s);
}

std::string yaml_number(double v) {
  // YAML's own spellings: to_chars' "inf" and "nan" would read back as texts.
  if (std::isnan(v)) return ".nan";
  if (std::isinf(v)) return v > 0 ? ".inf" : "-.inf";
  char buf[64];
  auto r = std::to_chars(buf, buf + sizeof buf, v);
  std::string s(buf, r.ptr);
  if (s.find_first_of(".eEni") == std::string::npos) s += ".0";
  return s;
}

std::string yaml_literal(const std::string& text) {
  int64_t i = 0;
  auto ri = std::from_chars(text.data(), text.data() + text.size(), i);
  if (!text.empty() && ri.ec == std::errc() && ri.ptr == text.data() + text.size()) return std::to_string(i);
  double d = 0;
  auto rd = std::from_chars(text.data(), text.data() + text.size(), d);
  if (!text.empty() && rd.ec == std::errc() && rd.ptr == text.data() + text.size() && std::isfinite(d)) return yaml_number(d);
  if (text == "true" || text == "TRUE" || text == "True") return "true";
  if (text == "false" || text == "FALSE" || text == "False") return "false";
  return yaml_quote(text);
}

namespace {

bool ends_with(const std::string& s, const std::string& tail) {
  return s.size() >= tail.size() && s.compare(s.size() - tail.size(), tail.size(), tail) == 0;
}

std::string flow_map(const std::vector<std::pair<std::string, std::string>>& kv) {
  std::string s = "{";
  for (size_t i = 0; i < kv.size(); ++i) s += (i ? ", " : "") + yaml_name(kv[i].first) + ": " + kv[i].second;
  return s + "}";
}

// Writes node n as the value after "- " or "key: " (the caller wrote that much) at `indent`.
void write_node(std::ostream& out, const ImportNode& n, int indent) {
  const std::string pad(indent, ' ');
  if (n.kind == "action" || (n.kind == "condition" && !n.leaf.empty())) {
    if (n.args.empty()) out << n.kind << ": " << yaml_name(n.leaf) << "\n";
    else out << n.kind << ": {leaf: " << yaml_name(n.leaf) << ", args: " << flow_map(n.args) << "}\n";
    return;
  }
  if (n.kind == "condition") {
    out << "condition: {check: " << yaml_quote(n.value) << "}\n";
    return;
  }
  if (n.kind == "always") {
    out << "always: " << n.value << "\n";
    return;
  }
  if (n.children.empty()) {  // a leaf with parameters: bt_sleep, b3_wait
    out << n.kind << ": " << flow_map(n.params) << "\n";
    return;
  }
  const bool composite = n.kind != "b3_tree" && n.kind != "bt_guard" && n.kind != "bt_subtree" &&
                         (n.kind.find("sequence") != std::string::npos || n.kind.find("fallback") != std::string::npos ||
                          n.kind.find("parallel") != std::string::npos || n.kind.find("priority") != std::string::npos ||
                          n.kind == "bt_if_then_else" || n.kind == "bt_while_do_else" || n.kind == "bt_switch");
  out << n.kind << ":\n";
  for (const auto& [k, v] : n.params) out << pad << "  " << k << ": " << v << "\n";
  if (composite) {
    const int inner = indent + (n.params.empty() ? 2 : 4);
    if (!n.params.empty()) out << pad << "  children:\n";
    for (const auto& c : n.children) {
      out << std::string(inner, ' ') << "- ";
      write_node(out, c, inner + 2);
    }
  } else if (n.params.empty()) {  // a decorator's short form: the child itself
    out << pad << "  ";
    write_node(out, n.children[0], indent + 2);
  } else {
    out << pad << "  child:\n" << pad << "    ";
    write_node(out, n.children[0], indent + 4);
  }
}

std::string brain_yaml(const ImportedBrain& b, const std::vector<std::string>& leaves) {
  std::ostringstream out;
  out << "# Imported by `thicket import` from " << b.file << " (" << b.source
      << "); its nodes keep that library's semantics (docs/import.md).\n";
  for (const auto& n : b.notes) out << "# " << n << "\n";
  out << "tree: " << yaml_name(b.name) << "\n";
  if (b.tick_every > 1) out << "tick_every: " << b.tick_every << "\n";
  out << "leaves: [";
  for (size_t i = 0; i < leaves.size(); ++i) out << (i ? ", " : "") << yaml_name(leaves[i]);
  out << "]\n";
  if (!b.blackboard.empty()) {
    out << "blackboard:\n";
    for (const auto& [k, v] : b.blackboard) out << "  " << yaml_name(k) << ": " << v << "\n";
  }
  out << "root:\n  ";
  write_node(out, b.root, 2);
  return out.str();
}

bool read_file(const std::string& path, std::string& text, std::string& why) {
  return read_limited(path, kMaxYamlBytes, text, why, "a tree to import");
}

// Writes text to out_path (standard output when empty) in one piece. `inputs`: the files the
// command read (the tree, --leaves, a brain's files): -o naming one of them would replace it.
// Every leaf an imported tree calls, by name.
std::set<std::string> leaf_names_of(const ImportNode& root) {
  std::set<std::string> names;
  std::vector<const ImportNode*> todo{&root};
  while (!todo.empty()) {
    const ImportNode* n = todo.back();
    todo.pop_back();
    if (!n->leaf.empty()) names.insert(n->leaf);
    for (const auto& c : n->children) todo.push_back(&c);
  }
  return names;
}

int write_output(const std::string& out_path, const std::string& text, const std::vector<std::string>& inputs) {
  if (out_path.empty()) {
    std::cout << text;
    std::cout.flush();
    if (!std::cout) {
      std::cerr << "thicket: cannot write to standard output (a full disk, a closed pipe?)\n";
      return 2;
    }
    return 0;
  }
  for (const std::string& input : inputs)
    if (same_file(out_path, input)) {
      std::cerr << "thicket: '" << out_path << "' is given as -o but the command reads it"
                << (out_path == input ? std::string() : " (as '" + input + "')") << ": it would be overwritten\n";
      return 64;
    }
  const OutputTarget target = output_target(out_path);
  if (target.folder) {
    std::cerr << "thicket: cannot write " << out_path << ": it is a folder\n";
    return 2;
  }
  if (target.in_place) {  // a device or pipe (/dev/null, /dev/stdout): written to, not replaced
    std::ofstream f(target.path, std::ios::binary);
    f << text;
    f.flush();
    if (!f) {
      std::cerr << "thicket: cannot write " << out_path << ": " << std::strerror(errno) << "\n";
      return 2;
    }
    return 0;
  }
  const std::string tmp = target.path + ".tmp";
  {
    std::ofstream f(tmp, std::ios::binary);
    if (!f) {
      std::cerr << "thicket: cannot write " << out_path << ": " << std::strerror(errno) << "\n";
      return 2;
    }
    f << text;
    f.flush();
    if (!f) {
      std::cerr << "thicket: cannot write " << out_path << " in full (a full disk?)\n";
      f.close();
      std::remove(tmp.c_str());
      return 2;
    }
  }
  if (std::rename(tmp.c_str(), target.path.c_str()) != 0) {
    std::cerr << "thicket: cannot write " << out_path << ": " << std::strerror(errno) << "\n";
    std::remove(tmp.c_str());
    return 2;
  }
  return 0;
}

}  // namespace

int import_command(int argc, char** argv, const char* usage) {
  std::string file, out_path, tree;
  std::vector<std::string> leaves;
  for (int i = 2; i < argc; ++i) {
    std::string a = argv[i];
    auto value = [&](std::string& to) {
      if (i + 1 >= argc) return false;
      to = argv[++i];
      return true;
    };
    std::string v;
    if (a == "-o" || a == "--out") {
      if (!value(out_path)) return std::cerr << "thicket: " << a << " needs a file\n" << usage, 64;
    } else if (a == "--tree") {
      if (!value(tree)) return std::cerr << "thicket: --tree needs an ID\n" << usage, 64;
    } else if (a == "--leaves") {
      if (!value(v)) return std::cerr << "thicket: --leaves needs a Lua file\n" << usage, 64;
      leaves.push_back(v);
    } else if (a.rfind("-", 0) == 0) {
      std::cerr << "thicket: unknown option '" << a << "' for import (options: -o, --tree, --leaves)\n" << usage;
      return 64;
    } else if (file.empty()) {
      file = a;
    } else {
      std::cerr << "thicket: import takes one file\n" << usage;
      return 64;
    }
  }
  if (file.empty()) return std::cerr << "thicket: import needs a file (.xml: BehaviorTree.CPP 4, .json: behavior3)\n" << usage, 64;
  if (!ends_with(file, ".xml") && !ends_with(file, ".json")) {
    std::cerr << file << ": error: import reads BehaviorTree.CPP 4 XML (.xml) or behavior3 JSON (.json)\n";
    return 2;
  }
  std::string text, why;
  if (!read_file(file, text, why)) {
    std::cerr << file << ": error: cannot read the file: " << why << "\n";
    return 2;
  }
  // The brain is written as YAML, which holds UTF-8 only (as BT.CPP's XML and behavior3's JSON
  // are: tinyxml2 reads the bytes without checking them, and a JSON parser's message would show
  // the stray byte itself).
  if (const size_t bad = first_invalid_utf8(text); bad != std::string::npos) {
    const size_t line_start = bad == 0 ? 0 : text.rfind('\n', bad - 1) + 1;  // npos + 1 == 0
    const auto line = std::count(text.begin(), text.begin() + static_cast<std::ptrdiff_t>(bad), '\n') + 1;
    // The column in characters (the text before the byte is UTF-8): continuation bytes do not count.
    const auto column = std::count_if(text.begin() + static_cast<std::ptrdiff_t>(line_start), text.begin() + static_cast<std::ptrdiff_t>(bad),
                                      [](char c) { return (static_cast<unsigned char>(c) & 0xC0) != 0x80; }) + 1;
    std::cerr << file << ":" << line << ":" << column << ": error: the file is not UTF-8 (byte " << hex_byte(text[bad])
              << " here): save it as UTF-8\n";
    return 2;
  }
  ImportedBrain brain;
  std::vector<ImportError> errors;
  bool ok = false;
  if (ends_with(file, ".xml")) {
    ok = import_btcpp(file, text, tree, brain, errors);
  } else if (ends_with(file, ".json")) {
    ok = import_b3(file, text, tree, brain, errors);
  } else {
    std::cerr << file << ": error: import reads BehaviorTree.CPP 4 XML (.xml) or behavior3 JSON (.json)\n";
    return 2;
  }
  if (!ok) {
    for (const auto& e : errors) {
      std::cerr << e.file;
      if (e.line > 0) std::cerr << ":" << e.line << ":" << e.column;
      std::cerr << ": error: " << e.message << "\n";
    }
    if (errors.empty()) std::cerr << file << ": error: nothing to import\n";
    return 2;
  }
  // The brain as it will be written must load: what the importer let through but thicket
  // refuses (a Repeat of -5 cycles, a script the check language cannot parse) is an error of
  // the import, and nothing is written (SPEC 13). Checked with every leaf it names standing in
  // as a native leaf, so that only the brain itself is judged, not the --leaves files.
  {
    Runtime judge;
    for (const std::string& name : leaf_names_of(brain.root)) {
      NativeLeaf stand_in;
      stand_in.tick = [](LeafContext&) { return Status::Success; };
      judge.register_leaf(name, stand_in);
    }
    std::vector<Diagnostic> found;
    const std::string text = brain_yaml(brain, {});
    if (!judge.load_string(text, file, found) || has_errors(found)) {
      // Where in the written brain, with that line, since the source's own place is not known.
      std::vector<std::string> lines;
      std::istringstream in(text);
      for (std::string line; std::getline(in, line);) lines.push_back(line);
      for (const Diagnostic& d : found) {
        if (d.severity != Severity::Error) continue;
        std::string where;
        if (d.line >= 1 && static_cast<size_t>(d.line) <= lines.size()) {
          std::string line = lines[static_cast<size_t>(d.line) - 1];
          line.erase(0, line.find_first_not_of(' '));
          if (line.size() > 100) line = line.substr(0, 100) + "...";
          where = " (in the brain it would write: " + line + ")";
        }
        std::cerr << file << ": error: the imported brain would not load: " << d.message << where << "\n";
      }
      return 2;
    }
  }
  // A --leaves file is written as given, and the brain looks for it beside itself: with -o,
  // said when there is no such file there (it may be written later; the brain will not load
  // until then). (Without -o, where the brain goes is the shell's business.)
  for (const std::string& leaf : out_path.empty() ? std::vector<std::string>{} : leaves) {
    const std::filesystem::path where = std::filesystem::path(leaf).is_absolute()
                                            ? std::filesystem::path(leaf)
                                            : std::filesystem::path(out_path).parent_path() / leaf;
    std::error_code ec;
    if (!std::filesystem::is_regular_file(where, ec))
      std::cerr << file << ": warning: --leaves " << leaf << ": no such file where the brain will look for it ("
                << where.string() << "); the brain names it as given, relative to itself\n";
  }
  if (leaves.empty()) {
    // Without --leaves the brain names leaves no file defines: thicket check would call each
    // one unknown. Said here, where the fix (an option of this command) is plain.
    const std::set<std::string> names = leaf_names_of(brain.root);
    if (!names.empty()) {
      std::string list;
      size_t shown = 0;
      for (const auto& name : names) {
        if (shown++ == 6) {
          list += ", ...";
          break;
        }
        list += (list.empty() ? "" : ", ") + name;
      }
      std::cerr << file << ": warning: no --leaves given: the brain uses " << names.size() << " leaf name(s) (" << list
                << ") that no Lua file defines yet; name the leaf files with --leaves FILE.lua (repeatable), or add"
                   " them to the brain's `leaves:` list\n";
    }
  }
  // A --leaves file is written as given, so the brain finds it beside itself: the one it names
  // is that path from the output's folder (and as typed, from here).
  std::vector<std::string> inputs = leaves;
  inputs.push_back(file);
  if (!out_path.empty())
    for (const std::string& leaf : leaves)
      if (std::filesystem::path(leaf).is_relative())
        inputs.push_back((std::filesystem::path(out_path).parent_path() / leaf).string());
  return write_output(out_path, brain_yaml(brain, leaves), inputs);
}

// ---- export: a compiled tree as BT.CPP 4 XML ----

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
std::string bt_script(const std::string& check, std::string& why) {
  std::string out;
  size_t i = 0;
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
      out += word == "and" ? "&&" : word == "or" ? "||" : word == "not" ? "!" : word;
      i = j;
      continue;
    }
    out += ch;
    ++i;
  }
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
  std::string error;
  std::map<std::string, bool> leaves;  // name -> condition
  std::map<std::string, std::set<std::string>> ports;  // name -> its args' names
  // name -> its args that are text at every call: declared type="std::string" in the model, so
  // that "007" or "true" is read back as text, not as a number or a boolean.
  std::map<std::string, std::map<std::string, bool>> text_ports;
  std::ostringstream out;
  std::map<std::string, std::string> subtrees;  // <BehaviorTree> ID -> its body
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
    if (ms < 0) {
      if (error.empty())
        error = "node '" + p.ids[i] + "': " + yaml_number(seconds) + " s is no whole number of milliseconds, BT.CPP's unit (" +
                attr + "); it would become " + std::to_string(std::llround(seconds * 1000.0)) + " ms";
      return false;
    }
    text = std::string(" ") + attr + "=\"" + std::to_string(ms) + "\"";
    return true;
  }

  // A check expression as BT.CPP script, or false (with the error).
  bool script_of(uint32_t i, const std::string& check, std::string& text) {
    std::string why;
    text = bt_script(check, why);
    if (why.empty()) return true;
    if (error.empty()) error = "node '" + p.ids[i] + "': " + why;
    return false;
  }

  void arg_attrs(const ArgValue& args) {
    for (const auto& [k, v] : args.entries) {
      if (!xml_name(k) || !btcpp_port_name(k)) {
        if (error.empty()) error = port_name_problem(k);
        continue;
      }
      std::string text;
      switch (v.type) {
        case ArgValue::Type::Bool: text = v.boolean ? "true" : "false"; break;
        case ArgValue::Type::Integer: text = std::to_string(v.integer); break;
        case ArgValue::Type::Number: text = yaml_number(v.number); break;
        case ArgValue::Type::String: text = v.text; break;
        default:
          if (error.empty()) error = "the leaf argument '" + k + "' is a list or mapping; BT.CPP ports take single values";
          continue;
      }
      out << " " << k << "=\"" << xml_escape(text) << "\"";
    }
  }

  int deepest = 0;  // the deepest node's depth (its element's nesting level less one)

  bool node(uint32_t i, int depth) {
    const Node& n = p.nodes[i];
    deepest = std::max(deepest, depth);
    const std::string pad(2 * depth, ' ');
    auto fail = [&](const std::string& why) {
      if (error.empty()) error = "node '" + p.ids[i] + "' (" + kind_info(n.kind).name + "): " + why;
      return false;
    };
    auto open = [&](const std::string& tag, const std::string& attrs) {
      out << pad << "<" << tag << attrs;
      if (n.count == 0) {
        out << "/>\n";
        return true;
      }
      out << ">\n";
      for (uint16_t k = 0; k < n.count; ++k)
        if (!node(p.child(n, k), depth + 1)) return false;
      out << pad << "</" << tag << ">\n";
      return true;
    };
    auto count_attr = [&](const char* key, uint32_t v) { return std::string(" ") + key + "=\"" + std::to_string(static_cast<int32_t>(v)) + "\""; };
    switch (n.kind) {
      case NodeKind::Action:
      case NodeKind::Condition: {
        const LeafCall& call = p.calls[n.a];
        if (n.flags & kNegate) return fail("a negated condition has no BT.CPP attribute; wrap it in invert");
        if (n.kind == NodeKind::Condition && (n.flags & kObserved)) return fail("conditional aborts have no BT.CPP equivalent");
        if (!xml_name(call.leaf))
          return fail("the leaf '" + call.leaf + "' cannot be a BT.CPP node (an XML element): its name must be an ASCII " +
                      "letter or '_' followed by ASCII letters, digits, '_', '-' or '.'");
        if (btcpp_reserved_id(call.leaf))
          return fail("the leaf '" + call.leaf + "' has the name of a node of BT.CPP's own (" + call.leaf +
                      " would be read as that node, and BT.CPP cannot register a leaf under it): rename the leaf");
        for (const auto& [k, v] : call.args.entries)
          if (!xml_name(k) || !btcpp_port_name(k)) return fail(port_name_problem(k));
        leaves[call.leaf] = n.kind == NodeKind::Condition;
        for (const auto& [k, v] : call.args.entries) {
          ports[call.leaf].insert(k);
          const bool text = v.type == ArgValue::Type::String;
          auto [it, first] = text_ports[call.leaf].emplace(k, text);
          if (!first) it->second = it->second && text;
        }
        out << pad << "<" << call.leaf;
        arg_attrs(call.args);
        out << "/>\n";
        return error.empty();
      }
      case NodeKind::Check: {
        if (n.flags & kNegate) return fail("a negated check has no BT.CPP attribute; write 'not (...)'");
        std::string code;
        if (!script_of(i, p.labels[i].substr(6), code)) return false;
        out << pad << "<ScriptCondition code=\"" << xml_escape(code) << "\"/>\n";
        return true;
      }
      case NodeKind::Sequence:
      case NodeKind::Filter:
        if (n.abort() != AbortMode::None) return fail("conditional aborts have no BT.CPP equivalent");
        return open("Sequence", "");
      case NodeKind::Selector:
        if (n.abort() != AbortMode::None) return fail("conditional aborts have no BT.CPP equivalent");
        return open("Fallback", "");
      case NodeKind::ActiveSelector: return open("ReactiveFallback", "");
      case NodeKind::Parallel:
        // thicket fails at `failure` failures; BT.CPP also as soon as success became impossible.
        if (n.b > n.count - n.a + 1) return fail("a parallel whose failure threshold is above children - success + 1 has no BT.CPP equivalent");
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
        for (int k = 2; subtrees.count(unique) && subtrees[unique] != text; ++k) unique = id + "_" + std::to_string(k);
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
        if (!script_of(i, p.messages[n.b >> 8], code)) return false;
        return open("Precondition", " if=\"" + xml_escape(code) + "\" else=\"" + upper + "\"");
      }
      case NodeKind::BtGuard: {
        // The attributes go on the node it holds.
        static const char* attrs[4] = {"_failureIf", "_successIf", "_skipIf", "_while"};
        std::string extra;
        for (int k = 0; k < 4; ++k) {
          if (p.messages[n.b + k].empty()) continue;
          std::string code;
          if (!script_of(i, p.messages[n.b + k], code)) return false;
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
    std::string a = argv[i];
    if ((a == "--to" || a == "-o" || a == "--out") && i + 1 < argc) {
      (a == "--to" ? to : out_path) = argv[++i];
    } else if (a.rfind("-", 0) == 0) {
      std::cerr << "thicket: unknown option '" << a << "' for export (options: --to btcpp, -o)\n" << usage;
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
    std::cerr << d.file << ":" << d.line << ":" << d.column << ": " << (d.severity == Severity::Error ? "error" : "warning")
              << ": " << d.message << "\n";
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
  if (!x.error.empty()) {
    std::cerr << file << ": error: " << x.error << "\n";
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
