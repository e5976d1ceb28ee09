// Records (docs/record-format.md) into numpy arrays: thicket.read_record(path) and a run's
// `.record`. The tick lines are scanned by hand (numbers with std::from_chars, strings and
// nested arrays skipped) rather than through a JSON DOM: a 1,000-agent, 600-tick record is
// ~30 MB of text, and a DOM would spend most of its time building objects no one reads.
#include "py_record.hpp"
#include "record_check.hpp"  // thicket view's checks, for every line but the canonical tick lines
#include "record_reader.hpp"  // thicket view's reader of plain and gzip files
#include "plain_file.hpp"  // not_plain_file

#include <nlohmann/json.hpp>

#include <pybind11/numpy.h>
#include <pybind11/stl.h>

#include <algorithm>
#include <cerrno>
#include <charconv>
#include <cmath>
#include <condition_variable>
#include <cstring>
#include <deque>
#include <exception>
#include <mutex>
#include <thread>
#include <fstream>
#include <stdexcept>
#include <unordered_map>

namespace thicket_py {
namespace {

// The scanner met a line not laid out as thicket writes it (spaces after the colons, keys in
// another order): its message says what it expected there, not what is wrong with the line.
struct LayoutError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

// A cursor over one line, with the few token readers the tick lines need.
struct Scan {
  const char* p;
  const char* end;
  int line;

  [[noreturn]] void fail(const std::string& what) const {
    throw std::runtime_error("line " + std::to_string(line) + ": " + what);
  }
  [[noreturn]] void fail_layout(const std::string& what) const {
    throw LayoutError("line " + std::to_string(line) + ": " + what);
  }
  void ws() {
    while (p < end && (*p == ' ' || *p == '\n' || *p == '\r' || *p == '\t')) ++p;
  }
  bool eat(char c) {
    ws();
    if (p < end && *p == c) {
      ++p;
      return true;
    }
    return false;
  }
  void expect(char c) {
    if (!eat(c)) fail(std::string("expected '") + c + "'");
  }
  double number() {
    ws();
    if (end - p >= 4 && std::memcmp(p, "null", 4) == 0) {
      p += 4;
      return std::nan("");
    }
    double v = 0;
    auto r = std::from_chars(p, end, v);
    // (from_chars also reads nan and inf, which are no JSON: thicket writes null for those.)
    if (r.ec != std::errc() || !std::isfinite(v)) fail("expected a number");
    p = r.ptr;
    return v;
  }
  // A whole number from `least` to `most` (a JSON number with no fraction).
  uint64_t whole(const char* what, double least, double most) {
    const double v = number();
    if (!(v >= least && v <= most && v == std::floor(v)))
      fail(std::string(what) + " must be a whole number from " + std::to_string(uint64_t(least)) + " to " +
           std::to_string(uint64_t(most)));
    return uint64_t(v);
  }
  std::string_view string() {
    ws();
    if (p >= end || *p != '"') fail("expected a string");
    const char* start = ++p;
    while (p < end && *p != '"') p += *p == '\\' ? 2 : 1;
    if (p >= end) fail("an unterminated string");
    return {start, size_t(p++ - start)};
  }
  // Skips one JSON value (number, string, literal, array, object).
  void skip() {
    ws();
    if (p >= end) fail("a value is missing");
    if (*p == '"') {
      string();
      return;
    }
    if (*p == '[' || *p == '{') {
      int depth = 0;
      while (p < end) {
        char c = *p;
        if (c == '"') {
          string();
          continue;
        }
        ++p;
        if (c == '[' || c == '{') ++depth;
        if ((c == ']' || c == '}') && --depth == 0) return;
      }
      fail("an unterminated array");
    }
    while (p < end && *p != ',' && *p != ']' && *p != '}') ++p;
  }
  // The exact bytes `text` here (no spaces before), else a failure.
  void literal(std::string_view text) {
    if (!starts(text)) fail_layout("expected '" + std::string(text) + "'");
    p += text.size();
  }
  bool starts(std::string_view text) const { return size_t(end - p) >= text.size() && std::memcmp(p, text.data(), text.size()) == 0; }
  // The character c here (no spaces before): taken, true; else false.
  bool at(char c) {
    if (p < end && *p == c) {
      ++p;
      return true;
    }
    return false;
  }
  // A finite number (null is none: positions and headings always are numbers).
  double finite() {
    if (starts("null")) fail("expected a number, got null");
    return number();
  }
};

int8_t status_code(std::string_view s) {
  if (s == "running") return 1;
  if (s == "success") return 2;
  if (s == "failure") return 3;
  return 0;  // invalid
}

// Reads a record line by line (add), then makes the arrays (arrays). No Python inside add.
// A tick line as thicket writes it (`{"tick":` first, then agents, then metrics) is read by the
// scanner; every other line (the header, brains and end lines, and tick lines written another
// way) by thicket view's RecordCheck, whose messages it gives, and a tick line so checked is read
// from its JSON. (Checking every tick line as view does would take ~10x the scan's time.)
class RecordParser {
 public:
  explicit RecordParser(std::string name) : name_(std::move(name)) {}
  // The line being read (not yet added) is longer than any record line: say so at its number.
  [[noreturn]] void line_too_long() const {
    throw std::runtime_error(name_ + ": line " + std::to_string(line_ + 1) + ": " + kRecordLineTooLong);
  }

