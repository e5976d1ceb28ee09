// Building GridLandmarks (grid_landmarks.hpp): components, landmark placement, distances.
#include "grid_landmarks.hpp"

#include <limits>

namespace thicket::nav {
namespace {
// Distances at or above this in either count do not fit (kUnreached is 0xffff, 0xffff).
constexpr std::uint32_t kMaxSteps = 0xfffeu;

}  // namespace

void GridLandmarks::build(const GridMap& map, const GridBits& bits) {
  if (built_ && map.stamp() == stamp_ && map.width() == width_ && map.height() == height_) return;
  built_ = true;
  stamp_ = map.stamp();
  width_ = map.width();
  height_ = map.height();
  count_ = 0;
  landmarks_.clear();
  dist_.clear();
  const std::size_t cells = std::size_t(width_) * std::size_t(height_);
  if (cells > max_cells) {
    comp_.clear();
    comp_.shrink_to_fit();
    dist_.shrink_to_fit();
    return;
  }
  label_components(bits);

  std::vector<std::uint32_t> sizes;
  for (std::uint32_t c : comp_)
    if (c != kNoComponent) {
      if (c >= sizes.size()) sizes.resize(c + 1, 0);
      ++sizes[c];
    }
  if (sizes.empty()) return;
  // The largest component (the first of equals, for determinism) gets the landmarks: it is
  // where long searches happen; searches elsewhere keep the octile distance.
  std::uint32_t largest = 0;
  for (std::uint32_t c = 1; c < sizes.size(); ++c)
    if (sizes[c] > sizes[largest]) largest = c;
  std::uint32_t seed = 0;
  while (comp_[seed] != largest) ++seed;

  Scratch s;
  auto farthest = [&](const std::vector<double>& key) {
    std::uint32_t best = seed;
    for (std::size_t i = 0; i < cells; ++i)
      if (comp_[i] == largest && key[i] > key[best]) best = std::uint32_t(i);
    return best;
  };
  if (!dijkstra(seed, bits, s)) return;
  std::uint32_t next = farthest(s.key);
  std::vector<double> nearest(cells, std::numeric_limits<double>::infinity());
  // One cell's distances fill one cache line (kCount 16): align them to lines, so a bound()
  // costs one memory access, not two.
  dist_.assign(cells * kCount + 16, kUnreached);
  skew_ = ((64 - reinterpret_cast<std::uintptr_t>(dist_.data()) % 64) % 64) / sizeof(std::uint32_t);
  for (int k = 0; k < kCount; ++k) {
    if (!dijkstra(next, bits, s)) {
      // Too long for 16-bit counts: no heuristic table for this map (octile only).
      landmarks_.clear();
      dist_.clear();
      dist_.shrink_to_fit();
      return;
    }
    landmarks_.push_back(next);
    for (std::size_t i = 0; i < cells; ++i) {
      mutable_row(i)[k] = s.packed[i];
      if (s.packed[i] != kUnreached) nearest[i] = std::min(nearest[i], s.key[i]);
    }
    next = farthest(nearest);
    if (nearest[next] == 0) break;  // every cell of the component is a landmark already
  }
  count_ = int(landmarks_.size());
}

void GridLandmarks::label_components(const GridBits& bits) {
  const std::size_t cells = std::size_t(width_) * std::size_t(height_);
  comp_.assign(cells, kNoComponent);
  std::vector<std::uint32_t> stack;
  std::uint32_t next = 0;
  for (std::size_t start = 0; start < cells; ++start) {
    const std::int32_t sx = std::int32_t(start % std::size_t(width_)), sy = std::int32_t(start / std::size_t(width_));
    if (comp_[start] != kNoComponent || !bits.free(sx, sy)) continue;
    comp_[start] = next;
    stack.push_back(std::uint32_t(start));
    while (!stack.empty()) {
      const std::uint32_t i = stack.back();
      stack.pop_back();
      const std::int32_t x = std::int32_t(i % std::uint32_t(width_)), y = std::int32_t(i / std::uint32_t(width_));
      static constexpr std::int32_t kDx[4] = {1, -1, 0, 0}, kDy[4] = {0, 0, 1, -1};
      for (int d = 0; d < 4; ++d) {
        const std::int32_t nx = x + kDx[d], ny = y + kDy[d];
        if (!bits.free(nx, ny)) continue;  // the border is blocked: never leaves the map
        const std::size_t n = std::size_t(ny) * std::size_t(width_) + std::size_t(nx);
        if (comp_[n] != kNoComponent) continue;
        comp_[n] = next;
        stack.push_back(std::uint32_t(n));
      }
    }
    ++next;
  }
}

// Dijkstra with a bucket queue (Dial): bucket k holds cells whose distance is in [k, k + 1).
// Every move costs 1 or sqrt(2), at least 1, so a cell of bucket k only ever improves cells
// of buckets k + 1 and k + 2: when bucket k comes up its cells are final, in any order, and
// three buckets in rotation are enough. Linear in the cells, against a heap's n log n.
bool GridLandmarks::dijkstra(std::uint32_t src, const GridBits& bits, Scratch& s) const {
  const std::size_t cells = std::size_t(width_) * std::size_t(height_);
  s.packed.assign(cells, kUnreached);
  s.key.assign(cells, std::numeric_limits<double>::infinity());
  s.done.assign(cells, 0);
  for (auto& b : s.buckets) b.clear();
  s.packed[src] = 0;
  s.key[src] = 0;
  s.buckets[0].push_back(src);
  static constexpr std::int32_t kDx[8] = {1, -1, 0, 0, 1, 1, -1, -1};
  static constexpr std::int32_t kDy[8] = {0, 0, 1, -1, 1, -1, 1, -1};
  for (std::size_t k = 0, empty = 0; empty < 3; ++k) {
    std::vector<std::uint32_t>& bucket = s.buckets[k % 3];
    if (bucket.empty()) {
      ++empty;
      continue;
    }
    empty = 0;
    for (const std::uint32_t cell : bucket) {
      if (s.done[cell]) continue;  // an entry left behind when the cell improved
      s.done[cell] = 1;
      const std::int32_t x = std::int32_t(cell % std::uint32_t(width_)), y = std::int32_t(cell / std::uint32_t(width_));
      const std::uint32_t a = s.packed[cell] >> 16, b = s.packed[cell] & 0xffffu;
      const bool e = bits.free(x + 1, y), w = bits.free(x - 1, y), so = bits.free(x, y + 1), no = bits.free(x, y - 1);
      const bool free[8] = {e, w, so, no, e && so && bits.free(x + 1, y + 1), e && no && bits.free(x + 1, y - 1),
                            w && so && bits.free(x - 1, y + 1), w && no && bits.free(x - 1, y - 1)};
      for (int d = 0; d < 8; ++d) {
        if (!free[d]) continue;
        const std::uint32_t na = d < 4 ? a + 1 : a, nb = d < 4 ? b : b + 1;
        const double key = double(na) + kSqrt2 * double(nb);
        const std::size_t n = std::size_t(y + kDy[d]) * std::size_t(width_) + std::size_t(x + kDx[d]);
        if (key >= s.key[n]) continue;
        if (na > kMaxSteps || nb > kMaxSteps) return false;
        s.key[n] = key;
        s.packed[n] = (na << 16) | nb;
        s.buckets[std::size_t(key) % 3].push_back(std::uint32_t(n));  // k + 1 or k + 2, never k
      }
    }
    bucket.clear();
  }
  return true;
}

bool GridLandmarks::set_goal(std::size_t goal, Goal& out) const {
  if (dist_.empty()) return false;
  for (int k = 0; k < kCount; ++k) {
    const std::uint32_t v = row(goal)[k];
    out.a[k] = std::int32_t(v >> 16);
    out.b[k] = std::int32_t(v & 0xffffu);
  }
  return true;
}

}  // namespace thicket::nav
