// BehaviorTree.CPP 4 XML -> a thicket tree of bt_* nodes (SPEC 13, docs/import.md).
// The XML rules followed are BT.CPP 4.10's (src/xml_parsing.cpp): the main tree, generic and
// short leaf forms, ports, SubTree remapping and _autoremap, the pre-condition attributes.
#include <tinyxml2.h>
#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <cctype>
#include <charconv>
#include <cstdio>
#include <cstring>
#include <tuple>
#include <functional>
#include <set>
#include <sstream>

#include "import_tree.hpp"
#include "program.hpp"  // kNoPos: a brain node's most children
#include "suggest.hpp"
#include "yaml_limits.hpp"

namespace thicket::cli {

namespace {

struct Builtin {
  const char* id;
  const char* kind;  // the thicket kind
  char shape;        // 'c' composite, 'd' decorator, 'l' leaf
  std::vector<std::string> ports;
};

const std::vector<Builtin>& builtins() {
  static const std::vector<Builtin> table = {
      {"Sequence", "bt_sequence", 'c', {}},
      {"AsyncSequence", "bt_sequence", 'c', {}},
      {"Fallback", "bt_fallback", 'c', {}},
      {"AsyncFallback", "bt_fallback", 'c', {}},
      {"SequenceWithMemory", "bt_sequence_with_memory", 'c', {}},
      {"SequenceStar", "bt_sequence_with_memory", 'c', {}},  // BT.CPP 4's alias of SequenceWithMemory
      {"ReactiveSequence", "bt_reactive_sequence", 'c', {}},
      {"ReactiveFallback", "bt_reactive_fallback", 'c', {}},
      {"Parallel", "bt_parallel", 'c', {"success_count", "failure_count"}},
      {"ParallelAll", "bt_parallel_all", 'c', {"max_failures"}},
      {"IfThenElse", "bt_if_then_else", 'c', {}},
      {"WhileDoElse", "bt_while_do_else", 'c', {}},
      {"Switch2", "bt_switch", 'c', {"variable", "case_1", "case_2"}},
      {"Switch3", "bt_switch", 'c', {"variable", "case_1", "case_2", "case_3"}},
      {"Switch4", "bt_switch", 'c', {"variable", "case_1", "case_2", "case_3", "case_4"}},
      {"Switch5", "bt_switch", 'c', {"variable", "case_1", "case_2", "case_3", "case_4", "case_5"}},
      {"Switch6", "bt_switch", 'c', {"variable", "case_1", "case_2", "case_3", "case_4", "case_5", "case_6"}},
      {"TryCatch", "bt_try_catch", 'c', {"catch_on_halt"}},
      {"Inverter", "bt_inverter", 'd', {}},
      {"ForceSuccess", "bt_force_success", 'd', {}},
      {"ForceFailure", "bt_force_failure", 'd', {}},
      {"Repeat", "bt_repeat", 'd', {"num_cycles"}},
      {"RetryUntilSuccessful", "bt_retry", 'd', {"num_attempts"}},
      {"KeepRunningUntilFailure", "bt_keep_running_until_failure", 'd', {}},
      {"RunOnce", "bt_run_once", 'd', {"then_skip"}},
      {"Timeout", "bt_timeout", 'd', {"msec"}},
      {"Delay", "bt_delay", 'd', {"delay_msec"}},
      {"Precondition", "bt_precondition", 'd', {"if", "else"}},
      {"Sleep", "bt_sleep", 'l', {"msec"}},
      {"AlwaysSuccess", "always", 'l', {}},
      {"AlwaysFailure", "always", 'l', {}},
      {"Script", "script", 'l', {"code"}},
      {"ScriptCondition", "condition", 'l', {"code"}},
      {"SetBlackboard", "bt_script", 'l', {"value", "output_key"}},
  };
  return table;
}

}  // namespace

bool btcpp_reserved_id(const std::string& id) {
  // BehaviorTreeFactory's own nodes (its constructor registers them; registering another node
  // under one of these IDs throws), beside the XML's own element names.
  static const std::set<std::string> more = {
      "SetBlackboard", "UnsetBlackboard", "SubTree",  "LoopInt",           "LoopBool",        "LoopDouble",
      "LoopString",    "WasEntryUpdated", "TryCatch", "SkipUnlessUpdated", "WaitValueUpdate", "Action",
      "Condition",     "Control",         "Decorator", "BehaviorTree",     "TreeNodesModel",  "root"};
  if (more.count(id)) return true;
  for (const auto& b : builtins())
    if (id == b.id) return true;
  return false;
}

bool btcpp_port_name(const std::string& name) {
  // BT.CPP's IsAllowedPortName: a letter first; `name` and `ID` are the node's own attributes,
  // and names starting with '_' are its special attributes (_skipIf, _onSuccess, _autoremap, ...).
  return !name.empty() && std::isalpha(static_cast<unsigned char>(name[0])) && name != "name" && name != "ID";
}

namespace {

const Builtin* find_builtin(const std::string& id) {
  for (const auto& b : builtins())
    if (id == b.id) return &b;
  return nullptr;
}

const std::vector<std::string> kPre = {"_failureIf", "_successIf", "_skipIf", "_while"};
const std::vector<std::string> kPost = {"_onSuccess", "_onFailure", "_post", "_onHalted"};

// The blackboard seen from a (sub)tree: each key maps to a key of the brain or a literal.
struct Scope {
  const Scope* parent = nullptr;
  std::map<std::string, std::string> remap;  // internal -> "{external}" or a literal
  bool autoremap = false;
  std::string prefix;  // private keys of this subtree instance
  std::string path;  // BT.CPP's instance path of this subtree ("" for the main tree; "a/b")
};

class BtImporter {
 public:
  BtImporter(const std::string& path, const std::string& text, ImportedBrain& out, std::vector<ImportError>& errors)
      : path_(path), text_(text), out_(out), errors_(errors) {
    std::istringstream in(text);
    std::string line;
    while (std::getline(in, line)) lines_.push_back(line);
  }

  bool run(const std::string& wanted) {
    if (const size_t nul = text_.find('\0'); nul != std::string::npos) {  // tinyxml2 would stop reading there
      const auto [line, column] = line_column(nul);
      error_at(line, column, "a NUL byte (0x00) here: an XML file holds text (is it the right file?)");
      return false;
    }
    if (doc_.Parse(text_.c_str(), text_.size()) != tinyxml2::XML_SUCCESS) {
      // tinyxml2 gives the line of the element it was in; for these, where it is.
      int line = std::max(doc_.ErrorLineNum(), 1), column = 1;
      std::string detail;
      const tinyxml2::XMLError id = doc_.ErrorID();
      if (id == tinyxml2::XML_ELEMENT_DEPTH_EXCEEDED || id == tinyxml2::XML_ERROR_MISMATCHED_ELEMENT || id == tinyxml2::XML_ERROR_PARSING)
        if (const size_t at = tag_problem(detail); at != std::string::npos) std::tie(line, column) = line_column(at);
      if (id == tinyxml2::XML_ERROR_PARSING_ATTRIBUTE)
        if (const size_t at = attribute_twice(line, detail); at != std::string::npos) std::tie(line, column) = line_column(at);
      error_at(line, column, "malformed XML: " + why(doc_.ErrorID()) + detail);
      return false;
    }
    const tinyxml2::XMLElement* root = doc_.RootElement();
    if (!root || std::string(root->Name()) != "root") {
      error(root, "the top element must be <root BTCPP_format=\"4\">");
      return false;
    }
    // Version 3's nodes are not version 4's (SequenceStar, the ports of Repeat and Retry...):
    // imported as 4, such a tree would not make the calls it made. Without the attribute, as
    // BT.CPP 4 does, it is read as 4 (BT.CPP prints a warning; the brain's notes say so).
    if (const char* format = root->Attribute("BTCPP_format"); format && std::string(format) != "4") {
      error(root, std::string("BTCPP_format=\"") + format +
                      "\": thicket imports BehaviorTree.CPP 4 trees (version 3's nodes behave differently; the "
                      "convert_v3_to_v4.py script of BehaviorTree.CPP converts a version 3 file)");
      return false;
    } else if (!format) {
      out_.notes.push_back("The file's <root> has no BTCPP_format: read as BehaviorTree.CPP 4, as that library does.");
    }
    int count_elements = 0;
    for (auto* e = root->FirstChildElement(); e; e = e->NextSiblingElement()) ++count_elements;
    // A blackboard `thicket export` wrote: "key: declaration" lines in a comment.
    for (auto* n = root->FirstChild(); n; n = n->NextSibling()) {
      const tinyxml2::XMLComment* comment = n->ToComment();
      // "thicket tick_every: K (...)": the exported brain's time slicing.
      const std::string slicing = " thicket tick_every: ";
      if (comment && std::string(comment->Value()).rfind(slicing, 0) == 0) {
        const std::string text = comment->Value();
        unsigned long k = 0;
        auto [end, ec] = std::from_chars(text.data() + slicing.size(), text.data() + text.size(), k);
        if (ec != std::errc() || k < 1 || k > 1000000)
          error_at(comment->GetLineNum(), 1, "the thicket tick_every comment needs a whole number from 1 to 1000000, got '" +
                                                 trimmed(text) + "'");
        else
          out_.tick_every = static_cast<uint32_t>(k);
        (void)end;
        continue;
      }
      const std::string head = "thicket blackboard";
      if (!comment || std::string(comment->Value()).find(head) == std::string::npos) continue;
      std::istringstream lines(comment->Value());
      std::string line;
      std::getline(lines, line);  // the heading
      // The comment's text starts on the line of its "<!--" (tinyxml2 gives that line).
      int line_number = comment->GetLineNum();
      while (std::getline(lines, line)) {
        ++line_number;
        // "KEY: DECLARATION", read as YAML: a quoted key's escapes (\", the \x2d export writes
        // for the second '-' of "--") come back; a quoted text is written back plainly quoted.
        const size_t indent = line.find_first_not_of(" \t");
        line = trimmed(line);
        if (line.empty()) continue;
        // A line that is no such entry (a hand edit) would lose a key: an error, as any
        // other part of the file that cannot be mapped.
        auto bad_line = [&](const std::string& why) {
          error_at(line_number, static_cast<int>(indent) + 1,
                   "this line of the thicket blackboard comment is no `KEY: DECLARATION` entry (" + why + "): " +
                       shown_name(line, 200));
        };
        // (yaml-cpp's own guard says only "bad file", past a depth that ran deep in its stack)
        if (const auto deep = find_deep_nesting(line)) {
          bad_line("nested deeper than " + std::to_string(kMaxYamlDepth) + " levels");
          continue;
        }
        YAML::Node entry;
        try {
          entry = YAML::Load(line);
        } catch (const YAML::Exception& e) {
          bad_line("YAML reads it: " + e.msg);
          continue;
        }
        if (!entry.IsMap() || entry.size() != 1) {
          bad_line("not one key and its declaration");
          continue;
        }
        const auto it = entry.begin();
        const int at = it->second.Mark().pos;
        if (!it->first.IsScalar() || at <= 0 || static_cast<size_t>(at) >= line.size()) {
          bad_line("no declaration after the key");
          continue;
        }
        const std::string key = it->first.Scalar();
        const bool quoted_text = it->second.IsScalar() && line[static_cast<size_t>(at)] == '"';
        out_.blackboard[key] = quoted_text ? yaml_quote(it->second.Scalar()) : line.substr(static_cast<size_t>(at));
        declared_.insert(key);
      }
    }
    for (auto* e = root->FirstChildElement(); e; e = e->NextSiblingElement()) {
      const std::string name = e->Name();
      if (name == "BehaviorTree") {
        const char* id = e->Attribute("ID");
        std::string key = id ? id : "";
        if (key.empty()) {
          if (count_elements != 1) error(e, "a <BehaviorTree> without ID is allowed only when it is the only element");
          key = "BehaviorTree_0";  // as BT.CPP names it (xml_parsing.cpp: suffix_count from 0)
        }
        if (id && btcpp_reserved_id(key))  // VerifyXML: "must not use the name of a registered Node"
          error(e, "the tree ID '" + key + "' is the name of one of BT.CPP's own nodes, which BT.CPP refuses; rename the tree");
        if (trees_.count(key)) {
          // The first keeps the ID; the second is checked as a tree the import does not use
          // (it replaced the first, whose own errors went unsaid until it was renamed).
          error(e, "two trees have the ID '" + key + "'");
          duplicates_.push_back(e);
          continue;
        }
        trees_[key] = e;
        tree_order_.push_back(key);
      } else if (name == "TreeNodesModel") {
        if (e != root->FirstChildElement("TreeNodesModel"))  // as BT.CPP (xml_parsing.cpp, VerifyXML)
          error(e, "a second <TreeNodesModel>; BT.CPP reads only one (\"Only a single node <TreeNodesModel> is supported\"): merge them");
        read_model(e);
      } else if (name == "include") {
        error(e, "<include> is not supported: put the included trees in this file");
      } else {
        error(e, "unexpected element <" + name + "> under <root>" + did_you_mean(name, {"BehaviorTree", "TreeNodesModel", "include"}));
      }
    }
    std::string main = wanted;
    if (main.empty()) {
      if (const char* m = root->Attribute("main_tree_to_execute")) main = m;
      else if (trees_.size() == 1) main = trees_.begin()->first;
    }
    if (trees_.empty()) {
      error(root, "the file has no <BehaviorTree>");
      return false;
    }
    if (main.empty()) {
      error(root, "several trees and no main_tree_to_execute: pick one with --tree (" + join(tree_order_) + ")");
      check_every_tree(root);
      return false;
    }
    if (!trees_.count(main)) {
      error(root, "no tree with the ID '" + main + "'" + did_you_mean(main, tree_order_) + " (trees: " + join(tree_order_) + ")");
      check_every_tree(root);
      return false;
    }
    out_.name = main;
    out_.source = "BehaviorTree.CPP 4";
    collect_names(root);
    Scope top;
    stack_.push_back(main);
    subtree_paths_.clear();
    out_.root = tree_root(trees_[main], top);
    // The trees the import did not reach are checked as BT.CPP checks every tree of a file before
    // it makes one (xml_parsing.cpp, VerifyXML): a file it refuses is refused here too.
    for (const std::string& id : tree_order_)
      if (!reached_.count(trees_[id])) verify_unused(trees_[id], 0);
    for (const tinyxml2::XMLElement* e : duplicates_) verify_unused(e, 0);
    return errors_.empty();
  }

