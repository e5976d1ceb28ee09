// `thicket import FILE.xml|FILE.json [-o OUT.yaml] [--tree ID] [--leaves LUA]...` (SPEC 13):
// the command and the brain's YAML writer (export_command.cpp writes the other way).
#include <algorithm>
#include <cctype>
#include <cstdint>
#include <cerrno>
#include <tuple>
#include <utility>
#include <charconv>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <optional>
#include <set>
#include <sstream>

#include "cli_args.hpp"
#include "import_tree.hpp"
#include "json_text.hpp"  // first_invalid_utf8
#include "output_target.hpp"
#include "plain_file.hpp"
#include "program.hpp"
#include "runtime_impl.hpp"
#include "thicket/runtime.hpp"
#include "yaml_limits.hpp"
#include "suggest.hpp"  // did_you_mean

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

// XML 1.0's Char: tab, newline, carriage return, and U+0020..U+D7FF, U+E000..U+FFFD, U+10000 on.
bool xml_char(uint32_t v) {
  return v == 0x9 || v == 0xA || v == 0xD || (v >= 0x20 && v <= 0xD7FF) || (v >= 0xE000 && v <= 0xFFFD) || (v >= 0x10000 && v <= 0x10FFFF);
}

// The 1-based line and column (in characters: the text before `at` is UTF-8) of byte `at`.
std::pair<long, long> place_of(const std::string& text, size_t at) {
  const size_t line_start = at == 0 ? 0 : text.rfind('\n', at - 1) + 1;  // npos + 1 == 0
  const long line = static_cast<long>(std::count(text.begin(), text.begin() + static_cast<std::ptrdiff_t>(at), '\n')) + 1;
  const long column = static_cast<long>(utf8_characters(std::string_view(text).substr(line_start, at - line_start))) + 1;
  return {line, column};
}

