// GridBits: a map's passability as 64-bit rows, and again as columns (the map transposed), so
// that jump point search scans a straight line 64 cells at a time in all four directions with
// one routine (Harabor & Grastien's block-based jumping). A* reads passability from it too.
//
// On top of that, maps of up to max_table_cells cells get jump distances (JPS+, Harabor &
// Grastien 2014): per cell and straight direction, how far the scan would go, so a straight
// jump is one table read. Larger maps scan the bits (the table costs 4 bytes a cell).
//
// Every line has a blocked border: a whole word on the left (cells -64..-1), blocked cells on
// the right past the end, and a blocked line before the first and after the last. A scan thus
// always meets a blocked cell before it leaves the map, and needs no bounds check.
#pragma once
#include <bit>
#include <cstdint>
#include <vector>

#include "thicket/nav.hpp"

namespace thicket::nav {

class GridBits {
 public:
  // Rebuilds from the map unless it is already built from this map as it is now; distances:
  // with the jump distances too (jump point search wants them, A* does not).
  void build(const GridMap& map, bool distances = true);
  std::size_t bytes() const {
    return (rows_.capacity() + cols_.capacity()) * sizeof(std::uint64_t) + dist_.capacity() * sizeof(Dist);
  }
  // Maps with more cells scan the bits instead of keeping jump distances (tests set 0 to
  // check one against the other).
  std::size_t max_table_cells = std::size_t(1) << 22;

  // x in [-1, width], y in [-1, height].
  bool free(std::int32_t x, std::int32_t y) const { return bit(row(y), x); }

  // Horizontal jump from (x, y) in direction dx (±1) along row y: the first cell after x that
  // is a jump point (a blocked cell is diagonally behind it above or below, with its own
  // neighbour there free: the no-corner-cutting forced-neighbour rule) or is goal_x (-1: the
  // goal is not on this row); -1 when a blocked cell comes first.
  std::int32_t jump_x(std::int32_t x, std::int32_t y, int dx, std::int32_t goal_x) const {
    if (!dist_.empty()) {
      const Dist d = dist_[cell_index(x, y) * 4 + (dx > 0 ? 0 : 1)];
      if (d != kFar) return from_table(x, d, dx, goal_x);
    }
    return scan(row(y), row(y - 1), row(y + 1), x, dx, goal_x);
  }
  // The same down column x in direction dy.
  std::int32_t jump_y(std::int32_t x, std::int32_t y, int dy, std::int32_t goal_y) const {
    if (!dist_.empty()) {
      const Dist d = dist_[cell_index(x, y) * 4 + (dy > 0 ? 2 : 3)];
      if (d != kFar) return from_table(y, d, dy, goal_y);
    }
    return scan(col(x), col(x - 1), col(x + 1), y, dy, goal_y);
  }

 private:
  static constexpr int kPad = 64;  // cells of blocked border on the left of each line
  // A byte a distance keeps the table a quarter of the cells' size (it is read at random, so
  // cache misses are its cost); a run too long for a byte is kFar, and scanned.
  using Dist = std::int8_t;
  static constexpr Dist kFar = -128;
  static Dist further(Dist ahead) {
    if (ahead == kFar) return kFar;
    const int d = ahead > 0 ? ahead + 1 : ahead - 1;
    return d > 127 || d < -127 ? kFar : Dist(d);
  }

  const std::uint64_t* row(std::int32_t y) const { return rows_.data() + std::size_t(y + 1) * row_words_; }
  const std::uint64_t* col(std::int32_t x) const { return cols_.data() + std::size_t(x + 1) * col_words_; }
  static bool bit(const std::uint64_t* line, std::int32_t i) {
    const std::uint32_t p = std::uint32_t(i + kPad);
    return (line[p >> 6] >> (p & 63)) & 1u;
  }
  // 64 cells of a line from padded position p on: bit k is position p + k.
  static std::uint64_t window(const std::uint64_t* line, std::uint32_t p) {
    const std::uint32_t w = p >> 6, s = p & 63;
    // (hi << 1) << (63 - s) is hi << (64 - s) without the undefined shift by 64 when s == 0.
    return (line[w] >> s) | ((line[w + 1] << 1) << (63 - s));
  }
  std::size_t cell_index(std::int32_t x, std::int32_t y) const {
    return std::size_t(y) * std::size_t(width_) + std::size_t(x);
  }
  // d > 0: a jump point d cells on; d <= 0: -d free cells on, then a blocked one.
  static std::int32_t from_table(std::int32_t pos, Dist d, int dir, std::int32_t goal) {
    if (goal >= 0) {
      const std::int32_t k = (goal - pos) * dir;
      if (k > 0 && k <= (d > 0 ? d : -d)) return goal;
    }
    return d > 0 ? pos + dir * d : -1;
  }
  void build_distances();
  bool dist_built_ = false;
  static std::int32_t scan(const std::uint64_t* cur, const std::uint64_t* a, const std::uint64_t* b,
                           std::int32_t from, int dir, std::int32_t goal);

  std::uint64_t stamp_ = 0;
  std::int32_t width_ = 0, height_ = 0;
  std::size_t row_words_ = 0, col_words_ = 0;
  std::vector<std::uint64_t> rows_, cols_;  // bit set: passable
  std::vector<Dist> dist_;                  // per cell: east, west, south (+y), north; or empty
};

inline std::int32_t GridBits::scan(const std::uint64_t* cur, const std::uint64_t* a, const std::uint64_t* b,
                                   std::int32_t from, int dir, std::int32_t goal) {
  if (dir > 0) {
    // Forward: cell i is a jump point when a[i] is free and a[i-1] is blocked (or so for b).
    std::uint32_t p = std::uint32_t(from + 1 + kPad);
    const std::uint32_t g = goal > from ? std::uint32_t(goal + kPad) : 0;
    for (;;) {
      const std::uint64_t fa = window(a, p), fb = window(b, p);
      std::uint64_t stop = ~window(cur, p) | (fa & ~window(a, p - 1)) | (fb & ~window(b, p - 1));
      if (g >= p && g < p + 64) stop |= std::uint64_t(1) << (g - p);
      if (stop) {
        const int k = std::countr_zero(stop);
        const std::uint32_t q = p + std::uint32_t(k);
        return bit(cur, std::int32_t(q) - kPad) ? std::int32_t(q) - kPad : -1;
      }
      p += 64;
    }
  }
  // Backward: the window ends at position p; cell i is a jump point when a[i] is free and
  // a[i+1] is blocked. The left border guarantees a stop before the window leaves the line.
  std::uint32_t p = std::uint32_t(from - 1 + kPad);
  const std::uint32_t g = (goal >= 0 && goal < from) ? std::uint32_t(goal + kPad) : 0xffffffffu;
  for (;;) {
    const std::uint32_t s = p - 63;
    const std::uint64_t fa = window(a, s), fb = window(b, s);
    std::uint64_t stop = ~window(cur, s) | (fa & ~window(a, s + 1)) | (fb & ~window(b, s + 1));
    if (g >= s && g <= p) stop |= std::uint64_t(1) << (g - s);
    if (stop) {
      const int k = 63 - std::countl_zero(stop);
      const std::uint32_t q = s + std::uint32_t(k);
      return bit(cur, std::int32_t(q) - kPad) ? std::int32_t(q) - kPad : -1;
    }
    p -= 64;
  }
}

}  // namespace thicket::nav