 private:
  static std::string why(tinyxml2::XMLError e) {
    switch (e) {
      case tinyxml2::XML_ERROR_PARSING_ELEMENT: return "an element is not written or closed properly (a missing '>' or '/>'?)";
      case tinyxml2::XML_ERROR_PARSING_ATTRIBUTE: return "an attribute is not written properly (name=\"value\")";
      case tinyxml2::XML_ERROR_MISMATCHED_ELEMENT: return "a closing tag does not match the element it closes";
      case tinyxml2::XML_ERROR_EMPTY_DOCUMENT: return "the file is empty";
      case tinyxml2::XML_ERROR_PARSING_TEXT: return "stray text where an element belongs";
      case tinyxml2::XML_ERROR_PARSING_COMMENT: return "a comment is not closed (-->)";
      case tinyxml2::XML_ERROR_PARSING: return "the file ends before its elements are closed, or holds something that is no XML";
      case tinyxml2::XML_ELEMENT_DEPTH_EXCEEDED:
        return "elements nest " + std::to_string(TINYXML2_MAX_ELEMENT_DEPTH) +
               " deep here, as deep as the XML reader (the system's tinyxml2) goes (BT.CPP's own copy goes to 500): "
               "put a branch in a <BehaviorTree> of its own and run it with <SubTree ID=...>";
      default: return std::string("tinyxml2 says ") + tinyxml2::XMLDocument::ErrorIDToName(e);
    }
  }
  static std::string join(const std::vector<std::string>& v) {
    std::string s;
    for (const auto& x : v) s += (s.empty() ? "" : ", ") + x;
    return s;
  }
  void error_at(int line, int column, const std::string& msg) { errors_.push_back({path_, line, column, msg}); }

  // Line and column (1-based; the column in characters, a byte order mark not counted) of a byte
  // offset of the text.
  std::pair<int, int> line_column(size_t at) const {
    int line = 1, column = 1;
    for (size_t i = text_.compare(0, 3, "\xEF\xBB\xBF") == 0 ? 3 : 0; i < at && i < text_.size(); ++i) {
      if (text_[i] == '\n') {
        ++line;
        column = 1;
      } else if ((static_cast<unsigned char>(text_[i]) & 0xC0) != 0x80) {
        ++column;
      }
    }
    return {line, column};
  }

  // Where tinyxml2's depth limit or a mismatched closing tag strikes: a walk over the tags
  // (comments, CDATA, declarations and quoted attribute values skipped) to the first element
  // that nests TINYXML2_MAX_ELEMENT_DEPTH deep, or the first closing tag that does not close
  // the open element. npos when it finds neither (tinyxml2's own line stands then).
  size_t tag_problem(std::string& detail) const {
    std::vector<std::pair<std::string, size_t>> open;  // name, offset
    const std::string& t = text_;
    auto skip_to = [&](size_t from, const char* end) {
      const size_t at = t.find(end, from);
      return at == std::string::npos ? t.size() : at + std::strlen(end);
    };
    auto name_at = [&](size_t from) {
      size_t end = from;
      while (end < t.size() && !std::isspace(static_cast<unsigned char>(t[end])) && t[end] != '>' && t[end] != '/') ++end;
      return t.substr(from, end - from);
    };
    for (size_t i = 0; i < t.size();) {
      if (t[i] != '<') {
        ++i;
        continue;
      }
      if (t.compare(i, 4, "<!--") == 0) i = skip_to(i + 4, "-->");
      else if (t.compare(i, 9, "<![CDATA[") == 0) i = skip_to(i + 9, "]]>");
      else if (t.compare(i, 2, "<?") == 0) i = skip_to(i + 2, "?>");
      else if (t.compare(i, 2, "<!") == 0) i = skip_to(i + 2, ">");
      else if (t.compare(i, 2, "</") == 0) {
        const std::string name = name_at(i + 2);
        if (open.empty()) {
          detail = ": </" + name + "> closes nothing";
          return i;
        }
        if (name != open.back().first) {
          detail = ": </" + name + "> where <" + open.back().first + "> (line " +
                   std::to_string(line_column(open.back().second).first) + ") is open";
          return i;
        }
        open.pop_back();
        i = skip_to(i + 2, ">");
      } else {
        if (static_cast<int>(open.size()) + 1 >= TINYXML2_MAX_ELEMENT_DEPTH) return i;
        const std::string name = name_at(i + 1);
        size_t j = i + 1;
        char quote = 0;
        for (; j < t.size(); ++j) {
          if (quote) {
            if (t[j] == quote) quote = 0;
          } else if (t[j] == '"' || t[j] == '\'') {
            quote = t[j];
          } else if (t[j] == '>') {
            break;
          }
        }
        if (j >= t.size()) return std::string::npos;
        if (t[j - 1] != '/') open.push_back({name, i});
        i = j + 1;
      }
    }
    if (!open.empty()) {  // the text ends inside elements: the innermost one open is named
      detail = ": <" + open.back().first + "> (line " + std::to_string(line_column(open.back().second).first) +
               ") is not closed";
      if (open.size() > 1) detail += ", nor " + std::to_string(open.size() - 1) + " element(s) around it";
      return open.back().second;
    }
    return std::string::npos;
  }
  // An attribute given twice in a tag on line `line` (tinyxml2 calls it an attribute not written
  // properly): the offset of the second one, its name in `detail`; npos when there is none.
  size_t attribute_twice(int line, std::string& detail) const {
    if (line < 1 || static_cast<size_t>(line) > lines_.size()) return std::string::npos;
    size_t start = 0;  // the line's offset in the text
    for (int k = 1; k < line; ++k) start = text_.find('\n', start) + 1;
    const std::string& l = lines_[static_cast<size_t>(line) - 1];
    std::vector<std::string> names;  // of the tag being read
    for (size_t i = 0; i < l.size(); ++i) {
      if (l[i] == '<') names.clear();
      if (l[i] == '"' || l[i] == '\'') {  // a value: skipped whole
        const size_t close = l.find(l[i], i + 1);
        if (close == std::string::npos) break;
        i = close;
        continue;
      }
      if (l[i] != '=') continue;
      size_t end = i;
      while (end > 0 && std::isspace(static_cast<unsigned char>(l[end - 1]))) --end;
      size_t begin = end;
      while (begin > 0 && !std::isspace(static_cast<unsigned char>(l[begin - 1])) && l[begin - 1] != '<' && l[begin - 1] != '"' &&
             l[begin - 1] != '\'')
        --begin;
      const std::string name = l.substr(begin, end - begin);
      if (name.empty()) continue;
      if (std::find(names.begin(), names.end(), name) != names.end()) {
        detail = ": the attribute '" + name + "' is given twice in one element";
        return start + begin;
      }
      names.push_back(name);
    }
    return std::string::npos;
  }
  // An element's line, and its column: where its tag opens on that line (1 if not found there).
  std::pair<int, int> place(const tinyxml2::XMLElement* e) const {
    int line = e ? e->GetLineNum() : 1, column = 1;
    if (e && line >= 1 && static_cast<size_t>(line) <= lines_.size()) {
      const std::string& text = lines_[line - 1];
      const size_t at = text.find(std::string("<") + e->Name());
      if (at != std::string::npos) {
        // In characters, as editors count them: neither a UTF-8 sequence's continuation bytes
        // nor a byte order mark that starts the file (as line_column, within the line alone).
        const size_t from = line == 1 && text.compare(0, 3, "\xEF\xBB\xBF") == 0 ? 3 : 0;
        if (at > from) column += static_cast<int>(utf8_characters(std::string_view(text).substr(from, at - from)));
      }
    }
    return {line, column};
  }
  void error(const tinyxml2::XMLElement* e, const std::string& msg) {
    const auto [line, column] = place(e);
    error_at(line, column, msg);
  }
  // An integer port whose text goes on past its digits ("1e3", "2.5"): BT.CPP's from_chars
  // reads the digits and ignores the rest without a word, and so does the import, as BT.CPP
  // runs it; said as a warning, since the number meant was most likely another.
  void ignored_tail(const tinyxml2::XMLElement* e, const std::string& port, const std::string& v, const char* end,
                    const std::string& read) {
    if (end == v.data() + v.size()) return;
    const auto [line, column] = place(e);
    out_.warnings.push_back({line, column, "port '" + port + "' is '" + shown_name(v, 80) + "', which BT.CPP reads as " + read +
                                               " (its integers stop at the first character that is no digit; the rest is "
                                               "ignored): imported as BT.CPP runs it; write the whole number meant"});
  }
  // A leaf the file's TreeNodesModel does not declare, whose ID is a typo's distance from a
  // BT.CPP node's or a declared one's (<AlwaysSucess/>): BT.CPP's factory would refuse it
  // unless the game registers a node of that name, and the import makes it a leaf; said once per
  // ID, at its first place. IDs that differ only in their digits (Attack1, Attack2) are each meant.
  void typo_warning(const tinyxml2::XMLElement* e, const std::string& id) {
    if (!typo_checked_.insert(id).second) return;
    std::vector<std::string> names;
    for (const auto& b : builtins()) names.push_back(b.id);
    for (const auto& [declared, category] : category_) names.push_back(declared);
    const std::string near = closest_name(id, names);
    auto letters = [](const std::string& s) {
      std::string out;
      for (char c : s)
        if (!std::isdigit(static_cast<unsigned char>(c))) out += c;
      return out;
    };
    if (near.empty() || letters(near) == letters(id)) return;
    const auto [line, column] = place(e);
    const bool builtin = find_builtin(near) != nullptr;
    out_.warnings.push_back({line, column, "'" + shown_name(id, 80) + "' is neither a node of BT.CPP's nor declared in the file's TreeNodesModel: read as a leaf of that name (did you mean " +
                                               (builtin ? "BT.CPP's '" + shown_name(near, 80) + "'?)" : "'" + shown_name(near, 80) + "', which TreeNodesModel declares?)")});
  }
  // Gives n, and what was made for e within it (a guard's node, a stand-in), e's place: errors
  // found only once the brain is written are said there. (What has a place already came from
  // an element of its own, and so did all below it.)
  void placed_at(ImportNode& n, const tinyxml2::XMLElement* e) const {
    if (n.line != 0) return;
    std::tie(n.line, n.column) = place(e);
    for (ImportNode& c : n.children) placed_at(c, e);
  }