// What in s no XML 1.0 document can hold (empty: nothing): the first such byte or character.
std::string xml_text_problem(const std::string& s) {
  for (size_t i = 0; i < s.size();) {
    const CodePoint c = utf8_at(s, i);
    char buf[96];
    if (c.length == 0) {
      return "byte " + hex_byte(s[i]) + ", which is not UTF-8";
    }
    const uint32_t v = c.value;
    if (!xml_char(v)) {
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

std::string flow_map(const std::vector<std::pair<std::string, std::string>>& kv) {
  std::string s = "{";
  for (size_t i = 0; i < kv.size(); ++i) s += (i ? ", " : "") + yaml_name(kv[i].first) + ": " + kv[i].second;
  return s + "}";
}

// Where each node's text begins in the written brain (offsets ascending, nodes in the order
// written), for errors found in it.
using NodeStarts = std::vector<std::pair<std::streamoff, const ImportNode*>>;

// Writes node n as the value after "- " or "key: " (the caller wrote that much) at `indent`.
void write_node(std::ostream& out, const ImportNode& n, int indent, NodeStarts* starts) {
  if (starts != nullptr) starts->push_back({std::streamoff(out.tellp()), &n});
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
                          n.kind == "bt_if_then_else" || n.kind == "bt_while_do_else" || n.kind == "bt_switch" ||
                          n.kind == "bt_try_catch");
  out << n.kind << ":\n";
  for (const auto& [k, v] : n.params) out << pad << "  " << k << ": " << v << "\n";
  if (composite) {
    const int inner = indent + (n.params.empty() ? 2 : 4);
    if (!n.params.empty()) out << pad << "  children:\n";
    for (const auto& c : n.children) {
      out << std::string(inner, ' ') << "- ";
      write_node(out, c, inner + 2, starts);
    }
  } else if (n.params.empty()) {  // a decorator's short form: the child itself
    out << pad << "  ";
    write_node(out, n.children[0], indent + 2, starts);
  } else {
    out << pad << "  child:\n" << pad << "    ";
    write_node(out, n.children[0], indent + 4, starts);
  }
}

// Text for a comment line: its line breaks written as \n and \r (a file named "x\ntick_every: 7"
// would otherwise end the comment and add a key to the brain).
std::string comment_text(const std::string& s) {
  std::string out;
  for (char c : s) {
    if (c == '\n') out += "\\n";
    else if (c == '\r') out += "\\r";
    else out += c;
  }
  return out;
}

std::string brain_yaml(const ImportedBrain& b, const std::vector<std::string>& leaves, NodeStarts* starts = nullptr) {
  std::ostringstream out;
  out << "# Imported by `thicket import` from " << comment_text(b.file) << " (" << b.source
      << "); its nodes keep that library's semantics (docs/import.md).\n";
  for (const auto& n : b.notes) out << "# " << comment_text(n) << "\n";
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
  write_node(out, b.root, 2, starts);
  return out.str();
}

bool read_file(const std::string& path, std::string& text, std::string& why) {
  return read_limited(path, kMaxYamlBytes, text, why, "a tree to import");
}

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

// Import's errors on standard error, in the file's order (trees are read from the one to run,
// through its subtrees; the model and the other trees before), as a check lists them; each
// once (a subtree used twice is one place).
// The errors, and the importer's warnings among them, in the order of their places.
void print_errors(std::vector<ImportError>& errors, const ImportedBrain& brain) {
  std::vector<std::pair<ImportError, const char*>> all;
  for (const auto& e : errors) all.push_back({e, "error"});
  for (const auto& w : brain.warnings) all.push_back({ImportError{brain.file, w.line, w.column, w.message}, "warning"});
  std::stable_sort(all.begin(), all.end(), [](const auto& a, const auto& b) {
    return std::tie(a.first.line, a.first.column) < std::tie(b.first.line, b.first.column);
  });
  std::set<std::string> said;
  for (const auto& [e, severity] : all) {
    std::ostringstream text;
    text << e.file;
    if (e.line > 0) text << ":" << e.line << ":" << e.column;
    text << ": " << severity << ": " << e.message << "\n";
    if (said.insert(text.str()).second) std::cerr << text.str();
  }
}

// What thicket refuses in the brain as it would be written, said at the place of the node it
// is about in the source (the XML element, the behavior3 node), with the line of the written
// brain. Checked with every leaf it names standing in as a native leaf, so that only the brain
// itself is judged, not the --leaves files.
std::vector<ImportError> load_errors(const std::string& file, const ImportedBrain& brain) {
  std::vector<ImportError> unloadable;
  Runtime judge;
  for (const std::string& name : leaf_names_of(brain.root)) {
    NativeLeaf stand_in;
    stand_in.tick = [](LeafContext&) { return Status::Success; };
    judge.register_leaf(name, stand_in);
  }
  std::vector<Diagnostic> found;
  NodeStarts starts;
  const std::string text = brain_yaml(brain, {}, &starts);
  if (judge.load_string(text, file, found) && !has_errors(found)) return unloadable;
  std::vector<std::string> lines;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) lines.push_back(line);
  std::vector<std::pair<int, const ImportNode*>> node_lines;  // each node's first line, ascending
  int line_number = 1;
  std::streamoff counted = 0;
  for (const auto& [offset, node] : starts) {
    line_number += int(std::count(text.begin() + counted, text.begin() + offset, '\n'));
    counted = offset;
    node_lines.push_back({line_number, node});
  }
  for (const Diagnostic& d : found) {
    if (d.severity != Severity::Error) continue;
    ImportError e{file, 0, 0, "the imported brain would not load: " + d.message};
    if (d.line >= 1 && static_cast<size_t>(d.line) <= lines.size()) {
      std::string line = lines[static_cast<size_t>(d.line) - 1];
      line.erase(0, line.find_first_not_of(' '));
      if (line.size() > 100) line = line.substr(0, 100) + "...";
      e.message += " (in the brain it would write: " + line + ")";
      // The node whose text holds that line: the last to begin at or before it.
      auto after = std::upper_bound(node_lines.begin(), node_lines.end(), d.line,
                                    [](int l, const auto& entry) { return l < entry.first; });
      if (after != node_lines.begin()) {
        const ImportNode& n = *std::prev(after)->second;
        e.line = n.line;
        e.column = n.column;
        if (!n.node_id.empty()) e.message = "node \"" + n.node_id + "\": " + e.message;
      }
    }
    unloadable.push_back(std::move(e));
  }
  return unloadable;
}

}  // namespace

// `inputs`: the files the command read (the tree, --leaves, a brain's files): -o naming one of
// them would replace it.
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


