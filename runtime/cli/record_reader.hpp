// Reads a record file's text in chunks, plain or gzip (docs/record-format.md), for
// `thicket view` (view_command.cpp) and Python's `thicket.read_record` (py_record.cpp), so
// that the two take and refuse the same files with the same words.
//
// gzip: any number of members, as `cat a.gz b.gz` makes, with zero bytes between or after
// them skipped as `gzip -d` skips them. Data that is not gzip, bytes after the gzip data
// that start no member, a stream cut short and damaged data are errors, each said in its
// own words (zlib alone calls most of them "incorrect header check").
#pragma once

#include <zlib.h>

#include <cstddef>
#include <fstream>
#include <string>

namespace thicket::cli {

class RecordReader {
 public:
  // gzip: the file must be gzip data (view: its name ends in .gz; Python: that, or it starts as
  // gzip); else it is read as it is.
  RecordReader(const std::string& path, bool gzip);
  ~RecordReader();
  RecordReader(const RecordReader&) = delete;
  RecordReader& operator=(const RecordReader&) = delete;

  bool opened() const { return static_cast<bool>(in_); }
  int gzip_members() const { return members_; }
  // Why the reading stopped early, or "" (at the end of a good file).
  const std::string& error() const { return error_; }

  // The next chunk of text into `out` (replacing it; at least `min_chunk` bytes but at the
  // end): false at the end or after an error. Text read before an error is still returned,
  // and the call after it returns false, so a bad line before the damage is said first.
  bool next(std::string& out, std::size_t min_chunk = 1);

 private:
  bool inflate_some(std::string& out);
  std::ifstream in_;
  bool gzip_;
  z_stream z_{};
  bool inflate_ready_ = false;
  bool in_member_ = false;
  int members_ = 0;
  char input_[1 << 16];
  std::string error_;
};

// Whether the file at `path` starts with gzip's two bytes (1f 8b).
bool starts_as_gzip(const std::string& path);

}  // namespace thicket::cli
