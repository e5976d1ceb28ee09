// GridMap: the cells, their terrain costs and their place in the world (nav.hpp).
#include <atomic>
#include <cmath>

#include "grid_tables.hpp"
#include "thicket/nav.hpp"

namespace thicket::nav {
namespace {
// Only an identity for caches, never part of a result: searches stay deterministic.
std::uint64_t next_stamp() {
  static std::atomic<std::uint64_t> counter{0};
  return counter.fetch_add(1, std::memory_order_relaxed) + 1;
}
}  // namespace

GridMap::GridMap(std::int32_t width, std::int32_t height)
    : width_(width > 0 ? width : 0), height_(height > 0 ? height : 0) {
  const std::size_t n = std::size_t(width_) * std::size_t(height_);
  passable_.assign(n, 1);
  symbols_.assign(n, '.');
  stamp_ = next_stamp();
  tables_ = std::make_shared<GridTableCache>();
}

void GridMap::set_passable(Cell c, bool passable) {
  if (!in_bounds(c)) return;
  const std::uint8_t v = passable ? 1 : 0;
  if (passable_[index(c)] == v) return;
  passable_[index(c)] = v;
  stamp_ = next_stamp();
}

void GridMap::set_cost(Cell c, float cost) {
  // A cost that is not > 0 and finite would break the heuristic's admissibility; ignore it.
  if (!in_bounds(c) || !(cost > 0.0f) || !std::isfinite(cost)) return;
  if (costs_.empty()) {
    if (cost == 1.0f) return;  // stays uniform: jump point search keeps working
    costs_.assign(passable_.size(), 1.0f);
  }
  costs_[index(c)] = cost;
  stamp_ = next_stamp();
  // min_cost only goes down: raising one cell back cannot lower the bound, and a bound that is
  // too low only weakens the heuristic, never makes it wrong.
  if (cost < min_cost_) min_cost_ = cost;
}

Cell GridMap::cell_at(Vec2 p) const {
  const double vx = (p.x - origin.x) / cell_size, vy = (p.y - origin.y) / cell_size;
  double fx = std::floor(vx), fy = std::floor(vy);
  // The world's bounds are the map's extent, edges included: an agent pushed against the east
  // or south edge stands exactly on it (the world clamps it there), in the last cell.
  if (fx == width_ && vx <= width_ + kEdgeSlack && width_ > 0) fx = width_ - 1;
  if (fy == height_ && vy <= height_ + kEdgeSlack && height_ > 0) fy = height_ - 1;
  // Clamp far-away points so the int conversion is defined; they are outside the map either way.
  auto to_int = [](double v) {
    if (!(v > -2e9)) return std::int32_t(-2000000000);
    if (v > 2e9) return std::int32_t(2000000000);
    return std::int32_t(v);
  };
  return {to_int(fx), to_int(fy)};
}

Vec2 GridMap::centre_of(Cell c) const {
  return {origin.x + (c.x + 0.5) * cell_size, origin.y + (c.y + 0.5) * cell_size};
}

world::Bounds GridMap::world_bounds() const {
  return {origin, {origin.x + width_ * cell_size, origin.y + height_ * cell_size}};
}

}  // namespace thicket::nav
