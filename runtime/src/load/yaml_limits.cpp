// Limits on untrusted YAML: a nesting pre-scan, an alias-expansion count and the messages of a
// failed parse (yaml_limits.hpp).
#include "suggest.hpp"
#include "yaml_limits.hpp"

#include <algorithm>
#include <cctype>
#include <cstring>
#include <cstdio>

#include <yaml-cpp/depthguard.h>
#include <yaml-cpp/eventhandler.h>

#include <map>
#include <sstream>

#include "json_text.hpp"
#include "plain_file.hpp"
#include "yaml_merge.hpp"

namespace thicket {

// Line by line: the indentation levels open (a stack of indents), the list dashes that begin
// the line, and the flow brackets open ([ {, carried over lines). Quotes and comments are
// skipped, and so are the lines of block scalars (| and >). Brackets and quotes count only
// where a value may begin, so `message: a[1]` or `it's` in plain text are not nesting.
std::optional<YamlDepthHit> find_deep_nesting(const std::string& text, int limit) {
  std::vector<int> indents;
  int flow = 0, flow_base = 0;  // open flow brackets; block depth where the outer one opened
  char quote = 0;               // ' or " while inside a quoted scalar (may span lines)
  int block_scalar = -1;        // indent of the line that opened a | or > scalar, or -1
  int line_no = 0;
  size_t pos = 0;
  while (pos <= text.size()) {
    size_t end = text.find('\n', pos);
    if (end == std::string::npos) end = text.size();
    std::string_view line(text.data() + pos, end - pos);
    ++line_no;
    size_t next = end + 1;
    int indent = 0;
    while (static_cast<size_t>(indent) < line.size() && line[indent] == ' ') ++indent;
    bool blank = static_cast<size_t>(indent) >= line.size() || line[indent] == '#' || line[indent] == '\r';
    if (block_scalar >= 0) {
      if (blank || indent > block_scalar) {
        pos = next;
        continue;
      }
      block_scalar = -1;
    }
    if (blank && !quote) {
      pos = next;
      continue;
    }
    size_t i = 0;
    int depth = 0;
    if (!quote && flow == 0) {
      while (!indents.empty() && indents.back() > indent) indents.pop_back();
      if (indents.empty() || indents.back() < indent) indents.push_back(indent);
      depth = static_cast<int>(indents.size());
      i = static_cast<size_t>(indent);
      // `- - - x`: each dash is a list inside the one before.
      while (i < line.size() && line[i] == '-' && (i + 1 == line.size() || line[i + 1] == ' ')) {
        ++depth;
        i += 2;
        while (i < line.size() && line[i] == ' ') ++i;
      }
      if (depth > limit) return YamlDepthHit{depth, line_no, static_cast<int>(i > line.size() ? line.size() : i) + 1};
    }
    char prev = 0;  // the last non-space character outside quotes on this line (0: none yet)
    if (flow == 0) flow_base = depth;
    for (; i < line.size(); ++i) {
      char c = line[i];
      if (quote) {
        if (quote == '"' && c == '\\') ++i;
        else if (c == quote) {
          if (quote == '\'' && i + 1 < line.size() && line[i + 1] == '\'') ++i;  // '' inside '...'
          else quote = 0, prev = c;
        }
        continue;
      }
      bool value_start = prev == 0 || prev == ':' || prev == '-' || prev == '?' || prev == '[' || prev == '{' ||
                         prev == ',';
      if (c == ' ' || c == '\t' || c == '\r') continue;
      if (c == '#' && (i == 0 || line[i - 1] == ' ' || line[i - 1] == '\t')) break;
      if ((c == '\'' || c == '"') && value_start) {
        quote = c;
        continue;
      }
      if ((c == '[' || c == '{') && (flow > 0 || value_start)) {
        if (flow == 0) flow_base = depth;
        ++flow;
        if (flow_base + flow > limit) return YamlDepthHit{flow_base + flow, line_no, static_cast<int>(i) + 1};
      } else if ((c == ']' || c == '}') && flow > 0) {
        --flow;
      } else if (flow == 0 && (c == '[' || c == '{' || c == ',')) {
        c = 'x';  // inside plain text: not the start of a value
      }
      prev = c;
    }
    // A block scalar's text follows: `key: |`, `- >-`.
    if (!quote && flow == 0 && (prev == '|' || prev == '>')) block_scalar = indent;
    else if (!quote && flow == 0 && line.size() > 1) {
      size_t last = line.find_last_not_of(" \r");
      size_t bar = line.find_last_of("|>");
      if (bar != std::string::npos && last != std::string::npos && bar < last && bar > 0 && line[bar - 1] == ' ' &&
          line.substr(bar + 1, last - bar).find_first_not_of("+-0123456789") == std::string::npos)
        block_scalar = indent;
    }
    pos = next;
  }
  return std::nullopt;
}

namespace {

struct TooBig {};

// Counts nodes from parser events; an alias adds the size of the node its anchor named.
class ExpansionCounter : public YAML::EventHandler {
 public:
  explicit ExpansionCounter(uint64_t limit) : limit_(limit) {}
  std::optional<YamlSizeHit> hit;

