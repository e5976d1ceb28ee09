// Hostile or careless YAML (issue 10): alias bombs, deep nesting and huge trees are refused
// with a position, quickly, instead of hanging the loader or overflowing its stack. At the
// end, YAML merge keys (`<<: *anchor`), expanded after parsing (yaml_merge.hpp).
#include <doctest/doctest.h>

#include <clocale>
#include <cmath>
#include <cstdlib>
#include <limits>
#include <optional>
#include <filesystem>
#include <fstream>
#include <sys/stat.h>
#include <unistd.h>
#include <string>
#include <vector>

#include "comma_locale.hpp"
#include "compiler.hpp"
#include "plain_file.hpp"
#include "thicket/runtime.hpp"
#include "yaml_limits.hpp"
#include "yaml_merge.hpp"
#include "yaml_scalar.hpp"

namespace {

using thicket::Diagnostic;
using thicket::Runtime;

std::string all(const std::vector<Diagnostic>& ds) {
  std::string out;
  for (const auto& d : ds) out += thicket::format_diagnostic(d) + "\n";
  return out;
}

struct Loaded {
  bool ok = false;
  std::string errors;
};

Loaded load(const std::string& yaml) {
  Runtime rt;
  thicket::NativeLeaf work;
  work.tick = [](thicket::LeafContext&) { return thicket::Status::Success; };
  rt.register_leaf("Work", work);
  std::vector<Diagnostic> d;
  auto b = rt.load_string(yaml, "hostile.yaml", d);
  Loaded out;
  out.ok = b.has_value();
  out.errors = all(d);
  return out;
}

// Each anchor holds two aliases of the one before: 2^29 leaves once expanded.
std::string alias_bomb() {
  std::string y = "tree: bomb\ntrees:\n  pool:\n    sequence:\n      - &a0 {action: Work}\n";
  for (int i = 1; i < 30; ++i)
    y += "      - &a" + std::to_string(i) + " {sequence: [*a" + std::to_string(i - 1) + ", *a" +
         std::to_string(i - 1) + "]}\n";
  return y + "root: *a29\n";
}

}  // namespace

TEST_CASE("an alias bomb is refused at the alias that passes the node limit, in well under a second") {
  Loaded r = load(alias_bomb());
  CHECK_FALSE(r.ok);
  // The second *a14 of line 20 (each copy of a14 is some 100,000 nodes) passes 250,000.
  CHECK(r.errors.find("hostile.yaml:20:26: error: ") == 0);
  CHECK(r.errors.find("aliases expand to more than 250000 nodes here") != std::string::npos);
}

TEST_CASE("aliases below the limit load as before") {
  Loaded r = load("tree: t\ntrees:\n  x: &w {action: Work}\nroot: {sequence: [*w, *w, *w]}\n");
  CHECK_MESSAGE(r.ok, r.errors);
}

TEST_CASE("an alias inside the node its anchor names is refused there, not walked until the stack ends") {
  // `root: &a {sequence: [*a]}` is a node holding itself: it crashed the compiler's walk.
  Loaded l = load("tree: t\nroot: &a {sequence: [*a]}\n");
  CHECK(!l.ok);
  CHECK(l.errors.find("hostile.yaml:2:22: error: this alias names a node it stands inside") != std::string::npos);
  l = load("tree: t\nroot:\n  sequence:\n    - &b {sequence: [{action: Work}, *b]}\n");
  CHECK(!l.ok);
  CHECK(l.errors.find("hostile.yaml:4:38: error: this alias names") != std::string::npos);
  CHECK(load("tree: t\ntrees: {w: &w {action: Work}}\nroot: {sequence: [*w, *w]}\n").ok);  // after it: fine
}

TEST_CASE("a quote never closed is said where it opens, not taken as a text holding the keys below") {
  // yaml-cpp reads `mood: 'calm` on to the next quote, or to the end of the file: the keys below
  // it became its text and the load went on (health was no key), or failed far from the cause.
  Loaded l = load("tree: t\nroot:\n  action: Work\nblackboard:\n  mood: 'calm\n  health: 100\n  ammo: 6\n");
  CHECK(!l.ok);
  CHECK(l.errors.find("hostile.yaml:5:9: error: this quoted text has no closing ' on its line: it runs on to line 6 "
                      "('health: 100')") != std::string::npos);
  l = load("tree: t\nblackboard:\n  mood: \"calm\nroot:\n  action: Work\n");
  CHECK(!l.ok);
  CHECK(l.errors.find("hostile.yaml:3:9: error: this quoted text has no closing \" on its line: it runs on to line 4 "
                      "('root:')") != std::string::npos);
  // A text that goes on over lines indented deeper, or inside { } or [ ], is a text.
  CHECK_MESSAGE(load("tree: t\nroot:\n  action: {leaf: Work, args: {a: 'x\n y', b: \"one\n  two\"}}\n").ok,
                "flow context");
  l = load("tree: t\nroot:\n  action:\n    leaf: Work\n    args:\n      text: 'a long\n        text'\n      n: 1\n");
  CHECK_MESSAGE(l.ok, l.errors);
}

