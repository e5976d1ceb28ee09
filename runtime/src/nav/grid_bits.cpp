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
// beside it (the rule GridBits::scan applies a word at a time).
void GridBits::build_distances() {
  dist_built_ = true;
  const std::size_t cells = std::size_t(width_) * std::size_t(height_);
  if (cells == 0 || cells > max_table_cells) {
    dist_.clear();
    return;
  }
  dist_.assign(cells * 4, 0);
  auto next = [](std::int16_t d) { return std::int16_t(d > 0 ? d + 1 : d - 1); };
  // Entering (x, y) from (x - dx, y - dy), moving straight in (dx, dy).
  auto forced = [&](std::int32_t x, std::int32_t y, int dx, int dy) {
    if (dy == 0)
      return (free(x, y - 1) && !free(x - dx, y - 1)) || (free(x, y + 1) && !free(x - dx, y + 1));
    return (free(x - 1, y) && !free(x - 1, y - dy)) || (free(x + 1, y) && !free(x + 1, y - dy));
  };
  auto step = [&](std::int32_t x, std::int32_t y, int dx, int dy, int slot) {
    if (!free(x, y)) return;
    const std::int32_t nx = x + dx, ny = y + dy;
    std::int16_t d = 0;
    if (free(nx, ny)) d = forced(nx, ny, dx, dy) ? 1 : next(dist_[cell_index(nx, ny) * 4 + slot]);
    dist_[cell_index(x, y) * 4 + slot] = d;
  };
  for (std::int32_t y = 0; y < height_; ++y) {
    for (std::int32_t x = width_ - 1; x >= 0; --x) step(x, y, 1, 0, 0);
    for (std::int32_t x = 0; x < width_; ++x) step(x, y, -1, 0, 1);
  }
  for (std::int32_t y = height_ - 1; y >= 0; --y)
    for (std::int32_t x = 0; x < width_; ++x) step(x, y, 0, 1, 2);
  for (std::int32_t y = 0; y < height_; ++y)
    for (std::int32_t x = 0; x < width_; ++x) step(x, y, 0, -1, 3);
}

}  // namespace thicket::nav