  // The number of the line not yet added: where a read that stops early stopped (as view says it).
  int next_line() const { return line_ + 1; }

  // unterminated: the file ends inside this line (no newline after it).
  void add(std::string_view l, bool unterminated = false) {
    ++line_;
    if (l.empty()) return;
    if (line_ == 1) {
      // A BOM before it (an editor's save) is no JSON for Python's json, which reads the header
      // again: dropped here, as thicket view's JSON parser skips it.
      if (l.substr(0, 3) == "\xEF\xBB\xBF") l.remove_prefix(3);
      // The header as JSON, laid out any way (Python's json.dumps puts spaces after the colons).
      const nlohmann::json h = nlohmann::json::parse(l, nullptr, false);
      if (!h.is_object() || h.value("format", nlohmann::json()) != "thicket-record")
        throw std::runtime_error(name_ + ": line 1: not a thicket record (no \"format\":\"thicket-record\")");
      header_ = std::string(l);
      read_header();
      checked(l, unterminated);
      return;
    }
    if (!end_line_.empty())
      throw std::runtime_error(name_ + ": line " + std::to_string(line_) + ": a line after the record's end line");
    if (l.rfind("{\"tick\":", 0) == 0) {
      const size_t rows = rows_.size(), ticks = ticks_.size(), metrics = metrics_.size();
      const size_t key_spans = key_spans_.size(), key_text = key_text_.size(), events = events_.size();
      try {
        tick_line(l);
        return;
      } catch (const std::runtime_error& e) {
        // Not as thicket writes it (keys in another order, say): read as JSON if it is a tick
        // line view takes; else view's message, or the scanner's for a bad value in a line
        // laid out as thicket writes it (it names the agent).
        rows_.resize(rows);
        ticks_.resize(ticks);
        metrics_.resize(metrics);
        key_spans_.resize(key_spans);
        key_text_.resize(key_text);
        events_.resize(events);
        // (A last line cut short is said as view says it: the run or the file was cut short.)
        if (std::string why = check_.line(l, unterminated); !why.empty()) {
          const bool layout = dynamic_cast<const LayoutError*>(&e) != nullptr;
          throw std::runtime_error(name_ + ": " + (unterminated || layout ? "line " + std::to_string(line_) + ": " + why
                                                                          : std::string(e.what())));
        }
        tick_line_json(l);
        return;
      }
    }
    checked(l, unterminated);
    nlohmann::json j = nlohmann::json::parse(l, nullptr, false);  // RecordCheck took it: an object
    if (j.contains("tick"))
      tick_line_json(l);
    else if (j.contains("end"))
      end_line_ = std::string(l);
  }

