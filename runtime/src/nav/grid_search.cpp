// GridSearch (nav.hpp): exact A* and jump point search on a GridMap, time-sliced.
//
// Both share one open list (a binary heap with lazy duplicates) and one node table the size of
// the largest map seen. A search number marks which nodes belong to the current search, so
// start() touches nothing but the start node.
//
// A*: 8 neighbours, a move a→b costs length × (cost(a) + cost(b)) / 2, plus the danger zones'
// extra (mark_danger); the octile distance × the map's lowest cost is admissible and consistent.
//
// Jump point search (uniform maps, no danger zones), the no-corner-cutting variant (Harabor &
// Grastien 2014). Canonical paths take diagonal steps first, so:
//   - from a node reached diagonally (dx, dy), only (dx, 0), (0, dy) and (dx, dy) continue;
//     without corner cutting a diagonal move forces no other neighbour;
//   - from a node reached straight along x (dx), (dx, 0) continues, and (0, s) and (dx, s) for
//     s = ±1 only when (x - dx, y + s) is blocked and (x, y + s) is free: the one way to that
//     side passes through here. A straight jump stops at such a cell (GridBits: a table read,
//     or a scan 64 cells at a time);
//   - a diagonal jump stops at a cell from which a straight jump along either of its axes
//     finds something; that cell is not opened, its straight jumps' ends are (jump_diagonal).
// Jumps stop at the goal too. Every jump is a straight run, a diagonal one, or a diagonal then
// a straight one, so its cost is exact and the path is filled in by stepping along the runs.
//
// JPS with landmarks (SearchOptions::landmarks) takes the larger of the octile distance and a
// differential heuristic (grid_landmarks.hpp); both are consistent, so is their max, and a
// jump's cost is the grid distance along it, so the search stays exact. On maps where nearly
// every cell is a jump point (random obstacles) the better heuristic is what cuts the work.
//
// Every search, A* too, first compares the start's and the goal's connected components
// (GridComponents): a goal walled off from the start is NoPath from start(), with nothing
// expanded, instead of after the start's whole component.
#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <limits>
#include <new>
#include <type_traits>

#include "grid_bits.hpp"
#include "grid_landmarks.hpp"
#include "grid_tables.hpp"
#include "thicket/nav.hpp"

namespace thicket::nav {
// Named, not anonymous: GridSearch::Impl holds these, and in a unity build gcc warns of a field
// whose type has internal linkage (-Wsubobject-linkage).
namespace search_parts {

// 16 bytes, four to a cache line: the table is read at random, so its size is its speed.
struct Node {
  double g;
  std::uint32_t parent;
  std::uint32_t mark;  // the search that last touched it << 1, | 1 once expanded (closed)
};

struct HeapEntry {
  double f;
  double g;  // ties on f go to the larger g: the node nearer the goal
  std::uint32_t node;
};

// A table with an entry per cell that starts as all zero bytes and, when it must grow, starts
// again: calloc hands a big block over as zero pages the system has not yet given, so a
// search pays for the pages it reaches. (A vector's resize wrote every entry first: on an
// 8192 x 8192 map, 1 GB of nodes written, a second and more, before a search into a small
// walled-in room.) Zero bytes are a node no search has marked, a via and a danger of 0.
template <class T>
class ZeroTable {
  static_assert(std::is_trivially_copyable_v<T>);

 public:
  ZeroTable() = default;
  ~ZeroTable() { std::free(data_); }
  ZeroTable(const ZeroTable&) = delete;
  ZeroTable& operator=(const ZeroTable&) = delete;

  std::size_t size() const { return size_; }
  // At least n entries; when it grows, every entry is zero again.
  void grow(std::size_t n) {
    if (n <= size_) return;
    void* fresh = std::calloc(n, sizeof(T));
    if (!fresh) throw std::bad_alloc();
    std::free(data_);
    data_ = static_cast<T*>(fresh);
    size_ = n;
  }
  // Every entry zero again (a fresh block: its pages are given back).
  void zero() {
    const std::size_t n = size_;
    std::free(data_);
    data_ = nullptr;
    size_ = 0;
    grow(n);
  }
  T& operator[](std::size_t i) { return data_[i]; }
  const T& operator[](std::size_t i) const { return data_[i]; }