int import_command(int argc, char** argv, const char* usage) {
  std::string file, out_path, tree;
  std::vector<std::string> leaves;
  for (int i = 2; i < argc; ++i) {
    std::optional<std::string> joined;
    const std::string a = option_name(argv[i], joined);
    auto value = [&](std::string& to) {  // an empty value is none ('-o ""' wrote to stdout)
      const std::optional<std::string> v = option_value(joined, i, argc, argv);
      if (v) to = *v;
      return v.has_value();
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
      std::cerr << "thicket: unknown option '" << a << "' for import" << did_you_mean(a, {"-o", "--tree", "--leaves"})
                << " (options: -o, --tree, --leaves)\n" << usage;
      return 64;
    } else if (file.empty()) {
      file = a;
    } else {
      std::cerr << "thicket: import takes one file\n" << usage;
      return 64;
    }
  }
  if (file.empty()) return std::cerr << "thicket: import needs a file (.xml: BehaviorTree.CPP 4, .json: behavior3)\n" << usage, 64;
  // The extension in any case (TREE.XML, saved on Windows): the format it names.
  std::string lower = file;
  std::transform(lower.begin(), lower.end(), lower.begin(), [](unsigned char c) { return std::tolower(c); });
  const bool xml = named_with_extension(lower, ".xml"), json = named_with_extension(lower, ".json");
  if (!xml && !json) {
    std::cerr << file << ": error: import reads BehaviorTree.CPP 4 XML (.xml) or behavior3 JSON (.json)\n";
    return 2;
  }
  std::string text, why;
  if (!read_file(file, text, why)) {
    std::cerr << file << ": error: cannot read the file: " << why << "\n";
    return 2;
  }
  // Lines end with a lone CR in an old Mac file: XML reads it as a line end (its spec makes CR
  // LF and a lone CR an LF), but tinyxml2 and the JSON parser count lines by LF, so every error
  // was said on line 1. Made LF here (CR LF stays, as both count it).
  for (size_t at = text.find('\r'); at != std::string::npos; at = text.find('\r', at + 1))
    if (at + 1 >= text.size() || text[at + 1] != '\n') text[at] = '\n';
  // The brain is written as YAML, which holds UTF-8 only (as BT.CPP's XML and behavior3's JSON
  // are: tinyxml2 reads the bytes without checking them, and a JSON parser's message would show
  // the stray byte itself).
  if (const size_t bad = first_invalid_utf8(text); bad != std::string::npos) {
    const auto [line, column] = place_of(text, bad);
    std::cerr << file << ":" << line << ":" << column << ": error: the file is not UTF-8 (byte " << hex_byte(text[bad])
              << " here): save it as UTF-8\n";
    return 2;
  }
  // A character reference to what XML 1.0 cannot hold (&#xD800;, &#x110000;, &#0;): tinyxml2
  // turns it into bytes that are no UTF-8, and the brain was refused for "not UTF-8" with no
  // place. Said at the reference.
  if (xml) {
    for (size_t at = text.find("&#"); at != std::string::npos; at = text.find("&#", at + 2)) {
      const bool hex = at + 2 < text.size() && (text[at + 2] == 'x' || text[at + 2] == 'X');
      size_t i = at + (hex ? 3 : 2);
      uint64_t v = 0;
      bool digits = false, huge = false;
      for (; i < text.size() && (hex ? std::isxdigit(static_cast<unsigned char>(text[i])) : std::isdigit(static_cast<unsigned char>(text[i]))); ++i) {
        const char c = static_cast<char>(std::tolower(static_cast<unsigned char>(text[i])));
        v = v * (hex ? 16 : 10) + static_cast<uint64_t>(std::isdigit(static_cast<unsigned char>(c)) ? c - '0' : c - 'a' + 10);
        huge = huge || v > 0x10FFFF;
        if (huge) v = 0x110000;
        digits = true;
      }
      if (!digits || i >= text.size() || text[i] != ';') continue;  // not a reference: tinyxml2 says what it makes of it
      if (!huge && xml_char(static_cast<uint32_t>(v))) continue;
      const auto [line, column] = place_of(text, at);
      std::cerr << file << ":" << line << ":" << column << ": error: the character reference " << text.substr(at, i + 1 - at)
                << " names no character XML 1.0 allows (tab, line ends, U+0020..U+D7FF, U+E000..U+FFFD, U+10000..U+10FFFF)\n";
      return 2;
    }
  }
  ImportedBrain brain;
  std::vector<ImportError> errors;
  bool ok = false;
  if (xml) {
    ok = import_btcpp(file, text, tree, brain, errors);
  } else if (json) {
    ok = import_b3(file, text, tree, brain, errors);
  } else {
    std::cerr << file << ": error: import reads BehaviorTree.CPP 4 XML (.xml) or behavior3 JSON (.json)\n";
    return 2;
  }
  if (!ok) {
    print_errors(errors, brain);
    if (errors.empty()) std::cerr << file << ": error: nothing to import\n";
    return 2;
  }
  // The brain as it will be written must load: what the importer let through but thicket
  // refuses (a negative behavior3 maxTime, 65 `!` in a row) is an error of
  // the import, and nothing is written (SPEC 13).
  if (std::vector<ImportError> unloadable = load_errors(file, brain); !unloadable.empty()) {
    print_errors(unloadable, brain);
    return 2;
  }
  std::vector<ImportError> none;
  print_errors(none, brain);  // the warnings
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

}  // namespace thicket::cli
