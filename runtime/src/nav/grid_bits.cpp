// Building GridBits from a map (grid_bits.hpp).
#include "grid_bits.hpp"

namespace thicket::nav {

void GridBits::build(const GridMap& map) {
  if (map.stamp() == stamp_ && map.width() == width_ && map.height() == height_ && !rows_.empty()) return;
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
}

}  // namespace thicket::nav