 private:
  T* data_ = nullptr;
  std::size_t size_ = 0;
};

}  // namespace search_parts
using search_parts::HeapEntry;
using search_parts::Node;
using search_parts::ZeroTable;

namespace {

constexpr double kSqrt2 = 1.4142135623730951;
constexpr std::uint32_t kNone = 0xffffffffu;
constexpr std::uint32_t kTooMany = 0x7fffffffu;  // cells: more cannot be numbered with a mark bit

bool before(const HeapEntry& a, const HeapEntry& b) { return a.f < b.f || (a.f == b.f && a.g > b.g); }

int sign(std::int32_t v) { return (v > 0) - (v < 0); }

double octile(std::int32_t dx, std::int32_t dy) {
  dx = std::abs(dx);
  dy = std::abs(dy);
  const std::int32_t lo = std::min(dx, dy), hi = std::max(dx, dy);
  return double(hi - lo) + kSqrt2 * double(lo);
}

}  // namespace

struct GridSearch::Impl {
  // The search.
  const GridMap* map = nullptr;
  Cell from, to;
  SearchOptions options;
  SearchState state = SearchState::Idle;
  SearchStats stats;
  double heuristic_scale = 1;
  bool plain = true;  // uniform costs and no danger: every move costs its length
  bool jps = false;    // this search jumps
  bool guided = false;  // this search adds the landmarks' bound to the octile distance
  std::uint32_t gen = 0;
  std::int32_t width = 0;

  // The buffers (reused).
  ZeroTable<Node> nodes;
  ZeroTable<std::uint32_t> vias;  // JPS: per node, where the diagonal run to it turned, or kNone
  std::vector<HeapEntry> heap;
  std::shared_ptr<const GridTables> tables;  // shared with every search of this map version
  const GridBits* bits_ = nullptr;
  GridLandmarks::Goal goal_marks;
  ZeroTable<double> danger;               // per cell: the sum of the costs of the zones holding it
  std::vector<std::uint32_t> danger_set;  // the cells danger is non-zero at, to reset next time
  std::vector<Cell> path;
  double cost = 0, length = 0;

  std::uint32_t id(Cell c) const { return std::uint32_t(c.y) * std::uint32_t(width) + std::uint32_t(c.x); }
  Cell cell(std::uint32_t i) const { return {std::int32_t(i % std::uint32_t(width)), std::int32_t(i / std::uint32_t(width))}; }

  double h(Cell c) const {
    const double o = octile(c.x - to.x, c.y - to.y) * heuristic_scale;
    return guided ? std::max(o, tables->marks.bound(id(c), goal_marks)) : o;
  }

  // ---- the open list ----
  // A binary heap with lazy duplicates: a node whose cost drops is pushed again, and the stale
  // entry is skipped when it comes up. Decrease-key would need every move in the heap to write
  // the moved node's heap index, a cache miss in the node table per level; this keeps the
  // sifting inside the heap array.
  void push(std::uint32_t i, double f, double g) {
    heap.push_back({f, g, i});
    std::size_t k = heap.size() - 1;
    const HeapEntry e = heap[k];
    while (k > 0) {
      const std::size_t up = (k - 1) / 2;
      if (!before(e, heap[up])) break;
      heap[k] = heap[up];
      k = up;
    }
    heap[k] = e;
  }
  HeapEntry pop_entry() {
    const HeapEntry top = heap[0];
    const HeapEntry e = heap.back();
    heap.pop_back();
    const std::size_t n = heap.size();
    if (n == 0) return top;
    std::size_t k = 0;
    for (;;) {
      std::size_t c = 2 * k + 1;
      if (c >= n) break;
      if (c + 1 < n && before(heap[c + 1], heap[c])) ++c;
      if (!before(heap[c], e)) break;
      heap[k] = heap[c];
      k = c;
    }
    heap[k] = e;
    return top;
  }
  // The best open node, closed now; kNone when the list is empty. Stale entries (a node already
  // closed, or pushed again at a lower cost since) are dropped on the way.
  std::uint32_t pop() {
    while (!heap.empty()) {
      const HeapEntry e = pop_entry();
      Node& n = nodes[e.node];
      if ((n.mark & 1) || e.g > n.g) continue;
      n.mark |= 1;
      return e.node;
    }
    return kNone;
  }
  // Offers node i the cost g through parent; opens it, lowers it, or leaves it.
  void relax(std::uint32_t i, Cell c, double g, std::uint32_t parent, std::uint32_t via = kNone) {
    if (guided) tables->marks.prefetch(i);  // its line comes in while the node's does
    Node& n = nodes[i];
    if ((n.mark >> 1) != gen) {
      n = {g, parent, gen << 1};
    } else {
      if ((n.mark & 1) || g >= n.g) return;
      n.g = g;
      n.parent = parent;
    }
    if (jps) vias[i] = via;
    push(i, g + h(c), g);
    ++stats.pushed;
  }