  py::dict arrays() {
    if (header_.empty()) throw std::runtime_error(name_ + ": an empty record");
    if (end_line_.empty())
      throw std::runtime_error(name_ + ": line " + std::to_string(line_) +
                               ": the record stops without its end line (the run was cut short, or the file was)");
    // The agents: every id seen, ascending; one column each.
    std::vector<uint32_t> ids;
    for (const Row& r : rows_) ids.push_back(r.id);
    std::sort(ids.begin(), ids.end());
    ids.erase(std::unique(ids.begin(), ids.end()), ids.end());
    std::unordered_map<uint32_t, size_t> column;
    for (size_t i = 0; i < ids.size(); ++i) column[ids[i]] = i;
    size_t T = ticks_.size(), A = ids.size();
    // The arrays are dense, ticks x agents: a small file whose every tick names new ids asked
    // for tens of GB. At most kMaxCells cells (26 bytes each: about 1.7 GB), said in numbers.
    if (A > 0 && T > kMaxCells / A)
      throw std::runtime_error(name_ + ": the record has " + std::to_string(T) + " tick lines and " + std::to_string(A) +
                               " agent ids, and its arrays (ticks x agents) would have more than " +
                               std::to_string(kMaxCells) +
                               " cells (about 1.7 GB); record fewer ticks (--record-every) or fewer agents");
    // numpy imported the Python way first: pybind11 finds its C API once, in a function-local
    // static whose first call imports numpy. If that import is where two threads meet, one waits
    // on the static's guard holding the GIL while the other needs the GIL to finish importing:
    // both hang for ever (two threads reading records before the program imported numpy). With
    // numpy imported, the static's first call does not give the GIL up. Python's import locks
    // make this import safe from any number of threads.
    py::module_::import("numpy");
    py::array_t<double> x({T, A}), y({T, A}), heading({T, A});
    py::array_t<int8_t> status({T, A});
    py::array_t<bool> alive({T, A});
    py::array_t<int32_t> group(A);
    {
      double* px = x.mutable_data();
      double* py_ = y.mutable_data();
      double* ph = heading.mutable_data();
      int8_t* ps = status.mutable_data();
      bool* pa = alive.mutable_data();
      int32_t* pg = group.mutable_data();
      GilReleased release;
      std::fill(px, px + T * A, std::nan(""));
      std::fill(py_, py_ + T * A, std::nan(""));
      std::fill(ph, ph + T * A, std::nan(""));
      std::fill(ps, ps + T * A, int8_t(-1));
      std::fill(pa, pa + T * A, false);
      std::fill(pg, pg + A, -1);
      for (const Row& r : rows_) {
        size_t c = column[r.id], k = size_t(r.tick_index) * A + c;
        if (pa[k] && !r.alive) continue;  // the new agent of a dead one's id: the cell is the living one's
        px[k] = r.x;
        py_[k] = r.y;
        ph[k] = r.heading;
        ps[k] = r.status;
        pa[k] = r.alive != 0;
        if (pg[c] < 0) pg[c] = r.group;
      }
    }
    py::array_t<double> metric_values({T, metric_count_});
    std::copy(metrics_.begin(), metrics_.end(), metric_values.mutable_data());
    py::dict d;
    d["keys"] = key_arrays(column, T, A);
    py::list events;
    for (const std::string& e : events_) events.append(from_json(nlohmann::json::parse(e)));
    d["events"] = events;
    d["header"] = header_;
    d["end"] = end_line_;
    d["ticks"] = py::array_t<uint64_t>(T, ticks_.data());
    d["ids"] = py::array_t<uint32_t>(A, ids.data());
    d["x"] = x;
    d["y"] = y;
    d["heading"] = heading;
    d["status"] = status;
    d["alive"] = alive;
    d["group"] = group;
    d["metrics"] = metric_values;
    return d;
  }

 private:
  struct Row {
    uint32_t tick_index, id;
    double x, y, heading;
    int32_t group;
    int8_t alive, status;
  };
  // Where a row's recorded blackboard values (its field 8, a JSON array) sit in key_text_;
  // kept (one per row of rows_) only when the header names keys. length 0: the row has none.
  struct KeySpan {
    uint64_t at;
    uint32_t length;
    int line;  // the record line it is on (for key_arrays' message)
  };

