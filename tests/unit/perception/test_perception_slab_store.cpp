// Where a perception manager keeps its sensing agents' states (SlabStore): room handed out in
// order, aligned, never overlapping, reused once given back; slabs grow with what is in use and
// are 2 MB-aligned (huge-page advised) once that large.
#include <doctest/doctest.h>

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <set>
#include <vector>

#include "perception/sensor_store.hpp"
#include "thicket/perception.hpp"

using thicket::perception::SlabStore;

namespace {

std::uintptr_t address(const void* p) { return reinterpret_cast<std::uintptr_t>(p); }

}  // namespace

TEST_CASE("SlabStore: aligned, disjoint room, in order within a slab, reused last in first out") {
  constexpr std::size_t kSize = 4400, kAlign = 64, kStride = 4416;  // about a SensorState; 4,400 rounded up to 64
  SlabStore store(kSize, kAlign);
  std::vector<char*> taken;
  for (int i = 0; i < 2000; ++i) {
    char* p = static_cast<char*>(store.take());
    REQUIRE(p != nullptr);
    CHECK(address(p) % kAlign == 0);
    std::memset(p, i & 0xFF, kSize);  // the whole room is writable (ASan: no overflow)
    taken.push_back(p);
  }
  // No two overlap (sorted, each ends before the next begins); the room of one written above
  // still holds its bytes.
  std::vector<char*> sorted = taken;
  std::sort(sorted.begin(), sorted.end());
  for (std::size_t i = 1; i < sorted.size(); ++i) CHECK(sorted[i - 1] + kSize <= sorted[i]);
  for (int i = 0; i < 2000; i += 97) CHECK(static_cast<unsigned char>(taken[std::size_t(i)][kSize - 1]) == (i & 0xFF));
  // Consecutive takes within the first slab lie one after another (agents registered in order
  // lie in order), each rounded up to the alignment.
  for (std::size_t i = 1; i < SlabStore::kFirstSlabObjects; ++i) CHECK(taken[i] == taken[i - 1] + kStride);
  // Slabs grow with what is in use: 2,000 objects in a handful of slabs, not hundreds.
  CHECK(store.slabs() <= 10);
  CHECK(store.reserved_bytes() >= 2000 * kSize);
  CHECK(store.reserved_bytes() <= 4 * 2000 * kSize + 2 * SlabStore::kHugePage);
  // Given back: handed out again, the last given first, before any new room.
  const std::size_t slabs = store.slabs(), reserved = store.reserved_bytes();
  store.give_back(taken[5]);
  store.give_back(taken[1500]);
  CHECK(store.take() == taken[1500]);
  CHECK(store.take() == taken[5]);
  CHECK(store.slabs() == slabs);
  CHECK(store.reserved_bytes() == reserved);
}

TEST_CASE("SlabStore: slabs of 2 MB or more are 2 MB-aligned; a small store holds little") {
  SlabStore small(4400, 64);
  for (int i = 0; i < 3; ++i) small.take();
  CHECK(small.slabs() == 1);
  CHECK(small.reserved_bytes() < SlabStore::kHugePage / 16);  // a few agents: no huge slab

  SlabStore big(4400, 64);
  std::vector<void*> taken;
  for (int i = 0; i < 3000; ++i) taken.push_back(big.take());
  // Where one object does not follow the last, a slab begins; a slab holding 2 MB or more of
  // them starts on a 2 MB boundary. 3,000 x 4,400 bytes: the last slabs are that large.
  CHECK(big.reserved_bytes() >= 3000 * 4400);
  std::size_t begin = 0, huge_slabs = 0;
  for (std::size_t i = 1; i <= taken.size(); ++i) {
    if (i < taken.size() && address(taken[i]) == address(taken[i - 1]) + 4416) continue;  // 4,400 rounded to 64
    const std::size_t bytes = (i - begin) * 4416;
    if (bytes >= SlabStore::kHugePage) {
      ++huge_slabs;
      CHECK(address(taken[begin]) % SlabStore::kHugePage == 0);
    }
    begin = i;
  }
  CHECK(huge_slabs >= 1);
  // Odd sizes and alignments are rounded up to the alignment.
  SlabStore odd(13, 8);
  char* a = static_cast<char*>(odd.take());
  char* b = static_cast<char*>(odd.take());
  CHECK(b - a == 16);
  CHECK(address(a) % 8 == 0);
}