TEST_CASE("a file nested 20,000 levels deep says it is too deep, and where") {
  const int depth = 20000;
  Loaded flow = load("tree: deep\nroot: " + std::string(depth, '[') + std::string(depth, ']') + "\n");
  CHECK_FALSE(flow.ok);
  CHECK(flow.errors.find("hostile.yaml:2:306: error: nesting deeper than 300 levels at line 2") == 0);
  std::string block = "tree: deep\nroot:\n";
  for (int i = 1; i <= 2000; ++i) block += std::string(i, ' ') + "- sequence:\n";  // 2 levels a line
  Loaded b = load(block);
  CHECK_FALSE(b.ok);
  CHECK(b.errors.find("nesting deeper than 300 levels at line 301") != std::string::npos);
  CHECK(b.errors.find("YAML syntax") == std::string::npos);
}

TEST_CASE("the nesting scan does not count brackets and quotes inside plain text or block scalars") {
  using thicket::find_deep_nesting;
  CHECK_FALSE(find_deep_nesting("a: [[[b]]]\n", 4));
  CHECK(find_deep_nesting("a: [[[[b]]]]\n", 4));
  CHECK_FALSE(find_deep_nesting("message: a[[[[[1]]]]] it's {{{{{\n", 2));
  CHECK_FALSE(find_deep_nesting("text: |\n  [[[[[[\n  {{{{{{\nnext: 1\n", 2));
  CHECK_FALSE(find_deep_nesting("q: \"[[[[[[\"\nr: '{{{{{{'\n", 2));
  CHECK_FALSE(find_deep_nesting("a: 1 # [[[[[[[\n", 2));
  auto hit = find_deep_nesting("a:\n  b:\n    c:\n      d: 1\n", 3);
  REQUIRE(hit);
  CHECK(hit->line == 4);
  CHECK(hit->depth == 4);
}

TEST_CASE("a tree deeper than 256 levels through subtrees is an error, not a stack overflow") {
  std::string y = "tree: chain\nroot: {subtree: t0}\ntrees:\n";
  for (int i = 0; i < 5000; ++i)
    y += "  t" + std::to_string(i) + ": {sequence: [{subtree: t" + std::to_string(i + 1) + "}]}\n";
  y += "  t5000: {action: Work}\n";
  Loaded r = load(y);
  CHECK_FALSE(r.ok);
  CHECK(r.errors.find("the tree is nested deeper than 256 levels here (through subtrees chain -> ... -> t127)") !=
        std::string::npos);
}

TEST_CASE("subtrees used twice at every level stop at 100,000 nodes") {
  std::string y = "tree: sb\nroot: {subtree: t29}\ntrees:\n  t0: {action: Work}\n";
  for (int i = 1; i < 30; ++i)
    y += "  t" + std::to_string(i) + ": {sequence: [{subtree: t" + std::to_string(i - 1) + "}, {subtree: t" +
         std::to_string(i - 1) + "}]}\n";
  Loaded r = load(y);
  CHECK_FALSE(r.ok);
  CHECK(r.errors.find("the brain passes 100000 nodes here") != std::string::npos);
}

TEST_CASE("a composite with more than 65,534 children is an error") {
  std::string y = "tree: wide\nroot:\n  sequence:\n";
  for (int i = 0; i < 70000; ++i) y += "    - action: Work\n";
  Loaded r = load(y);
  CHECK_FALSE(r.ok);
  CHECK(r.errors.find("hostile.yaml:4:5: error: this node has 70000 children; a node may have at most 65534") == 0);
}

TEST_CASE("a plain file of more than 250,000 nodes is refused there too, without aliases") {
  std::string y = "tree: t\nblackboard: {big: 1}\nroot: {action: {leaf: Work, args: {l: [";
  for (int i = 0; i < 130000; ++i) y += "{a: 1},";
  Loaded r = load(y + "1]}}}\n");
  CHECK_FALSE(r.ok);
  CHECK(r.errors.find("hostile.yaml:3:") == 0);
  CHECK(r.errors.find("the file passes 250000 YAML nodes here (keys, values and list items, aliases expanded)") !=
        std::string::npos);
}

