// The bytes of a snapshot (issue 15: save games, checkpoints): a writer that appends
// little-endian fixed-width values, and a reader that takes them back. The layout is the same
// on every machine, so a snapshot written on one host restores on any other.
//
// The reader throws nothing: a read past the end or a value found bad (reader.fail) records
// the first error, and every read after it returns zero (or ""), so a caller can read a whole
// record and check ok() once, knowing nothing it read after the failure was used.
#pragma once
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "thicket/export.hpp"

namespace thicket {

class THICKET_API SnapshotWriter {
 public:
  void u8(uint8_t v);
  void u32(uint32_t v);
  void u64(uint64_t v);
  void i64(int64_t v);
  void f64(double v);              // the IEEE-754 bits as a u64: NaNs and -0 survive
  void str(std::string_view s);    // u32 length, then the bytes
  void raw(std::string_view s);    // the bytes as they are (the reader takes them back with raw(n))
  const std::string& bytes() const { return bytes_; }
  std::string take() { return std::move(bytes_); }

 private:
  std::string bytes_;
};

class THICKET_API SnapshotReader {
 public:
  explicit SnapshotReader(std::string_view bytes) : bytes_(bytes) {}
  uint8_t u8();
  uint32_t u32();
  uint64_t u64();
  int64_t i64();
  double f64();
  std::string str();  // a length past the bytes left fails (no huge allocation from a bad length)
  std::string_view raw(size_t n);  // the next n bytes as they are ("" and a failure past the end)
  bool ok() const { return error_.empty(); }
  const std::string& error() const { return error_; }
  // Records `why` (with the offset) unless an error is already recorded; reads return zeros
  // from then on.
  void fail(std::string why);
  size_t offset() const { return pos_; }
  bool at_end() const { return pos_ >= bytes_.size(); }
  size_t remaining() const { return ok() ? bytes_.size() - pos_ : 0; }

 private:
  bool take(size_t n, const char*& at);
  std::string_view bytes_;
  size_t pos_ = 0;
  std::string error_;
};

// Bytes given as one snapshot that go on past it (a wrong length, or two snapshots joined):
// the error to report, read from the snapshot's header alone; "" when they end with it, or
// when they are too short or too damaged to tell (restoring them says why). Runtime::restore
// from a SnapshotReader takes a snapshot inside bigger bytes; from a stream it refuses these.
THICKET_API std::string snapshot_extra_bytes(std::string_view bytes);

}  // namespace thicket
