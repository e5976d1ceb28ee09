// Navigation (issue 12): grid maps (Moving AI format), exact A* and jump point search with
// time slicing, tactical costs (danger zones, terrain), line-of-sight path smoothing, waypoint
// graphs, and navmeshes built with Recast and queried with Detour (nav_mesh.hpp).
//
// Coordinates. A grid map has cells (x, y): x the column, y the row, (0, 0) the first row of
// the file. In the world, cell (x, y) is the square [origin.x + x·cell, origin.x + (x+1)·cell)
// × [origin.y + y·cell, origin.y + (y+1)·cell): world y grows with the row.
//
// Moves (the Moving AI rules): 8-connected; a straight step costs 1, a diagonal sqrt(2); no
// corner cutting: a diagonal step (dx, dy) needs both (x+dx, y) and (x, y+dy) passable. Costs
// are in cells (multiply by the cell size for metres).
//
// Like world.hpp: nothing here reads a clock or keeps global state; a search reuses its
// buffers (no allocation once warm); a GridSearch belongs to one thread at a time, while any
// number of threads may read one GridMap.
#pragma once
#include <cstdint>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "thicket/diagnostic.hpp"
#include "thicket/export.hpp"
#include "thicket/world.hpp"

namespace thicket::nav {

using world::Vec2;

struct Cell {
  std::int32_t x = 0;
  std::int32_t y = 0;
  friend constexpr bool operator==(Cell, Cell) = default;
};

// ---------------------------------------------------------------------------------------------
// Grid maps

struct GridTableCache;  // runtime/src/nav/grid_tables.hpp
struct GridTables;      // runtime/src/nav/grid_tables.hpp
class BlockedCounts;    // runtime/src/nav/grid_tables.hpp
class GridMap;
namespace detail {
// line_of_sight (metres), answered without the cell walk when open_blocks (the map's blocked-cell
// counts, current; or null) show the box the two end cells span to be wall-free. Walls uses it.
bool sight_line(const GridMap& map, const BlockedCounts* open_blocks, Vec2 a, Vec2 b);
// True when open_blocks show the cells of the box lo..hi (metres, finite, ordered) to lie on the
// map and wall-free: then sight_line(map, open_blocks, a, b) holds for any a and b in it.
bool sight_region(const GridMap& map, const BlockedCounts& open_blocks, Vec2 lo, Vec2 hi);
}  // namespace detail

// A grid of cells, each blocked or passable with a terrain cost (a multiplier of the move's
// length, > 0; 1 is plain ground). The symbol of each cell is kept as the file had it.
class THICKET_API GridMap {
 public:
  GridMap() = default;
  // width × height passable cells of cost 1 and symbol '.'.
  GridMap(std::int32_t width, std::int32_t height);

  std::int32_t width() const { return width_; }
  std::int32_t height() const { return height_; }
  bool in_bounds(Cell c) const { return c.x >= 0 && c.y >= 0 && c.x < width_ && c.y < height_; }
  // False outside the map.
  bool passable(Cell c) const { return in_bounds(c) && passable_[index(c)] != 0; }
  // The terrain cost of a passable cell (1 unless set); meaningless for a blocked one.
  float cost(Cell c) const { return costs_.empty() ? 1.0f : costs_[index(c)]; }
  char symbol(Cell c) const { return symbols_[index(c)]; }
  // True while every passable cell costs 1 (jump point search applies).
  bool uniform_cost() const { return costs_.empty(); }
  // The lowest terrain cost of any passable cell (1 when uniform): scales the heuristic.
  float min_cost() const { return min_cost_; }
  // Changes with every edit of passability or cost, and differs between maps that were built
  // apart (it is drawn from a process-wide counter; a copy keeps it, as it keeps the cells):
  // a search keys what it derives from a map (bit rows for jump point search) by it.
  std::uint64_t stamp() const { return stamp_; }
  // Where searches keep the tables they derive from the map (bit rows, jump distances,
  // components, landmarks): built once per version of the map, shared by every GridSearch on any thread.
  // A copy shares the cache; a default-constructed map has none.
  const std::shared_ptr<GridTableCache>& table_cache() const { return tables_; }

