// Shared derived tables of grid maps (grid_tables.hpp).
#include "grid_tables.hpp"

namespace thicket::nav {

namespace {

std::shared_ptr<const GridTables> build(const GridMap& map, bool distances, bool landmarks) {
  auto t = std::make_shared<GridTables>();
  t->stamp = map.stamp();
  t->distances = distances;
  t->landmarks = landmarks;
  t->bits.build(map, distances);
  if (landmarks) t->marks.build(map, t->bits);
  return t;
}

}  // namespace

std::shared_ptr<const GridTables> tables_for(const GridMap& map, bool distances, bool landmarks) {
  GridTableCache* cache = map.table_cache().get();
  if (!cache) return build(map, distances, landmarks);
  std::lock_guard<std::mutex> lock(cache->mutex);
  const auto& have = cache->latest;
  if (have && have->stamp == map.stamp()) {
    if ((have->distances || !distances) && (have->landmarks || !landmarks)) return have;
    // Same version, more wanted: build the union, so that the next search of either kind fits.
    distances = distances || have->distances;
    landmarks = landmarks || have->landmarks;
  }
  cache->latest = build(map, distances, landmarks);
  return cache->latest;
}

void prepare_search_tables(const GridMap& map) {
  const bool uniform = map.uniform_cost();
  tables_for(map, /*distances=*/uniform, /*landmarks=*/uniform);
}

}  // namespace thicket::nav