TEST_CASE("files are read within bounds: devices and huge files are refused, not read for ever") {
  namespace fs = std::filesystem;
  const fs::path dir = fs::temp_directory_path() / "thicket_read_limited";
  fs::create_directories(dir);
  std::string text, why;
  CHECK_FALSE(thicket::read_limited("/dev/zero", thicket::kMaxYamlBytes, text, why));
  CHECK(why == "a device, not a file");
  CHECK_FALSE(thicket::read_limited((dir / "missing.yaml").string(), thicket::kMaxYamlBytes, text, why));
  CHECK(why == "no such file");
  CHECK_FALSE(thicket::read_limited(dir.string(), thicket::kMaxYamlBytes, text, why));
  CHECK(why == "a folder, not a file");
  {
    std::ofstream(dir / "big.yaml") << std::string(2u << 20, '#');
    std::ofstream(dir / "small.yaml") << "scenario: s\n";
  }
  CHECK_FALSE(thicket::read_limited((dir / "big.yaml").string(), 1u << 20, text, why));
  CHECK(why == "larger than 1 MB; a brain, import or scenario file may be at most 1 MB (is it the right file?)");
  CHECK(text.empty());
  REQUIRE(thicket::read_limited((dir / "small.yaml").string(), 1u << 20, text, why));
  CHECK(text == "scenario: s\n");
  // The brain loader says so at the file that names the device.
  Runtime rt;
  std::vector<Diagnostic> d;
  CHECK_FALSE(rt.load_file("/dev/zero", d));
  CHECK(all(d) == "/dev/zero: error: cannot open file: a device, not a file\n");
  fs::remove_all(dir);
}

TEST_CASE("open_plain tells what it opened, and never waits on a pipe") {
  // What a reader (read_limited, the hot reload's hash) reads is what open_plain opened and
  // asked: a path swapped for a device or a pipe after a look at it cannot slip one in.
  namespace fs = std::filesystem;
  const fs::path dir = fs::temp_directory_path() / ("thicket_open_plain_" + std::to_string(::getpid()));
  fs::create_directories(dir);
  { std::ofstream(dir / "plain.lua") << "return {}\n"; }
  REQUIRE(::mkfifo((dir / "pipe.lua").c_str(), 0600) == 0);  // nothing ever writes to it
  thicket::PathKind kind = thicket::PathKind::Missing;
  uint64_t size = 0;
  const int fd = thicket::open_plain((dir / "plain.lua").string(), kind, &size);
  CHECK(fd >= 0);
  CHECK(kind == thicket::PathKind::File);
  CHECK(size == 10);
  if (fd >= 0) ::close(fd);
  CHECK(thicket::open_plain((dir / "pipe.lua").string(), kind) == -1);  // at once: opened without waiting
  CHECK(kind == thicket::PathKind::Other);
  CHECK(thicket::open_plain("/dev/zero", kind) == -1);
  CHECK(kind == thicket::PathKind::Device);
  CHECK(thicket::open_plain(dir.string(), kind) == -1);
  CHECK(kind == thicket::PathKind::Folder);
  CHECK(thicket::open_plain((dir / "none.lua").string(), kind) == -1);
  CHECK(kind == thicket::PathKind::Missing);
  fs::remove_all(dir);
}

TEST_CASE("a scenario is told from a brain by its top-level key, without building the document") {
  namespace fs = std::filesystem;
  const fs::path dir = fs::temp_directory_path() / "thicket_top_level_key";
  fs::create_directories(dir);
  auto file = [&](const std::string& name, const std::string& text) {
    std::ofstream(dir / name) << text;
    return (dir / name).string();
  };
  CHECK(thicket::has_top_level_key(file("a.yaml", "# a comment\nscenario: s\nteams: [a]\n"), "scenario"));
  CHECK(thicket::has_top_level_key(file("b.yaml", "{teams: [a], scenario: s}\n"), "scenario"));
  CHECK_FALSE(thicket::has_top_level_key(file("c.yaml", "tree: t\nroot: {scenario: x}\n"), "scenario"));
  CHECK_FALSE(thicket::has_top_level_key(file("d.yaml", "- scenario\n"), "scenario"));
  CHECK_FALSE(thicket::has_top_level_key(file("e.yaml", "scenario\n"), "scenario"));
  CHECK_FALSE(thicket::has_top_level_key(file("f.yaml", "x: [\n"), "scenario"));  // a syntax error
  CHECK_FALSE(thicket::has_top_level_key(file("g.yaml", "a: {scenario: 1}\nb: 2\n"), "scenario"));
  CHECK(thicket::has_top_level_key(file("h.yaml", "a: {scenario: 1}\nscenario: 2\n"), "scenario"));
  CHECK_FALSE(thicket::has_top_level_key("/dev/zero", "scenario"));
  fs::remove_all(dir);
}

TEST_CASE("a second YAML document is an error where it starts, not dropped unread") {
  Loaded two = load("tree: t\nroot: {action: Work}\n---\ntree: u\n");
  CHECK_FALSE(two.ok);
  CHECK(two.errors.find("hostile.yaml:4:1: error: a second YAML document starts here") == 0);
  Loaded after_end = load("tree: t\nroot: {action: Work}\n...\ngarbage: [\n");
  CHECK_FALSE(after_end.ok);
  CHECK(after_end.errors.find("hostile.yaml:4:1: error: a second YAML document starts here") == 0);
  // A file that ends in '---' and a line break: said at the '---' (the second document's place
  // was the line after the file's last).
  Loaded ends_in_marker = load("tree: t\nroot: {action: Work}\n---\n");
  CHECK_FALSE(ends_in_marker.ok);
  CHECK(ends_in_marker.errors.find("hostile.yaml:3:1: error: a second YAML document starts here") == 0);
  // One document, with its markers, or with a comment after its end: fine.
  Loaded one = load("---\ntree: t\nroot: {action: Work}\n...\n# the end\n");
  CHECK_MESSAGE(one.ok, one.errors);
}