  // A JSON value as Python's json module reads it (None, bool, int, float, str, list, dict).
  static py::object from_json(const nlohmann::json& j) {
    switch (j.type()) {
      case nlohmann::json::value_t::null: return py::none();
      case nlohmann::json::value_t::boolean: return py::bool_(j.get<bool>());
      case nlohmann::json::value_t::number_integer: return py::int_(j.get<int64_t>());
      case nlohmann::json::value_t::number_unsigned: return py::int_(j.get<uint64_t>());
      case nlohmann::json::value_t::number_float: return py::float_(j.get<double>());
      case nlohmann::json::value_t::string: return py::str(j.get_ref<const std::string&>());
      case nlohmann::json::value_t::array: {
        py::list l;
        for (const auto& v : j) l.append(from_json(v));
        return l;
      }
      case nlohmann::json::value_t::object: {
        py::dict o;
        for (const auto& [k, v] : j.items()) o[py::str(k)] = from_json(v);
        return o;
      }
      default: return py::none();
    }
  }

  // The recorded blackboard keys, each a ticks x agents array: float64 (NaN where the agent is
  // absent or its brain lacks the key) when every value recorded for it is a number or null,
  // else an object array of None, bool, int, float and str (and lists of them). Two passes over
  // the rows' texts: which keys hold only numbers (each text checked to be K values), then the values.
  py::dict key_arrays(const std::unordered_map<uint32_t, size_t>& column, size_t T, size_t A) const {
    py::dict out;
    if (key_names_.empty()) return out;
    const size_t K = key_names_.size();
    auto values_of = [&](size_t i) {
      const KeySpan& span = key_spans_[i];
      return span.length ? nlohmann::json::parse(std::string_view(key_text_).substr(span.at, span.length))
                         : nlohmann::json::array();
    };
    std::vector<bool> numeric(K, true);
    for (size_t i = 0; i < key_spans_.size(); ++i) {
      const KeySpan& span = key_spans_[i];
      const nlohmann::json values =
          span.length ? nlohmann::json::parse(std::string_view(key_text_).substr(span.at, span.length), nullptr, false)
                      : nlohmann::json::array();
      if (span.length && (!values.is_array() || values.size() != K))
        throw std::runtime_error(name_ + ": line " + std::to_string(span.line) + ": field 8 (keys) of agent " +
                                 std::to_string(rows_[i].id) + " must hold the header's " + std::to_string(K) + " key(s)");
      for (size_t j = 0; j < K && j < values.size(); ++j)
        if (!values[j].is_null() && !values[j].is_number()) numeric[j] = false;
    }
    std::vector<double*> number_cells(K, nullptr);
    std::vector<py::object> object_cells(K);  // each an object array's flat view
    for (size_t j = 0; j < K; ++j) {
      if (numeric[j]) {
        py::array_t<double> a({T, A});
        number_cells[j] = a.mutable_data();
        std::fill(number_cells[j], number_cells[j] + T * A, std::nan(""));
        out[py::str(key_names_[j])] = a;
      } else {
        py::array a(py::dtype("O"), std::vector<py::ssize_t>{py::ssize_t(T), py::ssize_t(A)});
        object_cells[j] = a.attr("reshape")(-1);  // a view: its cells are a's
        for (size_t c = 0; c < T * A; ++c) object_cells[j][py::int_(c)] = py::none();
        out[py::str(key_names_[j])] = a;
      }
    }
    // A cell a living agent holds keeps its values (as arrays() keeps its position).
    std::vector<char> living(T * A, 0);
    for (size_t i = 0; i < key_spans_.size(); ++i) {
      const Row& r = rows_[i];
      const size_t c = size_t(r.tick_index) * A + column.at(r.id);
      if (living[c] && !r.alive) continue;
      living[c] = r.alive != 0;
      const nlohmann::json values = values_of(i);
      for (size_t j = 0; j < K; ++j) {
        const nlohmann::json* v = j < values.size() ? &values[j] : nullptr;
        if (number_cells[j]) number_cells[j][c] = v && v->is_number() ? v->get<double>() : std::nan("");
        else object_cells[j][py::int_(c)] = v ? from_json(*v) : py::none();
      }
    }
    return out;
  }

  // Keeps the text of a row's keys (a JSON array) for key_arrays.
  void keep_keys(std::string_view text) {
    if (key_names_.empty()) return;
    key_spans_.push_back({key_text_.size(), uint32_t(text.size()), line_});
    key_text_.append(text);
  }