  // ---- danger zones ----
  void mark_danger() {
    for (std::uint32_t i : danger_set) danger[i] = 0;
    danger_set.clear();
    if (options.danger.empty()) return;
    danger.grow(nodes.size());
    const GridMap& m = *map;
    for (const DangerZone& z : options.danger) {
      if (!(z.radius >= 0) || !(z.cost > 0) || !std::isfinite(z.cost)) continue;
      // The cells whose centres may lie within the radius: a box, then the exact test.
      const Cell lo = m.cell_at({z.centre.x - z.radius, z.centre.y - z.radius});
      const Cell hi = m.cell_at({z.centre.x + z.radius, z.centre.y + z.radius});
      const std::int32_t x0 = std::max(lo.x, 0), y0 = std::max(lo.y, 0);
      const std::int32_t x1 = std::min(hi.x, m.width() - 1), y1 = std::min(hi.y, m.height() - 1);
      for (std::int32_t y = y0; y <= y1; ++y)
        for (std::int32_t x = x0; x <= x1; ++x) {
          if (world::distance(m.centre_of({x, y}), z.centre) > z.radius) continue;
          const std::uint32_t i = id({x, y});
          if (danger[i] == 0) danger_set.push_back(i);
          danger[i] += z.cost;
        }
    }
  }

  // ---- A* ----
  void expand_astar(std::uint32_t i) {
    const Cell c = cell(i);
    const double g = nodes[i].g;
    const bool e = bits_->free(c.x + 1, c.y), w = bits_->free(c.x - 1, c.y);
    const bool s = bits_->free(c.x, c.y + 1), n = bits_->free(c.x, c.y - 1);
    const bool free[8] = {e, w, s, n, e && s && bits_->free(c.x + 1, c.y + 1), e && n && bits_->free(c.x + 1, c.y - 1),
                          w && s && bits_->free(c.x - 1, c.y + 1), w && n && bits_->free(c.x - 1, c.y - 1)};
    static constexpr std::int32_t kDx[8] = {1, -1, 0, 0, 1, 1, -1, -1};
    static constexpr std::int32_t kDy[8] = {0, 0, 1, -1, 1, -1, 1, -1};
    const double here_cost = plain ? 1.0 : double(map->cost(c));
    const double here_danger = danger_set.empty() ? 0.0 : danger[i];
    for (int k = 0; k < 8; ++k) {
      if (!free[k]) continue;
      const Cell nc{c.x + kDx[k], c.y + kDy[k]};
      const std::uint32_t ni = id(nc);
      if (nodes[ni].mark == ((gen << 1) | 1)) continue;
      const double len = k < 4 ? 1.0 : kSqrt2;
      double step = len;
      if (!plain) {
        step = len * (here_cost + double(map->cost(nc))) / 2;
        if (!danger_set.empty()) step += (here_danger + danger[ni]) / 2;
      }
      relax(ni, nc, g + step, i);
    }
  }