  void read_model(const tinyxml2::XMLElement* model) {
    for (auto* e = model->FirstChildElement(); e; e = e->NextSiblingElement()) {
      const char* id = e->Attribute("ID");
      if (!id) continue;
      category_[id] = e->Name();
      // A port declared type="std::string" holds text, whatever its value looks like ("007",
      // "true": BT.CPP converts a port's text by its declared type; so does this import).
      for (auto* p = e->FirstChildElement(); p; p = p->NextSiblingElement()) {
        const char* port = p->Attribute("name");
        const char* type = p->Attribute("type");
        if (port && type && std::string(type) == "std::string") text_ports_[id].insert(port);
      }
      if (std::string(e->Name()) == "SubTree")
        for (auto* p = e->FirstChildElement(); p; p = p->NextSiblingElement()) {
          const char* port = p->Attribute("name");
          if (!port) continue;
          const char* def = p->Attribute("default");
          subtree_ports_[id].push_back({port, def ? def : "", def != nullptr});
        }
    }
  }

  // Every word that could name a key anywhere in the file (in `{key}` references and scripts;
  // more words than that, which only makes a prefix longer): no private key may take one.
  void collect_names(const tinyxml2::XMLElement* root) {
    std::vector<const tinyxml2::XMLElement*> todo{root};
    while (!todo.empty()) {
      const tinyxml2::XMLElement* e = todo.back();
      todo.pop_back();
      for (auto* a = e->FirstAttribute(); a; a = a->Next()) {
        const std::string v = a->Value();
        for (size_t i = 0; i < v.size();) {
          const auto word = [&](size_t at) { return std::isalnum(static_cast<unsigned char>(v[at])) || v[at] == '_'; };
          if (!word(i)) {
            ++i;
            continue;
          }
          size_t j = i;
          while (j < v.size() && word(j)) ++j;
          names_.insert(v.substr(i, j - i));
          i = j;
        }
      }
      for (auto* c = e->FirstChildElement(); c; c = c->NextSiblingElement()) todo.push_back(c);
    }
  }

  // The prefix of one use's private keys: ID, use number, '_' (Sub1_ammo); ID, use number, 'v',
  // a count, '_' (Sub1v1_ammo) while a name of the file starts with it (the parent's own key
  // Sub1_ammo would be shared with the subtree's private ammo) or it and another use's prefix
  // start one another (A11_ is both A's 11th use and A1's first). (Made longer with '_' it
  // would still start with the prefix it met.)
  std::string fresh_prefix(const std::string& id) {
    const std::string base = id + std::to_string(++instances_[id]);
    std::string p = base + "_";
    // (Sorted sets: a tree used 100,000 times must not compare every prefix with every other.)
    auto starts = [](const std::set<std::string>& set, const std::string& q) {  // an element starts with q
      auto it = set.lower_bound(q);
      return it != set.end() && it->compare(0, q.size(), q) == 0;
    };
    auto clashes = [&](const std::string& q) {
      if (starts(names_, q) || starts(prefixes_, q)) return true;
      for (size_t cut = 0; (cut = q.find('_', cut)) != std::string::npos; ++cut)  // a given prefix starts q
        if (prefixes_.count(q.substr(0, cut + 1))) return true;
      return false;
    };
    for (int k = 1; clashes(p); ++k) p = base + "v" + std::to_string(k) + "_";
    prefixes_.insert(p);
    return p;
  }

  // With no main tree to import, every tree is read for its errors all the same, each as if it
  // were the main one (all errors of a file at once; a subtree's said once, print_errors merges
  // repeats): the file's trees' own mistakes were hidden behind a misspelt main_tree_to_execute.
  // The walks share a bound of twice a brain's nodes: each tree may expand its subtrees to
  // 100,000 nodes, and 2,000 trees each using one such subtree took minutes.
  void check_every_tree(const tinyxml2::XMLElement* root) {
    collect_names(root);
    size_t walked = 0;
    for (const std::string& id : tree_order_) {
      if (walked > 200000) break;  // the errors said so far stand; the main tree's error says why
      Scope top;
      stack_.assign(1, id);
      depth_ = 0;
      visits_ = 0;
      attribute_bytes_ = 0;
      too_deep_ = too_many_ = false;
      subtree_paths_.clear();
      (void)tree_root(trees_[id], top);
      walked += visits_;
    }
    stack_.clear();
  }

  // A tree the import does not use, checked for what BT.CPP's VerifyXML refuses in any tree of
  // the file (its own nodes' names, ID attributes and numbers of children; a node of its own that
  // thicket does not map is fine here, as are leaves: BT.CPP reads only the tree it makes).
  void verify_unused(const tinyxml2::XMLElement* e, int depth) {
    if (depth > 256) return;  // (the main walk says how deep is too deep, if it goes there)
    static const std::set<std::string> generic = {"Action", "Condition", "Control", "Decorator"};
    const std::string tag = e->Name();
    size_t kids = 0;
    for (auto* k = e->FirstChildElement(); k; k = k->NextSiblingElement()) ++kids;
    const char* idv = e->Attribute("ID");
    const std::string id = generic.count(tag) ? (idv ? idv : "") : tag;
    if (tag == "BehaviorTree") {
      if (kids != 1) error(e, "a <BehaviorTree> holds exactly one node (in tree '" + std::string(idv ? idv : "") +
                                  "', which the import does not use; BT.CPP refuses the file)");
    } else if ((generic.count(tag) || tag == "SubTree") && (!idv || !*idv)) {
      error(e, "<" + tag + "> needs ID (in a tree the import does not use; BT.CPP refuses the file)");
    } else if (tag == "SubTree") {
      if (kids) error(e, "<SubTree> has no children (in a tree the import does not use; BT.CPP refuses the file)");
    } else if (const Builtin* b = find_builtin(id)) {
      if (id == "ReactiveSequence") reactive_children(e);
      if ((b->shape == 'd' && kids != 1) || (b->shape == 'c' && kids == 0) || (b->shape == 'l' && kids))
        error(e, id + (b->shape == 'd' ? " takes exactly one child" : b->shape == 'c' ? " needs at least one child" : " takes no children") +
                     ", got " + std::to_string(kids) + " (in a tree the import does not use; BT.CPP refuses the file)");
    } else if (!btcpp_reserved_id(id) && (kids || tag == "Control" || tag == "Decorator")) {
      std::vector<std::string> names;
      for (const auto& x : builtins())
        if (x.shape != 'l') names.push_back(x.id);
      error(e, "'" + id + "' has children but is no built-in BT.CPP control or decorator node" + did_you_mean(id, names) +
                   " (in a tree the import does not use; BT.CPP refuses the file)");
    }
    for (auto* k = e->FirstChildElement(); k; k = k->NextSiblingElement()) verify_unused(k, depth + 1);
  }

  // What BT.CPP's VerifyXML checks of a ReactiveSequence's children: each written under a name
  // BT.CPP knows (a leaf's own short form <A1/>: <Action ID="A1"/> is "Unknown node type:
  // Action"), and at most one AsyncSequence among them.
  void reactive_children(const tinyxml2::XMLElement* e) {
    static const std::set<std::string> generic = {"Action", "Condition", "Control", "Decorator"};
    int async = 0;
    for (auto* k = e->FirstChildElement(); k; k = k->NextSiblingElement()) {
      const std::string tag = k->Name();
      if (generic.count(tag)) {
        const char* idv = k->Attribute("ID");
        error(k, "a ReactiveSequence's child is written by its own name (<" + std::string(idv && *idv ? idv : "Name") +
                     "/>), not as <" + tag + " ID=...>: BT.CPP refuses the file (\"Unknown node type: " + tag + "\")");
      }
      async += tag == "AsyncSequence";
    }
    if (async > 1)
      error(e, "a ReactiveSequence holds at most one AsyncSequence (BT.CPP refuses more: \"A ReactiveSequence cannot have "
               "more than one async child\")");
  }

  ImportNode tree_root(const tinyxml2::XMLElement* tree, const Scope& scope) {
    reached_.insert(tree);
    const tinyxml2::XMLElement* only = tree->FirstChildElement();
    if (!only || only->NextSiblingElement()) {
      error(tree, "a <BehaviorTree> holds exactly one node");
      return always_node("failure");
    }
    return node(only, scope);
  }