  // A line thicket view's checks must take; its message, at this line, if they do not.
  void checked(std::string_view l, bool unterminated) {
    if (std::string why = check_.line(l, unterminated); !why.empty())
      throw std::runtime_error(name_ + ": line " + std::to_string(line_) + ": " + why);
  }

  // A tick line RecordCheck has taken, read from its JSON (its fields' shapes are checked).
  void tick_line_json(std::string_view l) {
    const nlohmann::json t = nlohmann::json::parse(l);
    const uint64_t tick = t["tick"].get<uint64_t>();
    if (!ticks_.empty() && tick <= ticks_.back())
      throw std::runtime_error(name_ + ": line " + std::to_string(line_) + ": tick " + std::to_string(tick) +
                               " after tick " + std::to_string(ticks_.back()) + ": ticks go up");
    const uint32_t ti = uint32_t(ticks_.size());
    ticks_.push_back(tick);
    for (const auto& a : t["agents"]) {
      Row r{};
      r.tick_index = ti;
      r.id = a[0].get<uint32_t>();
      r.x = a[1].get<double>();
      r.y = a[2].get<double>();
      r.heading = a[3].get<double>();
      r.group = a[4].get<int32_t>();
      r.alive = int8_t(a[5].get<int>());
      r.status = status_code(a[6].get<std::string>());
      rows_.push_back(r);
      if (!key_names_.empty()) keep_keys(a.size() > 8 && a[8].is_array() ? a[8].dump() : std::string());
    }
    if (const auto e = t.find("events"); e != t.end() && e->is_array())
      for (const auto& event : *e)
        if (event.is_array()) events_.push_back(event.dump());
    const nlohmann::json metrics = t.value("metrics", nlohmann::json::array());
    for (const auto& m : metrics) metrics_.push_back(m.is_number() ? m.get<double>() : std::nan(""));
    if (ti == 0 && !metrics_known_) metric_count_ = metrics.size();
  }

  // The header's version (a newer one is refused: never misread), group and metric counts.
  void read_header() {
    nlohmann::json h = nlohmann::json::parse(header_, nullptr, false);
    if (!h.is_object()) throw std::runtime_error(name_ + ": line 1: the header is no JSON object");
    const auto version = h.find("version");
    if (version == h.end() || !version->is_number_integer() || version->get<int64_t>() < 1)
      throw std::runtime_error(name_ + ": line 1: the header has no version");
    if (version->get<int64_t>() > kRecordVersion)
      throw std::runtime_error(name_ + ": line 1: a record of version " + std::to_string(version->get<int64_t>()) +
                               "; this thicket reads version " + std::to_string(kRecordVersion) +
                               " (a newer thicket wrote it)");
    if (const auto g = h.find("groups"); g != h.end() && g->is_array()) groups_ = g->size();
    if (const auto k = h.find("keys"); k != h.end() && k->is_array())
      for (const auto& key : *k)
        if (key.is_string()) key_names_.push_back(key.get<std::string>());
    if (const auto m = h.find("metrics"); m != h.end() && m->is_array()) {
      metric_count_ = m->size();
      metrics_known_ = true;
    }
  }