  void OnDocumentStart(const YAML::Mark&) override {}
  void OnDocumentEnd() override {}
  void OnNull(const YAML::Mark& mark, YAML::anchor_t anchor) override { leaf(mark, anchor); }
  void OnScalar(const YAML::Mark& mark, const std::string&, YAML::anchor_t anchor, const std::string&) override {
    leaf(mark, anchor);
  }
  void OnAlias(const YAML::Mark& mark, YAML::anchor_t anchor) override {
    for (const auto& [open, start] : open_)
      if (open == anchor) {  // `&a [*a]`: a node that would hold itself, which no walk of it ends
        hit = YamlSizeHit{total_, mark.line + 1, mark.column + 1, true, true};
        throw TooBig{};
      }
    auto size = sizes_.find(anchor);
    add(mark, size == sizes_.end() ? 1 : size->second, true);
  }
  void OnSequenceStart(const YAML::Mark& mark, const std::string&, YAML::anchor_t anchor,
                       YAML::EmitterStyle::value) override {
    open(mark, anchor);
  }
  void OnSequenceEnd() override { close(); }
  void OnMapStart(const YAML::Mark& mark, const std::string&, YAML::anchor_t anchor, YAML::EmitterStyle::value) override {
    open(mark, anchor);
  }
  void OnMapEnd() override { close(); }

 private:
  void add(const YAML::Mark& mark, uint64_t n, bool alias = false) {
    total_ += n;
    if (total_ > limit_) {
      hit = YamlSizeHit{total_, mark.line + 1, mark.column + 1, alias};
      throw TooBig{};
    }
  }
  void leaf(const YAML::Mark& mark, YAML::anchor_t anchor) {
    add(mark, 1);
    if (anchor) sizes_[anchor] = 1;
  }
  void open(const YAML::Mark& mark, YAML::anchor_t anchor) {
    add(mark, 1);
    open_.push_back({anchor, total_ - 1});
  }
  void close() {
    if (open_.empty()) return;
    auto [anchor, start] = open_.back();
    open_.pop_back();
    if (anchor) sizes_[anchor] = total_ - start;
  }

  uint64_t limit_, total_ = 0;
  std::map<YAML::anchor_t, uint64_t> sizes_;
  std::vector<std::pair<YAML::anchor_t, uint64_t>> open_;
};

}  // namespace

namespace {
// The last text load_yaml_checked found within the limits on this thread: `thicket check` and
// the editor's check read a file's schema findings right after loading it, and a second parse
// of the same bytes (an eighth of the check's time) would find the same.
thread_local std::string last_within_limits;
}  // namespace

std::optional<YamlSizeHit> find_alias_bomb(const std::string& text, uint64_t limit) {
  if (limit >= kMaxYamlNodes && !last_within_limits.empty() && text == last_within_limits) return std::nullopt;
  std::istringstream in(text);
  ExpansionCounter counter(limit);
  try {
    YAML::Parser parser(in);
    parser.HandleNextDocument(counter);
  } catch (const TooBig&) {
  } catch (const std::exception&) {
    // A syntax error: YAML::Load reports it.
  }
  return counter.hit;
}

namespace {

// Keys given twice in one mapping, found from parser events: linear in the file, and an alias
// is one event (never expanded). A key that is not a plain scalar (an alias, a collection) is
// not compared.
class DuplicateKeys : public YAML::EventHandler {
 public:
  DuplicateKeys(const std::string& path, std::vector<Diagnostic>& diags) : path_(path), diags_(diags) {}
  void OnDocumentStart(const YAML::Mark&) override {}
  void OnDocumentEnd() override {}
  void OnNull(const YAML::Mark& mark, YAML::anchor_t) override { item(mark, nullptr); }
  void OnScalar(const YAML::Mark& mark, const std::string& tag, YAML::anchor_t, const std::string& value) override {
    // `!!null :` is a null key, not the text "" (which a key "" beside it was said to repeat).
    const bool null = tag == "!!null" || tag == "tag:yaml.org,2002:null";
    item(mark, null ? nullptr : &value);
  }
  void OnAlias(const YAML::Mark& mark, YAML::anchor_t) override { item(mark, nullptr); }
  void OnSequenceStart(const YAML::Mark& mark, const std::string&, YAML::anchor_t, YAML::EmitterStyle::value) override {
    item(mark, nullptr);
    open_.push_back(Open{false, true, {}});
  }
  void OnSequenceEnd() override { close(); }
  void OnMapStart(const YAML::Mark& mark, const std::string&, YAML::anchor_t, YAML::EmitterStyle::value) override {
    item(mark, nullptr);
    open_.push_back(Open{true, true, {}});
  }
  void OnMapEnd() override { close(); }

 private:
  struct Open {
    bool map;
    bool at_key;                                // a map: the next item is a key
    std::map<std::string, YAML::Mark> keys;     // a map: its keys so far
  };
  // An item of the innermost open collection: in a map, keys and values alternate.
  void item(const YAML::Mark& mark, const std::string* scalar) {
    if (open_.empty() || !open_.back().map) return;
    Open& m = open_.back();
    const bool key = m.at_key;
    m.at_key = !m.at_key;
    if (!key || !scalar) return;
    auto [was, fresh] = m.keys.emplace(*scalar, mark);
    // In a mapping that is a list's item, the second is often the next item without its '- '.
    const bool list_item = open_.size() >= 2 && !open_[open_.size() - 2].map;
    if (!fresh)
      diags_.push_back({Severity::Error, path_, mark.line + 1, mark.column + 1,
                        "key '" + *scalar + "' is given twice in this mapping (first at line " +
                            std::to_string(was->second.line + 1) + ", column " + std::to_string(was->second.column + 1) +
                            "); a mapping's keys must be unique (YAML would keep one of them, silently)" +
                            (list_item ? "; if it starts the next list item, put '- ' before it" : "")});
  }
  void close() {
    if (!open_.empty()) open_.pop_back();
  }
  const std::string& path_;
  std::vector<Diagnostic>& diags_;
  std::vector<Open> open_;
};

}  // namespace

namespace {

// Where each quoted scalar of the block structure starts ('...' or "..."; not inside [ ] or
// { }, where a text may go on at any indentation), to find one whose closing quote is missing.
class QuotedScalars : public YAML::EventHandler {
 public:
  std::vector<YAML::Mark> marks;
  void OnDocumentStart(const YAML::Mark&) override {}
  void OnDocumentEnd() override {}
  void OnNull(const YAML::Mark&, YAML::anchor_t) override {}
  void OnAlias(const YAML::Mark&, YAML::anchor_t) override {}
  void OnScalar(const YAML::Mark& m, const std::string& tag, YAML::anchor_t, const std::string&) override {
    if (tag == "!" && flow_ == 0) marks.push_back(m);  // "!": quoted (a plain scalar's tag is "?")
  }
  void OnSequenceStart(const YAML::Mark&, const std::string&, YAML::anchor_t, YAML::EmitterStyle::value s) override {
    open(s);
  }
  void OnSequenceEnd() override { close(); }
  void OnMapStart(const YAML::Mark&, const std::string&, YAML::anchor_t, YAML::EmitterStyle::value s) override { open(s); }
  void OnMapEnd() override { close(); }