  // Resolves a blackboard key as seen from `scope`: a key of the brain ("{k}") or a literal.
  std::string resolve(const std::string& key, const Scope& scope) {
    std::string k = key;
    if (!k.empty() && k[0] == '@') {  // the root blackboard
      const Scope* s = &scope;
      while (s->parent) s = s->parent;
      return resolve(k.substr(1), *s);
    }
    auto it = scope.remap.find(k);
    if (it != scope.remap.end()) {
      const std::string& v = it->second;
      if (v.size() >= 3 && v.front() == '{' && v.back() == '}' && scope.parent) return resolve(v.substr(1, v.size() - 2), *scope.parent);
      if (v.size() >= 3 && v.front() == '{' && v.back() == '}') return v;
      // A port's text, written again at each reference (200 references to a 1 MB text in one
      // leaf built 190 MB): counted with the attributes, and none written past the bound.
      attribute_bytes_ += v.size();
      return attribute_bytes_ > kMaxYamlBytes ? "=" : "=" + v;  // "=" marks a literal
    }
    if (scope.parent && scope.autoremap && k[0] != '_') return resolve(k, *scope.parent);
    return "{" + scope.prefix + k + "}";
  }
  // A number in a script as BT.CPP 4.10's tokenizer and parser read it (script_tokenizer.cpp,
  // script_parser.cpp), from code[at] (a digit) on; at moves past it. Returns it as thicket's
  // check language writes the same value (an integer in decimal: hexadecimal 0x.. converted;
  // one past int64 is 0, as BT.CPP's from_chars leaves it), or "" where BT.CPP has an error token.
  static std::string btcpp_number(const std::string& code, size_t& at) {
    const size_t n = code.size(), start = at;
    auto ident = [&](size_t k) { return k < n && (std::isalnum(static_cast<unsigned char>(code[k])) || code[k] == '_'); };
    auto digit = [&](size_t k) { return k < n && std::isdigit(static_cast<unsigned char>(code[k])); };
    auto garbage = [&] {
      while (ident(at) || (at < n && code[at] == '.')) ++at;
      return std::string();
    };
    int64_t value = 0;
    if (code[at] == '0' && at + 1 < n && (code[at + 1] == 'x' || code[at + 1] == 'X')) {
      at += 2;
      const size_t digits = at;
      while (at < n && std::isxdigit(static_cast<unsigned char>(code[at]))) ++at;
      if (at == digits || ident(at) || (at < n && code[at] == '.')) return garbage();
      std::from_chars(code.data() + digits, code.data() + at, value, 16);
      return std::to_string(value);
    }
    bool real = false;
    while (digit(at)) ++at;
    if (at < n && code[at] == '.' && !(at + 1 < n && code[at + 1] == '.')) {
      if (!digit(at + 1)) {
        ++at;
        return garbage();
      }
      real = true;
      ++at;
      while (digit(at)) ++at;
    }
    if (at < n && (code[at] == 'e' || code[at] == 'E')) {
      real = true;
      ++at;
      if (at < n && (code[at] == '+' || code[at] == '-')) ++at;
      if (!digit(at)) return garbage();
      while (digit(at)) ++at;
    }
    if (ident(at)) return garbage();
    if (real) {  // BT.CPP's convertFromString<double>: from_chars, and past a double's range it throws
      double d = 0;
      if (std::from_chars(code.data() + start, code.data() + at, d).ec != std::errc()) return "";
      return code.substr(start, at - start);
    }
    std::from_chars(code.data() + start, code.data() + at, value, 10);
    return std::to_string(value);
  }

  // A boolean port as BT.CPP's convertFromString<bool> reads it: 1, 0 or -1 (it throws).
  static int btcpp_bool(const std::string& v) {
    if (v == "1" || v == "true" || v == "TRUE" || v == "True") return 1;
    if (v == "0" || v == "false" || v == "FALSE" || v == "False") return 0;
    return -1;
  }
  static bool is_ref(const std::string& v) { return v.size() >= 3 && v.front() == '{' && v.back() == '}'; }
  static std::string ref_key(const std::string& v) { return v.substr(1, v.size() - 2); }
  static std::string trimmed(const std::string& s) {
    size_t a = s.find_first_not_of(" \t\r\n"), b = s.find_last_not_of(" \t\r\n");
    return a == std::string::npos ? "" : s.substr(a, b - a + 1);
  }

  // A blackboard key as thicket's brain files allow it (an identifier).
  static bool key_name(const std::string& k) {
    if (k.empty() || std::isdigit(static_cast<unsigned char>(k[0]))) return false;
    for (char c : k)
      if (!std::isalnum(static_cast<unsigned char>(c)) && c != '_') return false;
    return true;
  }

  void declare(const std::string& key, const std::string& type) {
    if (declared_.count(key)) return;  // declared by the brain that was exported: kept as it was
    auto& decl = types_[key];
    if (decl.empty() || decl == "any") decl = type;
    static const std::map<std::string, std::string> yaml = {
        {"any", "{type: any}"}, {"number", "0"}, {"string", "\"\""}, {"boolean", "false"}};
    out_.blackboard[key] = yaml.at(types_[key]);
  }

  // A text as thicket's check language writes it: in "...", with only \" and \\ escaped (its
  // only escapes; a tab or a line break stays as it is, which the language reads as itself).
  static std::string check_quote(const std::string& text) {
    std::string out = "\"";
    for (char ch : text) {
      if (ch == '"' || ch == '\\') out += '\\';
      out += ch;
    }
    return out + "\"";
  }

  // A key's type as the file shows it so far: from its uses in scripts, or from the declaration
  // an exported brain carried; "" when nothing says.
  std::string known_type(const std::string& key) const {
    if (auto it = types_.find(key); it != types_.end() && it->second != "any") return it->second;
    auto d = out_.blackboard.find(key);
    if (d == out_.blackboard.end() || d->second.empty()) return "";
    const std::string& v = d->second;
    if (v[0] == '"') return "string";
    if (v == "true" || v == "false") return "boolean";
    if (v.find("type: integer") != std::string::npos || v.find("type: number") != std::string::npos) return "number";
    if (v.find("type: string") != std::string::npos) return "string";
    if (v.find("type: boolean") != std::string::npos) return "boolean";
    if (std::isdigit(static_cast<unsigned char>(v[0])) || v[0] == '-' || v[0] == '.') return "number";
    return "";
  }