  // A tick line exactly as thicket writes it: `{"tick":T,"agents":[...],"events":[...],"metrics":[...]}`,
  // no spaces, each agent `[id,x,y,heading,group,alive,"status","nodes",[keys]]`. Anything else
  // (another key order, an unknown field, spaces, a null position, a short agent row) fails
  // here, and add() checks the line as view does and reads it from its JSON.
  void tick_line(std::string_view l) {
    Scan s{l.data(), l.data() + l.size(), line_};
    s.p += 8;  // {"tick": (add() found it)
    const uint64_t tick = s.whole("the tick", 0, 9007199254740992.0);
    if (!ticks_.empty() && tick <= ticks_.back())
      s.fail("tick " + std::to_string(tick) + " after tick " + std::to_string(ticks_.back()) + ": ticks go up");
    uint32_t ti = uint32_t(ticks_.size());
    ticks_.push_back(tick);
    const size_t first_row = rows_.size();
    s.literal(",\"agents\":[");
    if (!s.at(']')) {
      do {
        s.literal("[");
        Row r{};
        r.tick_index = ti;
        r.id = uint32_t(s.whole("an agent id", 1, 4294967294.0));
        s.literal(",");
        r.x = s.finite();
        s.literal(",");
        r.y = s.finite();
        s.literal(",");
        r.heading = s.finite();
        s.literal(",");
        r.group = int32_t(s.whole("a group index", 0, 2147483647.0));
        if (size_t(r.group) >= groups_)
          s.fail("group " + std::to_string(r.group) + ", but the header names " + std::to_string(groups_) + " group(s)");
        s.literal(",");
        const double alive = s.number();
        if (alive != 0 && alive != 1) s.fail("field 5 (alive) of agent " + std::to_string(r.id) + " must be 0 or 1");
        r.alive = int8_t(alive);
        s.literal(",");
        const std::string_view status = s.string();
        r.status = status_code(status);
        if (r.status == 0 && status != "invalid")
          s.fail("field 6 (status) of agent " + std::to_string(r.id) +
                 " must be running, success, failure or invalid, got '" + std::string(status) + "'");
        s.literal(",");
        s.string();  // nodes (7)
        s.literal(",");
        const char* from = s.p;
        if (!s.starts("[")) s.fail("field 8 (keys) of agent " + std::to_string(r.id) + " must be an array");
        s.skip();  // keys (8): kept as text, read by key_arrays
        const std::string_view keys(from, size_t(s.p - from));  // (checked by key_arrays, which parses it)
        s.literal("]");
        rows_.push_back(r);
        keep_keys(keys);
      } while (s.at(','));
    }
    s.literal("]");
    // An agent once a tick, as view checks (a second entry of one id took the first one's cell);
    // once alive and once dead is an agent that died and a new one spawned with its id.
    line_ids_.clear();
    for (size_t i = first_row; i < rows_.size(); ++i) line_ids_.push_back(uint64_t(rows_[i].id) * 2 + (rows_[i].alive ? 1 : 0));
    std::sort(line_ids_.begin(), line_ids_.end());
    if (auto twice = std::adjacent_find(line_ids_.begin(), line_ids_.end()); twice != line_ids_.end())
      s.fail("tick " + std::to_string(tick) + ": agent " + std::to_string(*twice / 2) + " is listed twice");
    if (s.at(',') && !s.starts("\"metrics\":")) {  // events (each [name, tick, ...] as view checks), read by arrays()
      s.literal("\"events\":[");
      if (!s.at(']')) {
        do {
          const char* from = s.p;
          s.skip();
          const std::string_view event(from, size_t(s.p - from));
          const nlohmann::json e = nlohmann::json::parse(event, nullptr, false);
          if (!e.is_array() || e.size() < 2 || !e[0].is_string()) s.fail("an event that is not [name, tick, ...]");
          events_.emplace_back(event);
        } while (s.at(','));
        s.literal("]");
      }
      s.at(',');
    }
    if (s.starts("\"metrics\":")) {
      s.literal("\"metrics\":[");
      size_t n = 0;
      if (!s.at(']')) {
        do {
          metrics_.push_back(s.number());
          ++n;
        } while (s.at(','));
        s.literal("]");
      }
      if (ti == 0 && !metrics_known_) metric_count_ = n;
      if (n != metric_count_)
        s.fail("a tick line with " + std::to_string(n) + " metrics, not " + std::to_string(metric_count_));
    } else if (metric_count_) {
      s.fail("a tick line without metrics");
    }
    s.literal("}");
    s.ws();
    if (s.p != s.end) s.fail("more after the tick line's end");
  }

