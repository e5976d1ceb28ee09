// YAML -> compiled brain. Two stages, so leaf files can be loaded in between:
//   parse_brain()   reads the brain file and its imports, checks the top level and
//                   collects the Lua leaf files it needs;
//   compile_tree()  validates every node and emits the flat node array.
// Both append every problem they find to a diagnostics list and never throw.
#pragma once
#include <yaml-cpp/yaml.h>

#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "program.hpp"
#include "string_table.hpp"
#include "thicket/diagnostic.hpp"

namespace thicket {

enum class BrainKind { Tree, Fsm, Machine };
inline const char* brain_kind_name(BrainKind k) {
  return k == BrainKind::Tree ? "tree" : k == BrainKind::Fsm ? "fsm" : "machine";
}

// What kind of callable a leaf name resolves to; conditions need plain functions.
enum class LeafShape { Function, Hooks, Task, Native };
using LeafNames = std::map<std::string, LeafShape>;

// A leaf file may declare its args' types (guide: "Declaring a leaf's args"); the compiler
// checks every call site's args against them.
struct LeafArgSpec {
  std::string name;
  std::string type;       // number, integer, string, boolean, table
  bool optional = false;  // written with a trailing '?': the arg may be left out
};
using LeafArgs = std::vector<LeafArgSpec>;

struct YamlFile {
  std::string path;  // as opened (relative to the working directory if given so)
  YAML::Node doc;
};

// A named tree a subtree node may refer to.
struct TreeSource {
  YAML::Node root;
  uint32_t file = 0;  // index in BrainSource::files
};

struct BrainSource {
  BrainKind kind = BrainKind::Tree;
  std::string name;
  uint32_t tick_every = 1;                   // `tick_every: k` (SPEC 8.2): ticked by every k-th tick_all
  SourcePos tick_every_pos;                  // where it is written (a scenario warns that it ignores it)
  std::vector<YamlFile> files;               // [0] the brain file, then imports
  std::map<std::string, std::string> texts;  // each YAML file's text by path (columns_in_characters)
  std::map<std::string, std::vector<size_t>> line_starts;  // of each text (places of values left out)
  std::vector<std::string> leaf_files;       // resolved paths, load order, no duplicates
  std::map<std::string, TreeSource> trees;   // subtree targets by name
  std::vector<BlackboardKey> blackboard;     // merged declarations
  std::map<std::string, uint32_t> bb_index;  // name -> index in blackboard
  bool leaf_files_failed = false;            // set by the loader: unknown leaves may be in them
  std::vector<std::string> failed_leaf_files;  // listed leaf files not found or that failed to load
  std::map<std::string, std::string> data_entries;  // set by the loader: leaf files' entries that are no leaves (ScriptHost)
  std::vector<std::string> failed_imports;     // imported files (as listed) not found or that failed to load
  // Blackboard defaults written yes/no/on/off/y/n, unquoted: booleans in YAML 1.1, text in 1.2.
  struct Yaml11Bool {
    std::string key, text;
    SourcePos pos;  // of the value
  };
  std::vector<Yaml11Bool> yaml11_bools;
  std::map<std::string, LeafArgs> leaf_args;   // set by the loader: the leaves that declare args
};

// Reads `path` (and its imports). Returns nullopt only when nothing usable was read;
// errors may also be reported while a source is returned (compile_* then adds more).
std::optional<BrainSource> parse_brain(const std::string& path, std::vector<Diagnostic>& diags);
// The same from text in memory; `name` stands for the file in messages and relative paths.
std::optional<BrainSource> parse_brain_text(const std::string& text, const std::string& name,
                                            std::vector<Diagnostic>& diags);

// Compiles the tree rooted at `root` (a node in file `file` of `src`). Leaf names must be
// in `leaves`; check expressions are compiled against the blackboard.
std::unique_ptr<Program> compile_tree(const BrainSource& src, const YAML::Node& root, uint32_t file,
                                      const std::string& tree_name, const LeafNames& leaves,
                                      StringTable& strings, std::vector<Diagnostic>& diags);

// Compiles a `machine:` brain (SPEC 5) into a node array whose root is a Machine node.
std::unique_ptr<Program> compile_machine(const BrainSource& src, const LeafNames& leaves, StringTable& strings,
                                         std::vector<Diagnostic>& diags);

// Compiles an `fsm:` brain (SPEC 4): an Fsm root over one State node per state.
std::unique_ptr<Program> compile_fsm(const BrainSource& src, const LeafNames& leaves, StringTable& strings,
                                     std::vector<Diagnostic>& diags);

// Helpers shared by the fsm and machine compilers.
struct SourceRef {
  const BrainSource& src;
  uint32_t file;
  std::vector<Diagnostic>& diags;
  void error(const YAML::Node& at, const std::string& message) const;
  void warning(const YAML::Node& at, const std::string& message) const;
};
ArgValue yaml_to_arg(const YAML::Node& node);
// A compiled call's args against the types its leaf now declares (a leaf file reloaded with new
// declarations: reload.cpp), worded as the compiler's own check of the YAML words them.
std::vector<std::string> call_args_errors(const std::string& leaf_name, const LeafArgs& declared, const ArgValue& args);

std::optional<double> yaml_number(const YAML::Node& node);
std::optional<int64_t> yaml_integer(const YAML::Node& node);
std::vector<std::string> map_keys(const YAML::Node& map);

// Lays out a program's per-agent block (statuses, node state, blackboard): compiler.cpp.
// Snapshots lay out a saved brain's node table with it too.
void layout_state(Program& p);
// `thicket dump`'s text of a compiled program (dump.cpp); snapshots hash it.
std::string dump_program(const Program& p);
// Node i's settings as `thicket dump` words (its leaf and args, seconds, times, abort mode, ...),
// other nodes named by id: equal for a node a reload left as it was (remap.cpp).
std::string node_settings(const Program& p, uint32_t i);
// Text as it goes inside a quoted DOT string (dump.cpp): backslashes and quotes escaped, a line
// break as \n. Labels join such pieces with "\\n" (a line break of the drawing).
std::string dot_escaped(std::string_view text);
// `"` + already-escaped text + `"`.
inline std::string dot_quote(const std::string& escaped) { return "\"" + escaped + "\""; }

}  // namespace thicket
