// The snapshot byte format's primitives (snapshot.hpp): little-endian whatever the host.
#include <cstring>

#include "thicket/snapshot.hpp"

namespace thicket {

namespace {
template <typename T>
void put_le(std::string& out, T v) {
  char b[sizeof(T)];
  for (size_t i = 0; i < sizeof(T); ++i) b[i] = static_cast<char>((static_cast<uint64_t>(v) >> (8 * i)) & 0xFF);
  out.append(b, sizeof(T));
}
template <typename T>
T get_le(const char* at) {
  uint64_t v = 0;
  for (size_t i = 0; i < sizeof(T); ++i) v |= uint64_t(static_cast<uint8_t>(at[i])) << (8 * i);
  return static_cast<T>(v);
}
}  // namespace

void SnapshotWriter::u8(uint8_t v) { bytes_.push_back(static_cast<char>(v)); }
void SnapshotWriter::u32(uint32_t v) { put_le(bytes_, v); }
void SnapshotWriter::u64(uint64_t v) { put_le(bytes_, v); }
void SnapshotWriter::i64(int64_t v) { put_le(bytes_, static_cast<uint64_t>(v)); }
void SnapshotWriter::f64(double v) {
  uint64_t bits;
  std::memcpy(&bits, &v, sizeof bits);
  put_le(bytes_, bits);
}
void SnapshotWriter::str(std::string_view s) {
  u32(static_cast<uint32_t>(s.size()));
  bytes_.append(s.data(), s.size());
}
void SnapshotWriter::raw(std::string_view s) { bytes_.append(s.data(), s.size()); }

void SnapshotReader::fail(std::string why) {
  if (!error_.empty()) return;
  error_ = std::move(why) + " (at byte " + std::to_string(pos_) + ")";
}

bool SnapshotReader::take(size_t n, const char*& at) {
  if (!ok()) return false;
  if (bytes_.size() - pos_ < n) {
    fail("the snapshot ends too early (truncated?)");
    return false;
  }
  at = bytes_.data() + pos_;
  pos_ += n;
  return true;
}

uint8_t SnapshotReader::u8() {
  const char* at;
  return take(1, at) ? static_cast<uint8_t>(at[0]) : 0;
}
uint32_t SnapshotReader::u32() {
  const char* at;
  return take(4, at) ? get_le<uint32_t>(at) : 0;
}
uint64_t SnapshotReader::u64() {
  const char* at;
  return take(8, at) ? get_le<uint64_t>(at) : 0;
}
int64_t SnapshotReader::i64() { return static_cast<int64_t>(u64()); }
double SnapshotReader::f64() {
  uint64_t bits = u64();
  double v;
  std::memcpy(&v, &bits, sizeof v);
  return v;
}
std::string SnapshotReader::str() {
  uint32_t n = u32();
  const char* at;
  if (!take(n, at)) return {};
  return std::string(at, n);
}
std::string_view SnapshotReader::raw(size_t n) {
  const char* at;
  if (!take(n, at)) return {};
  return std::string_view(at, n);
}

}  // namespace thicket