  // ---- jump point search ----
  // A straight jump from node i (at c) in (dx, 0) or (0, dy): its jump point is a successor.
  void jump_straight(std::uint32_t i, Cell c, int dx, int dy) {
    Cell j;
    if (dy == 0) {
      const std::int32_t x = bits_->jump_x(c.x, c.y, dx, c.y == to.y ? to.x : -1);
      if (x < 0) return;
      j = {x, c.y};
    } else {
      const std::int32_t y = bits_->jump_y(c.x, c.y, dy, c.x == to.x ? to.y : -1);
      if (y < 0) return;
      j = {c.x, y};
    }
    relax(id(j), j, nodes[i].g + double(std::abs(j.x - c.x) + std::abs(j.y - c.y)), i);
  }
  // A diagonal jump from node i (at c) in (dx, dy). A cell d of the diagonal from which a
  // straight jump finds something is a jump point, but it is not put on the open list: it
  // would only be expanded into those straight jumps and the diagonal's continuation, so they
  // are made here at once and the straight jumps' ends become successors of i "via" d (Harabor
  // & Grastien 2014's pruning of intermediate nodes). The open list sees far fewer nodes.
  void jump_diagonal(std::uint32_t i, Cell c, int dx, int dy) {
    const double g0 = nodes[i].g;
    const std::int32_t goal_x = to.x, goal_y = to.y;
    Cell d = c;
    for (int steps = 1;; ++steps) {
      if (!bits_->free(d.x + dx, d.y) || !bits_->free(d.x, d.y + dy) || !bits_->free(d.x + dx, d.y + dy)) return;
      d = {d.x + dx, d.y + dy};
      const double gd = g0 + kSqrt2 * steps;
      if (d == to) {
        relax(id(d), d, gd, i);
        return;
      }
      const std::int32_t x = bits_->jump_x(d.x, d.y, dx, d.y == goal_y ? goal_x : -1);
      const std::int32_t y = bits_->jump_y(d.x, d.y, dy, d.x == goal_x ? goal_y : -1);
      if (x < 0 && y < 0) continue;
      const std::uint32_t via = id(d);
      if (x >= 0) relax(id({x, d.y}), {x, d.y}, gd + double(std::abs(x - d.x)), i, via);
      if (y >= 0) relax(id({d.x, y}), {d.x, y}, gd + double(std::abs(y - d.y)), i, via);
    }
  }
  void expand_jps(std::uint32_t i) {
    const Cell c = cell(i);
    const Node& n = nodes[i];
    if (n.parent == kNone) {
      for (int s : {-1, 1}) {
        jump_straight(i, c, s, 0);
        jump_straight(i, c, 0, s);
      }
      for (int sy : {-1, 1})
        for (int sx : {-1, 1}) jump_diagonal(i, c, sx, sy);
      return;
    }
    // The last run into this node: straight from via when there is one, else from the parent.
    const std::uint32_t via = vias[i];
    const Cell p = cell(via != kNone ? via : n.parent);
    const int dx = sign(c.x - p.x), dy = sign(c.y - p.y);
    if (dx && dy) {
      jump_straight(i, c, dx, 0);
      jump_straight(i, c, 0, dy);
      jump_diagonal(i, c, dx, dy);
    } else if (dx) {
      jump_straight(i, c, dx, 0);
      for (int s : {-1, 1})
        if (!bits_->free(c.x - dx, c.y + s) && bits_->free(c.x, c.y + s)) {
          jump_straight(i, c, 0, s);
          jump_diagonal(i, c, dx, s);
        }
    } else {
      jump_straight(i, c, 0, dy);
      for (int s : {-1, 1})
        if (!bits_->free(c.x + s, c.y - dy) && bits_->free(c.x + s, c.y)) {
          jump_straight(i, c, s, 0);
          jump_diagonal(i, c, s, dy);
        }
    }
  }

  // ---- the result ----
  // Appends the cells from b back towards a (b included, a not) to path, one run.
  void walk_back(Cell b, Cell a) {
    const int dx = sign(a.x - b.x), dy = sign(a.y - b.y);
    for (; !(b == a); b = {b.x + dx, b.y + dy}) path.push_back(b);
  }
  void build_path(std::uint32_t goal) {
    // The parents lead from the goal back through the jump points (A*: every cell), each run
    // straight or diagonal, or a diagonal then a straight run turning at `via`: step them out
    // backwards, then turn the list round.
    path.clear();
    for (std::uint32_t i = goal; nodes[i].parent != kNone; i = nodes[i].parent) {
      const Node& n = nodes[i];
      const std::uint32_t via = jps ? vias[i] : kNone;
      if (via != kNone) {
        walk_back(cell(i), cell(via));
        walk_back(cell(via), cell(n.parent));
      } else {
        walk_back(cell(i), cell(n.parent));
      }
    }
    path.push_back(from);
    std::reverse(path.begin(), path.end());
    length = 0;
    for (std::size_t s = 1; s < path.size(); ++s)
      length += (path[s].x != path[s - 1].x && path[s].y != path[s - 1].y) ? kSqrt2 : 1.0;
    cost = nodes[goal].g;
  }

  std::size_t buffer_bytes() const {
    return nodes.size() * sizeof(Node) + vias.size() * sizeof(std::uint32_t) + heap.capacity() * sizeof(HeapEntry) +
           danger.size() * sizeof(double) + danger_set.capacity() * sizeof(std::uint32_t) +
           path.capacity() * sizeof(Cell);
  }

