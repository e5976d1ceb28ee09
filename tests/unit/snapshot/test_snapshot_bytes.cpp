// The snapshot byte primitives: little-endian, fixed width, and a reader that fails once and
// then reads zeros.
#include <doctest/doctest.h>

#include <cmath>

#include "thicket/snapshot.hpp"

using namespace thicket;

TEST_CASE("snapshot bytes: values round-trip in little-endian order") {
  SnapshotWriter w;
  w.u8(0xAB);
  w.u32(0x01020304);
  w.u64(0x1122334455667788ULL);
  w.i64(-5);
  w.f64(-0.0);
  w.f64(NAN);
  w.str("héllo");
  w.str("");
  const std::string& b = w.bytes();
  CHECK(b.size() == 1 + 4 + 8 + 8 + 8 + 8 + 4 + 6 + 4);
  CHECK(static_cast<uint8_t>(b[1]) == 0x04);  // the least significant byte first
  CHECK(static_cast<uint8_t>(b[4]) == 0x01);
  SnapshotReader r(b);
  CHECK(r.u8() == 0xAB);
  CHECK(r.u32() == 0x01020304);
  CHECK(r.u64() == 0x1122334455667788ULL);
  CHECK(r.i64() == -5);
  double z = r.f64();
  CHECK(z == 0.0);
  CHECK(std::signbit(z));
  CHECK(std::isnan(r.f64()));
  CHECK(r.str() == "héllo");
  CHECK(r.str() == "");
  CHECK(r.ok());
  CHECK(r.at_end());
}

TEST_CASE("snapshot bytes: a short read fails once, then reads zeros") {
  SnapshotWriter w;
  w.u32(7);
  w.u32(9);
  std::string b = w.take();
  SnapshotReader r(std::string_view(b).substr(0, 6));
  CHECK(r.u32() == 7);
  CHECK(r.u32() == 0);
  CHECK(!r.ok());
  CHECK(r.error().find("ends too early") != std::string::npos);
  std::string first = r.error();
  r.fail("another");
  CHECK(r.error() == first);
  CHECK(r.u8() == 0);
  CHECK(r.str() == "");
}

TEST_CASE("snapshot bytes: a string length past the end fails without allocating it") {
  SnapshotWriter w;
  w.u32(0xFFFFFFF0u);
  w.u8('x');
  std::string b = w.take();
  SnapshotReader r(b);
  CHECK(r.str() == "");
  CHECK(!r.ok());
}