 private:
  void open(YAML::EmitterStyle::value s) {
    styles_.push_back(s == YAML::EmitterStyle::Flow);
    flow_ += styles_.back();
  }
  void close() {
    if (styles_.empty()) return;
    flow_ -= styles_.back();
    styles_.pop_back();
  }
  std::vector<bool> styles_;
  int flow_ = 0;
};

// Every event to two handlers: the duplicate keys and the quoted scalars found in one parse
// (a second parse of each file cost 10-15% of a load).
class BothHandlers : public YAML::EventHandler {
 public:
  BothHandlers(YAML::EventHandler& a, YAML::EventHandler& b) : a_(a), b_(b) {}
  void OnDocumentStart(const YAML::Mark& m) override { a_.OnDocumentStart(m), b_.OnDocumentStart(m); }
  void OnDocumentEnd() override { a_.OnDocumentEnd(), b_.OnDocumentEnd(); }
  void OnNull(const YAML::Mark& m, YAML::anchor_t x) override { a_.OnNull(m, x), b_.OnNull(m, x); }
  void OnAlias(const YAML::Mark& m, YAML::anchor_t x) override { a_.OnAlias(m, x), b_.OnAlias(m, x); }
  void OnScalar(const YAML::Mark& m, const std::string& tag, YAML::anchor_t x, const std::string& v) override {
    a_.OnScalar(m, tag, x, v), b_.OnScalar(m, tag, x, v);
  }
  void OnSequenceStart(const YAML::Mark& m, const std::string& tag, YAML::anchor_t x, YAML::EmitterStyle::value s) override {
    a_.OnSequenceStart(m, tag, x, s), b_.OnSequenceStart(m, tag, x, s);
  }
  void OnSequenceEnd() override { a_.OnSequenceEnd(), b_.OnSequenceEnd(); }
  void OnMapStart(const YAML::Mark& m, const std::string& tag, YAML::anchor_t x, YAML::EmitterStyle::value s) override {
    a_.OnMapStart(m, tag, x, s), b_.OnMapStart(m, tag, x, s);
  }
  void OnMapEnd() override { a_.OnMapEnd(), b_.OnMapEnd(); }

 private:
  YAML::EventHandler& a_;
  YAML::EventHandler& b_;
};

// Where a second document starts (its first event), to say that it is not read.
class FirstEvent : public YAML::EventHandler {
 public:
  struct Seen {};
  YAML::Mark mark;
  void OnDocumentStart(const YAML::Mark& m) override { mark = m; }
  void OnDocumentEnd() override {}
  void OnNull(const YAML::Mark& m, YAML::anchor_t) override { seen(m); }
  void OnAlias(const YAML::Mark& m, YAML::anchor_t) override { seen(m); }
  void OnScalar(const YAML::Mark& m, const std::string&, YAML::anchor_t, const std::string&) override { seen(m); }
  void OnSequenceStart(const YAML::Mark& m, const std::string&, YAML::anchor_t, YAML::EmitterStyle::value) override { seen(m); }
  void OnSequenceEnd() override {}
  void OnMapStart(const YAML::Mark& m, const std::string&, YAML::anchor_t, YAML::EmitterStyle::value) override { seen(m); }
  void OnMapEnd() override {}

