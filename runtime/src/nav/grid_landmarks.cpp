// Building GridComponents and GridLandmarks (grid_landmarks.hpp): components, landmark
// placement, distances.
#include "grid_landmarks.hpp"

#include <algorithm>
#include <limits>

namespace thicket::nav {
namespace {
// Distances at or above this in either count do not fit (kUnreached is 0xffff, 0xffff).
constexpr std::uint32_t kMaxSteps = 0xfffeu;

}  // namespace

void GridLandmarks::build(const GridMap& map, const GridBits& bits, const GridComponents& components) {
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
    dist_.shrink_to_fit();
    return;
  }
  if (components.count() == 0) return;
  std::vector<std::uint32_t> sizes(components.count(), 0);
  for (std::size_t i = 0; i < cells; ++i)
    if (components.of(i) != GridComponents::kNone) ++sizes[components.of(i)];
  // The largest component (the first of equals, for determinism) gets the landmarks: it is
  // where long searches happen; searches elsewhere keep the octile distance.
  std::uint32_t largest = 0;
  for (std::uint32_t c = 1; c < sizes.size(); ++c)
    if (sizes[c] > sizes[largest]) largest = c;
  std::uint32_t seed = 0;
  while (components.of(seed) != largest) ++seed;

  Scratch s;
  auto farthest = [&](const std::vector<double>& key) {
    std::uint32_t best = seed;
    for (std::size_t i = 0; i < cells; ++i)
      if (components.of(i) == largest && key[i] > key[best]) best = std::uint32_t(i);
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

// Two passes over the rows (a flood fill's stack walks memory at random: 1.4 s on an open
// 8192 x 8192 map, this ~0.2 s). First each run of free cells in a row gets a number of its
// own, joined (union-find) with each run above it that it touches; a run's root is always the
// lowest number of its set, so one forward pass then resolves every run to its root, and the
// second pass numbers the roots in the order of their first cells.
void GridComponents::build(const GridBits& bits, std::int32_t width, std::int32_t height) {
  const std::size_t w = std::size_t(std::max(0, width)), cells = w * std::size_t(std::max(0, height));
  label_.assign(cells, kNone);
  count_ = 0;
  std::vector<std::uint32_t> parent;  // per run
  auto root = [&](std::uint32_t r) {
    while (parent[r] != r) r = parent[r] = parent[parent[r]];
    return r;
  };
  for (std::int32_t y = 0; y < height; ++y) {
    std::uint32_t* row = label_.data() + std::size_t(y) * w;
    const std::uint32_t* above = y > 0 ? row - w : nullptr;
    for (std::int32_t x = 0; x < width;) {
      if (!bits.free(x, y)) {
        ++x;
        continue;
      }
      const std::uint32_t run = std::uint32_t(parent.size());
      parent.push_back(run);
      std::uint32_t touched = kNone;  // the run above last joined (one join per run above)
      for (; x < width && bits.free(x, y); ++x) {
        row[x] = run;
        if (above == nullptr || above[x] == kNone || above[x] == touched) continue;
        touched = above[x];
        const std::uint32_t a = root(run), b = root(touched);
        if (a < b) parent[b] = a;
        else if (b < a) parent[a] = b;
      }
    }
  }
  for (std::uint32_t& p : parent) p = parent[p];  // p < its index: parent[p] is a root already
  std::vector<std::uint32_t> number(parent.size(), kNone);
  for (std::uint32_t& l : label_) {
    if (l == kNone) continue;
    std::uint32_t& n = number[parent[l]];
    if (n == kNone) n = count_++;
    l = n;
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