TEST_CASE("bytes no YAML text of ours holds are named where they are: not UTF-8, NUL, CR alone, UTF-16") {
  using namespace std::string_literals;
  Loaded latin1 = load("tree: t\nroot: {action: Work}\n# caf\xe9\n");
  CHECK_FALSE(latin1.ok);
  CHECK(latin1.errors == "hostile.yaml:3:6: error: the file is not UTF-8 (byte 0xe9 here); save it as UTF-8\n");
  // The column counts characters: two é before the stray byte are two columns, not four bytes.
  Loaded after = load("tree: t\nroot: {action: Work}\n# \xc3\xa9\xc3\xa9\xff\n");
  CHECK(after.errors.find("hostile.yaml:3:5: error: the file is not UTF-8 (byte 0xff here)") == 0);
  // A NUL in a comment passed unseen; in a flow mapping yaml-cpp called it a bad escape.
  Loaded nul = load("tree: t\nroot: {action: Work}\n# a\0b\n"s);
  CHECK_FALSE(nul.ok);
  CHECK(nul.errors.find("hostile.yaml:3:4: error: a NUL byte (0x00) here") == 0);
  Loaded mac = load("tree: t\rroot: {action: Work}\r");
  CHECK_FALSE(mac.ok);
  CHECK(mac.errors.find("hostile.yaml:1:8: error: a line ends with CR alone here") == 0);
  Loaded utf16 = load("\xff\xfet\0r\0"s);
  CHECK_FALSE(utf16.ok);
  CHECK(utf16.errors.find("hostile.yaml:1:1: error: the file is UTF-16 text; save it as UTF-8") == 0);
  // UTF-8 past ASCII, CRLF line ends and a BOM load as before.
  Loaded fine = load("\xEF\xBB\xBFtree: t\r\nroot: {action: Work}\r\n# caf\xc3\xa9 \xe2\x82\xac\r\n");
  CHECK_MESSAGE(fine.ok, fine.errors);
}

TEST_CASE("an any key given a default says it starts as nil, not that the default must be 'any value'") {
  Loaded r = load("tree: t\nblackboard: {k: {type: any, default: 3}}\nroot: {action: Work}\n");
  CHECK_FALSE(r.ok);
  CHECK(r.errors.find("hostile.yaml:2:38: error: 'k' is an any key, which starts as nil: leave its default out (got "
                      "an integer), or give it a type") == 0);
}

TEST_CASE("a blackboard default of nan is refused (a health of nan never reaches 0); inf is a number") {
  for (const char* decl : {"{health: .nan}", "{health: {type: number, default: .NaN}}"}) {
    Loaded r = load(std::string("tree: t\nblackboard: ") + decl + "\nroot: {action: Work}\n");
    CHECK_FALSE(r.ok);
    CHECK(r.errors.find("error: the default of 'health' is nan, which is no number to compare or count with (a health of nan "
                        "never reaches 0): give it a number") != std::string::npos);
  }
  Loaded far = load("tree: t\nblackboard: {best: .inf, worst: {type: number, default: -.inf}}\nroot: {action: Work}\n");
  CHECK_MESSAGE(far.ok, far.errors);
}

TEST_CASE("a tab in a line's indentation is named, at the tab, whatever the parser calls it") {
  // yaml-cpp says "illegal map value" or "illegal block entry" here, at the end of the key or
  // at the dash: neither names the tab.
  Loaded key = load("tree: t\nblackboard:\n\thp: 3\nroot: {action: Work}\n");
  CHECK_FALSE(key.ok);
  CHECK(key.errors.find("hostile.yaml:3:1: error: a tab in this line's indentation; YAML indents with spaces only "
                        "(the parser: illegal map value)") == 0);
  Loaded entry = load("tree: t\nroot:\n  sequence:\n  \t  - action: Work\n");
  CHECK_FALSE(entry.ok);
  CHECK(entry.errors.find("hostile.yaml:4:3: error: a tab in this line's indentation") == 0);
  // After a list item's dash, before its content, a tab is that content's indentation (the
  // parser said "illegal map value" at the colon).
  Loaded dash = load("tree: t\nroot:\n  sequence:\n    -\taction: Work\n");
  CHECK_FALSE(dash.ok);
  CHECK(dash.errors.find("hostile.yaml:4:6: error: a tab in this line's indentation") == 0);
  // A syntax error on a line indented with spaces keeps the parser's own words and place.
  Loaded other = load("tree: t\nroot: {sequence: [{action: Work}\n\n");
  CHECK_FALSE(other.ok);
  CHECK(other.errors.find("error: YAML syntax: ") != std::string::npos);
  CHECK(other.errors.find("tab") == std::string::npos);
  // A tab after the indentation (here inside a flow list) is no indentation: it loads.
  Loaded inside = load("tree: t\nroot: {sequence: [\t{action: Work}]}\n");
  CHECK_MESSAGE(inside.ok, inside.errors);
}