 private:
  void seen(const YAML::Mark& m) {
    mark = m;
    throw Seen{};
  }
};

}  // namespace

namespace {

// The quoted scalars found (QuotedScalars) whose text runs on to a line indented no deeper than
// their own: an error each.
void report_runaway_quotes(const std::string& text, const std::string& path, const std::vector<YAML::Mark>& marks,
                           std::vector<Diagnostic>& diags) {
  for (const YAML::Mark& m : marks) {
    const size_t open = static_cast<size_t>(m.pos);
    if (open >= text.size() || (text[open] != '\'' && text[open] != '"')) continue;
    const char q = text[open];
    size_t close = open + 1;  // its closing quote ('' and \" are no end)
    while (close < text.size()) {
      if (q == '\'' && text[close] == '\'' && close + 1 < text.size() && text[close + 1] == '\'') close += 2;
      else if (q == '"' && text[close] == '\\') close += 2;
      else if (text[close] == q) break;
      else ++close;
    }
    const size_t line_start = text.rfind('\n', open) == std::string::npos ? 0 : text.rfind('\n', open) + 1;
    const size_t indent = text.find_first_not_of(' ', line_start) - line_start;
    // The lines it runs on to: one indented no deeper than the line it opens on is where YAML
    // says a new key or item begins (yaml-cpp reads on, and takes it into the text).
    int line = m.line + 1;
    for (size_t at = text.find('\n', open); at != std::string::npos && at < close; at = text.find('\n', at + 1)) {
      ++line;
      const size_t start = at + 1, first = text.find_first_not_of(" \r", start);
      if (first == std::string::npos || first >= close || text[first] == '\n') continue;  // blank, or its end
      if (first - start > indent) continue;
      const size_t end = std::min({text.find('\n', start), close, start + 40});
      diags.push_back({Severity::Error, path, m.line + 1, m.column + 1,
                       std::string("this quoted text has no closing ") + q + " on its line: it runs on to line " +
                           std::to_string(line) + " ('" + text.substr(first, end - first) +
                           "'), which is indented no deeper than this line, so it would be taken into the text; "
                           "close the quote where the text ends"});
      break;
    }
  }
}

}  // namespace

void find_runaway_quotes(const std::string& text, const std::string& path, std::vector<Diagnostic>& diags) {
  std::istringstream in(text);
  QuotedScalars quoted;
  try {
    YAML::Parser parser(in);
    parser.HandleNextDocument(quoted);
  } catch (const std::exception&) {
    // A syntax error further on (the quote the text ran on to, say): the quotes before it are
    // checked still, and YAML::Load reports the error.
  }
  report_runaway_quotes(text, path, quoted.marks, diags);
}

namespace {

// The loaders read the first document only: anything after it would be dropped unread. Called
// once the parser has read the first.
void second_document(YAML::Parser& parser, const std::string& text, const std::string& path,
                     std::vector<Diagnostic>& diags) {
  FirstEvent next;
  bool more = false;
  YAML::Mark at;
  try {
    more = parser.HandleNextDocument(next);
    at = next.mark;
  } catch (const FirstEvent::Seen&) {
    more = true;
    at = next.mark;
  } catch (const YAML::Exception& e) {
    more = true;
    at = e.mark;
  }
  if (!more) return;
  // Said where the second document's first event is; when that is the end of the file (a file
  // ending in '---' and a line break was told of line N + 1, past its last), at the '---' or
  // '...' before it.
  int line = at.line + 1, column = at.column + 1;
  std::vector<size_t> starts{0};
  for (size_t i = 0; i < text.size(); ++i)
    if (text[i] == '\n') starts.push_back(i + 1);
  const bool at_end = static_cast<size_t>(line) >= starts.size() && starts.back() >= text.size();
  for (int l = std::min<int>(line, static_cast<int>(starts.size())); at_end && l >= 1; --l) {
    const size_t from = starts[static_cast<size_t>(l) - 1];
    if (text.compare(from, 3, "---") == 0 || text.compare(from, 3, "...") == 0) {
      line = l;
      column = 1;
      break;
    }
  }
  diags.push_back({Severity::Error, path, line, column,
                   "a second YAML document starts here (after '---' or '...'); a file holds one document, and "
                   "the rest would not be read"});
}

// The checks made from parser events before YAML::Load, in one parse (each parse of a file is
// about a third of its load: yaml-cpp takes ~1,100 instructions a byte): the nodes aliases
// expand to (returned when too many, and then nothing else is said), keys given twice, quoted
// texts that run on, a second document. A syntax error ends it saying nothing: YAML::Load
// says it, at its place.
std::optional<YamlSizeHit> check_events(const std::string& text, const std::string& path,
                                        std::vector<Diagnostic>& found) {
  std::istringstream in(text);
  ExpansionCounter counter(kMaxYamlNodes);
  DuplicateKeys finder(path, found);
  QuotedScalars quoted;
  BothHandlers checks(finder, quoted);
  BothHandlers all(counter, checks);
  YAML::Parser parser(in);
  try {
    parser.HandleNextDocument(all);
  } catch (const TooBig&) {
    found.clear();
    return counter.hit;
  } catch (const std::exception&) {
    found.clear();
    return std::nullopt;
  }
  report_runaway_quotes(text, path, quoted.marks, found);
  second_document(parser, text, path, found);
  return std::nullopt;
}

}  // namespace

namespace {

// Stops the parser at the first top-level key equal to `key` (or at the end of the top level).
class TopLevelKey : public YAML::EventHandler {
 public:
  struct Done {};
  explicit TopLevelKey(const std::string& key) : key_(key) {}
  bool found = false;
  void OnDocumentStart(const YAML::Mark&) override {}
  void OnDocumentEnd() override { throw Done{}; }
  void OnNull(const YAML::Mark&, YAML::anchor_t) override { item(nullptr); }
  void OnAlias(const YAML::Mark&, YAML::anchor_t) override { item(nullptr); }
  void OnScalar(const YAML::Mark&, const std::string&, YAML::anchor_t, const std::string& value) override { item(&value); }
  void OnSequenceStart(const YAML::Mark&, const std::string&, YAML::anchor_t, YAML::EmitterStyle::value) override {
    if (depth_ == 0) throw Done{};  // a list at the top: no keys
    item(nullptr);
    ++depth_;
  }
  void OnSequenceEnd() override { end(); }
  void OnMapStart(const YAML::Mark&, const std::string&, YAML::anchor_t, YAML::EmitterStyle::value) override {
    if (depth_ > 0) item(nullptr);
    ++depth_;
  }
  void OnMapEnd() override { end(); }

