// Neighbour queries through a uniform grid hashed into a table sized to the population
// (Teschner et al. 2003), rebuilt once per tick by a stable counting sort.
#include <algorithm>
#include <numbers>

#include "thicket/world.hpp"

namespace thicket::world {

namespace {

// Cell coordinates are clamped to this, so far-off (or non-finite) positions share edge cells
// instead of overflowing; both rebuild and queries clamp alike, so no entity is ever missed.
constexpr double kCellLimit = 1 << 30;

bool passes(const QueryFilter& filter, EntityId id, std::int32_t team) {
  return id != filter.excluded && filter.teams.accepts(team);
}

}  // namespace

SpatialHash::SpatialHash(double cell_size)
    : cell_size_(cell_size > 0 ? cell_size : 1.0), inverse_cell_size_(1.0 / cell_size_) {
  bucket_start_.assign(2, 0);  // one empty bucket, so queries before the first rebuild work
}

std::int32_t SpatialHash::cell_of(double coordinate) const {
  double cell = std::floor(coordinate * inverse_cell_size_);
  if (!(cell >= -kCellLimit)) cell = -kCellLimit;  // also catches NaN
  if (cell > kCellLimit) cell = kCellLimit;
  return static_cast<std::int32_t>(cell);
}

// murmur3's 64-bit finalizer over both coordinates: neighbouring cells land far apart, so a
// query's block of cells rarely shares buckets.
std::uint32_t SpatialHash::bucket_of(std::int32_t cell_x, std::int32_t cell_y) const {
  std::uint64_t key = (std::uint64_t{static_cast<std::uint32_t>(cell_x)} << 32) |
                      static_cast<std::uint32_t>(cell_y);
  key ^= key >> 33;
  key *= 0xFF51AFD7ED558CCDull;
  key ^= key >> 33;
  key *= 0xC4CEB9FE1A85EC53ull;
  key ^= key >> 33;
  return static_cast<std::uint32_t>(key) & bucket_mask_;
}

void SpatialHash::rebuild(const World& world) {
  std::span<const Entity> slots = world.entities();
  std::size_t live = world.live_count();

  // At least two buckets per entity keeps chains short.
  std::uint32_t bucket_count = 1;
  while (bucket_count < 2 * live) bucket_count <<= 1;
  bucket_mask_ = bucket_count - 1;

  // Counting sort by bucket. First count each bucket's size...
  bucket_start_.assign(bucket_count + 1, 0);
  bucket_scratch_.clear();
  for (const Entity& e : slots) {
    if (!e.alive) continue;
    std::uint32_t bucket = bucket_of(cell_of(e.position.x), cell_of(e.position.y));
    bucket_scratch_.push_back(bucket);
    ++bucket_start_[bucket];
  }
  // ...turn the sizes into each bucket's end...
  for (std::uint32_t b = 1; b <= bucket_count; ++b) bucket_start_[b] += bucket_start_[b - 1];
  // ...and fill each bucket from its end, walking the slots backwards, so a bucket lists its
  // entities in ascending slot order and its start ends up where the filling stopped.
  entries_.resize(bucket_scratch_.size());
  std::size_t remaining = bucket_scratch_.size();
  for (std::size_t slot = slots.size(); slot-- > 0;) {
    const Entity& e = slots[slot];
    if (!e.alive) continue;
    std::uint32_t bucket = bucket_scratch_[--remaining];
    entries_[--bucket_start_[bucket]] = Entry{e.position, e.id, e.team, cell_of(e.position.x),
                                              cell_of(e.position.y)};
  }
}

template <class Visit>
void SpatialHash::for_each_entry_near(Vec2 centre, double reach, QueryCost* cost,
                                      Visit&& visit) const {
  if (entries_.empty()) return;
  // A hair of slack so that rounding in centre ± reach can never drop the cell of an entity
  // lying exactly on the query's edge.
  double slack = 1e-9 * (std::abs(centre.x) + std::abs(centre.y) + reach + 1.0);
  double span = reach + slack;
  std::int32_t x0 = cell_of(centre.x - span), x1 = cell_of(centre.x + span);
  std::int32_t y0 = cell_of(centre.y - span), y1 = cell_of(centre.y + span);
  auto cell_count = static_cast<std::uint64_t>(std::int64_t{x1} - x0 + 1) *
                    static_cast<std::uint64_t>(std::int64_t{y1} - y0 + 1);

  // A query wider than the population is cheaper as one pass over every entry.
  if (cell_count >= entries_.size()) {
    if (cost != nullptr) cost->entries += entries_.size();
    for (const Entry& entry : entries_) visit(entry);
    return;
  }
  for (std::int32_t y = y0; y <= y1; ++y) {
    for (std::int32_t x = x0; x <= x1; ++x) {
      std::uint32_t bucket = bucket_of(x, y);
      std::uint32_t begin = bucket_start_[bucket], end = bucket_start_[bucket + 1];
      if (cost != nullptr) {
        cost->cells += 1;
        cost->entries += end - begin;
      }
      for (std::uint32_t i = begin; i < end; ++i) {
        const Entry& entry = entries_[i];
        // A bucket also holds other cells that hashed alike; each entry is visited only from
        // its own cell, so none is reported twice.
        if (entry.cell_x == x && entry.cell_y == y) visit(entry);
      }
    }
  }
}

void SpatialHash::within_radius(Vec2 centre, double radius, std::vector<EntityId>& out,
                                const QueryFilter& filter, QueryCost* cost) const {
  out.clear();
  if (!(radius >= 0)) return;
  double radius_squared = radius * radius;
  for_each_entry_near(centre, radius, cost, [&](const Entry& entry) {
    if (!passes(filter, entry.id, entry.team)) return;
    if ((entry.position - centre).length_squared() <= radius_squared) out.push_back(entry.id);
  });
  std::sort(out.begin(), out.end());
}

void SpatialHash::in_field_of_view(Vec2 eye, Vec2 heading, double range, double half_angle,
                                   std::vector<EntityId>& out, const QueryFilter& filter,
                                   QueryCost* cost) const {
  out.clear();
  if (!(range >= 0)) return;
  double range_squared = range * range;
  Vec2 forward = heading.normalized();
  // From half a turn on, the cone covers everything; skip the test, whose rounding could
  // otherwise drop an entity straight behind.
  bool all_round = std::abs(half_angle) >= std::numbers::pi;
  double min_cosine = std::cos(half_angle);
  for_each_entry_near(eye, range, cost, [&](const Entry& entry) {
    if (!passes(filter, entry.id, entry.team)) return;
    Vec2 offset = entry.position - eye;
    double distance_squared = offset.length_squared();
    if (distance_squared > range_squared) return;
    // Angle test without acos: cos(angle to forward) >= cos(half_angle).
    if (!all_round && !(forward.dot(offset) >= std::sqrt(distance_squared) * min_cosine)) return;
    out.push_back(entry.id);
  });
  std::sort(out.begin(), out.end());
}

EntityId SpatialHash::nearest(Vec2 point, double radius, const QueryFilter& filter,
                              QueryCost* cost) const {
  if (!(radius >= 0)) return EntityId::none();
  EntityId best = EntityId::none();  // sorts after every real id, so ties go to real ones
  double best_distance_squared = radius * radius;
  for_each_entry_near(point, radius, cost, [&](const Entry& entry) {
    if (!passes(filter, entry.id, entry.team)) return;
    double d = (entry.position - point).length_squared();
    if (d < best_distance_squared || (d == best_distance_squared && entry.id < best)) {
      best = entry.id;
      best_distance_squared = d;
    }
  });
  return best;
}

}  // namespace thicket::world
