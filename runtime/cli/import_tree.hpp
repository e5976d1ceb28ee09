// `thicket import` and `thicket export` (SPEC 13): trees from BehaviorTree.CPP 4 XML and
// behavior3 JSON become thicket brains (import_btcpp.cpp, import_b3.cpp, written out by
// import_command.cpp); a thicket tree becomes BT.CPP 4 XML (export_command.cpp).
#pragma once
#include <algorithm>
#include <string>
#include <utility>
#include <vector>

namespace thicket::cli {

// A node of the brain being written: its YAML kind, its parameters (already rendered as YAML
// values, in order) and its children (a decorator has one, written as `child:`).
struct ImportNode {
  std::string kind;
  std::vector<std::pair<std::string, std::string>> params;
  std::vector<ImportNode> children;
  std::string leaf;  // action, condition: the leaf's name
  std::vector<std::pair<std::string, std::string>> args;
  std::string value;  // a short form's value (always: success; condition check)
  // Where it came from, for errors found once the brain is written: the XML element's line and
  // column (0: unknown), or the behavior3 node's id.
  int line = 0, column = 0;
  std::string node_id;
};

// `always: value`: what stands in for a node that cannot be read (its error is said).
inline ImportNode always_node(std::string value) {
  ImportNode n;
  n.kind = "always";
  n.value = std::move(value);
  return n;
}

// A brain's blackboard declarations (key -> YAML declaration) in the order they were first
// made: as the exported brain declared them (its comment), else as the tree first uses them.
// (A std::map wrote them sorted by name, the one change a round trip through an export made.)
struct Declarations {
  std::vector<std::pair<std::string, std::string>> items;
  auto begin() const { return items.begin(); }
  auto end() const { return items.end(); }
  bool empty() const { return items.empty(); }
  auto find(const std::string& key) const {
    return std::find_if(items.begin(), items.end(), [&](const auto& kv) { return kv.first == key; });
  }
  // The declaration of `key`, made (empty) at the end if it is new.
  std::string& operator[](const std::string& key) {
    for (auto& kv : items)
      if (kv.first == key) return kv.second;
    return items.emplace_back(key, std::string()).second;
  }
};

struct ImportedBrain {
  std::string name;     // the tree's name
  std::string source;   // "BehaviorTree.CPP 4" or "behavior3"
  std::string file;     // the file it came from
  ImportNode root;
  Declarations blackboard;
  uint32_t tick_every = 1;                        // `tick_every:` (1: every tick), from export's comment
  std::vector<std::string> notes;                 // comments written at the top
  // Said on standard error as FILE:LINE:COL: warning: ..., the brain written all the same (a leaf
  // whose name is one letter from a BT.CPP node's: a typo, or a leaf of the game's own).
  struct Warning {
    int line = 0, column = 0;
    std::string message;
  };
  std::vector<Warning> warnings;
};

// One error: file, line and column (XML; 0 when unknown), or a node id (JSON), and the reason.
struct ImportError {
  std::string file;
  int line = 0, column = 0;
  std::string message;
};

// Reads a BT.CPP 4 XML file; `tree` picks a <BehaviorTree ID> ("" = main_tree_to_execute).
bool import_btcpp(const std::string& path, const std::string& text, const std::string& tree, ImportedBrain& out,
                  std::vector<ImportError>& errors);
// Reads a behavior3 editor export (tree or project); `tree` picks a project's tree by id or title.
bool import_b3(const std::string& path, const std::string& text, const std::string& tree, ImportedBrain& out,
               std::vector<ImportError>& errors);

// YAML helpers shared by the importers.
std::string yaml_quote(const std::string& s);          // a double-quoted YAML string
std::string yaml_name(const std::string& s);           // plain when safe, else quoted
std::string yaml_number(double v);                     // shortest text that reads back as v
// A literal as BT.CPP reads it for a typed port: integer, real, boolean, else text.
std::string yaml_literal(const std::string& text);

// Shared by import and export: what in s no XML 1.0 document can hold ("" when nothing; the
// first such byte or character); a double-quoted YAML scalar with each '-' after a '-' written
// \x2d, so that it can stand in an XML comment; the command's output written to out_path
// (standard output when empty) in one piece, refusing to replace one of `inputs`.
std::string xml_text_problem(const std::string& s);
std::string without_double_dash(const std::string& quoted);
int write_output(const std::string& out_path, const std::string& text, const std::vector<std::string>& inputs);

// Export's name checks: an ID BT.CPP's factory registers itself (or an element of the XML's
// own), which no node of ours may take; a name BT.CPP takes as a port.
bool btcpp_reserved_id(const std::string& id);
bool btcpp_port_name(const std::string& name);

int import_command(int argc, char** argv, const char* usage);
int export_command(int argc, char** argv, const char* usage);

}  // namespace thicket::cli
