// Metrics over time (issue 14, `thicket run SCENARIO --series FILE`): every metric's value at
// every N-th tick of a run. Each run fills its own buffer (runs may execute concurrently);
// the buffers are written in run order, so the file is the same bytes for any --threads.
//
//   CSV    run,seed,tick,<metric...>                 one header, then a row per sampled tick
//   JSONL  {"run":1,"seed":7,"tick":5,"metrics":{"deaths":0,...}}
//
// Metrics are in name order (as in --out). A counter's value is its total so far; a gauge's is
// the sum of the latest tick in which it was reported (held while it is not).
#pragma once
#include <cstdint>
#include <optional>
#include <ostream>
#include <string>
#include <vector>

namespace thicket {

enum class SeriesFormat { Csv, Jsonl };

// The format a --series file's extension names; nullopt for any other (a device gets CSV).
std::optional<SeriesFormat> series_format(const std::string& path);

// A metric's value as --series and --out write it: the shortest text that reads back as the
// same double (0.1 stays "0.1", 1234567 stays "1234567"); -0 as 0; not finite: null in JSON
// lines, nan / inf / -inf in CSV.
void append_number(std::string& out, double v, SeriesFormat format);

// One run's samples, as the lines of the file (without the CSV header).
class SeriesBuffer {
 public:
  SeriesBuffer(SeriesFormat format, uint64_t every, uint64_t run, uint64_t seed)
      : format_(format), every_(every == 0 ? 1 : every), run_(run), seed_(seed) {}

  // After tick `tick`'s effects are applied: records `values` (parallel to `names`, the run's
  // metric order) when the tick is a multiple of `every`.
  void sample(uint64_t tick, const std::vector<std::string>& names, const std::vector<double>& values);

  // The run's metrics (Simulation::run says them before its first tick), so that the CSV
  // header names them even when no tick is sampled (--ticks 0, --series-every past the run).
  void set_names(const std::vector<std::string>& names);

  // The CSV header for this run's metrics ("run,seed,tick,a,b\n"); "" for JSONL.
  std::string header() const;
  const std::string& text() const { return text_; }

 private:
  SeriesFormat format_;
  uint64_t every_, run_, seed_;
  std::vector<size_t> order_;        // metric indices in name order, made at the first sample
  std::vector<std::string> sorted_;  // the names in that order
  std::string text_;
};

// Writes the runs' buffers in run order: the CSV header once (from the first buffer), then
// every buffer's lines.
void write_series(std::ostream& out, const std::vector<SeriesBuffer>& runs);

}  // namespace thicket
