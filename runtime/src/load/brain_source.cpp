// Stage one of loading: the brain file's top level, its imports and its leaf files (the
// blackboard declarations are read in brain_blackboard.cpp); the YAML helpers the compiler shares.
#include <algorithm>
#include <cctype>
#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>

#include <sys/stat.h>

#include "compiler.hpp"
#include "plain_file.hpp"
#include "source_reader.hpp"
#include "suggest.hpp"
#include "yaml_limits.hpp"
#include "yaml_scalar.hpp"

namespace thicket {
namespace fs = std::filesystem;

// The name a brain file is read on under when it gives none that is text (the load fails all
// the same), so that its nodes' errors are reported with the top level's.
constexpr const char* kStandInName = "(unnamed)";

void SourceRef::error(const YAML::Node& at, const std::string& message) const {
  Diagnostic d;
  d.file = src.files[file].path;
  if (at) {
    d.line = at.Mark().line + 1;
    d.column = at.Mark().column + 1;
    if (at.IsNull() && at.Mark().pos >= 0) {
      const auto text = src.texts.find(d.file);
      const auto starts = src.line_starts.find(d.file);
      if (text != src.texts.end() && starts != src.line_starts.end())
        empty_value_at(text->second, starts->second, static_cast<size_t>(at.Mark().pos), d.line, d.column);
    }
  }
  d.message = message;
  diags.push_back(std::move(d));
}

void SourceRef::warning(const YAML::Node& at, const std::string& message) const {
  error(at, message);
  diags.back().severity = Severity::Warning;
}

std::vector<std::string> map_keys(const YAML::Node& map) {
  std::vector<std::string> keys;
  if (map.IsMap())
    for (auto it = map.begin(); it != map.end(); ++it) keys.push_back(it->first.Scalar());
  return keys;
}

std::optional<double> yaml_number(const YAML::Node& node) {
  if (!node || !node.IsScalar()) return std::nullopt;
  Scalar s = classify_scalar(node);
  if (s.kind == ScalarKind::Integer || s.kind == ScalarKind::Float) return s.number;
  return std::nullopt;
}

std::optional<int64_t> yaml_integer(const YAML::Node& node) {
  if (!node || !node.IsScalar()) return std::nullopt;
  Scalar s = classify_scalar(node);
  if (s.kind == ScalarKind::Integer) return s.integer;
  return std::nullopt;
}

ArgValue yaml_to_arg(const YAML::Node& node) {
  ArgValue v;
  if (!node || node.IsNull()) return v;
  if (node.IsSequence()) {
    v.type = ArgValue::Type::List;
    for (const auto& item : node) v.items.push_back(yaml_to_arg(item));
    return v;
  }
  if (node.IsMap()) {
    v.type = ArgValue::Type::Map;
    for (auto it = node.begin(); it != node.end(); ++it)
      v.entries.emplace_back(it->first.Scalar(), yaml_to_arg(it->second));
    return v;
  }
  Scalar s = classify_scalar(node);
  switch (s.kind) {
    case ScalarKind::Null: break;
    case ScalarKind::Bool: v.type = ArgValue::Type::Bool; v.boolean = s.boolean; break;
    case ScalarKind::Integer:
      if (node.Tag() == "tag:yaml.org,2002:float") {  // !!float 3: the float 3.0 in Lua (YAML's core schema)
        v.type = ArgValue::Type::Number;
        v.number = static_cast<double>(s.integer);
        if (s.integer == 0 && !s.text.empty() && s.text[0] == '-') v.number = -0.0;  // !!float -0
        break;
      }
      v.type = ArgValue::Type::Integer;
      v.integer = s.integer;
      break;
    case ScalarKind::Float: v.type = ArgValue::Type::Number; v.number = s.number; break;
    case ScalarKind::String: v.type = ArgValue::Type::String; v.text = s.text; break;
  }
  return v;
}

namespace {

// The top-level keys of a brain file of kind k: its own kind key (not the other two: a file is
// one kind), the common keys, and the kind's.
std::vector<std::string> top_keys_for(BrainKind k) {
  std::vector<std::string> keys = {k == BrainKind::Tree ? "tree" : k == BrainKind::Fsm ? "fsm" : "machine", "leaves",
                                   "blackboard", "import", "tick_every"};
  if (k == BrainKind::Tree) keys.insert(keys.end(), {"root", "trees"});
  if (k == BrainKind::Fsm) keys.insert(keys.end(), {"initial", "states", "trees", "machines"});
  if (k == BrainKind::Machine) keys.insert(keys.end(), {"check_every", "behaviors", "trees"});
  return keys;
}

std::string relative_to(const std::string& base_file, const std::string& path) {
  fs::path p(path);
  if (p.is_absolute()) return p.lexically_normal().string();
  fs::path dir = fs::path(base_file).parent_path();
  return (dir / p).lexically_normal().string();
}

// A file's device and inode: one file, however it is spelled (b.yaml, ../here/b.yaml, a link to
// it); nullopt when it cannot be asked (it does not exist).
std::optional<std::pair<uint64_t, uint64_t>> file_id(const std::string& path) {
  struct stat st {};
  if (::stat(path.c_str(), &st) != 0) return std::nullopt;
  return std::pair<uint64_t, uint64_t>(st.st_dev, st.st_ino);
}

bool same_file(const std::string& a, const std::string& b) {
  if (fs::path(a).lexically_normal() == fs::path(b).lexically_normal()) return true;
  const auto id = file_id(a);
  return id && id == file_id(b);
}

}  // namespace

// Imported or listed twice, a file is read once.
bool SourceReader::already_read(const std::string& path) {
  for (; known_files_ < src_.files.size(); ++known_files_) {
    const std::string& f = src_.files[known_files_].path;
    known_paths_.insert(fs::path(f).lexically_normal().string());
    if (auto id = file_id(f)) known_ids_.insert(*id);
  }
  if (known_paths_.count(fs::path(path).lexically_normal().string())) return true;
  auto id = file_id(path);
  return id && known_ids_.count(*id);
}

// Parses text into a document, reporting YAML syntax errors with their position.
std::optional<YAML::Node> SourceReader::parse_text(const std::string& text, const std::string& path) {
  return load_yaml_checked(text, path, diags_);
}

std::optional<std::string> SourceReader::read_file(const std::string& path, const std::string& from_file,
                                                   const YAML::Node& from) {
  std::string text, why;
  if (!read_limited(path, kMaxYamlBytes, text, why)) {
    Diagnostic d;
    if (from_file.empty()) {
      d.file = path;
      d.message = path.empty() ? "no file to load: the path is empty" : "cannot open file: " + why;
      std::error_code ec;
      if (!path.empty() && !fs::exists(path, ec))  // the file named on the command line: a near one?
        d.message += did_you_mean(fs::path(path).filename().string(), files_beside(path, {".yaml", ".yml"}));
    } else {
      d.file = from_file;
      d.line = from.Mark().line + 1;
      d.column = from.Mark().column + 1;
      d.message = "cannot open '" + path + "': " + why;
      std::error_code ec;
      if (!fs::exists(path, ec))
        d.message += did_you_mean(fs::path(path).filename().string(), files_beside(path, {".yaml", ".yml"}));
    }
    diags_.push_back(std::move(d));
    return std::nullopt;
  }
  return text;
}

// Reads one brain or import file's document and its common keys; returns its index.
std::optional<uint32_t> SourceReader::add_file(const std::string& text, const std::string& path, bool is_import,
                                               const SourceRef* importer, const YAML::Node* import_item) {
  src_.texts[path] = text;
  src_.line_starts[path] = line_starts(text);
  auto doc = parse_text(text, path);
  if (!doc) return std::nullopt;
  auto index = static_cast<uint32_t>(src_.files.size());
  src_.files.push_back({path, *doc});
  SourceRef ref{src_, index, diags_};
  const YAML::Node d = src_.files[index].doc;  // a handle: files may grow below
  if (!d || d.IsNull()) {
    // Only blank lines and comments, or nothing at all: said as it is (a file of comments is not "empty").
    const bool blank = text.find_first_not_of(" \t\r\n") == std::string::npos;
    diags_.push_back({Severity::Error, path, 1, 1,
                      std::string(blank ? "the file is empty" : "the file holds no YAML value (only comments?)") +
                          "; a brain file starts with 'tree: NAME', 'fsm: NAME' or 'machine: NAME'"});
    return std::nullopt;
  }
  if (!d.IsMap()) {
    ref.error(d, std::string("the top level must be a mapping with 'tree: NAME', 'fsm: NAME' or "
                             "'machine: NAME', got ") + describe_node(d));
    return std::nullopt;
  }
  // The kind key.
  std::vector<std::string> kinds_found;
  for (const char* k : {"tree", "fsm", "machine"})
    if (d[k]) kinds_found.push_back(k);
  BrainKind kind = BrainKind::Tree;
  if (kinds_found.empty()) {
    // Each top-level key, once. A scenario file (a group's `brain:` naming one), or one whose
    // `scenario:` is misspelt (the CLI took it for a brain): one error that says so, not every
    // scenario key as unknown here. A misspelt kind (`tre: x`): the unknown-key error below says
    // what was meant. Keys a tree file allows (`trees:`, a library's) are no misspelling: the
    // file still needs its kind.
    const std::vector<std::string> tree_keys = top_keys_for(BrainKind::Tree);
    bool misspelt = false;
    for (auto it = d.begin(); it != d.end(); ++it) {
      const std::string key = it->first.Scalar();
      if (key == "scenario") {
        ref.error(it->first, "this is a scenario file (it has 'scenario:'), not a brain: a brain file starts with "
                             "'tree: NAME', 'fsm: NAME' or 'machine: NAME'");
        return std::nullopt;
      }
      if (std::find(tree_keys.begin(), tree_keys.end(), key) != tree_keys.end()) continue;
      if (const std::string meant = closest_name(key, {"tree", "fsm", "machine"}); !meant.empty()) {
        // The file's other keys are then checked against the kind it meant (`fms:` beside
        // `states:`: one error, not `states` unknown in a tree file as well).
        misspelt = true;
        kind = meant == "tree" ? BrainKind::Tree : meant == "fsm" ? BrainKind::Fsm : BrainKind::Machine;
      } else if (const std::string near = did_you_mean(key, {"scenario"}); !near.empty()) {
        ref.error(it->first, "unknown top-level key '" + key + "'" + near +
                                 " (a scenario file starts with 'scenario: NAME'; a brain file with 'tree: NAME', "
                                 "'fsm: NAME' or 'machine: NAME')");
        return std::nullopt;
      }
    }
    if (!misspelt)
      ref.error(d, "a brain file needs exactly one of 'tree: NAME', 'fsm: NAME' or 'machine: NAME' at the top level");
    // With a `root:`, it is read on as a tree under a stand-in name (the load fails all the
    // same), so the errors of its nodes are reported now too.
    if (!is_import && d["root"]) src_.name = kStandInName;
  } else {
    if (kinds_found.size() > 1)
      ref.error(d[kinds_found[1]], "a brain file has exactly one of 'tree', 'fsm' and 'machine'; found '" +
                                       kinds_found[0] + "'" + (kinds_found.size() > 2 ? ", '" + kinds_found[1] + "'" : "") +
                                       " and '" + kinds_found.back() + "'");
    kind = kinds_found[0] == "tree" ? BrainKind::Tree : kinds_found[0] == "fsm" ? BrainKind::Fsm : BrainKind::Machine;
    const YAML::Node name = d[kinds_found[0]];
    // A null name (`tree:` and nothing) has no place of its own in the file: its key's.
    YAML::Node name_at = name;
    if (name.IsNull())
      for (auto it = d.begin(); it != d.end(); ++it)
        if (it->first.Scalar() == kinds_found[0]) name_at.reset(it->first);
    const bool text = name.IsScalar() && classify_scalar(name).kind == ScalarKind::String;
    if (!text) ref.error(name_at, "'" + kinds_found[0] + "' names the brain and must be text, got " + describe_node(name));
    else if (name.Scalar().empty())  // tree: "" (a brain is found by its name: spawn, subtrees, the log)
      ref.error(name_at, "'" + kinds_found[0] + "' names the brain and must not be empty");
    if (!is_import) {
      // A name that is no text is reported, and the brain is read on under a stand-in name
      // (the load fails all the same), so the file's other errors are reported with it: they
      // were hidden until the name was fixed.
      src_.kind = kind;
      src_.name = text ? name.Scalar() : name.IsScalar() && !name.Scalar().empty() ? name.Scalar() : kStandInName;
    }
    if (is_import && kind != BrainKind::Tree) {
      // The mistake is the import, not the file: said at the importing file's list entry, and
      // the file is read no further (its states are no business of the importing brain).
      const std::string what = kind == BrainKind::Fsm ? "an fsm" : "a machine";
      if (importer != nullptr && import_item != nullptr)
        importer->error(*import_item, "'" + import_item->Scalar() + "' is " + what +
                                          " file; only tree files can be imported (their trees become subtrees)");
      else
        ref.error(name, "an imported file must be a tree file (its trees become subtrees), not " + what);
      return std::nullopt;
    }
  }
  // Unknown top-level keys.
  std::vector<std::string> allowed = top_keys_for(kind);
  if (kinds_found.empty()) {  // no kind key yet: any of the three may be the one meant (`fms: x`)
    allowed.erase(allowed.begin());
    allowed.insert(allowed.begin(), {"tree", "fsm", "machine"});
  }
  for (auto it = d.begin(); it != d.end(); ++it) {
    const std::string key = it->first.Scalar();
    if (key == "tree" || key == "fsm" || key == "machine") continue;  // a second kind: said above
    if (!scalar_key(it->first))
      ref.error(it->first, std::string("a top-level key is a name, got ") + describe_node(it->first) + " as a key (allowed in " +
                               (kind == BrainKind::Fsm ? "an " : "a ") + brain_kind_name(kind) + " file: " + join_names(allowed) + ")");
    else if (std::find(allowed.begin(), allowed.end(), key) == allowed.end())
      ref.error(it->first, "unknown top-level key '" + key + "'" + did_you_mean(key, allowed) +
                               " (allowed in " + (kind == BrainKind::Fsm ? "an " : "a ") + brain_kind_name(kind) + " file: " + join_names(allowed) + ")");
  }
  if (const YAML::Node every = d["tick_every"]; every && !is_import) {
    // Time slicing (SPEC 8.2): the brain's agents are ticked by every k-th tick_all.
    const Scalar s = every.IsScalar() ? classify_scalar(every) : Scalar{};
    if (s.kind != ScalarKind::Integer || s.integer < 1 || s.integer > 1000000)
      ref.error(every, std::string("'tick_every' is how many tick_all calls pass between two ticks of an agent: a whole "
                                   "number from 1 to 1000000, got ") +
                                   (s.kind == ScalarKind::Integer || s.kind == ScalarKind::Float
                                        ? clipped(every.Scalar())
                                        : std::string(describe_node(every))));
    else {
      src_.tick_every = static_cast<uint32_t>(s.integer);
      src_.tick_every_pos = {ref.file, every.Mark().line + 1, every.Mark().column + 1};
    }
  }
  read_leaves(ref, d["leaves"]);
  read_blackboard(ref, d["blackboard"]);
  read_trees(ref, d, kind);
  read_imports(ref, d["import"]);
  return index;
}

void SourceReader::read_leaves(const SourceRef& ref, const YAML::Node& leaves) {
  if (!leaves) return;
  if (!leaves.IsSequence()) {
    ref.error(leaves, std::string("'leaves' is a list of Lua files, e.g. leaves: [guard.lua]; got ") + describe_node(leaves));
    src_.leaf_files_failed = true;  // (the tree's leaves then said "no leaves are defined")
    return;
  }
  for (const auto& item : leaves) {
    if (!item.IsScalar() || classify_scalar(item).kind != ScalarKind::String) {
      ref.error(item, std::string("a leaf file must be a path (text), got ") + describe_node(item));
      src_.leaf_files_failed = true;
      continue;
    }
    if (item.Scalar().find('\0') != std::string::npos) {  // "l.lua\0junk" quietly loaded l.lua
      ref.error(item, "a leaf file's name holds a NUL character (a \\0 escape); a file name cannot");
      src_.leaf_files_failed = true;
      continue;
    }
    if (item.Scalar().empty()) {  // said "leaf file '' not found (looked for )"
      ref.error(item, "a leaf file's name is empty; write the Lua file's path, e.g. leaves: [guard.lua]");
      src_.leaf_files_failed = true;  // its leaves are unknown for that reason, not for want of files
      continue;
    }
    std::string path = relative_to(ref.src.files[ref.file].path, item.Scalar());
    // A path the file system rejects (too long, ...) is not found either. Only a plain file is
    // run: a pipe nothing writes to would block the load for ever, and a device never ends.
    const PathKind kind = path_kind(path);
    if (kind != PathKind::File) {
      // Names clipped: a 2 MB name printed 6 MB of message.
      // A name without its '.lua' (leaves: [guard]) is no typo to did_you_mean: said by itself.
      const bool lua_there = fs::path(path).extension() != ".lua" && path_kind(path + ".lua") == PathKind::File;
      if (kind == PathKind::Missing)
        ref.error(item, "leaf file '" + clipped(item.Scalar(), 200) + "' not found (looked for " + clipped(path, 200) + ")" +
                            (lua_there ? "; did you mean '" + clipped(item.Scalar(), 200) + ".lua'?"
                                       : did_you_mean(fs::path(item.Scalar()).filename().string(), lua_files_beside(path))));
      else
        ref.error(item, "leaf file '" + clipped(item.Scalar(), 200) + "' is not a plain file (" + clipped(path, 200) + " is " +
                            (kind == PathKind::Folder   ? "a folder"
                             : kind == PathKind::Device ? "a device"
                             : kind == PathKind::Loop   ? "a symbolic link that leads round in a loop"
                                                        : "a pipe or a socket") +
                            "); a leaf file is a Lua file");
      auto& failed = src_.failed_leaf_files;  // named once, however often it is listed
      if (std::find(failed.begin(), failed.end(), clipped(item.Scalar(), 200)) == failed.end())
        failed.push_back(clipped(item.Scalar(), 200));  // (only named in messages)
      continue;
    }
    if (const std::string ext = fs::path(path).extension().string(); ext == ".yaml" || ext == ".yml") {
      // Loaded as Lua, it said "function arguments expected near 'leaves'".
      ref.error(item, "'" + clipped(item.Scalar(), 200) +
                          "' is a YAML file: 'leaves' lists Lua leaf files (.lua); a brain file whose trees this file "
                          "uses goes under 'import:'");
      continue;
    }
    if (std::none_of(src_.leaf_files.begin(), src_.leaf_files.end(), [&](const std::string& f) { return same_file(f, path); }))
      src_.leaf_files.push_back(path);
  }
}

// The .lua files in the folder `path` names, for a did-you-mean.
std::vector<std::string> SourceReader::lua_files_beside(const std::string& path) { return files_beside(path, {".lua"}); }

void SourceReader::add_tree(const SourceRef& ref, const std::string& name, const YAML::Node& key, const YAML::Node& root) {
  if (src_.trees.count(name)) {
    ref.error(key, "a tree named '" + name + "' is defined twice (also in " +
                       src_.files[src_.trees[name].file].path + ")");
    return;
  }
  src_.trees[name] = {root, ref.file};
}

void SourceReader::read_trees(const SourceRef& ref, const YAML::Node& d, BrainKind kind) {
  // The brain file's root goes under the brain's name, a stand-in when its name is no text
  // (reported already): its nodes' errors are reported with that one.
  const bool named = d["tree"] ? d["tree"].IsScalar() || ref.file == 0
                               : ref.file == 0 && !d["fsm"] && !d["machine"] && src_.name == kStandInName;
  if (kind == BrainKind::Tree && named) {
    if (!d["root"])
      ref.error(d, "a tree file needs 'root:', the tree's root node");
    else
      add_tree(ref, d["tree"] && d["tree"].IsScalar() ? d["tree"].Scalar() : src_.name, d["tree"] ? d["tree"] : d["root"],
               d["root"]);
  }
  const YAML::Node trees = d["trees"];
  if (!trees) return;
  if (!trees.IsMap()) {
    ref.error(trees, std::string("'trees' is a mapping of name: root node, got ") + describe_node(trees));
    return;
  }
  for (auto it = trees.begin(); it != trees.end(); ++it) add_tree(ref, it->first.Scalar(), it->first, it->second);
}

void SourceReader::read_imports(const SourceRef& ref, const YAML::Node& imports) {
  if (!imports) return;
  if (!imports.IsSequence()) {
    ref.error(imports, std::string("'import' is a list of brain files, got ") + describe_node(imports));
    return;
  }
  for (const auto& item : imports) {
    if (!item.IsScalar()) {
      ref.error(item, std::string("an import must be a path (text), got ") + describe_node(item));
      continue;
    }
    if (item.Scalar().find('\0') != std::string::npos) {  // the path would end at the NUL
      ref.error(item, "an import's name holds a NUL character (a \\0 escape); a file name cannot");
      continue;
    }
    if (item.Scalar().find_first_not_of(" \t") == std::string::npos) {  // said "cannot open ''", then "it may be in , ..."
      ref.error(item, std::string("an import's name is ") + (item.Scalar().empty() ? "empty" : "only spaces") +
                          "; write the brain file's path, e.g. import: [patrol.yaml]");
      continue;
    }
    std::string path = relative_to(ref.src.files[ref.file].path, item.Scalar());
    if (fs::path(path).extension() == ".lua") {  // read as YAML, it said "the top level must be a mapping"
      ref.error(item, "'" + clipped(item.Scalar(), 200) +
                          "' is a Lua file: 'import' lists brain files (.yaml) whose trees this file uses; Lua leaf "
                          "files go under 'leaves:'");
      continue;
    }
    if (already_read(path)) {  // imported already (or a cycle of imports): its trees are known
      const std::string& self = ref.src.files[ref.file].path;
      if (same_file(path, self))
        ref.warning(item, "the file imports itself: the import does nothing (a file's own trees are known to it)");
      continue;
    }
    if (import_depth_ + 2 > kMaxImportDepth) {  // (this file is number import_depth_ + 1 of the chain, the brain's 1)
      ref.error(item, "imports nested more than " + std::to_string(kMaxImportDepth) +
                          " files deep (each file here imports the next): import the files a brain uses from fewer levels");
      src_.failed_imports.push_back(item.Scalar());
      continue;
    }
    const size_t diags_before = diags_.size();
    auto text = read_file(path, ref.src.files[ref.file].path, item);
    ++import_depth_;
    if (text) add_file(*text, path, /*is_import=*/true, &ref, &item);
    --import_depth_;
    // Not found, unreadable or with errors of its own: a subtree not found may be in it. (Not
    // one of another kind: that is the import's error, and its trees are not for import.)
    const bool broken = !text || std::any_of(diags_.begin() + std::ptrdiff_t(diags_before), diags_.end(), [&](const Diagnostic& d) {
                          return d.severity == Severity::Error && d.file == path;
                        });
    if (broken) src_.failed_imports.push_back(item.Scalar());
  }
}

namespace {

std::optional<BrainSource> parse_from(const std::optional<std::string>& text, const std::string& path,
                                      std::vector<Diagnostic>& diags, SourceReader& reader, BrainSource& src,
                                      size_t first_diag) {
  if (!text) return std::nullopt;
  const bool ok = reader.add_file(*text, path, /*is_import=*/false).has_value();
  for (const auto& [file, file_text] : src.texts) columns_in_characters(file_text, file, diags, first_diag);
  if (!ok) return std::nullopt;
  return std::move(src);
}

}  // namespace

std::optional<BrainSource> parse_brain(const std::string& path, std::vector<Diagnostic>& diags) {
  BrainSource src;
  SourceReader reader(src, diags);
  const size_t first_diag = diags.size();
  return parse_from(reader.read_file(path, "", YAML::Node()), path, diags, reader, src, first_diag);
}

std::optional<BrainSource> parse_brain_text(const std::string& text, const std::string& name,
                                            std::vector<Diagnostic>& diags) {
  BrainSource src;
  SourceReader reader(src, diags);
  return parse_from(text, name, diags, reader, src, diags.size());
}

void sort_diagnostics(std::vector<Diagnostic>& diags) {
  std::stable_sort(diags.begin(), diags.end(), [](const Diagnostic& a, const Diagnostic& b) {
    return a.file == b.file && (a.line < b.line || (a.line == b.line && a.column < b.column));
  });
}

std::string format_diagnostic(const Diagnostic& d) {
  std::string out = d.file;
  if (d.line > 0) {  // appended piece by piece: gcc 12 warns falsely (-Wstringop-overflow) at ":" + string
    out += ':';
    out += std::to_string(d.line);
    if (d.column > 0) {
      out += ':';
      out += std::to_string(d.column);
    }
  }
  if (!out.empty()) out += ": ";  // no file (a snapshot's bytes, an empty path): "error: ..."
  out += d.severity == Severity::Error ? "error: " : d.severity == Severity::Warning ? "warning: " : "note: ";
  // (A message of several lines, a script's error("a\nb") at a leaf file's top level: none of
  // its lines passes for a diagnostic of its own.)
  out += indented_lines(d.message, 2);
  return out;
}

}  // namespace thicket