TEST_CASE("plain scalars are typed as YAML 1.2's core schema says, however long") {
  using thicket::ScalarKind;
  auto kind = [](const std::string& text) { return thicket::classify_scalar(YAML::Load("v: " + text)["v"]).kind; };
  for (const char* integer : {"12", "-3", "+4", "0", "0o17", "0x1F", "0xff"}) {
    CAPTURE(integer);
    CHECK(kind(integer) == ScalarKind::Integer);
  }
  for (const char* number : {"1.5", ".5", "1.", "-.5e+2", "1e3", "1E-3", "+2.5E10", ".inf", "-.Inf", ".nan", "99999999999999999999"}) {
    CAPTURE(number);
    CHECK(kind(number) == ScalarKind::Float);
  }
  for (const char* text : {"1e", "e3", ".", "+", "0x", "0o", "0o8", "0xg", "1.2.3", "12a", "1e+", "--1", "0X1F", "1_000"}) {
    CAPTURE(text);
    CHECK(kind(text) == ScalarKind::String);
  }
  CHECK(thicket::classify_scalar(YAML::Load("v: 0o17")["v"]).integer == 15);
  CHECK(thicket::classify_scalar(YAML::Load("v: 0x1F")["v"]).integer == 31);
  // Tags: !!str is text. (!!float 3 stays a whole number here, for whole-number settings such as
  // times: args give it to Lua as the float 3.0: yaml_to_arg.)
  CHECK(kind("!!str 12") == ScalarKind::String);
  CHECK(kind("!!float 2.5") == ScalarKind::Float);
  const thicket::ArgValue tagged = thicket::yaml_to_arg(YAML::Load("v: !!float 3")["v"]);
  CHECK((tagged.type == thicket::ArgValue::Type::Number && tagged.number == 3.0));
  const thicket::ArgValue minus = thicket::yaml_to_arg(YAML::Load("v: !!float -0")["v"]);
  CHECK((minus.type == thicket::ArgValue::Type::Number && std::signbit(minus.number)));
  // std::regex matched these one stack frame per character: some 30,000 digits overflowed the
  // stack (SIGSEGV) at load.
  const std::string many(200000, '7');
  CHECK(kind(many) == ScalarKind::Float);  // too large for an integer
  CHECK(kind("0." + many) == ScalarKind::Float);
  CHECK(kind(many + "x") == ScalarKind::String);
  Loaded r = load("tree: t\nroot: {wait: 0." + many + "}\n");
  CHECK_MESSAGE(r.ok, r.errors);
}

TEST_CASE("scalar_position: a byte of a scalar's value at its place in the file") {
  auto at = [](const std::string& text, const std::string& key, size_t offset) {
    const YAML::Node doc = YAML::Load(text);
    return thicket::scalar_position(text, doc[key].Mark(), offset);
  };
  using P = std::pair<int, int>;
  CHECK(at("a: hello\n", "a", 2) == P{1, 6});                        // plain
  CHECK(at("a: 'it''s x'\n", "a", 5) == P{1, 11});                   // '' is one quote
  CHECK(at("a: \"\\u00e9 x\"\n", "a", 3) == P{1, 12});               // \u00e9 is 2 bytes of value, 6 of text
  CHECK(at("a: \"one\n  two\"\n", "a", 4) == P{2, 3});               // folded: the break is one space
  CHECK(at("a: >\n  one\n  two\n", "a", 4) == P{3, 3});              // folded block
  CHECK(at("a: |\n    one\n    two\n", "a", 5) == P{3, 6});          // literal block, deeper indent
  CHECK(at("a: x\r\n", "a", 0) == P{1, 4});                          // CRLF
  CHECK(thicket::scalar_position("a: x\n", YAML::Mark::null_mark(), 0) == P{0, 0});  // no mark: no place
  CHECK(at("a: \"\\U0001F600 x\"\n", "a", 5) == P{1, 16});          // 4 bytes of value, 10 of text
}

TEST_CASE("an empty path says so, and a diagnostic without a file reads 'error: ...'") {
  thicket::Runtime rt;
  std::vector<thicket::Diagnostic> d;
  CHECK(!rt.load_file("", d));
  REQUIRE(d.size() == 1);
  // It was ": error: cannot open file: no such file".
  CHECK(thicket::format_diagnostic(d[0]) == "error: no file to load: the path is empty");
}

