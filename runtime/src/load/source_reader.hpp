// Stage one of loading: reads a brain file and its imports into a BrainSource (compiler.hpp),
// reporting every problem to a diagnostics list. Its member functions are defined in
//   brain_source.cpp       files, the top level, leaf files, trees and imports;
//   brain_blackboard.cpp   blackboard declarations.
// Not part of the stage's interface: that is parse_brain() in compiler.hpp.
#pragma once
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "compiler.hpp"
#include "yaml_scalar.hpp"

namespace thicket {

class SourceReader {
 public:
  SourceReader(BrainSource& src, std::vector<Diagnostic>& diags) : src_(src), diags_(diags) {}

  std::optional<YAML::Node> parse_text(const std::string& text, const std::string& path);
  std::optional<std::string> read_file(const std::string& path, const std::string& from_file,
                                       const YAML::Node& from);
  // is_import: read as a file of trees for subtrees; `import_item` is then the importing file's
  // list entry naming it (where an import of the wrong kind of brain is reported).
  std::optional<uint32_t> add_file(const std::string& text, const std::string& path, bool is_import,
                                   const SourceRef* importer = nullptr, const YAML::Node* import_item = nullptr);

 private:
  // brain_source.cpp
  void read_leaves(const SourceRef& ref, const YAML::Node& leaves);
  static std::vector<std::string> lua_files_beside(const std::string& path);
  void add_tree(const SourceRef& ref, const std::string& name, const YAML::Node& key, const YAML::Node& root);
  void read_trees(const SourceRef& ref, const YAML::Node& d, BrainKind kind);
  void read_imports(const SourceRef& ref, const YAML::Node& imports);

  // brain_blackboard.cpp
  void read_blackboard(const SourceRef& ref, const YAML::Node& bb);
  static std::string type_phrase(ValueType t);
  static bool set_default(BlackboardKey& key, const Scalar& s);
  static bool is_identifier(const std::string& s);

  // Whether a file of src_.files is `path`, however it is spelled (its normal path, or its device
  // and inode): looked up, not compared with each file (a chain of 2,000 imports took 7 s).
  bool already_read(const std::string& path);
  BrainSource& src_;
  std::vector<Diagnostic>& diags_;
  size_t known_files_ = 0;  // how many of src_.files the two sets below hold
  // Imported files being read inside one another (0 while the brain's own file is read; a chain
  // may hold kMaxImportDepth files, the brain's included): a chain of 6,000 files, each
  // importing the next, ran the reader out of stack.
  static constexpr int kMaxImportDepth = 64;
  int import_depth_ = 0;
  std::set<std::string> known_paths_;
  std::set<std::pair<uint64_t, uint64_t>> known_ids_;
};

}  // namespace thicket