  SearchState start(const GridMap& m, Cell a, Cell b, const SearchOptions& opts) {
    map = &m;
    from = a;
    to = b;
    options = opts;
    stats = {};
    tables.reset();  // an Invalid start reports no tables
    heap.clear();
    path.clear();
    cost = length = 0;
    const bool uniform = m.uniform_cost() && opts.danger.empty();
    jps = opts.algorithm != Algorithm::AStar && uniform;
    stats.used = jps ? Algorithm::Jps : Algorithm::AStar;
    if (!m.passable(a) || !m.passable(b)) return finish(SearchState::Invalid);
    // Nodes are numbered below 2^31 (a mark keeps the search number and a closed bit in 32);
    // a Moving AI map is at most 8192 x 8192, but a map built in code could be larger.
    if (std::uint64_t(m.width()) * std::uint64_t(m.height()) >= std::uint64_t(kTooMany))
      return finish(SearchState::Invalid);

    width = m.width();
    const std::size_t cells = std::size_t(m.width()) * std::size_t(m.height());
    nodes.grow(cells);
    if (jps) vias.grow(cells);
    if (++gen == (1u << 31)) {  // wrapped: old marks could pass for this search's
      nodes.zero();
      gen = 1;
    }
    guided = jps && opts.landmarks;
    tables = tables_for(m, {.distances = jps, .components = true, .landmarks = guided});
    bits_ = &tables->bits;
    if (tables->components.of(id(a)) != tables->components.of(id(b))) return finish(SearchState::NoPath);
    if (guided) {
      const GridLandmarks& marks = tables->marks;
      guided = marks.set_goal(id(b), goal_marks);
      stats.landmarks = guided ? marks.count() : 0;
    }
    plain = uniform;
    heuristic_scale = double(m.min_cost());
    mark_danger();

    const std::uint32_t s = id(a);
    nodes[s] = {0.0, kNone, gen << 1};
    if (jps) vias[s] = kNone;
    if (a == b) {
      path.push_back(a);
      return finish(SearchState::Found);
    }
    push(s, h(a), 0.0);
    ++stats.pushed;
    return finish(SearchState::Running);
  }

  SearchState step(std::uint64_t budget) {
    if (state != SearchState::Running) return state;
    const std::uint32_t goal = id(to);
    for (std::uint64_t done = 0; budget == 0 || done < budget; ++done) {
      const std::uint32_t i = pop();
      if (i == kNone) return finish(SearchState::NoPath);
      ++stats.expanded;
      if (i == goal) {
        build_path(goal);
        return finish(SearchState::Found);
      }
      if (jps)
        expand_jps(i);
      else
        expand_astar(i);
    }
    return finish(SearchState::Running);
  }

  SearchState finish(SearchState s) {
    state = s;
    stats.buffer_bytes = buffer_bytes();
    stats.table_bytes = tables ? tables->bits.bytes() + tables->components.bytes() + tables->marks.bytes() : 0;
    return s;
  }
};

GridSearch::GridSearch() : impl_(new Impl) {}
GridSearch::~GridSearch() { delete impl_; }
GridSearch::GridSearch(GridSearch&& o) noexcept : impl_(o.impl_) { o.impl_ = nullptr; }
GridSearch& GridSearch::operator=(GridSearch&& o) noexcept {
  std::swap(impl_, o.impl_);
  return *this;
}

SearchState GridSearch::start(const GridMap& map, Cell from, Cell to, const SearchOptions& options) {
  if (!impl_) impl_ = new Impl;  // a moved-from search comes back to life
  return impl_->start(map, from, to, options);
}
SearchState GridSearch::step(std::uint64_t max_expansions) {
  return impl_ ? impl_->step(max_expansions) : SearchState::Idle;
}
SearchState GridSearch::find(const GridMap& map, Cell from, Cell to, const SearchOptions& options) {
  start(map, from, to, options);
  return step(0);
}

SearchState GridSearch::state() const { return impl_ ? impl_->state : SearchState::Idle; }
double GridSearch::cost() const { return impl_ && impl_->state == SearchState::Found ? impl_->cost : 0.0; }
std::span<const Cell> GridSearch::path() const {
  if (!impl_ || impl_->state != SearchState::Found) return {};
  return impl_->path;
}
double GridSearch::length() const { return impl_ && impl_->state == SearchState::Found ? impl_->length : 0.0; }
const SearchStats& GridSearch::stats() const {
  static const SearchStats kEmpty{};
  return impl_ ? impl_->stats : kEmpty;
}

}  // namespace thicket::nav
