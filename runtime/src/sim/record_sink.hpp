// Where a run's record lines go (issue 14; docs/record-format.md): a file (plain JSONL or
// gzip), the live monitor (--serve), or both. The simulation writes each line once, on its
// own thread, after the tick; a sink must never block it for long (the live monitor keeps
// the newest lines and drops what a slow client has not taken).
#pragma once
#include <string_view>

namespace thicket {

class RecordSink {
 public:
  enum class Kind { Header, Brains, Tick, End };
  virtual ~RecordSink() = default;
  // One whole line of JSON, without its newline.
  virtual void write(Kind kind, std::string_view line) = 0;
};

}  // namespace thicket
