// Record files (issue 14; docs/record-format.md): the encoding follows the file name, so a
// record is never written in a format its name does not say.
#pragma once
#include <memory>
#include <string>

#include "record_sink.hpp"

namespace thicket {

// A record sink writing to a file: `.jsonl` plain JSON lines, `.jsonl.gz` the same text
// gzip-compressed (zlib). The file is complete when the sink is destroyed (or close() returns).
class RecordFile : public RecordSink {
 public:
  // Opens `path` for writing; nullptr and `error` (a sentence for the user) when its name has
  // another extension or it cannot be created.
  // `gzip_level` (1..9) is for measuring. The default, 1, was picked by bench/bench_record.cpp: at 10,000
  // agents level 6 makes files 15% smaller for 4x the CPU time on the run's thread.
  static constexpr int kGzipLevel = 1;
  static std::unique_ptr<RecordFile> open(const std::string& path, std::string& error, int gzip_level = kGzipLevel);
  // Flushes and closes; false (with `error`) when some write failed (a full disk): the record
  // is then cut short.
  virtual bool close(std::string& error) = 0;
};

// A record kept in memory, one line after another (tests, benches).
class RecordString : public RecordSink {
 public:
  void write(Kind, std::string_view line) override {
    text.append(line);
    text.push_back('\n');
  }
  std::string text;
};

// "" when `path` names a record file (.jsonl or .jsonl.gz), else why not.
std::string record_file_name_error(const std::string& path);

// Whether a file name ends with `suffix` (".csv", ".jsonl.gz") after at least one more byte:
// how --record, --out and --series choose a format by name (".csv" alone is no CSV file's name).
inline bool file_name_ends_with(const std::string& path, const std::string& suffix) {
  return path.size() > suffix.size() && path.compare(path.size() - suffix.size(), suffix.size(), suffix) == 0;
}

}  // namespace thicket
