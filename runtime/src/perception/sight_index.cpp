// Perception's sight index (see sight_index.hpp): a dense per-team grid of bodies, rebuilt from
// the spatial hash at each begin_tick, answering SpatialHash::in_cones's question exactly.
#include "perception/sight_index.hpp"

#include <algorithm>
#include <cmath>
#include <numbers>
#if defined(__SSE2__)
#include <emmintrin.h>
#endif

#include "world/cone_geometry.hpp"

namespace thicket::perception {

using world::EntityId;
using world::SpatialHash;
using world::Vec2;

namespace {

// Grid cells: finer cells fit the wedges' box closer but make more rows. In bench_perception
// (cones of 8 and 30 m) 10 m was best (6 m cost ~4% more, 8 m ~2%, 14 m about the same).
constexpr double kSightCell = 10.0;            // m; grows for worlds wider than:
constexpr double kMaxSightColumns = 256;
constexpr std::uint32_t kStrayKey = 0xFFFFFFFFu;
constexpr std::uint32_t kSkipKey = 0xFFFFFFFEu;  // not an agent: left out
constexpr std::size_t kMaxCones = 8;


// One cone, its tests precomputed exactly as SpatialHash::in_cones does for a narrow wedge.
// (No default values of its own: in_cones keeps kMaxCones of them on the stack and sets only
// the ones it uses.)
struct ConeTest {
  double range_squared;
  double min_cosine;
  double min_cosine_squared;
  // min_cosine_squared * (1 - 2e-12): along^2 below distance^2 times this (squares normal
  // numbers) is outside by twice the test's margin, whatever the roundings.
  double outside_factor;
};

}  // namespace

void SightIndex::rebuild(const SpatialHash& hash, const world::Bounds& bounds, const std::vector<std::uint32_t>& agent_of_slot) {
  usable_ = false;
  auto is_agent = [&](EntityId id) { return id.index() < agent_of_slot.size() && agent_of_slot[id.index()] != 0; };
  teams_.clear();
  strays_.clear();
  bool too_many = false;
  hash.for_each_entry([&](Vec2, EntityId id, std::int32_t team) {
    if (!is_agent(id)) return;
    auto at = std::lower_bound(teams_.begin(), teams_.end(), team);
    if (at != teams_.end() && *at == team) return;
    if (teams_.size() == kMaxTeams) {
      too_many = true;
      return;
    }
    teams_.insert(at, team);
  });
  const double width = bounds.max.x - bounds.min.x, height = bounds.max.y - bounds.min.y;
  if (too_many || !(width >= 0 && height >= 0 && std::isfinite(width) && std::isfinite(height))) return;
  cell_ = std::max(kSightCell, std::max(width, height) / kMaxSightColumns);
  inverse_cell_ = 1.0 / cell_;
  origin_ = bounds.min;
  columns_ = std::int32_t(std::clamp(std::ceil(width * inverse_cell_), 1.0, kMaxSightColumns + 1));
  rows_ = std::int32_t(std::clamp(std::ceil(height * inverse_cell_), 1.0, kMaxSightColumns + 1));
  const std::size_t cells = std::size_t(columns_) * std::size_t(rows_);
  const std::size_t keys = teams_.size() * (cells + 1);  // each team's block ends with an empty slot

  // Counting sort by (team, cell): sizes, then starts, then fill.
  cell_start_.assign(keys + 1, 0);
  key_scratch_.clear();
  hash.for_each_entry([&](Vec2 p, EntityId id, std::int32_t team) {
    if (!is_agent(id)) {
      key_scratch_.push_back(kSkipKey);
      return;
    }
    const double fx = std::floor((p.x - origin_.x) * inverse_cell_);
    const double fy = std::floor((p.y - origin_.y) * inverse_cell_);
    if (!(fx >= 0 && fx < columns_ && fy >= 0 && fy < rows_)) {  // also NaN
      strays_.push_back({p, id, team});
      key_scratch_.push_back(kStrayKey);
      return;
    }
    const std::size_t t = std::size_t(std::find(teams_.begin(), teams_.end(), team) - teams_.begin());
    const std::uint32_t key = std::uint32_t(t * (cells + 1) + std::size_t(fy) * columns_ + std::size_t(fx));
    key_scratch_.push_back(key);
    ++cell_start_[key];
  });
  std::uint32_t sum = 0;
  for (std::uint32_t& start : cell_start_) {
    const std::uint32_t size = start;
    start = sum;
    sum += size;
  }
  xs_.resize(sum);
  ys_.resize(sum);
  ids_.resize(sum);
  cursor_scratch_.assign(cell_start_.begin(), cell_start_.end());
  std::size_t i = 0;
  hash.for_each_entry([&](Vec2 p, EntityId id, std::int32_t) {
    const std::uint32_t key = key_scratch_[i++];
    if (key == kStrayKey || key == kSkipKey) return;
    const std::uint32_t at = cursor_scratch_[key]++;
    xs_[at] = p.x;
    ys_[at] = p.y;
    ids_[at] = id;
  });
  usable_ = true;
}

bool SightIndex::in_cones(Vec2 eye, Vec2 heading, std::span<const SpatialHash::ViewCone> cones,
                          std::vector<SpatialHash::Sighting>& out, const world::QueryFilter& filter,
                          world::QueryCost* cost) const {
  if (!usable_ || cones.empty() || cones.size() > kMaxCones || !std::isfinite(eye.x) || !std::isfinite(eye.y))
    return false;
  const Vec2 forward = heading.normalized();
  if (forward == Vec2{}) return false;
  ConeTest tests[kMaxCones];
  Vec2 lo = eye, hi = eye;
  auto extend = [&](Vec2 p) {
    lo = {std::min(lo.x, p.x), std::min(lo.y, p.y)};
    hi = {std::max(hi.x, p.x), std::max(hi.y, p.y)};
  };
  const std::size_t used = cones.size();
  double max_range_squared = 0;
  for (std::size_t k = 0; k < used; ++k) {
    const SpatialHash::ViewCone& cone = cones[k];
    const double range = cone.range;
    // Only narrow wedges with a real range: the hash answers the rest.
    if (!(range >= 0) || !std::isfinite(range) || !(std::abs(cone.half_angle) < std::numbers::pi / 2))
      return false;
    ConeTest& t = tests[k];
    t.range_squared = range * range;
    t.min_cosine = world::cached_cosine(cone.half_angle);
    t.min_cosine_squared = t.min_cosine * t.min_cosine;
    t.outside_factor = t.min_cosine_squared * (1 - 2e-12);
    max_range_squared = std::max(max_range_squared, t.range_squared);
    world::cone_wedge(eye, forward, t.min_cosine, range, extend);  // its box, into lo..hi
  }
  out.clear();
  // The body test, as SpatialHash::in_cones's (same expressions, so the same roundings): the
  // first cone that holds the body. The caller has already dropped the bodies beyond every
  // cone's range or behind the eye (every cone here has min_cosine > 0, so along < 0 fails each
  // one's angle test whatever the distance): those are in no cone.
  auto test = [&](Vec2 position, EntityId id, double distance_squared, double along) {
    double distance = -1;  // computed once, when a cone needs it
    for (std::size_t k = 0; k < used; ++k) {
      const ConeTest& t = tests[k];
      if (distance_squared > t.range_squared) continue;
      // The hash's angle test is along >= sqrt(d2) * cos, rounded. Squared (along^2 against
      // d2 * cos^2, both >= 0 here) it needs no square root; it decides only where the sides
      // differ by 1e-12 relative, far beyond both forms' rounding (a few 1e-16), and only
      // where the squares are normal numbers. Elsewhere (near the cone's edge) the hash's own
      // test decides. Either way the answer is the hash's.
      const double a2 = along * along, r2 = distance_squared * t.min_cosine_squared;
      const bool plain = r2 >= 1e-250 && r2 <= 1e250;
      if (plain && a2 > r2 * (1 + 1e-12)) {
        // inside
      } else if (plain && a2 < r2 * (1 - 1e-12)) {
        continue;  // outside
      } else {
        if (distance < 0) distance = std::sqrt(distance_squared);
        if (!(along >= distance * t.min_cosine)) continue;
      }
      out.push_back({id, std::uint32_t(k), position});
      return;
    }
  };
  for (const Stray& stray : strays_) {
    if (cost != nullptr) ++cost->entries;
    if (stray.id == filter.excluded || !filter.teams.accepts(stray.team)) continue;
    const Vec2 offset = stray.position - eye;
    const double distance_squared = offset.length_squared(), along = forward.dot(offset);
    if (distance_squared > max_range_squared || along < 0) continue;
    test(stray.position, stray.id, distance_squared, along);
  }

  // The cells the wedges' bounding box covers (a hair wider), clamped to the grid: a body in a
  // cell outside lies outside the box (the floor of monotone operations keeps the order).
  const double slack = 1e-9 * (std::max({std::abs(lo.x), std::abs(lo.y), std::abs(hi.x), std::abs(hi.y)}) +
                               (hi.x - lo.x) + (hi.y - lo.y) + 1.0);
  auto cell_index = [&](double v, double origin, std::int32_t n) {
    return std::int32_t(std::clamp(std::floor((v - origin) * inverse_cell_), 0.0, double(n - 1)));
  };
  const std::int32_t x0 = cell_index(lo.x - slack, origin_.x, columns_), x1 = cell_index(hi.x + slack, origin_.x, columns_);
  const std::int32_t y0 = cell_index(lo.y - slack, origin_.y, rows_), y1 = cell_index(hi.y + slack, origin_.y, rows_);
  // Every row of the box is one stretch per team, x0..x1: the bodies of the cells outside the
  // wedges cost less than finding those cells did (trimming each row to the cells whose
  // bounding circle meets a cone took a ~20-cell walk of cone tests per query, more than
  // the few more bodies the branch-free cut below drops; bench_perception 6-8% faster).
  const std::size_t cells = std::size_t(columns_) * std::size_t(rows_);
  // The bodies of a stretch in two passes. First, without a branch per body, those in front of
  // the eye and not clearly outside every cone (most bodies of a stretch are, at random, which
  // as branches in the cone tests was mispredicted about every other body); then the cone
  // tests on those alone. The first pass takes two bodies at a time where SSE2 is (x86-64):
  // beyond the widest range or behind the eye as the scalar loop, and besides beyond each
  // cone's range or clearly beside it (on bench_perception's maps it leaves ~8.5 bodies of
  // ~13 to the cone tests, nearly all inside, and ran 8% faster than the range test alone).
  // Chunks bound the list on the stack.
  constexpr std::uint32_t kChunk = 128;
  std::uint32_t near[kChunk];
  double near_d2[kChunk], near_along[kChunk];
  const double* xs = xs_.data();
  const double* ys = ys_.data();
  const EntityId* ids = ids_.data();
  const EntityId excluded = filter.excluded;
  const double eye_x = eye.x, eye_y = eye.y, forward_x = forward.x, forward_y = forward.y;
  // Each accepted team's stretch of each row of the box: f(begin, end) over its bodies.
  auto for_each_stretch = [&](auto&& f) {
    for (std::size_t t = 0; t < teams_.size(); ++t) {
      if (!filter.teams.accepts(teams_[t])) continue;
      const std::uint32_t* starts = cell_start_.data() + t * (cells + 1);
      for (std::int32_t y = y0; y <= y1; ++y) {
        const std::size_t row = std::size_t(y) * std::size_t(columns_);
        f(starts[row + std::size_t(x0)], starts[row + std::size_t(x1) + 1]);
      }
    }
  };
  // Every stretch's lines asked for first, so that their fetches overlap (the walk below
  // would meet each one's miss in turn).
  for_each_stretch([&](std::uint32_t begin, std::uint32_t end) {
    for (std::uint32_t i = begin; i < end; i += 8) {
      __builtin_prefetch(xs + i);
      __builtin_prefetch(ys + i);
    }
    if (begin < end) {
      __builtin_prefetch(xs + end - 1);
      __builtin_prefetch(ys + end - 1);
    }
  });
  for_each_stretch([&](std::uint32_t begin, std::uint32_t end) {
    if (cost != nullptr) {
      cost->cells += std::uint64_t(x1 - x0 + 1);
      cost->entries += end - begin;
    }
    for (std::uint32_t chunk = begin; chunk < end; chunk += kChunk) {
      const std::uint32_t stop = std::min(end, chunk + kChunk);
      std::uint32_t count = 0;
      std::uint32_t i = chunk;
#if defined(__SSE2__)
      // Two bodies at a time: distance and along by the same operations in the same order as
      // the loop below (no fused multiply-add either way), so the same values; !(a > b) and
      // !(a < b) hold for NaN as the scalar tests do (a NaN is never clearly outside: kept).
      const __m128d eye_xs = _mm_set1_pd(eye_x), eye_ys = _mm_set1_pd(eye_y);
      const __m128d forward_xs = _mm_set1_pd(forward_x), forward_ys = _mm_set1_pd(forward_y);
      const __m128d zeros = _mm_setzero_pd(), tiny = _mm_set1_pd(1e-200);
      for (; i + 2 <= stop; i += 2) {
        const __m128d dx = _mm_sub_pd(_mm_loadu_pd(xs + i), eye_xs), dy = _mm_sub_pd(_mm_loadu_pd(ys + i), eye_ys);
        const __m128d distance_squared = _mm_add_pd(_mm_mul_pd(dx, dx), _mm_mul_pd(dy, dy));
        const __m128d along = _mm_add_pd(_mm_mul_pd(forward_xs, dx), _mm_mul_pd(forward_ys, dy));
        // In some cone unless clearly outside each: beyond its range, or (where the squares
        // are normal numbers) clearly beside it, by a margin twice the test's own (see
        // ConeTest::outside_factor): a body dropped here fails the test for every cone.
        const __m128d along_squared = _mm_mul_pd(along, along);
        const __m128d normal = _mm_cmpge_pd(distance_squared, tiny);
        __m128d outside_all = _mm_cmpeq_pd(zeros, zeros);  // all bits set
        for (std::size_t k = 0; k < used; ++k) {
          const __m128d beyond = _mm_cmpgt_pd(distance_squared, _mm_set1_pd(tests[k].range_squared));
          const __m128d bound = _mm_mul_pd(distance_squared, _mm_set1_pd(tests[k].outside_factor));
          const __m128d beside = _mm_and_pd(normal, _mm_cmplt_pd(along_squared, bound));
          outside_all = _mm_and_pd(outside_all, _mm_or_pd(beyond, beside));
        }
        const int kept = _mm_movemask_pd(_mm_andnot_pd(outside_all, _mm_cmpnlt_pd(along, zeros)));
        near[count] = i;
        _mm_storel_pd(near_d2 + count, distance_squared);
        _mm_storel_pd(near_along + count, along);
        count += std::uint32_t(kept & 1);
        near[count] = i + 1;
        _mm_storeh_pd(near_d2 + count, distance_squared);
        _mm_storeh_pd(near_along + count, along);
        count += std::uint32_t(kept >> 1);
      }
#endif
      for (; i < stop; ++i) {
        const double dx = xs[i] - eye_x, dy = ys[i] - eye_y;
        const double distance_squared = dx * dx + dy * dy;  // as Vec2's length_squared and dot
        const double along = forward_x * dx + forward_y * dy;
        near[count] = i;
        near_d2[count] = distance_squared;
        near_along[count] = along;
        count += std::uint32_t(!(distance_squared > max_range_squared) & !(along < 0));
      }
      for (std::uint32_t k = 0; k < count; ++k) {
        const std::uint32_t i = near[k];
        if (ids[i] != excluded) test(Vec2{xs[i], ys[i]}, ids[i], near_d2[k], near_along[k]);
      }
    }
  });
  return true;
}

bool SightIndex::any_within(Vec2 point, double radius, const world::QueryFilter& filter, bool& found) const {
  if (!usable_ || !(radius >= 0) || !std::isfinite(radius) || !std::isfinite(point.x) || !std::isfinite(point.y))
    return false;
  const double radius_squared = radius * radius;
  auto near = [&](Vec2 p) { return (p - point).length_squared() <= radius_squared; };  // as the hash
  found = true;
  for (const Stray& stray : strays_)
    if (stray.id != filter.excluded && filter.teams.accepts(stray.team) && near(stray.position)) return true;
  // Every body within radius lies in these cells (the slack as the hash's; floor is monotone).
  const double slack = 1e-9 * (std::abs(point.x) + std::abs(point.y) + radius + 1.0);
  auto cell_index = [&](double v, double origin, std::int32_t n) {
    return std::int32_t(std::clamp(std::floor((v - origin) * inverse_cell_), 0.0, double(n - 1)));
  };
  const std::int32_t x0 = cell_index(point.x - radius - slack, origin_.x, columns_);
  const std::int32_t x1 = cell_index(point.x + radius + slack, origin_.x, columns_);
  const std::int32_t y0 = cell_index(point.y - radius - slack, origin_.y, rows_);
  const std::int32_t y1 = cell_index(point.y + radius + slack, origin_.y, rows_);
  const std::size_t cells = std::size_t(columns_) * std::size_t(rows_);
  for (std::size_t t = 0; t < teams_.size(); ++t) {
    if (!filter.teams.accepts(teams_[t])) continue;
    const std::uint32_t* starts = cell_start_.data() + t * (cells + 1);
    for (std::int32_t y = y0; y <= y1; ++y) {
      const std::size_t row = std::size_t(y) * std::size_t(columns_);
      const std::uint32_t end = starts[row + std::size_t(x1) + 1];
      for (std::uint32_t i = starts[row + std::size_t(x0)]; i < end; ++i)
        if (ids_[i] != filter.excluded && near(Vec2{xs_[i], ys_[i]})) return true;
    }
  }
  found = false;
  return true;
}

}  // namespace thicket::perception