  void set_passable(Cell c, bool passable);
  // cost: > 0 and finite. Setting any cost other than 1 makes the map non-uniform.
  void set_cost(Cell c, float cost);
  void set_symbol(Cell c, char symbol) { symbols_[index(c)] = symbol; }
  std::size_t index(Cell c) const { return std::size_t(c.y) * std::size_t(width_) + std::size_t(c.x); }

  // Placement in the world (see the top of this file).
  Vec2 origin{0, 0};
  double cell_size = 1.0;  // metres, > 0
  // The cell containing p (may be outside the map). A point on the map's east or south edge
  // (x = width * cell_size, in cells within kEdgeSlack) is in the last cell: the world's bounds
  // are the map's extent, and the world keeps agents within them, edges included.
  Cell cell_at(Vec2 p) const;
  static constexpr double kEdgeSlack = 1e-9;  // in cells
  Vec2 centre_of(Cell c) const;
  world::Bounds world_bounds() const;

 private:
  // Walks its cells straight from the passable_ row data (perception calls it per sighting).
  friend bool detail::sight_line(const GridMap& map, const BlockedCounts* open_blocks, Vec2 a, Vec2 b);
  std::int32_t width_ = 0, height_ = 0;
  std::vector<std::uint8_t> passable_;
  std::vector<float> costs_;  // empty while uniform
  std::vector<char> symbols_;
  float min_cost_ = 1.0f;
  std::uint64_t stamp_ = 0;  // 0: the empty map
  std::shared_ptr<GridTableCache> tables_;
};

// Passable symbols of the Moving AI format; every other known symbol is blocked.
constexpr bool is_passable_symbol(char c) { return c == '.' || c == 'G' || c == 'S'; }
constexpr bool is_known_symbol(char c) {
  return is_passable_symbol(c) || c == '@' || c == 'O' || c == 'T' || c == 'W';
}

// Reads a Moving AI .map file. Problems (bad header, short or long row, unknown character,
// too few rows) are diagnostics FILE:LINE:COL, all of them; nullopt when there is any error.
THICKET_API std::optional<GridMap> load_grid_map(const std::string& path, std::vector<Diagnostic>& diags);
THICKET_API std::optional<GridMap> parse_grid_map(std::string_view text, const std::string& path,
                                      std::vector<Diagnostic>& diags);

// One line of a Moving AI .scen file.
struct ScenarioEntry {
  int bucket = 0;
  std::string map;
  std::int32_t map_width = 0, map_height = 0;
  Cell start, goal;
  double optimal_length = 0;
  int line = 0;  // in the file, 1-based
};
// Reads a .scen file ("version 1", then tab-separated fields). With `map` given, coordinates
// outside it (or a width/height that differs from it) are errors at the field.
THICKET_API std::optional<std::vector<ScenarioEntry>> load_scen(const std::string& path, const GridMap* map,
                                                    std::vector<Diagnostic>& diags);

// ---------------------------------------------------------------------------------------------
// Tactical costs

// A danger zone (tactical pathfinding): an edge whose two end cells both have their centres
// inside the zone costs `cost` more; one end inside, cost/2 more. Zones add up. Centre and
// radius in metres; a zone with cost <= 0 (or not a number) is ignored, as a cheaper edge
// would break A*'s bound.
struct DangerZone {
  Vec2 centre;
  double radius = 0;
  double cost = 50;
};

// ---------------------------------------------------------------------------------------------
// Grid search

enum class Algorithm : std::uint8_t {
  Auto,   // jump point search where costs are uniform and there are no danger zones, else A*
  AStar,  // A* with a binary heap, octile heuristic scaled by the lowest terrain cost
  Jps,    // jump point search; with non-uniform costs or danger zones, falls back to A*
};

enum class SearchState : std::uint8_t {
  Idle,      // no search started
  Running,   // time-sliced: step() again
  Found,     // path() and length() hold the result
  NoPath,    // goal unreachable
  Invalid,   // start or goal outside the map or blocked
};

struct SearchOptions {
  Algorithm algorithm = Algorithm::Auto;
  std::span<const DangerZone> danger = {};  // must outlive the search
  // Jump point search (Auto/Jps on a uniform map without danger zones) guides itself by a
  // differential heuristic: 16 landmarks with their exact distance to every cell. Built on the
  // first such search of a map (and again after an edit), kept in the map's table cache and
  // shared by all its searches: 64 bytes a cell, about 17 Dijkstras over the map to build (see
  // bench_grid; maps of more than 2^20 cells get none). The path is as short either way;
  // false: the octile distance only (no table, no build). Whatever the options, every search
  // reads the map's connected components (4 bytes a cell, two passes over the map, built and
  // kept the same way): a goal in another component than the start is NoPath at once.
  bool landmarks = true;
};

struct SearchStats {
  std::uint64_t expanded = 0;  // nodes taken off the open list
  std::uint64_t pushed = 0;    // nodes put on it (or re-prioritised)
  std::size_t buffer_bytes = 0;  // the search's own reusable buffers
  std::size_t table_bytes = 0;   // the map's derived tables it used (shared by all its searches)
  Algorithm used = Algorithm::AStar;  // AStar or Jps
  int landmarks = 0;  // landmarks guiding the heuristic (0: the octile distance alone)
};

// Builds now the tables searches derive from the map (bit rows, connected components; on a
// uniform-cost map also the jump distances and landmark distances of jump point search: ~0.2 s
// and ~18 MB for 512 x 512),
// which the first search needing them would otherwise build. A game calls it at load, so that
// no frame (and no leaf call, with its time limit) pays for it.
THICKET_API void prepare_search_tables(const GridMap& map);

// One search at a time; buffers sized to the largest map seen and reused.
class THICKET_API GridSearch {
 public:
  GridSearch();
  ~GridSearch();
  GridSearch(GridSearch&&) noexcept;
  GridSearch& operator=(GridSearch&&) noexcept;

