// GridBits: a map's passability as 64-bit rows, and again as columns (the map transposed), so
// that jump point search scans a straight line 64 cells at a time in all four directions with
// one routine (Harabor & Grastien's block-based jumping). A* reads passability from it too.
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
  // Rebuilds from the map unless it is already built from this map as it is now.
  void build(const GridMap& map);
  std::size_t bytes() const { return (rows_.capacity() + cols_.capacity()) * sizeof(std::uint64_t); }

  // x in [-1, width], y in [-1, height].
  bool free(std::int32_t x, std::int32_t y) const { return bit(row(y), x); }

  // Horizontal jump from (x, y) in direction dx (±1) along row y: the first cell after x that
  // is a jump point (a blocked cell is diagonally behind it above or below, with its own
  // neighbour there free: the no-corner-cutting forced-neighbour rule) or is goal_x (-1: the
  // goal is not on this row); -1 when a blocked cell comes first.
  std::int32_t jump_x(std::int32_t x, std::int32_t y, int dx, std::int32_t goal_x) const {
    return scan(row(y), row(y - 1), row(y + 1), x, dx, goal_x);
  }
  // The same down column x in direction dy.
  std::int32_t jump_y(std::int32_t x, std::int32_t y, int dy, std::int32_t goal_y) const {
    return scan(col(x), col(x - 1), col(x + 1), y, dy, goal_y);
  }

 private:
  static constexpr int kPad = 64;  // cells of blocked border on the left of each line

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
  static std::int32_t scan(const std::uint64_t* cur, const std::uint64_t* a, const std::uint64_t* b,
                           std::int32_t from, int dir, std::int32_t goal);

  std::uint64_t stamp_ = 0;
  std::int32_t width_ = 0, height_ = 0;
  std::size_t row_words_ = 0, col_words_ = 0;
  std::vector<std::uint64_t> rows_, cols_;  // bit set: passable
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