  static constexpr size_t kMaxCells = size_t(1) << 26;  // arrays() refuses more ticks x agents
  static constexpr int64_t kRecordVersion = 1;  // the newest version this reader knows (docs/record-format.md)
  std::string name_;
  int line_ = 0;
  size_t groups_ = 0;
  bool metrics_known_ = false;
  std::vector<Row> rows_;
  std::vector<std::string> key_names_;  // the header's keys
  std::vector<KeySpan> key_spans_;      // one per row when key_names_ is not empty
  std::string key_text_;
  std::vector<std::string> events_;  // each event of the tick lines, as its JSON text, in order
  std::vector<uint64_t> line_ids_;  // one tick line's agent ids and alive flags, for the once-a-tick check
  std::vector<uint64_t> ticks_;
  std::vector<double> metrics_;  // ticks x metric_count_
  size_t metric_count_ = 0;
  std::string header_, end_line_;
  thicket::cli::RecordCheck check_;
};

// Feeds the complete lines of `chunk` (after `carry`, the last chunk's unfinished line) to the
// parser and leaves the new unfinished line in `carry`.
void feed(RecordParser& parser, std::string& carry, std::string_view chunk) {
  size_t pos = 0;
  if (!carry.empty()) {
    size_t nl = chunk.find('\n');
    if (nl == std::string_view::npos) {
      carry.append(chunk);
      if (carry.size() > kMaxRecordLine) parser.line_too_long();
      return;
    }
    carry.append(chunk.substr(0, nl));
    parser.add(carry);
    carry.clear();
    pos = nl + 1;
  }
  for (;;) {
    size_t nl = chunk.find('\n', pos);
    if (nl == std::string_view::npos) break;
    parser.add(chunk.substr(pos, nl - pos));
    pos = nl + 1;
  }
  carry.assign(chunk.substr(pos));
  if (carry.size() > kMaxRecordLine) parser.line_too_long();
}

}  // namespace

py::dict parse_record(std::string_view text, const std::string& name) {
  RecordParser parser(name);
  {
    GilReleased release;
    std::string carry;
    feed(parser, carry, text);
    if (!carry.empty()) parser.add(carry, true);
  }
  return parser.arrays();
}

// Decompression and parsing overlap: a thread inflates the file in 1 MiB chunks while this
// one parses the lines of the chunks already out (gzip's inflate is about as slow as the parse).
py::dict read_record_file(const std::string& path) {
  RecordParser parser(path);
  {
    GilReleased release;
    if (const char* problem = not_plain_file(path, /*missing_ok=*/true); *problem)
      throw std::runtime_error(path + ": cannot open the record: " + problem);
    // gzip when named so (then it must be gzip data, as thicket view says) or when it starts
    // as gzip; read by thicket view's reader, so that both refuse the same files in the same words.
    const bool gzip = (path.size() >= 3 && path.compare(path.size() - 3, 3, ".gz") == 0) || thicket::cli::starts_as_gzip(path);
    errno = 0;
    thicket::cli::RecordReader f(path, gzip);
    if (!f.opened())
      throw std::runtime_error(path + ": cannot open the record" + (errno ? std::string(": ") + std::strerror(errno) : ""));
    std::mutex m;
    std::condition_variable cv, room;
    std::deque<std::string> chunks;
    bool done = false, stop = false;
    std::string read_error;
    // At most kAhead chunks wait for the parser (inflating a gzip of zeros outruns any parse),
    // and the reader stops at once when the parse failed.
    constexpr size_t kAhead = 8;
    std::thread reader([&] {
      for (;;) {
        std::string chunk;
        const bool more = f.next(chunk, 1 << 20);
        if (!more) read_error = f.error();
        std::unique_lock<std::mutex> lock(m);
        room.wait(lock, [&] { return stop || chunks.size() < kAhead; });
        if (!more || stop) {
          done = true;
          cv.notify_one();
          return;
        }
        chunks.push_back(std::move(chunk));
        cv.notify_one();
      }
    });
    std::string carry;
    std::exception_ptr failed;
    for (;;) {
      std::string chunk;
      {
        std::unique_lock<std::mutex> lock(m);
        cv.wait(lock, [&] { return done || !chunks.empty(); });
        if (chunks.empty()) break;
        chunk = std::move(chunks.front());
        chunks.pop_front();
        room.notify_one();
      }
      try {
        feed(parser, carry, chunk);
      } catch (...) {
        failed = std::current_exception();
        std::lock_guard<std::mutex> lock(m);
        stop = true;  // the reader ends its file here
        chunks.clear();
        room.notify_one();
      }
    }
    reader.join();
    if (failed) std::rethrow_exception(failed);
    if (!read_error.empty())
      throw std::runtime_error(path + ": line " + std::to_string(parser.next_line()) + ": the record cannot be read: " + read_error);
    if (!carry.empty()) parser.add(carry, true);
  }
  return parser.arrays();
}

}  // namespace thicket_py
