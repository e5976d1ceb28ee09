// GridComponents: the connected components of a grid map's free cells, for every search
// (GridSearch: a goal out of the start's component is NoPath at once, where a search would
// expand the start's whole component to learn it: on an open 8192 x 8192 map, over 40 s of
// A*). A diagonal move needs both cells beside it free, so 8-connected without corner cutting
// joins exactly what 4-connected does; a flood fill numbers them, and two cells in different
// components have no path between them. 4 bytes a cell, built in two linear passes over the rows.
//
// GridLandmarks: a differential heuristic (ALT: Goldberg & Harrelson 2005; Sturtevant et al.
// 2009) for uniform-cost grid maps, for GridSearch's jump point search.
//
// K landmarks are placed farthest-first (the first is the cell farthest from the first free
// cell of the largest component, each next one the cell farthest from all placed so far), and
// an exact Dijkstra from each gives every cell its grid distance to it (8-connected, no corner
// cutting, 1 and sqrt(2)). By the triangle inequality |d_k(goal) - d_k(n)| <= dist(n, goal) and
// it changes by at most the cost of a move, so the max over k (and over the octile distance)
// is admissible and consistent: A* and JPS stay exact (a jump costs exactly the grid distance
// along it, so consistency holds for jumps too).
//
// A distance is kept exactly, as its count of straight and of diagonal steps (16 bits each:
// a + b·sqrt(2) is unique for each pair, and the difference of two distances is computed from
// integer differences, as exact as the octile distance). A cell out of a landmark's component
// has no distance (kUnreached); so has then every cell of the goal's component, and the
// landmark adds 0. A map whose distances do not fit 16 bits gets no table (octile only).
//
// Tried and dropped (bench_grid, random512-20-0): landmarks spread round the rim by angle
// ("planar") expanded more than farthest-first on both 512 maps; 32 landmarks expand 30% fewer
// nodes on random512-20-0 but take twice the memory for ~10% less time; a lazy heuristic
// (reading the table only when a node comes off the open list) was slower.
//
// Everything is keyed by the map's stamp() (like GridBits) and rebuilt when it changes. Cost:
// K + 1 Dijkstras over the map (a bucket queue: linear), and K·4 bytes a cell: for a
// 512 x 512 map 16.8 MB and about 0.2-0.3 s (Release, bench_grid), 50 ms for 320 x 320.
#pragma once
#include <algorithm>
#include <cstdint>
#include <vector>

#include "grid_bits.hpp"
#include "thicket/nav.hpp"

namespace thicket::nav {

class GridComponents {
 public:
  static constexpr std::uint32_t kNone = 0xffffffffu;
  // bits: built from a map of width x height.
  void build(const GridBits& bits, std::int32_t width, std::int32_t height);
  // The component of a cell (kNone for a blocked one), numbered from 0 in the order of their
  // first cells (row by row).
  std::uint32_t of(std::size_t cell) const { return label_[cell]; }
  std::uint32_t count() const { return count_; }
  std::size_t bytes() const { return label_.capacity() * sizeof(std::uint32_t); }

 private:
  std::vector<std::uint32_t> label_;
  std::uint32_t count_ = 0;
};

class GridLandmarks {
 public:
  static constexpr int kCount = 16;

  // Rebuilds unless already built from this map as it is now. bits and components: built from
  // the same map.
  void build(const GridMap& map, const GridBits& bits, const GridComponents& components);
  // Larger maps get no table (at 64 bytes a cell it would cost more than it saves): their
  // searches keep the octile distance.
  std::size_t max_cells = std::size_t(1) << 20;
  // A search's goal as the table sees it: its distances to every landmark. The table is
  // read-only once built, so any number of searches (threads) share one.
  struct Goal {
    std::int32_t a[kCount] = {}, b[kCount] = {};
  };
  // Readies `out` for bound(); false when there is no table.
  bool set_goal(std::size_t goal, Goal& out) const;
  // max over the landmarks that reach the goal of |d_k(goal) - d_k(cell)|; 0 when none do.
  // cell: in the goal's component.
  double bound(std::size_t cell, const Goal& goal) const {
    // All kCount slots, no branch: a slot without a landmark, or whose landmark the goal's
    // component does not reach, holds kUnreached at every cell of that component and gives 0.
    // Independent lanes and a tree of maxima, so that the compiler can vectorise it.
    const std::uint32_t* d = row(cell);
    double v[kCount];
    for (int k = 0; k < kCount; ++k) {
      const double diff = double(goal.a[k] - std::int32_t(d[k] >> 16)) + kSqrt2 * double(goal.b[k] - std::int32_t(d[k] & 0xffffu));
      v[k] = diff < 0 ? -diff : diff;
    }
    for (int w = kCount / 2; w > 0; w /= 2)
      for (int k = 0; k < w; ++k) v[k] = v[k] < v[k + w] ? v[k + w] : v[k];
    return v[0];
  }
  // Starts fetching a cell's distances, for a bound() soon after.
  void prefetch(std::size_t cell) const { __builtin_prefetch(row(cell)); }
  // Landmarks placed (0: none, e.g. a map whose distances do not fit 16 bits).
  int count() const { return count_; }
  const std::vector<std::uint32_t>& landmarks() const { return landmarks_; }
  // The tables kept (the build's scratch is freed once built).
  std::size_t bytes() const { return (dist_.capacity() + landmarks_.capacity()) * 4; }

 private:
  static constexpr double kSqrt2 = 1.4142135623730951;
  static constexpr std::uint32_t kUnreached = 0xffffffffu;

  struct Scratch {
    std::vector<std::uint32_t> packed;  // per cell: straight << 16 | diagonal, or kUnreached
    std::vector<double> key;            // its value a + b·sqrt(2)
    std::vector<std::uint8_t> done;
    std::vector<std::uint32_t> buckets[3];
  };
  // Exact distances from cell src into s; false when one does not fit 16 bits.
  bool dijkstra(std::uint32_t src, const GridBits& bits, Scratch& s) const;

  std::uint64_t stamp_ = 0;
  std::int32_t width_ = 0, height_ = 0;
  bool built_ = false;
  int count_ = 0;
  std::vector<std::uint32_t> landmarks_;
  std::vector<std::uint32_t> dist_;  // per cell, kCount packed distances (kUnreached: none)
  std::size_t skew_ = 0;             // where the first cell's start, aligned to 64 bytes
  const std::uint32_t* row(std::size_t cell) const { return dist_.data() + skew_ + cell * kCount; }
  std::uint32_t* mutable_row(std::size_t cell) { return dist_.data() + skew_ + cell * kCount; }
};

}  // namespace thicket::nav
