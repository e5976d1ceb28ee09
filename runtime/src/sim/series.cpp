// Metrics over time: see series.hpp.
#include "series.hpp"
#include "sim/json_text.hpp"
#include "sim/record_file.hpp"

#include <algorithm>
#include <charconv>
#include <cstdio>
#include <cmath>
#include <numeric>

namespace thicket {

namespace {

std::string csv_field(const std::string& s) {
  if (s.find_first_of(",\"\n") == std::string::npos) return s;
  std::string out = "\"";
  for (char c : s) out += c == '"' ? std::string("\"\"") : std::string(1, c);
  return out + "\"";
}


}  // namespace

// The shortest text that reads back as the same double (so 0.1 stays "0.1", 3 stays "3").
void append_number(std::string& out, double v, SeriesFormat format) {
  if (!std::isfinite(v)) {  // a gauge fed inf or nan by a script: JSON has no such number
    out += format == SeriesFormat::Jsonl ? "null" : (std::isnan(v) ? "nan" : (v > 0 ? "inf" : "-inf"));
    return;
  }
  if (v == 0) v = 0;  // -0 prints as 0
  char buf[32];
  auto [end, ec] = std::to_chars(buf, buf + sizeof buf, v);
  out.append(buf, ec == std::errc() ? end : buf);
}

std::optional<SeriesFormat> series_format(const std::string& path) {
  if (file_name_ends_with(path, ".jsonl")) return SeriesFormat::Jsonl;
  if (file_name_ends_with(path, ".csv") || path.rfind("/dev/", 0) == 0) return SeriesFormat::Csv;
  return std::nullopt;
}

void SeriesBuffer::set_names(const std::vector<std::string>& names) {
  order_.resize(names.size());
  std::iota(order_.begin(), order_.end(), size_t(0));
  std::sort(order_.begin(), order_.end(), [&](size_t a, size_t b) { return names[a] < names[b]; });
  sorted_.clear();
  for (size_t k : order_) sorted_.push_back(names[k]);
}

void SeriesBuffer::sample(uint64_t tick, const std::vector<std::string>& names, const std::vector<double>& values) {
  if (tick % every_ != 0) return;
  if (order_.size() != names.size()) set_names(names);
  const std::string head = std::to_string(run_) + (format_ == SeriesFormat::Csv ? "," : ",\"seed\":") +
                           std::to_string(seed_) + (format_ == SeriesFormat::Csv ? "," : ",\"tick\":") + std::to_string(tick);
  if (format_ == SeriesFormat::Csv) {
    text_ += head;
    for (size_t k : order_) {
      text_ += ',';
      append_number(text_, values[k], format_);
    }
    text_ += '\n';
    return;
  }
  text_ += "{\"run\":" + head + ",\"metrics\":{";
  for (size_t i = 0; i < order_.size(); ++i) {
    if (i) text_ += ',';
    text_ += json_string(sorted_[i]);
    text_ += ':';
    append_number(text_, values[order_[i]], format_);
  }
  text_ += "}}\n";
}

std::string SeriesBuffer::header() const {
  if (format_ != SeriesFormat::Csv) return {};
  std::string h = "run,seed,tick";
  for (const auto& name : sorted_) h.append(1, ',').append(csv_field(name));  // appends: GCC 12's false -Wstringop-overflow on "," + ...
  return h.append(1, '\n');
}

void write_series(std::ostream& out, const std::vector<SeriesBuffer>& runs) {
  if (runs.empty()) return;
  // The header names the metrics of the first run that sampled any (every run of a scenario
  // has the same metrics); a run with no sampled tick still gets the bare header.
  const SeriesBuffer* named = &runs.front();
  for (const auto& r : runs)
    if (!r.text().empty()) {
      named = &r;
      break;
    }
  out << named->header();
  for (const auto& r : runs) out << r.text();
}

}  // namespace thicket
