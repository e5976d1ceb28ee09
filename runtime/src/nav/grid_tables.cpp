// Shared derived tables of grid maps (grid_tables.hpp).
#include "grid_tables.hpp"

#include <algorithm>

namespace thicket::nav {

namespace {

std::shared_ptr<const GridTables> build(const GridMap& map, TableNeeds needs) {
  auto t = std::make_shared<GridTables>();
  t->stamp = map.stamp();
  needs.components = needs.components || needs.landmarks;  // the landmarks are placed by component
  t->has = needs;
  t->bits.build(map, needs.distances);
  t->blocked.build(map);
  if (needs.components) t->components.build(t->bits, map.width(), map.height());
  if (needs.landmarks) t->marks.build(map, t->bits, t->components);
  return t;
}

}  // namespace

void BlockedCounts::build(const GridMap& map) {
  const std::size_t w = std::size_t(std::max(0, map.width())), h = std::size_t(std::max(0, map.height()));
  sum_.clear();
  any_open_ = false;
  if (w == 0 || h == 0) return;
  const std::size_t bw = ((w - 1) >> kShift) + 1, bh = ((h - 1) >> kShift) + 1;
  stride_ = bw + 1;
  sum_.assign(stride_ * (bh + 1), 0);
  // Each block's own count at [by + 1][bx + 1] first, then summed along rows and down columns.
  for (std::size_t y = 0; y < h; ++y)
    for (std::size_t x = 0; x < w; ++x)
      sum_[((y >> kShift) + 1) * stride_ + (x >> kShift) + 1] += !map.passable(Cell{std::int32_t(x), std::int32_t(y)});
  for (std::size_t by = 1; by <= bh; ++by)
    for (std::size_t bx = 1; bx <= bw; ++bx) any_open_ = any_open_ || sum_[by * stride_ + bx] == 0;
  for (std::size_t by = 1; by <= bh; ++by)
    for (std::size_t bx = 1; bx <= bw; ++bx)
      sum_[by * stride_ + bx] += sum_[by * stride_ + bx - 1] + sum_[(by - 1) * stride_ + bx] - sum_[(by - 1) * stride_ + bx - 1];
}

std::shared_ptr<const GridTables> tables_for(const GridMap& map, TableNeeds needs) {
  GridTableCache* cache = map.table_cache().get();
  if (!cache) return build(map, needs);
  std::lock_guard<std::mutex> lock(cache->mutex);
  const auto& have = cache->latest;
  if (have && have->stamp == map.stamp()) {
    const TableNeeds& h = have->has;
    if ((h.distances || !needs.distances) && (h.components || !needs.components) && (h.landmarks || !needs.landmarks))
      return have;
    // Same version, more wanted: build the union, so that the next search of either kind fits.
    needs.distances = needs.distances || h.distances;
    needs.components = needs.components || h.components;
    needs.landmarks = needs.landmarks || h.landmarks;
  }
  cache->latest = build(map, needs);
  return cache->latest;
}

void prepare_search_tables(const GridMap& map) {
  const bool uniform = map.uniform_cost();
  tables_for(map, {.distances = uniform, .components = true, .landmarks = uniform});
}

}  // namespace thicket::nav