  // Sets up a search (the map and options must outlive it). Returns Invalid, Found (start ==
  // goal: a one-cell path of length 0), NoPath (start and goal in different components: no
  // path, nothing expanded) or Running.
  SearchState start(const GridMap& map, Cell from, Cell to, const SearchOptions& options = {});
  // Expands up to max_expansions nodes (0: no limit) and returns the state.
  SearchState step(std::uint64_t max_expansions = 0);
  // start + step(0).
  SearchState find(const GridMap& map, Cell from, Cell to, const SearchOptions& options = {});

  SearchState state() const;
  // Found: the cost of the path (its length in cells when costs are uniform and there are no
  // danger zones), every cell from start to goal (JPS jumps filled in with their cells), and
  // its geometric length in cells.
  double cost() const;
  std::span<const Cell> path() const;
  double length() const;
  const SearchStats& stats() const;

 private:
  struct Impl;
  Impl* impl_;
};

// ---------------------------------------------------------------------------------------------
// Line of sight and smoothing on grids

// True when the segment a→b (world coordinates) crosses only passable cells. A segment that
// passes exactly through a cell corner is blocked when either cell beside it on the way is
// blocked (as a diagonal move there would cut the corner). Points outside the map see nothing.
THICKET_API bool line_of_sight(const GridMap& map, Vec2 a, Vec2 b);

// Seed 003's smoothing: from each kept point, skip to the farthest later cell of the path that
// it sees (line_of_sight between cell centres, and no cell crossed costs more than the dearest
// cell of the stretch it replaces). out gets world points: the start, the kept turns, the goal.
// Cost: up to one line-of-sight test per later path cell for each kept point (tests hidden
// behind a wall already met are skipped); a 2,300-cell path through maze512-2-5 takes a few
// ms, a 220-cell one through AR0500SR about 30 us. No allocation once warm (per thread).
THICKET_API void smooth_path(const GridMap& map, std::span<const Cell> cells, std::vector<Vec2>& out);

// ---------------------------------------------------------------------------------------------
// Moving among a grid map's walls

// Obstacle avoidance against blocked cells (as avoid_obstacles does for shapes): three feelers,
// one ahead (min_length + look_ahead·speed long) and two at ±45° half as long; the nearest
// blocked cell a feeler meets pushes the entity sideways, away from that feeler's side (the one
// ahead: towards the side whose feeler reaches farther), with max_force·(1 − distance/length).
THICKET_API Vec2 avoid_walls(const world::Entity& self, const GridMap& map, const world::AvoidanceParams& params = {});

// After a motion step from `before`: an entity whose centre went into a blocked cell, or whose
// move crossed one (a step longer than a cell), is put back on each axis whose move did, and
// its velocity on that axis is zeroed, so it slides along the wall instead of passing through.
// Centres outside the map are left alone (the world's bounds hold them).
THICKET_API void keep_out_of_walls(world::Entity& entity, Vec2 before, const GridMap& map);

// ---------------------------------------------------------------------------------------------
// Walls: what blocks movement and sight in a world (its obstacles and its grid map's blocked
// cells), for waypoint graphs, steering and perception.

class THICKET_API Walls {
 public:
  Walls() = default;
  Walls(std::span<const world::Obstacle> obstacles, const GridMap* map);
  // True when the segment a→b, thickened by radius on each side, touches no obstacle and (with
  // a map) line_of_sight holds (radius 0) or the thickened segment crosses no blocked cell.
  // Exact (no sampling): with radius > 0 a body that just fits (distance == radius) passes;
  // cells outside the map count as blocked. Metres.
  bool clear(Vec2 a, Vec2 b, double radius = 0) const;
  // True when clear(a, b) (radius 0) holds for every a and b in the box lo..hi (lo.x <= hi.x,
  // lo.y <= hi.y), known at once: no obstacle, and the box lies on the map over wall-free
  // blocks of cells. False says nothing (a box with a wall, any obstacle, an edited map): ask
  // clear() then. One question for all of an agent's sight lines over open ground.
  bool region_clear(Vec2 lo, Vec2 hi) const;
  // False when region_clear is false for every box (obstacles, or a map without a wall-free
  // block): a caller may skip gathering its box.
  bool may_have_clear_regions() const { return obstacles_.empty() && (map_ == nullptr || open_blocks_ != nullptr); }
  // True when p is inside an obstacle or a blocked cell (or outside the map, when there is one).
  bool blocked(Vec2 p) const;