// YAML merge keys (`<<: *anchor`), which yaml-cpp 0.7 reads as a plain key: expanded in place
// after parsing, own keys first, earlier sources before later ones, marks kept.
namespace merge_keys_test {  // named: this file shares a unity batch with others

using thicket::Diagnostic;

struct Parsed {
  YAML::Node doc;
  std::vector<Diagnostic> diags;
};

Parsed parse(const std::string& text) {
  Parsed p;
  auto doc = thicket::load_yaml_checked(text, "m.yaml", p.diags);
  REQUIRE(doc.has_value());
  p.doc = *doc;
  return p;
}

std::string keys(const YAML::Node& map) {
  std::string out;
  for (auto it = map.begin(); it != map.end(); ++it) out += (out.empty() ? "" : ",") + it->first.Scalar();
  return out;
}


TEST_CASE("merge keys: a mapping's entries where the << stood, its own keys winning") {
  Parsed p = parse("base: &b {x: 1, y: 2, z: 3}\nuse: {a: 0, <<: *b, y: 20}\n");
  CHECK(p.diags.empty());
  const YAML::Node use = p.doc["use"];
  CHECK(keys(use) == "a,x,z,y");
  CHECK(use["x"].as<int>() == 1);
  CHECK(use["y"].as<int>() == 20);
  CHECK(use["z"].as<int>() == 3);
  CHECK(keys(p.doc["base"]) == "x,y,z");  // the source is untouched
}

TEST_CASE("merge keys: in a list of sources the earlier ones win; chains merge through") {
  Parsed p = parse(
      "a: &a {k: a, only_a: 1}\n"
      "b: &b {<<: *a, k: b, only_b: 2}\n"
      "c: {<<: [*b, {k: x, only_x: 3}]}\n");
  CHECK(p.diags.empty());
  const YAML::Node c = p.doc["c"];
  CHECK(c["k"].as<std::string>() == "b");
  CHECK(c["only_a"].as<int>() == 1);
  CHECK(c["only_b"].as<int>() == 2);
  CHECK(c["only_x"].as<int>() == 3);
  CHECK(!c["<<"]);
  CHECK(!p.doc["b"]["<<"]);
}

TEST_CASE("merge keys: a merged entry keeps the mark of where it is written") {
  Parsed p = parse("base: &b\n  x: 1\nuse:\n  <<: *b\n  y: 2\n");
  const YAML::Node use = p.doc["use"];
  for (auto it = use.begin(); it != use.end(); ++it) {
    if (it->first.Scalar() == "x") CHECK(it->first.Mark().line == 1);  // 0-based: under the anchor
    if (it->first.Scalar() == "y") CHECK(it->first.Mark().line == 4);
  }
}

TEST_CASE("merge keys: a << naming no mapping is an error at its place, and is dropped") {
  Parsed p = parse("a: {<<: 5, k: 1}\nb: {<<: [{x: 1}, 7]}\nc: {<<: }\n");
  REQUIRE(p.diags.size() == 3);
  CHECK(p.diags[0].line == 1);
  CHECK(p.diags[0].message.find("takes a mapping") != std::string::npos);
  CHECK(p.diags[1].line == 2);
  CHECK(p.diags[1].message.find("holds mappings only") != std::string::npos);
  CHECK(p.diags[2].message.find("this is empty") != std::string::npos);
  CHECK(keys(p.doc["a"]) == "k");
  CHECK(keys(p.doc["b"]) == "x");
}

TEST_CASE("merge keys: a mapping that merges itself is an error, not an endless walk") {
  // The loader refuses the alias first (it names a node it stands inside) ...
  std::vector<Diagnostic> diags;
  CHECK(!thicket::load_yaml_checked("a: &a\n  <<: *a\n  x: 1\n", "m.yaml", diags).has_value());
  REQUIRE(diags.size() == 1);
  CHECK(diags[0].line == 2);
  CHECK(diags[0].message.find("names a node it stands inside") != std::string::npos);
  // ... and the expansion alone drops such a merge with an error.
  YAML::Node doc = YAML::Load("a: &a\n  <<: *a\n  x: 1\n");
  diags.clear();
  thicket::expand_merge_keys(doc, "m.yaml", diags);
  REQUIRE(diags.size() == 1);
  CHECK(diags[0].message.find("merges itself") != std::string::npos);
  CHECK(keys(doc["a"]) == "x");
}

TEST_CASE("merge keys: a quoted \"<<\" is an ordinary key") {
  Parsed p = parse("a: &a {x: 1}\nb: {\"<<\": *a}\n");
  CHECK(p.diags.empty());
  CHECK(keys(p.doc["b"]) == "<<");
}

}  // namespace merge_keys_test

TEST_CASE("a huge leaf file or leaf name is clipped in its message") {
  // A 2 MB leaf file name printed 6 MB of message (the name, the path, the list of failed files).
  const std::string file(100000, 'f'), leaf(100000, 'L');
  Loaded r = load("tree: t\nleaves: [" + file + ".lua]\nroot: {action: " + leaf + "}\n");
  CHECK_FALSE(r.ok);
  CHECK(r.errors.find("leaf file 'fff") != std::string::npos);
  CHECK(r.errors.find("(100004 bytes)") != std::string::npos);
  CHECK(r.errors.find("unknown leaf 'LLL") != std::string::npos);
  CHECK(r.errors.size() < 3000);
}