 private:
  void item(const std::string* scalar) {
    if (depth_ == 0) throw Done{};  // a scalar document: no keys
    if (depth_ != 1) return;
    const bool is_key = at_key_;
    at_key_ = !at_key_;
    if (is_key && scalar && *scalar == key_) {
      found = true;
      throw Done{};
    }
  }
  void end() {
    if (--depth_ == 0) throw Done{};
  }
  const std::string& key_;
  int depth_ = 0;
  bool at_key_ = true;
};

}  // namespace

bool has_top_level_key(const std::string& path, const std::string& key) {
  std::string text, why;
  if (!read_limited(path, kMaxYamlBytes, text, why) || find_deep_nesting(text)) return false;
  std::istringstream in(text);
  TopLevelKey finder(key);
  try {
    YAML::Parser parser(in);
    parser.HandleNextDocument(finder);
  } catch (const TopLevelKey::Done&) {
  } catch (const std::exception&) {
    return false;  // a syntax error: the loader reports it
  }
  return finder.found;
}

namespace {
// The column (1-based) of the first tab among the leading blanks of line `line` (0-based) of
// `text`, or 0. YAML indents with spaces only; given a tab there, yaml-cpp says "illegal map
// value" or "illegal block entry", which names neither the tab nor where it is.
// " (a key longer than 1024 characters? ...)" when line `line` (0-based) or the one before it
// holds a run of 1024 or more characters without a ':' or ',': the parser takes no longer key
// and says "illegal map value" or "end of map flow not found", nothing of the length.
std::string long_key_hint(const std::string& text, int line) {
  size_t from = 0;  // the start of the line before the error's
  for (int k = 0; k < line - 1; ++k) {
    from = text.find('\n', from);
    if (from == std::string::npos) return {};
    ++from;
  }
  size_t run = 0;
  int lines = 0;
  for (size_t i = from; i < text.size() && lines < 2; ++i) {
    const char c = text[i];
    if (c == '\n') ++lines;
    run = (c == ':' || c == ',' || c == '\n' || c == '{' || c == '[') ? 0 : run + 1;
    if (run >= 1024) return " (a key longer than 1024 characters? the YAML parser takes no longer key)";
  }
  return {};
}

// Plain words for yaml-cpp's commonest syntax errors, from the text around them (the parser
// names what it met, "illegal map value", not what to mend): "" when no cause is clear. `line`
// is 0-based, the parser's. May move `at` (1-based line, column) to where the mend goes.
// An alias whose anchor is not defined (*wlak): yaml-cpp names neither; said with its name and
// a close anchor of the file's, if any.
std::string alias_hint(const std::string& text, int line, int column) {
  size_t from = 0;
  for (int k = 0; k < line; ++k) {
    const size_t nl = text.find('\n', from);
    if (nl == std::string::npos) return "";
    from = nl + 1;
  }
  const size_t end = std::min(text.find('\n', from), text.size());
  const std::string l = text.substr(from, end - from);
  auto name_char = [](char c) { return !std::isspace(static_cast<unsigned char>(c)) && std::string(",[]{}").find(c) == std::string::npos; };
  // The '*' at or before the mark's column on its line.
  size_t star = std::min(static_cast<size_t>(std::max(column, 0)), l.size());
  while (star > 0 && (star >= l.size() || l[star] != '*')) --star;
  if (star >= l.size() || l[star] != '*') return "";
  size_t e = star + 1;
  while (e < l.size() && name_char(l[e])) ++e;
  const std::string alias = l.substr(star + 1, e - star - 1);
  if (alias.empty()) return "";
  std::vector<std::string> anchors;
  for (size_t i = 0; (i = text.find('&', i)) != std::string::npos && anchors.size() < 10000; ++i) {
    if (i > 0 && !std::isspace(static_cast<unsigned char>(text[i - 1])) && std::string("[{,:-").find(text[i - 1]) == std::string::npos) continue;
    size_t j = i + 1;
    while (j < text.size() && name_char(text[j])) ++j;
    if (j > i + 1) anchors.push_back(text.substr(i + 1, j - i - 1));
  }
  const std::string near = closest_name(alias, anchors);
  return " (the alias '*" + shown_name(alias, 80) + "' names no anchor '&" + shown_name(alias, 80) + "' written before it" +
         (near.empty() ? std::string() : "; did you mean '*" + near + "'?") + ")";
}

std::string syntax_hint(const std::string& text, const std::string& what, int line, std::pair<int, int>& at) {
  std::vector<std::string> lines;
  for (size_t from = 0; from <= text.size();) {
    const size_t end = std::min(text.find('\n', from), text.size());
    std::string l = text.substr(from, end - from);
    if (!l.empty() && l.back() == '\r') l.pop_back();
    lines.push_back(std::move(l));
    from = end + 1;
  }
  auto indent = [](const std::string& l) { return static_cast<int>(l.find_first_not_of(' ')); };
  auto blank = [](const std::string& l) {
    const size_t i = l.find_first_not_of(" \t");
    return i == std::string::npos || l[i] == '#';
  };
  const int last = std::min(line, static_cast<int>(lines.size()) - 1);
  if (last < 0) return "";
  // A quote opened and not closed on its line (outside a comment): YAML reads on to the next
  // quote, lines later, and fails there.
  auto open_quote = [&](int k, int& column) {
    const std::string& l = lines[static_cast<size_t>(k)];
    char in = 0;
    for (size_t i = 0; i < l.size(); ++i) {
      const char c = l[i];
      if (in == 0) {
        if (c == '#' && (i == 0 || l[i - 1] == ' ')) break;
        if ((c == '"' || c == '\'') && (i == 0 || std::string(" \t[{,:-").find(l[i - 1]) != std::string::npos)) {
          in = c;
          column = static_cast<int>(i) + 1;
        }
      } else if (in == '"' && c == '\\') {
        ++i;
      } else if (c == in) {
        if (in == '\'' && i + 1 < l.size() && l[i + 1] == '\'') ++i;  // '' inside '...'
        else in = 0;
      }
    }
    return in != 0;
  };
  if (what.find("end of") == 0 || what.find("flow") != std::string::npos) {
    for (int k = last; k >= 0; --k) {
      int column = 0;
      if (!blank(lines[static_cast<size_t>(k)]) && open_quote(k, column)) {
        at = {k + 1, column};
        return "; the quote opened here is not closed on its line, so YAML read on to a later quote: close it";
      }
    }
  }
  // The '[' and '{' open (outside quotes and comments) at the end of line `upto` (0-based),
  // innermost last. A closer that does not match the innermost one stops the scan: it is put in
  // `wrong` with the opener (a zero Bracket when none was open).
  struct Bracket {
    char c;
    int line, column;
  };
  auto brackets = [&](int upto, std::pair<Bracket, Bracket>* wrong) {
    std::vector<Bracket> open;
    for (int k = 0; k <= upto; ++k) {
      const std::string& l = lines[static_cast<size_t>(k)];
      char in = 0;
      for (size_t i = 0; i < l.size(); ++i) {
        const char c = l[i];
        if (in != 0) {
          if (in == '"' && c == '\\') ++i;
          else if (c == in) in = 0;
        } else if (c == '"' || c == '\'') {
          in = c;
        } else if (c == '#' && (i == 0 || l[i - 1] == ' ')) {
          break;
        } else if (c == '[' || c == '{') {
          open.push_back({c, k + 1, static_cast<int>(i) + 1});
        } else if (c == ']' || c == '}') {
          if (!open.empty() && open.back().c == (c == ']' ? '[' : '{')) {
            open.pop_back();
          } else {
            if (wrong) *wrong = {open.empty() ? Bracket{0, 0, 0} : open.back(), Bracket{c, k + 1, static_cast<int>(i) + 1}};
            return open;
          }
        }
      }
    }
    return open;
  };
  auto closer = [](char c) { return std::string(1, c == '[' ? ']' : '}'); };
  auto where = [](const Bracket& b) { return std::to_string(b.line) + ":" + std::to_string(b.column); };
  if (what == "end of sequence flow not found" || what == "end of map flow not found") {
    // The '[' or '{' left open: the last one not closed before the parser stopped.
    const char want = what[7] == 's' ? '[' : '{';
    const std::vector<Bracket> open = brackets(last, nullptr);
    for (auto it = open.rbegin(); it != open.rend(); ++it)
      if (it->c == want)
        return std::string("; the '") + want + "' opened at " + where(*it) + " is not closed: close it with '" + closer(want) + "'";
  }
  if (what == "illegal flow end") {
    // `[{action: A}, {action: B}}`: a '}' where the '[' is to be closed, or a closer too many.
    std::pair<Bracket, Bracket> wrong{};
    brackets(last, &wrong);
    if (wrong.second.c != 0) {
      at = {wrong.second.line, wrong.second.column};
      if (wrong.first.c == 0) return std::string("; this '") + wrong.second.c + "' closes nothing: no '[' or '{' is open here";
      return std::string("; this '") + wrong.second.c + "' does not close the '" + wrong.first.c + "' opened at " +
             where(wrong.first) + ": close that with '" + closer(wrong.first.c) + "'";
    }
  }
  if (what == "illegal block entry") {
    // A '- ' item on a line after a '[' or '{' left open above it: YAML is still inside it.
    const std::vector<Bracket> open = last > 0 ? brackets(last - 1, nullptr) : std::vector<Bracket>{};
    if (!open.empty())
      return std::string("; the '") + open.back().c + "' opened at " + where(open.back()) + " is not closed (a '- ' item cannot " +
             "start inside it): close it with '" + closer(open.back().c) + "'";
  }
  if (what == "illegal map value") {
    // `sequence` without its ':' above an indented block: YAML reads the word and the lines
    // under it as one text, and the first ': ' is a value it did not expect.
    for (int k = last - 1; k >= 0 && k >= last - 3; --k) {
      const std::string& l = lines[static_cast<size_t>(k)];
      if (blank(l)) continue;
      std::string word = l.substr(static_cast<size_t>(indent(l)));
      if (word.rfind("- ", 0) == 0) word = word.substr(2);
      if (!word.empty() && word.find_first_of(":#\"'{}[],") == std::string::npos && word.find(' ') == std::string::npos &&
          indent(lines[static_cast<size_t>(last)]) > indent(l)) {
        at = {k + 1, static_cast<int>(l.size()) + 1};
        return "; '" + word + "' has no ':' after it, so YAML read it and the lines under it as one text: write '" + word + ":'";
      }
      break;
    }
    return "; a ':' followed by a space starts a value: quote a text that holds ': ', or check the line above for a key "
           "missing its ':'";
  }
  if (what == "end of map not found" || what == "end of sequence not found") {
    const std::string& l = lines[static_cast<size_t>(last)];
    if (blank(l)) return "";
    const int mine = indent(l);
    for (int k = last - 1; k >= 0; --k) {
      const std::string& above = lines[static_cast<size_t>(k)];
      if (blank(above)) continue;
      const int theirs = indent(above);
      const bool item_above = above.compare(static_cast<size_t>(theirs), 2, "- ") == 0;
      const bool item_here = l.compare(static_cast<size_t>(mine), 2, "- ") == 0;
      if (theirs == mine && item_above != item_here)
        return item_above ? "; a key where the list above it goes on: at one indentation a mapping's keys and a list's "
                            "items cannot mix (indent it under the item it belongs to, or start a new key above)"
                          : "; a list item among a mapping's keys: indent it under the key it belongs to";
      if (theirs < mine) {  // the line it would belong to is shallower: no level above matches
        int sibling = -1;
        for (int j = k + 1; j < last; ++j)
          if (!blank(lines[static_cast<size_t>(j)])) {
            sibling = indent(lines[static_cast<size_t>(j)]);
            break;
          }
        if (sibling >= 0 && sibling != mine)
          return "; this line is indented " + std::to_string(mine) + " spaces and the lines above it " +
                 std::to_string(sibling) + ": indent it as the lines it belongs with";
        // Indented under a key whose value is already on its line (`act: {leaf: X}`, `a: 1`):
        // nothing more can nest under it.
        std::string key_line = above.substr(static_cast<size_t>(theirs));
        if (key_line.rfind("- ", 0) == 0) key_line = key_line.substr(2);
        const size_t colon = key_line.find(": ");
        if (sibling < 0 && colon != std::string::npos && colon > 0 &&
            key_line.find_first_not_of(' ', colon + 2) != std::string::npos && key_line[colon + 2] != '#' &&
            key_line.find_first_of("\"'{[") > colon) {
          const std::string key = key_line.substr(0, colon);
          return "; '" + shown_name(key, 60) + "' on the line above has its value there already, so no line can nest "
                 "under it: indent this line as the keys it belongs with";
        }
        return "";
      }
      if (theirs == mine) continue;
      return "; this line is indented " + std::to_string(mine) + " spaces and the line above it " + std::to_string(theirs) +
             ": indent it as the lines it belongs with";
    }
  }
  return "";
}

int tab_in_indentation(const std::string& text, int line) {
  size_t at = 0;
  for (int k = 0; k < line; ++k) {
    at = text.find('\n', at);
    if (at == std::string::npos) return 0;
    ++at;
  }
  // The indentation, and that of a list item's content after its dash ("-\taction: x": the
  // parser says "illegal map value" at the colon, nothing of the tab).
  auto blank = [&](size_t i) { return i < text.size() && (text[i] == ' ' || text[i] == '\t'); };
  for (size_t i = at; blank(i) || (i < text.size() && text[i] == '-' && blank(i + 1)); ++i)
    if (text[i] == '\t') return static_cast<int>(i - at) + 1;
  return 0;
}
}  // namespace

namespace {
// The first bytes a YAML file of ours cannot hold, as a diagnostic: text that is not UTF-8
// (YAML's UTF-16 and UTF-32 included: the limits' scans and the error positions read UTF-8),
// a NUL (no YAML text holds one; yaml-cpp reported it as a bad escape, or not at all in a
// comment), or a line ended by CR alone (YAML allows it, yaml-cpp reads no line break there).
std::optional<Diagnostic> unreadable_bytes(const std::string& text, const std::string& path) {
  auto at = [&](size_t offset, const std::string& message) {
    const size_t line_start = offset == 0 ? 0 : text.rfind('\n', offset - 1) + 1;  // npos + 1 == 0
    const auto line = static_cast<int>(std::count(text.begin(), text.begin() + static_cast<std::ptrdiff_t>(offset), '\n')) + 1;
    return Diagnostic{Severity::Error, path, line, static_cast<int>(offset - line_start) + 1, message};  // in bytes, as yaml-cpp's: columns_in_characters converts them
  };
  if (text.size() >= 2 && ((text[0] == '\xFF' && text[1] == '\xFE') || (text[0] == '\xFE' && text[1] == '\xFF')))
    return at(0, "the file is UTF-16 text; save it as UTF-8");
  if (const size_t bad = first_invalid_utf8(text); bad != std::string::npos)
    return at(bad, "the file is not UTF-8 (byte " + hex_byte(text[bad]) + " here); save it as UTF-8");
  if (const size_t nul = text.find('\0'); nul != std::string::npos)
    return at(nul, "a NUL byte (0x00) here: a YAML file holds text (is it the right file?)");
  for (size_t cr = text.find('\r'); cr != std::string::npos; cr = text.find('\r', cr + 1))
    if (cr + 1 == text.size() || text[cr + 1] != '\n')
      return at(cr, "a line ends with CR alone here (an old Mac line end); save the file with LF or CRLF line ends");
  return std::nullopt;
}
}  // namespace

std::optional<YAML::Node> load_yaml_checked(const std::string& text, const std::string& path,
                                            std::vector<Diagnostic>& diags) {
  if (auto bytes = unreadable_bytes(text, path)) {
    diags.push_back(std::move(*bytes));
    return std::nullopt;
  }
  if (auto deep = find_deep_nesting(text)) {
    diags.push_back({Severity::Error, path, deep->line, deep->column,
                     "nesting deeper than " + std::to_string(kMaxYamlDepth) + " levels at line " +
                         std::to_string(deep->line) + "; a file may nest at most " + std::to_string(kMaxYamlDepth) +
                         " levels (lists, mappings and brackets inside each other)"});
    return std::nullopt;
  }
  std::vector<Diagnostic> found;  // said once the text is known to load
  if (auto bomb = check_events(text, path, found)) {
    if (bomb->recursive)
      diags.push_back({Severity::Error, path, bomb->line, bomb->column,
                       "this alias names a node it stands inside (its anchor's node is not finished here), so the "
                       "node would hold itself without end; an alias may name only a node written before it"});
    else if (bomb->by_alias)
      diags.push_back({Severity::Error, path, bomb->line, bomb->column,
                       "aliases expand to more than " + std::to_string(kMaxYamlNodes) +
                           " nodes here (each alias is a copy of its anchor's node; a file may have at most " +
                           std::to_string(kMaxYamlNodes) + " nodes once its aliases are expanded)"});
    else
      diags.push_back({Severity::Error, path, bomb->line, bomb->column,
                       "the file passes " + std::to_string(kMaxYamlNodes) +
                           " YAML nodes here (keys, values and list items, aliases expanded); a file may have at most " +
                           std::to_string(kMaxYamlNodes)});
    return std::nullopt;
  }
  try {
    YAML::Node doc = YAML::Load(text);
    if (text.size() <= (4u << 20)) last_within_limits = text;  // (a copy per thread that loads: small files only)
    else last_within_limits.clear();
    diags.insert(diags.end(), found.begin(), found.end());  // keys twice, runaway quotes, a second document
    expand_merge_keys(doc, path, diags);
    return doc;
  } catch (const YAML::DeepRecursion& e) {
    diags.push_back({Severity::Error, path, e.mark.line + 1, e.mark.column + 1,
                     "nesting too deep for the YAML parser (more than " + std::to_string(kMaxYamlDepth) +
                         " levels) near here"});
  } catch (const YAML::ParserException& e) {
    find_runaway_quotes(text, path, diags);  // the cause of many a syntax error further on
    if (const int tab = e.mark.line >= 0 ? tab_in_indentation(text, e.mark.line) : 0)
      diags.push_back({Severity::Error, path, e.mark.line + 1, tab,
                       "a tab in this line's indentation; YAML indents with spaces only (the parser: " + e.msg + ")"});
    else {
      std::pair<int, int> at{e.mark.line + 1, e.mark.column + 1};
      std::string hint = long_key_hint(text, e.mark.line);
      if (hint.empty() && e.msg.find("anchor is not defined") != std::string::npos) hint = alias_hint(text, e.mark.line, e.mark.column);
      if (hint.empty()) hint = syntax_hint(text, e.msg, e.mark.line, at);
      diags.push_back({Severity::Error, path, at.first, at.second, "YAML syntax: " + e.msg + hint});
    }
  } catch (const YAML::Exception& e) {
    diags.push_back({Severity::Error, path, 0, 0, std::string("YAML: ") + e.what()});
  }
  return std::nullopt;
}

void columns_in_characters(const std::string& text, const std::string& path, std::vector<Diagnostic>& diags,
                           size_t from) {
  if (std::all_of(text.begin(), text.end(), [](char c) { return static_cast<unsigned char>(c) < 0x80; })) return;
  std::vector<size_t> line_start{0};  // of each line (line 1 at [0])
  for (size_t i = 0; i < text.size(); ++i)
    if (text[i] == '\n') line_start.push_back(i + 1);
  for (size_t k = from; k < diags.size(); ++k) {
    Diagnostic& d = diags[k];
    if (d.file != path || d.line < 1 || d.column < 2 || static_cast<size_t>(d.line) > line_start.size()) continue;
    size_t start = line_start[static_cast<size_t>(d.line) - 1];
    // yaml-cpp's columns on the first line do not count a byte order mark (nor does an editor).
    if (d.line == 1 && text.compare(0, 3, "\xEF\xBB\xBF") == 0) start = 3;
    const size_t end = std::min(text.size(), start + static_cast<size_t>(d.column) - 1);
    d.column = static_cast<int>(utf8_characters(std::string_view(text).substr(start, end - start))) + 1;
  }
}

std::vector<size_t> line_starts(const std::string& text) {
  std::vector<size_t> starts{0};
  for (size_t k = text.find('\n'); k != std::string::npos; k = text.find('\n', k + 1)) starts.push_back(k + 1);
  return starts;
}

// A value left out (`action:` or a bare `-`) is a null node that yaml-cpp marks at the next
// token, often on a later line (the next item, or past the end of the file). Its place is
// the key it belongs to (where the schema puts it too), or the dash.
bool empty_value_at(const std::string& text, const std::vector<size_t>& starts, size_t pos, int& line, int& column) {
  // yaml-cpp's offsets do not count a UTF-8 byte order mark at the start of the text.
  if (text.compare(0, 3, "\xEF\xBB\xBF") == 0) pos += 3;
  if (pos > text.size()) pos = text.size();
  // A null written out (`~`, `null`) is marked at itself: a word that only starts so
  // (`nullify:`, `~x`) is the next token, not the null.
  auto written = [&](size_t n) {
    return pos + n >= text.size() || std::strchr(" \t\r\n,]}#", text[pos + n]) != nullptr;
  };
  if (pos < text.size() && text[pos] == '~' && written(1)) return false;
  for (const char* word : {"null", "Null", "NULL"})
    if (text.compare(pos, 4, word) == 0 && written(4)) return false;
  size_t end = pos;  // look at the text before `end` on its line, then at earlier lines
  while (true) {
    const size_t start = end == 0 ? 0 : text.rfind('\n', end - 1) == std::string::npos ? 0 : text.rfind('\n', end - 1) + 1;
    // The line's text up to `end`, without a comment (a '#' at its start or after a blank,
    // outside quotes; a quote opens only where a scalar may start: `don't:` holds none).
    size_t stop = end;
    char quote = 0;
    for (size_t k = start; k < end; ++k) {
      const char c = text[k];
      if (quote) {
        if (c == quote) quote = 0;
      } else if ((c == '"' || c == '\'') && (k == start || std::strchr(" \t[{,", text[k - 1]))) {
        quote = c;
      } else if (c == '#' && (k == start || text[k - 1] == ' ' || text[k - 1] == '\t')) {
        stop = k;
        break;
      }
    }
    size_t last = stop;
    while (last > start && (text[last - 1] == ' ' || text[last - 1] == '\t' || text[last - 1] == '\r')) --last;
    if (last > start) {
      const char c = text[last - 1];
      if (c != ':' && c != '-') return false;
      size_t at = last - 1;
      if (c == ':') {  // back to the key's first character: `key:`, `"a key" :`, `{key:`
        while (at > start && (text[at - 1] == ' ' || text[at - 1] == '\t')) --at;
        if (at > start && (text[at - 1] == '"' || text[at - 1] == '\'')) {
          const char q = text[at - 1];
          size_t open = at - 1;
          while (open > start && text[open - 1] != q) --open;
          at = open > start ? open - 1 : at;
        } else {
          while (at > start && !std::strchr(" \t{[,", text[at - 1])) --at;
        }
      }
      line = static_cast<int>(std::upper_bound(starts.begin(), starts.end(), start) - starts.begin());
      column = static_cast<int>(at - start) + 1;
      return true;
    }
    if (start == 0) return false;
    end = start - 1;  // the line before (its '\n' excluded)
  }
}


}  // namespace thicket
