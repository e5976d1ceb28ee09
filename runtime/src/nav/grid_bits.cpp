// Building GridBits from a map (grid_bits.hpp).
#include "grid_bits.hpp"

namespace thicket::nav {

void GridBits::build(const GridMap& map, bool distances) {
  const bool same = map.stamp() == stamp_ && map.width() == width_ && map.height() == height_ && !rows_.empty();
  if (same) {
    if (distances && !dist_built_) build_distances();
    return;
  }
  width_ = map.width();
  height_ = map.height();
  stamp_ = map.stamp();
  // Room for the left border word, the cells, the right border and the word a window reads
  // past its start.
  row_words_ = std::size_t(width_ + kPad) / 64 + 2;
  col_words_ = std::size_t(height_ + kPad) / 64 + 2;
  rows_.assign(row_words_ * std::size_t(height_ + 2), 0);
  cols_.assign(col_words_ * std::size_t(width_ + 2), 0);
  for (std::int32_t y = 0; y < height_; ++y)
    for (std::int32_t x = 0; x < width_; ++x) {
      if (!map.passable({x, y})) continue;
      const std::uint32_t px = std::uint32_t(x + kPad), py = std::uint32_t(y + kPad);
      rows_[std::size_t(y + 1) * row_words_ + (px >> 6)] |= std::uint64_t(1) << (px & 63);
      cols_[std::size_t(x + 1) * col_words_ + (py >> 6)] |= std::uint64_t(1) << (py & 63);
    }
  dist_built_ = false;
  dist_.clear();  // stale until rebuilt; its capacity stays for the next map
  if (distances) build_distances();
}

// Each direction is one pass against it, so a cell's distance comes from its neighbour's: one
// more than the neighbour's, unless the neighbour is blocked (0) or is itself a jump point (1).
// A jump point is a cell entered with a blocked cell diagonally behind it and a free one
// beside it (the rule GridBits::scan applies a word at a time). Blocked cells keep 0.
void GridBits::build_distances() {
  dist_built_ = true;
  const std::size_t cells = std::size_t(width_) * std::size_t(height_);
  if (cells == 0 || cells > max_table_cells) {
    dist_.clear();
    return;
  }
  dist_.assign(cells * 4, 0);
  // Along a row, in direction dx: cell x's distance from cell x + dx's, carried in `ahead`.
  const std::size_t w = std::size_t(width_);
  auto sweep_row = [&](std::int32_t y, int dx, int slot) {
    const std::uint64_t *cur = row(y), *a = row(y - 1), *b = row(y + 1);
    Dist ahead = 0;
    for (std::int32_t k = 0; k < width_; ++k) {
      const std::int32_t x = dx > 0 ? width_ - 1 - k : k, nx = x + dx;
      Dist d = 0;
      if (bit(cur, x) && bit(cur, nx)) {
        const bool forced = (bit(a, nx) && !bit(a, x)) || (bit(b, nx) && !bit(b, x));
        d = forced ? 1 : further(ahead);
      }
      dist_[(std::size_t(y) * w + std::size_t(x)) * 4 + std::size_t(slot)] = d;
      ahead = d;
    }
  };
  // Down or up the columns, a row at a time (memory in order): cell (x, y)'s distance from
  // (x, y + dy)'s, written on the row before.
  auto sweep_rows = [&](std::int32_t y, int dy, int slot) {
    const std::uint64_t *cur = row(y), *next = row(y + dy);
    const bool last = y + dy < 0 || y + dy >= height_;
    for (std::int32_t x = 0; x < width_; ++x) {
      Dist d = 0;
      if (bit(cur, x) && bit(next, x)) {
        const bool forced = (bit(next, x - 1) && !bit(cur, x - 1)) || (bit(next, x + 1) && !bit(cur, x + 1));
        const Dist ahead =
            last ? 0 : dist_[(std::size_t(y + dy) * w + std::size_t(x)) * 4 + std::size_t(slot)];
        d = forced ? 1 : further(ahead);
      }
      dist_[(std::size_t(y) * w + std::size_t(x)) * 4 + std::size_t(slot)] = d;
    }
  };
  for (std::int32_t y = 0; y < height_; ++y) {
    sweep_row(y, 1, 0);
    sweep_row(y, -1, 1);
  }
  for (std::int32_t y = height_ - 1; y >= 0; --y) sweep_rows(y, 1, 2);
  for (std::int32_t y = 0; y < height_; ++y) sweep_rows(y, -1, 3);
}

}  // namespace thicket::nav