TEST_CASE("a key past the parser's 1024 characters is named as the likely cause; a file of comments is not called empty") {
  // yaml-cpp takes no plain key longer than 1024 characters and says "illegal map value" (in a
  // block mapping) or "end of map flow not found" (in a flow one), nothing of the length.
  const std::string key(1100, 'A');
  for (const std::string& yaml : {"tree: t\nroot:\n  " + key + ": 1\n", "tree: t\nroot: {" + key + ": 1}\n"}) {
    Loaded r = load(yaml);
    CHECK_FALSE(r.ok);
    CHECK(r.errors.find("(a key longer than 1024 characters? the YAML parser takes no longer key)") != std::string::npos);
  }
  Loaded other = load("tree: t\nroot: {sequence: [{action: Work}\n\n");  // a syntax error of another cause
  CHECK(other.errors.find("1024") == std::string::npos);
  Loaded comments = load("# a brain to come\n# tree: t\n");
  CHECK(comments.errors.find("error: the file holds no YAML value (only comments?)") != std::string::npos);
  Loaded empty = load("\n  \n");
  CHECK(empty.errors.find("error: the file is empty;") != std::string::npos);
}

TEST_CASE("a symbolic link that leads round in a loop is said so, not 'not found'") {
  namespace fs = std::filesystem;
  const fs::path dir = fs::temp_directory_path() / ("thicket_link_loop_" + std::to_string(::getpid()));
  fs::remove_all(dir);
  fs::create_directories(dir);
  fs::create_symlink("b.lua", dir / "a.lua");
  fs::create_symlink("a.lua", dir / "b.lua");
  fs::create_symlink("d.yaml", dir / "c.yaml");
  fs::create_symlink("c.yaml", dir / "d.yaml");
  Runtime rt;
  std::vector<Diagnostic> d;
  CHECK_FALSE(rt.load_string("tree: t\nleaves: [a.lua]\nimport: [c.yaml]\nroot: {wait: 1}\n", (dir / "t.yaml").string(), d));
  const std::string errors = all(d);
  INFO(errors);
  CHECK(errors.find("a.lua is a symbolic link that leads round in a loop") != std::string::npos);
  CHECK(errors.find("c.yaml': a symbolic link that leads round in a loop") != std::string::npos);
  CHECK(errors.find("not found") == std::string::npos);
  fs::remove_all(dir);
}

TEST_CASE("a text over 16 MB given to load_string is refused as a file of that size is, before it is parsed") {
  Runtime rt;
  std::vector<Diagnostic> d;
  std::string text = "tree: t\nroot: {wait: 1}\n";
  text.append(thicket::kMaxYamlBytes, '#');  // a comment: as YAML it would load
  CHECK_FALSE(rt.load_string(text, "mod.yaml", d));
  REQUIRE(d.size() == 1);
  CHECK(d[0].message == "the text is 16 MB; a brain may be at most 16 MB, as a brain file may");
  std::vector<Diagnostic> small;
  CHECK(rt.load_string("tree: t\nroot: {wait: 1}\n", "mod.yaml", small));
}

TEST_CASE("numbers in a brain read the same whatever the process's C locale (a game may set a German one)") {
  const thicket_test::CLocaleAtEnd c_at_end;
  REQUIRE_MESSAGE(thicket_test::comma_locale(), "no de_DE locale, and localedef could not make one (Debian's `locales` package)");
  // The locale is in force: the C library's own strtod stops at the '.'.
  CHECK(std::strtod("2.5", nullptr) == 2.0);
  CHECK(thicket::classify_scalar(YAML::Load("2.5")).number == 2.5);
  CHECK(thicket::classify_scalar(YAML::Load("-1.25e2")).number == -125.0);
  CHECK(thicket::classify_scalar(YAML::Load("1e400")).number == std::numeric_limits<double>::infinity());
  CHECK(thicket::c_strtod("0.5") == 0.5);
  Runtime rt;
  std::vector<Diagnostic> d;
  auto b = rt.load_string("tree: t\nblackboard: {speed: {type: number, default: 2.5}}\nroot: {wait: 0.5}\n", "t.yaml", d);
  std::setlocale(LC_NUMERIC, "C");
  REQUIRE_MESSAGE(b.has_value(), all(d));
  const auto a = rt.spawn(*b);
  CHECK(rt.get(a, "speed") == std::optional<thicket::Value>(2.5));
  for (int i = 0; i < 4; ++i) rt.tick_all(0.1);  // 0.4 s of a 0.5 s wait (it read 0 under de_DE)
  CHECK(rt.status(a) == thicket::Status::Running);
}