 private:
  std::span<const world::Obstacle> obstacles_;
  const GridMap* map_ = nullptr;
  // The map's shared tables as it was at construction: their blocked-cell counts let sight
  // lines over open ground skip the cell walk (not used once the map is edited: its stamp moves
  // on). open_blocks_: those counts, or null when the map has no open block to skip over.
  std::shared_ptr<const GridTables> tables_;
  const BlockedCounts* open_blocks_ = nullptr;
};

// ---------------------------------------------------------------------------------------------
// Waypoint graphs (points of visibility)

class THICKET_API WaypointGraph {
 public:
  struct Edge {
    std::uint32_t to;
    double length;
  };
  // Points; then either connect() (automatic: every pair that sees each other, up to
  // max_length metres; 0 = any length) or add_edge() for hand-made links (both directions).
  // Build it fully before searching it; searches are const and may run on many threads.
  explicit WaypointGraph(std::vector<Vec2> points = {});
  void connect(const Walls& walls, double max_length = 0);
  void add_edge(std::uint32_t a, std::uint32_t b);
  std::span<const Vec2> points() const { return points_; }
  std::span<const Edge> edges_of(std::uint32_t point) const { return edges_[point]; }

  // A* over the graph from `from` to `to` (world points): each joins the graph at every
  // waypoint it sees, and the shortest such route wins (the straight line when they see each
  // other). out: from, the waypoints, to. Returns false when there is no way.
  bool find_path(const Walls& walls, Vec2 from, Vec2 to, std::vector<Vec2>& out,
                 double* length = nullptr) const;

 private:
  std::vector<Vec2> points_;
  std::vector<std::vector<Edge>> edges_;  // by point
};

}  // namespace thicket::nav