  // BT.CPP statements (a Script's code, _onSuccess, ...: `a := 1; b += a`) -> a bt_script's code
  // (`a = 1; b = b + (a)`), "" when none assigns (`assigns` false: a Script that only reads),
  // or "" with an error. Each statement is an assignment (ExprAssignment: `:=` `=` `+=` `-=`
  // `*=` `/=`) or an expression whose value is dropped. The key written takes the type of
  // what it is given: a comparison, `&&`, `||` or `!` a boolean, arithmetic a number, a
  // literal its own, a key that key's.
  std::string statements(const tinyxml2::XMLElement* at, const std::string& code, const Scope& scope,
                         const std::string& what, bool& assigns) {
    assigns = false;
    std::vector<std::string> out;
    auto fail = [&](const std::string& why) {
      error(at, what + " '" + shown_name(code, 200) + "': " + why);
      return std::string();
    };
    size_t begin = 0;
    while (begin <= code.size()) {
      size_t end = begin;
      for (char quote = 0; end < code.size() && (quote || code[end] != ';'); ++end) {
        if (code[end] == quote) quote = 0;
        else if (!quote && (code[end] == '\'' || code[end] == '"')) quote = code[end];
      }
      const std::string stmt = trimmed(code.substr(begin, end - begin));
      begin = end + 1;
      if (stmt.empty()) continue;
      // The target: a name, then an assignment operator (not `==`).
      size_t k = 0;
      if (std::isalpha(static_cast<unsigned char>(stmt[0])) || stmt[0] == '_' || stmt[0] == '@') {
        k = 1;
        while (k < stmt.size() && (std::isalnum(static_cast<unsigned char>(stmt[k])) || stmt[k] == '_')) ++k;
      }
      size_t op_at = k;
      while (op_at < stmt.size() && std::isspace(static_cast<unsigned char>(stmt[op_at]))) ++op_at;
      std::string op;
      if (k > 0 && op_at < stmt.size()) {
        const std::string two = stmt.substr(op_at, 2);
        if (two == ":=" || two == "+=" || two == "-=" || two == "*=" || two == "/=") op = two;
        else if (stmt[op_at] == '=' && two != "==") op = "=";
      }
      if (op.empty()) {  // an expression: BT.CPP evaluates it and drops its value
        if (script(at, stmt, scope, what, ScriptUse::Dropped).empty()) return "";
        continue;
      }
      const std::string name = stmt.substr(0, k);
      const std::string rhs_written = trimmed(stmt.substr(op_at + op.size()));
      if (name == "true" || name == "false") return fail("it assigns to '" + name + "', which is a value");
      const std::string r = resolve(name, scope);
      if (r[0] == '=') return fail("it assigns to '" + name + "', which this subtree's port sets to the value '" + r.substr(1) + "'");
      const std::string key = ref_key(r);
      if (check_word(key)) return fail(check_word_clash(name, key));
      if (rhs_written.empty()) return fail("'" + name + " " + op + "' has no value after it");
      if (rhs_written[0] == '=' || rhs_written[0] == ':')
        return fail("'" + stmt + "' is no assignment BT.CPP reads (one of := = += -= *= /=, then a value)");
      // The value's type, from BT.CPP's tokens of it (parentheses around the whole dropped).
      std::string type;
      {
        std::string rhs = rhs_written;
        auto wraps = [](const std::string& t) {  // "(...)" whose first '(' closes at the end
          if (t.size() < 2 || t.front() != '(' || t.back() != ')') return false;
          int depth = 0;
          char quote = 0;
          for (size_t i = 0; i < t.size(); ++i) {
            if (quote) {
              if (t[i] == quote) quote = 0;
            } else if (t[i] == '\'' || t[i] == '"') {
              quote = t[i];
            } else if (t[i] == '(') {
              ++depth;
            } else if (t[i] == ')' && --depth == 0 && i + 1 < t.size()) {
              return false;
            }
          }
          return true;
        };
        while (wraps(rhs)) rhs = trimmed(rhs.substr(1, rhs.size() - 2));
        if (rhs.empty()) return fail("'" + name + " " + op + "' has no value after it");
        bool logic = false, arith = false;
        char quote = 0;
        for (size_t i = 0; i < rhs.size(); ++i) {
          const char ch = rhs[i];
          if (quote) {
            if (ch == quote) quote = 0;
            continue;
          }
          if (ch == '\'' || ch == '"') quote = ch;
          else if (std::string("<>!&|").find(ch) != std::string::npos || (ch == '=' && i + 1 < rhs.size() && rhs[i + 1] == '=')) logic = true;
          else if (std::string("+-*/").find(ch) != std::string::npos && !(i > 0 && (rhs[i - 1] == 'e' || rhs[i - 1] == 'E') &&
                                                                            std::isdigit(static_cast<unsigned char>(rhs[0]))))
            arith = true;
        }
        const bool single_name = (std::isalpha(static_cast<unsigned char>(rhs[0])) || rhs[0] == '_' || rhs[0] == '@') &&
                                 std::all_of(rhs.begin() + 1, rhs.end(), [](char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_'; });
        if (logic) type = "boolean";
        else if (rhs[0] == '\'' || rhs[0] == '"') type = rhs.size() >= 2 && rhs.back() == rhs[0] && rhs.find(rhs[0], 1) == rhs.size() - 1 ? "string" : "number";
        else if (single_name && (rhs == "true" || rhs == "false")) type = "boolean";
        else if (single_name) {
          const std::string rr = resolve(rhs, scope);
          type = rr[0] == '=' ? "" : known_type(ref_key(rr));
          if (type.empty()) type = known_type(key);
          if (type.empty()) type = "boolean";  // (as a key used alone in a check)
          if (rr[0] != '=') declare(ref_key(rr), type);
        } else if (arith || std::isdigit(static_cast<unsigned char>(rhs[0])) || rhs[0] == '(' || rhs[0] == '.') type = "number";
        else type = "boolean";
        if (op != ":=" && op != "=") {
          if ((type == "string" || known_type(key) == "string") && op == "+=")
            return fail("'+=' on a text joins texts in BT.CPP; thicket's expressions have no joining of texts");
          if (type == "string" || known_type(key) == "string")
            return fail("'" + op + "' needs numbers; '" + name + "' or its value is a text (BT.CPP refuses it too)");
          type = "number";
        }
      }
      const std::string before = known_type(key);
      if (!before.empty() && before != type)
        return fail("it gives '" + name + "' a " + type + ", where the file uses it as a " + before +
                    " (a thicket blackboard key has one type)");
      declare(key, type);
      std::string value = script(at, rhs_written, scope, what, ScriptUse::Assigned);
      if (value.empty()) return "";
      if (op.size() == 2 && op != ":=") value = key + " " + op.substr(0, 1) + " (" + value + ")";
      out.push_back(key + " = " + value);
      assigns = true;
    }
    std::string joined_code;
    for (const auto& o : out) joined_code += (joined_code.empty() ? "" : "; ") + o;
    return joined_code;
  }

  // A key BT.CPP reads by a name that is a word of thicket's check language: written into a
  // check it would read as the word (`and > 1`: "expected a value, got 'and'").
  static bool check_word(const std::string& key) {
    return key == "and" || key == "or" || key == "not" || key == "true" || key == "false";
  }
  static std::string check_word_clash(const std::string& name, const std::string& key) {
    return "the key '" + key + "'" + (name == key ? "" : " ('" + name + "' here)") +
           " is a word of thicket's check language (and, or, not, true, false), which cannot name a key there: rename it";
  }

  // BT.CPP script -> a check expression, or "" with an error.
  // What a script's value is for: a check's result, a statement's (evaluated and dropped), or
  // the value an assignment gives its key.
  enum class ScriptUse { Check, Dropped, Assigned };
  std::string script(const tinyxml2::XMLElement* at, const std::string& code, const Scope& scope, const std::string& what,
                     ScriptUse use = ScriptUse::Check) {
    struct Tok {
      char kind;  // i identifier, n number, s string, o operator
      std::string text;
    };
    std::vector<Tok> toks;
    size_t i = 0;
    auto fail = [&](const std::string& why) {
      error(at, what + " '" + shown_name(code, 200) + "': " + why);
      return std::string();
    };
    while (i < code.size()) {
      char ch = code[i];
      if (std::isspace(static_cast<unsigned char>(ch))) {
        ++i;
        continue;
      }
      if (std::isalpha(static_cast<unsigned char>(ch)) || ch == '_' || ch == '@') {
        size_t j = i + 1;
        while (j < code.size() && (std::isalnum(static_cast<unsigned char>(code[j])) || code[j] == '_')) ++j;
        toks.push_back({'i', code.substr(i, j - i)});
        i = j;
      } else if (std::isdigit(static_cast<unsigned char>(ch))) {
        size_t j = i;
        std::string number = btcpp_number(code, j);
        if (number.empty()) {
          const std::string written = code.substr(i, j - i);
          double d = 0;
          const auto [end, ec] = std::from_chars(written.data(), written.data() + written.size(), d);
          return fail("'" + written + "' is no number BT.CPP reads" +
                      (ec == std::errc::result_out_of_range && end == written.data() + written.size()
                           ? std::string(" (past the range of a double: BT.CPP's parser refuses it)") : ""));
        }
        toks.push_back({'n', number});
        i = j;
      } else if (ch == '\'' || ch == '"') {
        size_t j = code.find(ch, i + 1);
        if (j == std::string::npos) return fail("a text is not closed");
        toks.push_back({'s', code.substr(i + 1, j - i - 1)});
        i = j + 1;
      } else {
        static const std::vector<std::string> two = {"&&", "||", "==", "!=", "<=", ">=", ":=", "+=", "-=", "*=", "/="};
        std::string op(1, ch);
        if (i + 1 < code.size() && std::find(two.begin(), two.end(), code.substr(i, 2)) != two.end()) op = code.substr(i, 2);
        if (static_cast<unsigned char>(ch) >= 0x80) {  // a character past ASCII (`é`): all its bytes, for the message
          size_t j = i + 1;
          while (j < code.size() && (static_cast<unsigned char>(code[j]) & 0xC0) == 0x80) ++j;
          op = code.substr(i, j - i);
        }
        toks.push_back({'o', op});
        i += op.size();
      }
    }
    if (toks.empty()) return fail("the script is empty");
    static const std::set<std::string> cmp = {"==", "!=", "<", "<=", ">", ">="}, arith = {"+", "-", "*", "/"};
    std::vector<Piece> pieces;
    // BT.CPP's `!` binds tighter than any other operator (`!ammo > 0` is `(!ammo) > 0`);
    // thicket's `not` looser than comparisons (`not ammo > 0` is `not (ammo > 0)`). So `!x` is
    // written `(not x)`, closed after its operand: one value, or a parenthesised group.
    int depth = 0;          // parentheses open
    std::vector<int> nots;  // the depth of each `(not` whose operand has not ended yet
    for (size_t k = 0; k < toks.size(); ++k) {
      const Tok& t = toks[k];
      std::string piece, piece_key;
      bool operand_ends = t.kind != 'o';  // a value ends an operand; so does a group's `)`
      if (t.kind == 'o') {
        if (t.text == "&&") piece = "and";
        else if (t.text == "||") piece = "or";
        else if (t.text == "!") {
          piece = "(not";
          nots.push_back(depth);
        }
        else if (cmp.count(t.text) || arith.count(t.text) || t.text == "(" || t.text == ")") piece = t.text;
        else if (t.text == "=" || (t.text.size() == 2 && t.text[1] == '='))  // := += -= *= /=
          return fail("it assigns ('" + t.text + "'); thicket's check language reads the blackboard and cannot assign");
        else
          return fail(std::string("&|^~.?:").find(t.text) != std::string::npos
                          ? "'" + t.text + "' has no equivalent in thicket's check language (and or not, comparisons, + - * / %)"
                          : "'" + t.text + "' is no operator of BT.CPP's script language");
      } else if (t.kind == 'n') {
        piece = t.text;
      } else if (t.kind == 's') {
        piece = check_quote(t.text);
      } else if (t.text == "true" || t.text == "false") {
        piece = t.text;
      } else {
        std::string r = resolve(t.text, scope);
        if (r[0] == '=') {
          piece = yaml_literal(r.substr(1));
          if (piece.front() == '"') piece = check_quote(r.substr(1));  // a text, as the check language writes it
        } else {
          const std::string key = ref_key(r);
          if (check_word(key)) return fail(check_word_clash(t.text, key));
          // Its type, from what it is compared with or used in.
          std::string type = "boolean";
          auto neighbour = [&](size_t op_at, size_t other_at) {
            if (op_at >= toks.size() || other_at >= toks.size()) return;
            const Tok& op = toks[op_at];
            if (op.kind != 'o') return;
            if (arith.count(op.text)) type = "number";
            if (cmp.count(op.text)) {
              const Tok& o = toks[other_at];
              const bool boolean = o.kind == 'i' && (o.text == "true" || o.text == "false");
              type = o.kind == 's' ? "string" : boolean ? "boolean" : "number";
            }
          };
          if (k > 0) neighbour(k - 1, k - 2);
          if (type == "boolean") neighbour(k + 1, k + 2);
          if (auto it = types_.find(key); it != types_.end() && it->second != "any") type = it->second;
          declare(key, type);
          piece = key;
          piece_key = key;
        }
      }
      Piece p{piece, "", depth, t.kind == 'o' && cmp.count(t.text) ? 'c' : t.kind == 'o' && (t.text == "&&" || t.text == "||") ? 'l' : t.kind, piece_key};
      if (t.kind == 'i' && piece_key.empty())  // true/false, or a port remapped to a value
        p.kind = piece == "true" || piece == "false" ? 'b' : !piece.empty() && piece[0] == '"' ? 's' : 'n';
      if (t.kind == 'o' && t.text == "(" && ++depth > kMaxScriptDepth)  // (comparisons recurses per group)
        return fail("its parentheses nest deeper than " + std::to_string(kMaxScriptDepth) +
                    " levels, more than thicket's check language reads");
      if (t.kind == 'o' && t.text == ")") {
        if (--depth < 0) return fail("a ')' closes nothing");
        p.depth = depth;
        operand_ends = true;
      }
      while (operand_ends && !nots.empty() && nots.back() == depth) {
        p.closers += ")";
        nots.pop_back();
      }
      pieces.push_back(std::move(p));
    }
    if (!nots.empty()) return fail("a '!' has nothing after it to negate");
    if (depth != 0) return fail("a '(' is not closed");
    // Values and operators in the order BT.CPP's parser takes them (parsePrefix, parseExpr):
    // the rewriting above lets `x >> 2`, `a + * b`, `()` or `a b` through, and they were written
    // into a check thicket's loader refused in its own words (`(x > and > 2)`: "expected a value
    // after '>', got 'and'"), and only once the file's other errors were fixed. Said here, in the
    // script's words, beside them.
    auto shown = [](const Tok& t) { return t.kind == 's' ? "\"" + t.text + "\"" : "'" + t.text + "'"; };
    bool want_value = true;  // a value, '(' or a prefix ('!', '-') comes next
    const Tok* before = nullptr;
    for (const Tok& t : toks) {
      const bool value = t.kind != 'o';
      if (want_value) {
        if (value) {
          want_value = false;
        } else if (t.text == ")") {
          return fail(before && before->text == "(" ? "'()' holds no value" : "a value is missing before ')'");
        } else if (t.text != "(" && t.text != "!" && t.text != "-") {
          return fail(before ? "a value is missing between " + shown(*before) + " and " + shown(t)
                             : "it begins with " + shown(t) + ", where a value goes");
        }
      } else if (value || t.text == "(" || t.text == "!") {
        // BT.CPP's parseAll needs no ';' between statements: `x > 1 x < 3` is two of them.
        if (use == ScriptUse::Dropped) {
          want_value = !value;  // a new statement: its value is dropped too
        } else if (use == ScriptUse::Assigned) {
          return fail("BT.CPP ends the assignment at " + shown(*before) + " and reads " + shown(t) +
                      " on as a statement of its own (it needs no ';' between them): put the ';' there");
        } else {
          return fail("BT.CPP reads " + shown(*before) + " and " + shown(t) +
                      " as two statements (it needs no ';' between them) and takes the last one's value; a thicket check"
                      " is one expression: join them with && or ||, or keep the last");
        }
      } else if (t.text != ")") {
        want_value = true;
      }
      before = &t;
    }
    if (want_value) return fail("it ends with " + shown(*before) + ", where a value goes");
    too_long_ = false;
    std::string check = comparisons(pieces, 0, pieces.size());
    if (too_long_) {
      attribute_bytes_ += kMaxCheckLength;  // (the work it took, at each use of its subtree: node() bounds it)
      return fail("written as thicket's check it would pass " + std::to_string(kMaxCheckLength) +
                  " characters (BT.CPP's == and != between numbers are written out as two comparisons within"
                  " FLT_EPSILON, each side twice, and a chained comparison repeats its middle operand: nested,"
                  " each level doubles it)");
    }
    attribute_bytes_ += check.size();  // (written again at each use of its subtree: node() bounds them)
    return check;
  }

  // One piece of a script as thicket writes it: its text, the ")" that close `(not` groups after
  // it, the parentheses it sits in (a "(" and its ")" count as outside), and its kind: 'c' a
  // comparison, 'l' and/or, 'n' a number, 's' a text, 'b' true/false, 'i' a key, 'o' another
  // operator.
  struct Piece {
    std::string text, closers;
    int depth;
    char kind;
    std::string key;
  };
  static std::string joined(const std::vector<std::string>& parts) {
    std::string out;
    for (const std::string& part : parts) {
      if (part.empty()) continue;
      if (!out.empty() && part != ")" && part.front() != ')' && out.back() != '(') out += ' ';
      out += part;
    }
    return out;
  }
  // The pieces [b, e) (all at depth >= that of b) as thicket's check, with BT.CPP's comparison
  // rules made explicit (operators.hpp, ExprComparison::evaluate): two numbers are equal when
  // they differ by at most FLT_EPSILON (IsSame), and comparisons chain (`1 < n < 3` is `1 < n`
  // and `n < 3`, each operand evaluated as written; thicket's checks read no side effects).
  // Bounds of a script as it is written: each group's parentheses are a level of comparisons'
  // recursion (200,000 of them ran out of stack), and each level of `==` nested in a chain or an
  // equality doubles the text (24 levels, 539 bytes of XML: 448 MB and 227 s).
  static constexpr int kMaxScriptDepth = 64;
  static constexpr size_t kMaxCheckLength = 100'000;
  mutable bool too_long_ = false;  // comparisons passed kMaxCheckLength: its text is cut short

  std::string comparisons(const std::vector<Piece>& pieces, size_t b, size_t e) const {
    if (b >= e || too_long_) return "";
    const int d = pieces[b].depth;
    std::vector<std::string> out;
    // An operand: pieces at depth d (values, arithmetic, `(not`) and parenthesised groups,
    // whose insides are rewritten alike.
    // What this level has built so far: past kMaxCheckLength it stops at once (`(G) && (G) &&
    // ...`, each G just under the bound, built them all before the text was measured).
    size_t built = 0;
    auto grew = [&](size_t n) {
      built += n;
      if (built > kMaxCheckLength) too_long_ = true;
      return too_long_;
    };
    auto operand = [&](size_t ob, size_t oe) {
      std::vector<std::string> parts;
      for (size_t i = ob; i < oe && !too_long_; ++i) {
        if (pieces[i].text == "(" && pieces[i].depth == d) {
          size_t j = i + 1;
          while (j < oe && !(pieces[j].depth == d && pieces[j].text == ")")) ++j;
          parts.push_back("(" + pieces[i].closers);
          parts.push_back(comparisons(pieces, i + 1, j));
          if (grew(parts.back().size())) break;
          if (j < oe) parts.push_back(")" + pieces[j].closers);
          i = j;
        } else {
          parts.push_back(pieces[i].text + pieces[i].closers);
        }
      }
      return joined(parts);
    };
    // Whether BT.CPP compares an operand's value as a number: no text or boolean in it.
    auto numeric = [&](size_t ob, size_t oe) {
      for (size_t i = ob; i < oe; ++i) {
        if (pieces[i].kind == 's' || pieces[i].kind == 'b') return false;
        // A comparison, and/or or `!` inside it: BT.CPP's 1.0 or 0.0, thicket's true or false,
        // equal alike (`(a < 1) == (b < 1)`; a subtraction of two booleans would not load).
        if (pieces[i].kind == 'c' || pieces[i].kind == 'l' || pieces[i].text == "(not") return false;
        if (!pieces[i].key.empty()) {
          const auto it = types_.find(pieces[i].key);
          const std::string type = it != types_.end() ? it->second : "";
          const auto declared = out_.blackboard.find(pieces[i].key);
          const bool text_default = declared != out_.blackboard.end() && !declared->second.empty() && declared->second[0] == '"';
          if (type == "string" || type == "boolean" || (type.empty() && text_default)) return false;
          if (type.empty() && declared != out_.blackboard.end() && (declared->second == "true" || declared->second == "false"))
            return false;
        }
      }
      return true;
    };
    // Each stretch between and/or at depth d: operands joined by comparisons.
    size_t seg = b;
    for (size_t i = b; i <= e; ++i) {
      if (i < e && !(pieces[i].depth == d && pieces[i].kind == 'l')) continue;
      std::vector<std::pair<size_t, size_t>> operands;
      std::vector<size_t> ops;
      size_t ob = seg;
      for (size_t k = seg; k < i; ++k)
        if (pieces[k].depth == d && pieces[k].kind == 'c') {
          operands.push_back({ob, k});
          ops.push_back(k);
          ob = k + 1;
        }
      operands.push_back({ob, i});
      std::vector<std::string> pairs;
      for (size_t k = 0; k < ops.size(); ++k) {
        const auto [lb, le] = operands[k];
        const auto [rb, re] = operands[k + 1];
        const std::string l = operand(lb, le), r = operand(rb, re), op = pieces[ops[k]].text;
        if ((op == "==" || op == "!=") && numeric(lb, le) && numeric(rb, re)) {
          constexpr const char* kEps = "0.00000011920928955078125";  // FLT_EPSILON, exactly
          // Each side once as a term of a subtraction: a single piece as it is.
          auto term = [&](const std::string& text, size_t tb, size_t te) { return te - tb == 1 ? text : "(" + text + ")"; };
          const std::string tl = term(l, lb, le), tr = term(r, rb, re);
          const std::string same = tl + " - " + tr + " <= " + kEps + " and " + tr + " - " + tl + " <= " + kEps;
          pairs.push_back(op == "==" ? "(" + same + ")" : "(not (" + same + "))");
          if (grew(pairs.back().size())) return "";
        } else {
          pairs.push_back(joined({l, op, r}));
          if (grew(pairs.back().size())) return "";
        }
      }
      if (too_long_) return "";
      if (ops.empty()) out.push_back(operand(ob, i));
      else if (pairs.size() == 1) out.push_back(pairs[0]);
      else {
        std::string chain = "(" + pairs[0];
        for (size_t k = 1; k < pairs.size(); ++k) chain += " and " + pairs[k];
        out.push_back(chain + ")");
      }
      if (i < e) out.push_back(pieces[i].text + pieces[i].closers);
      seg = i + 1;
    }
    std::string text = joined(out);
    if (text.size() > kMaxCheckLength) {
      too_long_ = true;
      return "";
    }
    return text;
  }

  ImportNode leaf(const tinyxml2::XMLElement* e, const std::string& id, bool condition, const Scope& scope) {
    ImportNode n;
    n.kind = condition ? "condition" : "action";
    n.leaf = id;
    for (auto* a = e->FirstAttribute(); a; a = a->Next()) {
      std::string name = a->Name();
      if (name == "name" || name == "ID" || name[0] == '_') continue;
      std::string v = trimmed(a->Value());
      if (v == "{=}" || v == "=") v = "{" + name + "}";
      if (is_ref(v)) {
        std::string r = resolve(ref_key(v), scope);
        if (r[0] == '=') {
          n.args.push_back({name, yaml_literal(r.substr(1))});
        } else if (!key_name(ref_key(r))) {
          error(e, "port '" + name + "' names the blackboard entry '" + ref_key(r) +
                       "', which cannot be a thicket blackboard key (letters, digits and _, not starting with a digit)");
        } else {
          declare(ref_key(r), "any");
          n.args.push_back({name, yaml_quote(r)});
        }
      } else {
        const auto text = text_ports_.find(id);
        const bool is_text = text != text_ports_.end() && text->second.count(name);
        n.args.push_back({name, is_text ? yaml_quote(a->Value()) : yaml_literal(a->Value())});
      }
    }
    return n;
  }

  static std::string shown_path(std::string path) {  // an unnamed use as BT.CPP shows it, ID::number
    for (size_t at = 0; (at = path.find('\x01', at)) != std::string::npos;) path.replace(at, 1, "::");
    return path;
  }

  ImportNode subtree(const tinyxml2::XMLElement* e, const Scope& scope) {
    const char* id_attr = e->Attribute("ID");
    if (!id_attr || !*id_attr) {
      error(e, "<SubTree> needs ID, the tree it runs");
      return always_node("failure");
    }
    const std::string id = id_attr;
    // BT.CPP refuses it (VerifyXML: "should not have any child"); dropping them would lose nodes.
    if (e->FirstChildElement() != nullptr)
      error(e, "<SubTree> with ID '" + id + "' has child elements; a SubTree runs its tree and holds no children (BT.CPP refuses them too)");
    if (!trees_.count(id)) {
      error(e, "SubTree names a missing tree '" + id + "'" + did_you_mean(id, tree_order_) + " (trees: " + join(tree_order_) + ")");
      return always_node("failure");
    }
    if (std::find(stack_.begin(), stack_.end(), id) != stack_.end()) {
      error(e, "SubTree '" + id + "' runs itself (" + join(stack_) + " -> " + id + ")");
      return always_node("failure");
    }
    Scope inner;
    inner.parent = &scope;
    inner.prefix = fresh_prefix(id);
    // BT.CPP names each use by its path, the outer use's path, '/', its name="..." (or its ID
    // and a number of its own when it has none), and refuses a tree in which two uses get the
    // same path (xml_parsing.cpp, recursivelyCreateSubtree: "Duplicate SubTree path detected").
    // (A control character stands for the number: no XML attribute can hold one.)
    const char* name_attr = e->Attribute("name");
    inner.path = (scope.path.empty() ? "" : scope.path + "/") +
                 (name_attr ? std::string(name_attr) : id + "\x01" + std::to_string(++unnamed_uses_));
    if (!subtree_paths_.insert(inner.path).second) {
      error(e, "two SubTrees get the path '" + shown_path(inner.path) + "' (BT.CPP names each by its name=\"...\" under the SubTree "
               "that holds it, and refuses the file: \"Duplicate SubTree path detected\"); give them different names, "
               "or none");
      inner.path += "\x01" + std::to_string(++unnamed_uses_);  // (its own uses' paths are not said again)
    }
    for (auto* a = e->FirstAttribute(); a; a = a->Next()) {
      // A remapping is an {entry} with spaces round it allowed (BT.CPP's isBlackboardPointer
      // strips them), else a fixed text exactly as written; _autoremap a boolean, converted
      // whole (" true" is refused).
      std::string name = a->Name(), v = is_ref(trimmed(a->Value())) ? trimmed(a->Value()) : std::string(a->Value());
      if (name == "_autoremap") {
        if (const int b = btcpp_bool(v); b < 0) error(e, "_autoremap must be true or false, got '" + v + "'");
        else inner.autoremap = b == 1;
        continue;
      }
      if (name == "name" || name == "ID" || name[0] == '_') continue;
      if (v == "{=}" || v == "=") v = "{" + name + "}";
      inner.remap[name] = v;
    }
    for (const auto& port : subtree_ports_[id]) {
      if (inner.remap.count(port.name) || inner.autoremap) continue;
      if (port.has_default) inner.remap[port.name] = port.def;
      else error(e, "SubTree '" + id + "' needs its port '" + port.name + "' (TreeNodesModel gives it no default)");
    }
    stack_.push_back(id);
    ImportNode body = tree_root(trees_[id], inner);
    stack_.pop_back();
    ImportNode n;
    n.kind = "bt_subtree";
    n.params.push_back({"id", yaml_quote(id)});
    n.children.push_back(std::move(body));
    return n;
  }

  ImportNode node(const tinyxml2::XMLElement* e, const Scope& scope) {
    if (depth_ >= 250) {  // thicket's trees nest at most 256 levels
      if (!too_deep_) error(e, "the tree nests deeper than 250 levels here (subtrees included)");
      too_deep_ = true;
      return always_node("failure");
    }
    // A brain holds at most 100,000 nodes (docs/errors.md): subtrees used several times each
    // at several levels multiply, so a small file could otherwise ask for billions.
    if (++visits_ > 100000) {
      if (!too_many_) error(e, "the tree passes 100000 nodes here (subtrees count once per use)");
      too_many_ = true;
      return always_node("failure");
    }
    // So can their attributes, which each use writes again (a 1 MB attribute in a SubTree used
    // 256 times took 40 s and 1 GB), with the ports' texts their references write and the checks
    // scripts become (resolve, script): bounded by what a brain may hold.
    auto past_bound = [&] {
      if (attribute_bytes_ <= kMaxYamlBytes) return false;
      if (!too_many_)
        error(e, "the tree's attributes pass " + std::to_string(kMaxYamlBytes >> 20) +
                     " MB here once its subtrees are expanded (each use of a SubTree writes its own copy of them, of"
                     " the port texts they name and of the checks its scripts become), more than a brain may hold");
      too_many_ = true;
      return true;
    };
    for (const tinyxml2::XMLAttribute* a = e->FirstAttribute(); a; a = a->Next())
      attribute_bytes_ += std::strlen(a->Name()) + std::strlen(a->Value());
    if (past_bound()) return always_node("failure");
    ++depth_;
    ImportNode n = guarded(e, scope);
    --depth_;
    if (past_bound()) return always_node("failure");
    placed_at(n, e);
    return n;
  }

  ImportNode guarded(const tinyxml2::XMLElement* e, const Scope& scope) {
    // Pre-conditions: a bt_guard around the node, evaluated against this scope (read before
    // the node, whose scripts may copy a key they type).
    std::vector<std::pair<std::string, std::string>> guard;
    static const std::vector<std::string> keys = {"failure_if", "success_if", "skip_if", "while"};
    for (size_t k = 0; k < kPre.size(); ++k)
      if (const char* code = e->Attribute(kPre[k].c_str())) {
        std::string c = script(e, code, scope, kPre[k]);
        if (!c.empty()) guard.push_back({keys[k], yaml_quote(c)});
      }
    ImportNode n = bare(e, scope);
    // Post-conditions: scripts the bt_guard runs after the node (a script that only reads does nothing).
    static const std::vector<std::string> post_keys = {"on_success", "on_failure", "post", "on_halted"};
    for (size_t k = 0; k < kPost.size(); ++k)
      if (const char* code = e->Attribute(kPost[k].c_str())) {
        bool assigns = false;
        std::string c = statements(e, code, scope, kPost[k], assigns);
        if (assigns) guard.push_back({post_keys[k], yaml_quote(c)});
      }
    if (guard.empty()) return n;
    ImportNode g;
    g.kind = "bt_guard";
    g.params = guard;
    g.children.push_back(std::move(n));
    return g;
  }

  ImportNode bare(const tinyxml2::XMLElement* e, const Scope& scope) {
    const std::string tag = e->Name();
    static const std::set<std::string> generic = {"Action", "Condition", "Control", "Decorator"};
    if (tag == "SubTree") return subtree(e, scope);
    std::string id = tag;
    if (generic.count(tag)) {
      const char* idv = e->Attribute("ID");
      if (!idv || !*idv) {  // (ID="" too, as BT.CPP: "must have the attribute [ID]")
        error(e, "<" + tag + "> needs ID, the node's registered name");
        return always_node("failure");
      }
      id = idv;
    } else if (e->Attribute("ID")) {
      error(e, "<" + tag + " ID=...>: the short form names the node by its tag and takes no ID");
    }
    std::vector<const tinyxml2::XMLElement*> kids;
    for (auto* k = e->FirstChildElement(); k; k = k->NextSiblingElement()) kids.push_back(k);
    const Builtin* b = find_builtin(id);
    if (!b && btcpp_reserved_id(id) && !generic.count(id) && id != "BehaviorTree" && id != "TreeNodesModel" && id != "root") {
      // A node of BT.CPP's own that has no thicket equivalent: read as a leaf of that name, the
      // tree would call a Lua leaf instead (a SetBlackboard's write lost without a word).
      std::vector<std::string> names;
      for (const auto& x : builtins()) names.push_back(x.id);
      error(e, "'" + id + "' is a node of BT.CPP's own that the import does not support (the nodes it supports: " +
                   join_names(names) + "); a leaf of your own cannot take this name in BT.CPP either");
      for (auto* k : kids) node(k, scope);  // their errors too: all of the file's at once
      return always_node("failure");
    }
    if (!b) {
      if (!kids.empty() || tag == "Control" || tag == "Decorator") {
        std::vector<std::string> names;
        for (const auto& x : builtins())
          if (x.shape != 'l') names.push_back(x.id);
        error(e, "'" + id + "' has children but is no built-in BT.CPP control or decorator node" + did_you_mean(id, names) +
                     " (a custom control or decorator has no thicket equivalent)");
        for (auto* k : kids) node(k, scope);  // their errors too: all of the file's at once
        return always_node("failure");
      }
      if (id == "Root" || id == "root")  // BT.CPP's validateModelName
        error(e, "'" + id + "' is a name BT.CPP reserves; no node can take it (rename the leaf)");
      auto cat = category_.find(id);
      const bool condition = tag == "Condition" || (cat != category_.end() && cat->second == "Condition");
      if (cat == category_.end()) typo_warning(e, id);
      return leaf(e, id, condition, scope);
    }
    if (id == "ReactiveSequence") reactive_children(e);
    // A built-in: its ports, its children.
    std::map<std::string, std::string> ports;
    for (auto* a = e->FirstAttribute(); a; a = a->Next()) {
      std::string name = a->Name();
      if (name == "name" || name == "ID" || name[0] == '_') continue;
      if (std::find(b->ports.begin(), b->ports.end(), name) == b->ports.end()) {
        error(e, "unknown attribute '" + name + "' for " + id + did_you_mean(name, b->ports) +
                     (b->ports.empty() ? " (it takes none)" : ""));
        continue;
      }
      ports[name] = a->Value();
    }
    const size_t want_min = id == "TryCatch" ? 2 : b->shape == 'c' ? 1 : b->shape == 'd' ? 1 : 0;
    const size_t want_max = b->shape == 'c' ? kNoPos - 1 : b->shape == 'd' ? 1 : 0;
    if (kids.size() < want_min || kids.size() > want_max) {
      const std::string want = b->shape == 'c' && kids.size() > want_max
                                   ? " may have at most " + std::to_string(want_max) + " children (a thicket node's most)"
                               : id == "TryCatch" ? " needs at least two children, the try block and the catch (BT.CPP throws at its first tick)"
                               : b->shape == 'c' ? " needs at least one child"
                               : b->shape == 'd' ? " takes exactly one child"
                                                 : " takes no children";
      error(e, id + want + ", got " + std::to_string(kids.size()));
      return always_node("failure");
    }
    ImportNode n;
    n.kind = b->kind;
    // A port's fixed value, as BT.CPP reads it: the text exactly as written (it trims no
    // literal: a Switch's case "run " is not "run"). Braces name a blackboard entry: at a
    // text port (`text`) with spaces round them too, which getInput strips; a typed port's
    // value is converted whole when BT.CPP builds the tree, so there " {b} " is refused, as a
    // number with a space before it is (from_chars) and a boolean or status spelt otherwise.
    auto literal_port = [&](const std::string& port, bool required, bool text = false) -> std::string {
      auto it = ports.find(port);
      if (it == ports.end()) {
        if (required) error(e, id + " needs its port '" + port + "'");
        return {};
      }
      const std::string& raw = it->second;
      if (!text && !is_ref(raw) && is_ref(trimmed(raw))) {
        error(e, id + "'s port '" + port + "' is '" + raw + "': BT.CPP refuses spaces round a typed port's {entry} (it converts "
                 "the whole text when it builds the tree)");
        return {};
      }
      std::string v = is_ref(trimmed(raw)) || trimmed(raw) == "=" || trimmed(raw) == "{=}" ? trimmed(raw) : raw;
      if (is_ref(v) || v == "=" || v == "{=}") {
        std::string r = resolve(v == "=" || v == "{=}" ? port : ref_key(v), scope);
        if (r[0] == '=') return r.substr(1);
        error(e, id + "'s port '" + port + "' reads the blackboard ('" + v + "'); thicket takes a fixed value there");
        return {};
      }
      return v;
    };
    auto int_port = [&](const std::string& port, bool required, std::string fallback) {
      std::string v = literal_port(port, required);
      if (v.empty()) v = fallback;
      if (v.empty()) return;
      int64_t x = 0;
      auto r = std::from_chars(v.data(), v.data() + v.size(), x);  // BT.CPP ignores what follows the digits
      if (r.ec != std::errc()) {
        error(e, id + "'s port '" + port + "' must be an integer, got '" + v + "'");
        return;
      }
      ignored_tail(e, port, v, r.ptr, std::to_string(x));
      n.params.push_back({port, std::to_string(x)});
    };
    auto msec_port = [&](const std::string& port) {
      std::string v = literal_port(port, true);
      if (v.empty()) return;
      int64_t x = 0;
      auto r = std::from_chars(v.data(), v.data() + v.size(), x);
      if (r.ec != std::errc() || x < 0) {
        error(e, id + "'s port '" + port + "' must be a whole number of milliseconds, got '" + v + "'");
        return;
      }
      ignored_tail(e, port, v, r.ptr, std::to_string(x) + " ms");
      n.params.push_back({"seconds", yaml_number(static_cast<double>(x) / 1000.0)});
    };
    if (id == "AsyncSequence" || id == "AsyncFallback") n.params.push_back({"async", "true"});
    if (id == "Parallel") {
      int_port("success_count", false, "");
      int_port("failure_count", false, "");
      // BT.CPP's thresholds: a count, or from the end when negative (-1: all children); more
      // than the children throws at the first tick ("Number of children is less than
      // threshold"): said here. Below -(children + 1) it means 0, as -(children + 1) does.
      const int64_t children = static_cast<int64_t>(kids.size());
      for (auto& param : n.params) {
        int64_t x = std::stoll(param.second);
        if (x > children) {
          error(e, "Parallel's " + param.first + " is " + param.second + ", more than its " + std::to_string(children) +
                       " children: BT.CPP stops it at its first tick (\"Number of children is less than threshold\")");
        } else if (x < -(children + 1)) {
          param.second = std::to_string(-(children + 1));
        }
      }
    }
    if (id == "ParallelAll") int_port("max_failures", false, "");
    if (id == "TryCatch") {
      // catch_on_halt="true" runs the catch child when the node is halted in its try block:
      // thicket's halts call no leaf but the halted ones' stop hooks.
      std::string v = literal_port("catch_on_halt", false);
      if (const int b = v.empty() ? 0 : btcpp_bool(v); b < 0)
        error(e, "TryCatch's port 'catch_on_halt' must be true or false (BT.CPP reads 1, true, TRUE, True, 0, false, FALSE, False), got '" + v + "'");
      else if (b == 1)
        error(e, "TryCatch's catch_on_halt=\"true\" (the catch child run when the node is halted) has no thicket equivalent: "
                 "a halt in thicket calls only the stop hooks of the halted leaves");
    }
    if (id == "Repeat" || id == "RetryUntilSuccessful") {
      // BT.CPP reads an int (out of its range: "Value out of bound", refused) and loops while
      // count < N or N == -1: any N below -1 loops no time, as 0 does (Repeat succeeds, Retry
      // fails, the child untouched; repeat_node.cpp, retry_node.cpp). thicket takes -1 and up.
      const std::string port = id == "Repeat" ? "num_cycles" : "num_attempts";
      int_port(port, true, "");
      if (!n.params.empty() && n.params.back().first == port) {
        const int64_t x = std::stoll(n.params.back().second);
        if (x < INT32_MIN || x > INT32_MAX) {
          error(e, id + "'s port '" + port + "' is " + n.params.back().second +
                       ", past an int's range: BT.CPP refuses it (\"Value out of bound\")");
          n.params.pop_back();
        } else if (x < -1) {
          const auto [line, column] = place(e);
          out_.warnings.push_back({line, column, id + "'s port '" + port + "' is " + n.params.back().second + ", which BT.CPP " +
                                                     (id == "Repeat" ? "repeats no time (it succeeds" : "tries no time (it fails") +
                                                     " without ticking its child), as 0: imported as 0 (-1 is for ever)"});
          n.params.back().second = "0";
        }
      }
    }
    if (id == "RunOnce") {
      std::string v = literal_port("then_skip", false);
      if (!v.empty()) {
        if (const int b = btcpp_bool(v); b < 0)
          error(e, "RunOnce's port 'then_skip' must be true or false (BT.CPP reads 1, true, TRUE, True, 0, false, FALSE, False), got '" + v + "'");
        else
          n.params.push_back({"then_skip", b ? "true" : "false"});
      }
    }
    if (id == "Timeout" || id == "Sleep") msec_port("msec");
    if (id == "Delay") msec_port("delay_msec");
    if (id.rfind("Switch", 0) == 0) {
      // A text port: BT.CPP trims neither it nor the cases (variable="" matches case_N="").
      auto it = ports.find("variable");
      std::string v = it == ports.end() ? "" : is_ref(trimmed(it->second)) ? trimmed(it->second) : it->second;
      if (it == ports.end()) error(e, id + " needs its port 'variable'");
      if (is_ref(v)) {
        std::string r = resolve(ref_key(v), scope);
        if (r[0] == '=') {
          v = r.substr(1);
        } else if (!key_name(ref_key(r))) {
          error(e, id + "'s variable names the blackboard entry '" + ref_key(r) +
                       "', which cannot be a thicket blackboard key (letters, digits and _, not starting with a digit)");
        } else {
          declare(ref_key(r), "string");
          v = r;
        }
      }
      n.params.push_back({"variable", yaml_quote(v)});
      const size_t cases = b->ports.size() - 1;
      std::string list = "[";
      // A case_N left out never matches (BT.CPP compares a case only when getInput finds it):
      // null in thicket's list.
      for (size_t k = 1; k <= cases; ++k) {
        const std::string port = "case_" + std::to_string(k);
        list += (k > 1 ? ", " : "") + (ports.count(port) ? yaml_quote(literal_port(port, false, true)) : std::string("~"));
      }
      n.params.push_back({"cases", list + "]"});
      if (kids.size() != cases + 1)
        error(e, id + " takes " + std::to_string(cases + 1) + " children (one per case, then the default), got " + std::to_string(kids.size()));
    }
    if (id == "Precondition") {
      auto it = ports.find("if");
      if (it == ports.end()) error(e, "Precondition needs its port 'if'");
      else if (std::string c = script(e, it->second, scope, "Precondition if"); !c.empty()) n.params.push_back({"if", yaml_quote(c)});
      // A NodeStatus: BT.CPP's convertFromString takes these in capitals only.
      std::string otherwise = literal_port("else", false);
      if (!otherwise.empty()) {
        if (otherwise != "SUCCESS" && otherwise != "FAILURE" && otherwise != "RUNNING" && otherwise != "SKIPPED")
          error(e, "Precondition's 'else' must be SUCCESS, FAILURE, RUNNING or SKIPPED (in capitals, as BT.CPP reads a "
                   "status), got '" + otherwise + "'");
        else {
          std::string lower = otherwise;
          std::transform(lower.begin(), lower.end(), lower.begin(), [](unsigned char ch) { return std::tolower(ch); });
          n.params.push_back({"else", lower});
        }
      }
    }
    if (id == "AlwaysSuccess") n.value = "success";
    if (id == "AlwaysFailure") n.value = "failure";
    if (id == "SetBlackboard") {  // SetBlackboardNode::tick as a script: `key := value`
      const std::string key = literal_port("output_key", true, true);
      auto it = ports.find("value");
      if (it == ports.end()) error(e, "SetBlackboard needs its port 'value'");
      if (key.empty() || it == ports.end()) return always_node("failure");
      if (!key_name(key) && key[0] != '@') {
        error(e, "SetBlackboard's output_key '" + key + "' is no blackboard key thicket can name (letters, digits, '_')");
        return always_node("failure");
      }
      const std::string v = it->second;  // as BT.CPP reads it: untrimmed
      std::string rhs;
      if (is_ref(v)) {
        rhs = ref_key(v);  // the entry's value, copied
      } else {
        // A text, converted to the type the key already has (BT.CPP parses it into the entry's
        // type); a key nothing types yet takes the type the text reads as.
        const std::string r = resolve(key, scope);
        std::string type = r[0] == '=' ? "" : known_type(ref_key(r));
        const std::string lit = yaml_literal(v);
        if (type.empty()) type = lit == "true" || lit == "false" ? "boolean" : lit.front() == '"' ? "string" : "number";
        if (type == "string") {
          if (v.find('\'') != std::string::npos) {
            error(e, "SetBlackboard's value '" + v + "' holds a ', which a thicket script's text cannot (BT.CPP's scripts quote texts with ')");
            return always_node("failure");
          }
          rhs = "'" + v + "'";
        } else if (type == "boolean") {
          const int b = btcpp_bool(trimmed(v));
          if (b < 0) {
            error(e, "SetBlackboard's value '" + v + "' is no boolean BT.CPP reads (1, true, TRUE, True, 0, false, FALSE, False), and '" + key + "' is a boolean");
            return always_node("failure");
          }
          rhs = b ? "true" : "false";
        } else {
          size_t at = 0;
          const std::string t = trimmed(v);
          const size_t sign = !t.empty() && t[0] == '-' ? 1 : 0;
          at = sign;
          const std::string num = t.size() > sign && std::isdigit(static_cast<unsigned char>(t[sign])) ? btcpp_number(t, at) : "";
          if (num.empty() || at != t.size()) {
            error(e, "SetBlackboard's value '" + v + "' is no number, and '" + key + "' is a number");
            return always_node("failure");
          }
          rhs = t;
        }
      }
      bool assigns = false;
      std::string c = statements(e, key + " := " + rhs, scope, id, assigns);
      if (!assigns) return always_node("failure");
      n.params.push_back({"code", yaml_quote(c)});
      return n;
    }
    if (id == "ScriptCondition" || id == "Script") {
      auto it = ports.find("code");
      if (it == ports.end()) {
        error(e, id + " needs its port 'code'");
        return always_node("failure");
      }
      if (id == "Script") {  // its assignments as a bt_script; a script that only reads succeeds, as BT.CPP's
        bool assigns = false;
        std::string c = statements(e, it->second, scope, id, assigns);
        if (assigns) {
          n.kind = "bt_script";
          n.params.push_back({"code", yaml_quote(c)});
        } else {
          n.kind = "always";
          n.value = "success";
        }
        return n;
      }
      n.value = script(e, it->second, scope, id);
      return n;
    }
    for (auto* k : kids) n.children.push_back(node(k, scope));
    return n;
  }

  struct Port {
    std::string name, def;
    bool has_default;
  };
  std::string path_, text_;
  ImportedBrain& out_;
  std::vector<ImportError>& errors_;
  std::vector<std::string> lines_;
  tinyxml2::XMLDocument doc_;
  std::map<std::string, const tinyxml2::XMLElement*> trees_;
  std::set<const tinyxml2::XMLElement*> reached_;  // the trees the import walked
  std::vector<std::string> tree_order_;
  std::map<std::string, std::string> category_;
  std::map<std::string, std::vector<Port>> subtree_ports_;
  std::map<std::string, std::set<std::string>> text_ports_;  // leaf ID -> its ports of type std::string
  std::map<std::string, std::string> types_;
  std::set<std::string> declared_;
  std::map<std::string, int> instances_;
  std::set<std::string> names_;            // every name-like word in the file's attributes
  std::set<std::string> prefixes_;         // the private-key prefixes given so far
  std::vector<std::string> stack_;
  int depth_ = 0;
  bool too_deep_ = false;
  size_t visits_ = 0;  // nodes made so far
  std::set<std::string> subtree_paths_;  // the SubTree uses' BT.CPP paths in the tree being walked
  size_t unnamed_uses_ = 0;  // numbers the SubTree uses with no name="..." (BT.CPP: their UIDs)
  bool too_many_ = false;
  size_t attribute_bytes_ = 0;  // of every node visited, each use of a subtree counting again
  std::set<std::string> typo_checked_;  // leaf IDs typo_warning has looked at
  std::vector<const tinyxml2::XMLElement*> duplicates_;  // trees whose ID an earlier tree has
};

}  // namespace

bool import_btcpp(const std::string& path, const std::string& text, const std::string& tree, ImportedBrain& out,
                  std::vector<ImportError>& errors) {
  out.file = path;
  BtImporter imp(path, text, out, errors);
  return imp.run(tree) && errors.empty();
}

}  // namespace thicket::cli