TEST_CASE("a chain of imports 64 files deep loads; one deeper is an error at the import, not a stack overflow") {
  const std::filesystem::path dir =
      std::filesystem::temp_directory_path() / ("thicket_test_imports_" + std::to_string(::getpid()));
  std::filesystem::create_directories(dir);
  // f0 imports f1, ... f(n-1) defines tree t; main imports f0 and runs t.
  auto chain = [&](int n) {
    for (int i = 0; i < n; ++i) {
      std::ofstream f(dir / ("f" + std::to_string(i) + ".yaml"));
      f << "tree: f" << i << "\nroot: {wait: 1}\n";
      if (i + 1 < n) f << "import: [f" << i + 1 << ".yaml]\n";
      else f << "trees:\n  t: {wait: 1}\n";
    }
    std::ofstream(dir / "main.yaml") << "tree: main\nimport: [f0.yaml]\nroot: {subtree: t}\n";
    Runtime rt;
    std::vector<Diagnostic> d;
    const bool ok = rt.load_file((dir / "main.yaml").string(), d).has_value();
    return std::make_pair(ok, all(d));
  };
  // (No structured bindings: clang 14 refuses them inside doctest's CHECK_MESSAGE lambda.)
  const std::pair<bool, std::string> deep64 = chain(63);  // main + 63 imports: 64 files deep
  CHECK_MESSAGE(deep64.first, deep64.second);
  const std::pair<bool, std::string> deep65 = chain(64);  // one more: f62's import of f63 is the 65th file
  CHECK_FALSE(deep65.first);
  CHECK(deep65.second.find("f62.yaml:3:10: error: imports nested more than 64 files deep") != std::string::npos);
  const std::pair<bool, std::string> deep3000 = chain(3000);
  CHECK_FALSE(deep3000.first);
  CHECK(deep3000.second.find("f62.yaml:3:10: error: imports nested more than 64 files deep") != std::string::npos);
  std::error_code ec;
  std::filesystem::remove_all(dir, ec);
}

TEST_CASE("the leaves' args are bounded with each use of a subtree counted: a 100 KB arg used 1,024 times is refused") {
  // t0 calls Work with a 100 KB text; t(i) runs t(i-1) twice: t10 holds 1,024 copies (100 MB).
  auto brain = [](int levels) {
    std::string y = "tree: dag\nroot: {subtree: t" + std::to_string(levels) + "}\ntrees:\n";
    y += "  t0: {action: {leaf: Work, args: {text: \"" + std::string(100000, 'x') + "\"}}}\n";
    for (int i = 1; i <= levels; ++i)
      y += "  t" + std::to_string(i) + ": {sequence: [{subtree: t" + std::to_string(i - 1) + "}, {subtree: t" +
           std::to_string(i - 1) + "}]}\n";
    return y;
  };
  const Loaded fine = load(brain(9));  // 512 copies: 51 MB
  CHECK_MESSAGE(fine.ok, fine.errors);
  const Loaded big = load(brain(10));
  CHECK_FALSE(big.ok);
  CHECK(big.errors.find("hostile.yaml:4:35: error: the leaves' args pass 64 MB here (subtrees count once per use") !=
        std::string::npos);
}

TEST_CASE("one budget for a load: unused trees, each compiled for its errors with its subtrees, share it") {
  // t9 is 1,023 nodes (t0 used twice by t1, ...); 300 unused trees each use it: 307,000 nodes
  // compiled apart, each program under the 100,000-node limit. A check of 1.2 KB in t0 used
  // 512 times by each of 30 unused trees: 18 MB of checks.
  auto brain = [](const std::string& leaf, int unused) {
    std::string y = "tree: dag\nroot: {subtree: t0}\ntrees:\n  t0: " + leaf + "\n";
    for (int i = 1; i <= 9; ++i)
      y += "  t" + std::to_string(i) + ": {sequence: [{subtree: t" + std::to_string(i - 1) + "}, {subtree: t" +
           std::to_string(i - 1) + "}]}\n";
    for (int u = 0; u < unused; ++u) y += "  u" + std::to_string(u) + ": {subtree: t9}\n";
    return y;
  };
  const Loaded nodes = load(brain("{action: Work}", 300));
  CHECK_FALSE(nodes.ok);
  CHECK(nodes.errors.find("error: the file's trees pass 200000 nodes in all here") != std::string::npos);
  std::string sum = "health";
  for (int i = 0; i < 150; ++i) sum += " + health";
  const std::string checked = "blackboard: {health: 1}\n" + brain("{condition: {check: \"" + sum + " > 0\"}}", 30);
  const Loaded checks = load(checked);
  CHECK_FALSE(checks.ok);
  CHECK(checks.errors.find("error: the checks pass 16 MB here (subtrees count once per use") != std::string::npos);
  CHECK(load(checked.substr(0, checked.find("  u20:"))).ok);  // 20 unused trees: 12 MB
}
