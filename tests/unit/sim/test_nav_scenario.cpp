// Navigation in scenario runs, as Lua leaves use it (issue 12): thicket.find_path,
// agent:path_to (whole and time-sliced), thicket.move_to on a map, waypoints and a navmesh,
// sight-filtered neighbour queries, and the rule that agents never spawn in a wall nor end a
// tick in a blocked cell. Leaves report what they saw with thicket.log ("TAG ..." lines,
// numbers printed with %.17g so nothing is lost), and the checks run here in C++.
#include <doctest/doctest.h>

#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>

#include "nav/grid_tables.hpp"
#include "record_file.hpp"
#include "simulation.hpp"
#include "thicket/nav.hpp"

namespace fs = std::filesystem;
using namespace thicket;
using world::Vec2;

namespace {

// Two rooms joined by two doors, and a closed room nobody can reach (cell 1 m, origin 0; row r
// spans y in [r, r + 1)):
//             x: 0123456789012345
const char* kRoomsMap =
    "type octile\nheight 9\nwidth 16\nmap\n"
    "@@@@@@@@@@@@@@@@\n"   // 0
    "@....@.....@...@\n"   // 1   the closed room: x 12..15, y 1..4
    "@....@.....@...@\n"   // 2
    "@....@.....@...@\n"   // 3
    "@..........@@@@@\n"   // 4   the upper door: cell (5, 4)
    "@....@.........@\n"   // 5
    "@....@.........@\n"   // 6
    "@..............@\n"   // 7   the lower door: cell (5, 7)
    "@@@@@@@@@@@@@@@@\n";  // 8

// Lua helpers every leaf file starts with: log a path (or nil and its reason) on one line.
const char* kPrelude = R"(
local thicket = require("thicket")
local L = {}
local function num(v) return string.format("%.17g", v) end
local function dump(tag, points, length, method)
  if not points then thicket.log(tag .. " nil " .. tostring(length)) return end
  local s = {tag, tostring(#points)}
  for _, p in ipairs(points) do s[#s + 1] = num(p[1]); s[#s + 1] = num(p[2]) end
  s[#s + 1] = num(length)
  s[#s + 1] = tostring(method)
  thicket.log(table.concat(s, " "))
end
local function idle() while true do coroutine.yield() end end
L.Idle = thicket.task(function(agent) idle() end)
function L.Always() return true end
)";

struct Path {
  bool found = false;
  std::vector<Vec2> points;
  double length = 0;
  std::string method, reason;
};

struct Outcome {
  RunResult result;
  std::string record, log;
  // thicket.log lines by their tag (the first word after "agent N: "), in order.
  std::multimap<std::string, std::string> lines;
  std::string line(const std::string& tag) const {
    auto it = lines.find(tag);
    return it == lines.end() ? std::string() : it->second;
  }
  std::vector<double> numbers(const std::string& tag) const {
    std::istringstream in(line(tag));
    std::vector<double> out;
    for (double v; in >> v;) out.push_back(v);
    return out;
  }
  Path path(const std::string& tag) const {
    Path p;
    std::istringstream in(line(tag));
    std::string first;
    in >> first;
    if (first == "nil" || first.empty()) {
      std::getline(in >> std::ws, p.reason);
      return p;
    }
    p.found = true;
    size_t n = std::stoul(first);
    for (size_t k = 0; k < n; ++k) {
      Vec2 v;
      in >> v.x >> v.y;
      p.points.push_back(v);
    }
    in >> p.length >> p.method;
    return p;
  }
};

struct NavDir {
  fs::path dir;
  NavDir() {
    static int n = 0;
    dir = fs::temp_directory_path() / ("thicket_nav_scenario_" + std::to_string(::getpid()) + "_" + std::to_string(n++));
    fs::create_directories(dir);
    write("rooms.map", kRoomsMap);
  }
  ~NavDir() { fs::remove_all(dir); }
  NavDir(const NavDir&) = delete;
  NavDir& operator=(const NavDir&) = delete;
  std::string write(const std::string& name, const std::string& text) {
    std::ofstream(dir / name) << text;
    return (dir / name).string();
  }
  // A brain named `name` whose only behaviour runs leaf `leaf` of leaves.lua.
  void brain(const std::string& name, const std::string& leaf, const std::string& blackboard = "{health: 100}") {
    write(name + ".yaml", "machine: " + name + "\nleaves: [leaves.lua]\nblackboard: " + blackboard +
                              "\nbehaviors: [{name: b, check: Always, run: " + leaf + "}]\n");
  }
  void leaves(const std::string& lua) { write("leaves.lua", std::string(kPrelude) + lua + "\nreturn L\n"); }

  std::optional<ScenarioSpec> spec(const std::string& yaml) {
    std::vector<Diagnostic> diags;
    auto s = load_scenario(write("s.yaml", yaml), diags);
    for (const auto& d : diags) MESSAGE(format_diagnostic(d));
    return s;
  }

  Outcome run(const std::string& yaml, uint64_t ticks, uint32_t threads = 1, Simulation** keep = nullptr) {
    Outcome out;
    auto s = spec(yaml);
    REQUIRE(s);
    thicket::RecordString record;
    SimOptions o;
    o.threads = threads;
    o.seed = s->seed;
    o.ticks = ticks;
    o.dt = 0.1;
    o.record = &record;
    o.log = [&](const std::string& line) {
      out.log += line + "\n";
      auto colon = line.find(": ");
      if (line.rfind("t=", 0) != 0 || colon == std::string::npos) return;
      std::string rest = line.substr(colon + 2);
      auto space = rest.find(' ');
      out.lines.emplace(rest.substr(0, space), space == std::string::npos ? "" : rest.substr(space + 1));
    };
    std::vector<Diagnostic> diags;
    held_ = Simulation::create(*s, o, diags);
    for (const auto& d : diags) MESSAGE(format_diagnostic(d));
    REQUIRE(held_);
    out.result = held_->run();
    out.record = record.text;
    if (keep) *keep = held_.get();
    return out;
  }
  std::unique_ptr<Simulation> held_;
};

// A scenario on rooms.map; `groups` are YAML list items.
std::string rooms_scenario(const std::string& groups, const std::string& world_extra = "", const std::string& metrics = "") {
  return "scenario: rooms\nseed: 3\nworld: {map: rooms.map" + world_extra + "}\nteams: [a, b]\ngroups:\n" + groups +
         (metrics.empty() ? "" : "metrics: [" + metrics + "]\n");
}
std::string group(const std::string& name, const std::string& brain, const std::string& spawn, int count = 1,
                  const std::string& team = "a", double speed = 2) {
  return "  - {name: " + name + ", team: " + team + ", count: " + std::to_string(count) + ", brain: " + brain +
         ".yaml, spawn: " + spawn + ", vehicle: {max_speed: " + std::to_string(speed) + ", max_force: 8, radius: 0.3}}\n";
}
std::string at(double x, double y, double r = 0.001) {
  std::ostringstream s;
  s << "{centre: [" << x << ", " << y << "], radius: " << r << "}";
  return s.str();
}

double legs(const std::vector<Vec2>& points) {
  double total = 0;
  for (size_t k = 1; k < points.size(); ++k) total += world::distance(points[k - 1], points[k]);
  return total;
}

// The agents arrays of a record's tick lines ({"tick":T,"agents":[[id,x,y,...],...],"events":...}),
// one a line: the header and the events hold other arrays of numbers.
std::string agents_only(const std::string& record) {
  std::string out;
  for (size_t at = 0; (at = record.find("\"agents\":[", at)) != std::string::npos;) {
    size_t end = record.find("],\"events\"", at);
    if (end == std::string::npos) break;
    out.append(record, at + 9, end - at - 8).push_back('\n');
    at = end;
  }
  return out;
}

// Every recorded position of a --record text.
std::vector<Vec2> recorded_positions(const std::string& full_record) {
  const std::string record = agents_only(full_record);
  std::vector<Vec2> out;
  size_t at = 0;
  while ((at = record.find("[", at + 1)) != std::string::npos) {
    if (record[at + 1] == '[') continue;  // the list itself
    unsigned id;
    double x, y;
    if (std::sscanf(record.c_str() + at, "[%u,%lf,%lf,", &id, &x, &y) == 3) out.push_back({x, y});
  }
  return out;
}

// Agent `id`'s recorded positions, tick by tick.
std::vector<Vec2> track_of(const std::string& full_record, unsigned id) {
  const std::string record = agents_only(full_record);
  std::vector<Vec2> out;
  char key[32];
  std::snprintf(key, sizeof key, "[%u,", id);
  for (size_t at = 0; (at = record.find(key, at)) != std::string::npos; ++at) {
    if (at > 0 && (record[at - 1] == '[' || record[at - 1] == ',')) {
      unsigned got;
      double x, y;
      if (std::sscanf(record.c_str() + at, "[%u,%lf,%lf,", &got, &x, &y) == 3 && got == id) out.push_back({x, y});
    }
  }
  return out;
}

double distance_to_polyline(Vec2 p, const std::vector<Vec2>& line) {
  double best = 1e300;
  for (size_t k = 1; k < line.size(); ++k) {
    Vec2 a = line[k - 1], ab = line[k] - a;
    double len2 = ab.length_squared();
    double t = len2 > 0 ? std::clamp(((p - a).x * ab.x + (p - a).y * ab.y) / len2, 0.0, 1.0) : 0.0;
    best = std::min(best, world::distance(p, a + ab * t));
  }
  return best;
}

// How far the agent strayed from its planned path on its way to the path's end (until it
// first came within `radius` of it): move_to must walk the plan, not a straight line.
double straying(const std::vector<Vec2>& track, const std::vector<Vec2>& plan, double radius) {
  double worst = 0;
  for (Vec2 p : track) {
    worst = std::max(worst, distance_to_polyline(p, plan));
    if (world::distance(p, plan.back()) <= radius) return worst;
  }
  return 1e300;  // never arrived
}

}  // namespace

TEST_CASE("nav scenario: thicket.find_path on a map") {
  NavDir d;
  d.leaves(R"(
L.Find = thicket.task(function(agent)
  dump("plain", thicket.find_path(2.3, 2.7, 8.6, 2.2))
  dump("astar", thicket.find_path(2.5, 2.5, 8.5, 2.5, {algorithm = "astar", smooth = false}))
  dump("jps", thicket.find_path(2.5, 2.5, 8.5, 2.5, {algorithm = "jps", smooth = false}))
  dump("astar_smooth", thicket.find_path(2.3, 2.7, 8.6, 2.2, {algorithm = "astar"}))
  dump("jps_smooth", thicket.find_path(2.3, 2.7, 8.6, 2.2, {algorithm = "jps"}))
  dump("cells", thicket.find_path(2.3, 2.7, 8.6, 2.2, {smooth = false, algorithm = "astar"}))
  dump("wall", thicket.find_path(2.3, 2.7, 5.5, 2.5))
  dump("outside", thicket.find_path(2.3, 2.7, 30, 2.5))
  dump("closed", thicket.find_path(2.3, 2.7, 13.5, 2.5))
  dump("danger", thicket.find_path(2.3, 2.7, 8.6, 2.2, {danger = {{5.5, 4.5, 1.2, 100}}}))
  idle()
end)
)");
  d.brain("finder", "Find");
  auto spec = d.spec(rooms_scenario(group("g", "finder", at(1.5, 1.5))));
  REQUIRE(spec);
  const nav::GridMap& map = *spec->nav.map;
  Outcome o = d.run(rooms_scenario(group("g", "finder", at(1.5, 1.5))), 2);
  CHECK(o.result.script_errors == 0);
  INFO(o.log);

  Path plain = o.path("plain");
  REQUIRE(plain.found);
  CHECK(plain.method == "grid");
  CHECK(plain.points.front() == Vec2{2.3, 2.7});  // exactly the ends asked for
  CHECK(plain.points.back() == Vec2{8.6, 2.2});
  for (size_t k = 1; k < plain.points.size(); ++k) CHECK(nav::line_of_sight(map, plain.points[k - 1], plain.points[k]));
  CHECK(plain.length == doctest::Approx(legs(plain.points)).epsilon(1e-12));
  CHECK(plain.length > world::distance({2.3, 2.7}, {8.6, 2.2}) + 0.5);  // around the wall, through a door
  CHECK(plain.points.size() >= 3);

  // Cell centre to cell centre, unsmoothed: both algorithms' paths cost the optimal octile length.
  Path astar = o.path("astar"), jps = o.path("jps");
  REQUIRE(astar.found);
  REQUIRE(jps.found);
  CHECK(astar.length == doctest::Approx(jps.length).epsilon(1e-12));
  // (2,2) to (8,2) via the door (5,4), entered and left straight (no corner cutting).
  CHECK(astar.length == doctest::Approx(2 + 4 * std::sqrt(2.0)).epsilon(1e-12));
  Path as = o.path("astar_smooth"), js = o.path("jps_smooth");
  REQUIRE(as.found);
  REQUIRE(js.found);
  CHECK(as.length <= astar.length + 1.0);
  CHECK(js.length <= jps.length + 1.0);
  for (const Path* p : {&as, &js})
    for (size_t k = 1; k < p->points.size(); ++k) CHECK(nav::line_of_sight(map, p->points[k - 1], p->points[k]));

  // smooth = false: every point between the ends is a cell centre, and there are more of them.
  Path cells = o.path("cells");
  REQUIRE(cells.found);
  CHECK(cells.points.front() == Vec2{2.3, 2.7});
  CHECK(cells.points.back() == Vec2{8.6, 2.2});
  CHECK(cells.points.size() > plain.points.size());
  for (size_t k = 1; k + 1 < cells.points.size(); ++k) {
    Vec2 p = cells.points[k];
    CHECK(p.x - std::floor(p.x) == 0.5);
    CHECK(p.y - std::floor(p.y) == 0.5);
  }
  CHECK(cells.length >= plain.length);

  CHECK_FALSE(o.path("wall").found);
  CHECK(o.path("wall").reason == "the goal (5.5, 2.5) is inside a wall");
  CHECK_FALSE(o.path("outside").found);
  CHECK(o.path("outside").reason == "the goal (30, 2.5) is outside the map");
  CHECK_FALSE(o.path("closed").found);
  CHECK(o.path("closed").reason.rfind("unreachable", 0) == 0);

  // A dear zone on the upper door sends the path through the lower one.
  Path danger = o.path("danger");
  REQUIRE(danger.found);
  CHECK(danger.length > plain.length + 2);
  bool lower = false;
  for (Vec2 p : danger.points) lower = lower || p.y > 6.5;
  CHECK(lower);
  for (Vec2 p : plain.points) CHECK(p.y < 6);
}

TEST_CASE("nav scenario: bad path and steering options are script errors that say what is wrong") {
  NavDir d;
  d.leaves(R"(
local bad = {{budget = -1}, {danger = {{1, 2}}}, {algorithm = "jsp"}, {budget = 1.5}, {danger = 3}, {},
             {algoritm = "jps"}, {smooth = "no"}}
L.Bad = thicket.task(function(agent)
  if agent.id == 6 then agent:steer{seek = {1, 1}, walls = "off"} end
  if agent.id == 9 then thicket.find_path(2.5, 2.5, 3.5, 3.5, {budget = 10}) end
  if agent.id == 10 then thicket.move_to(agent, 3.5, 3.5, {radius = "x"}) end
  if agent.id == 11 then thicket.move_to(agent, 3.5, 3.5, {radius = 0/0}) end
  agent:path_to(3.5, 3.5, bad[agent.id])
  thicket.log("NOTREACHED")
  idle()
end)
)");
  d.brain("bad", "Bad");
  Outcome o = d.run(rooms_scenario(group("g", "bad", "{box: [[1, 1], [4, 3]]}", 11)), 1);
  INFO(o.log);
  CHECK(o.result.script_errors == 11);
  CHECK(o.log.find("steer: 'walls' is a weight (a finite number; 0: off), got string") != std::string::npos);
  CHECK(o.line("NOTREACHED").empty());
  CHECK(o.lines.count("NOTREACHED") == 0);
  CHECK(o.log.find("path options: 'budget' is a whole number of search nodes per tick (0: no limit)") != std::string::npos);
  CHECK(o.log.find("path options: danger zone 1 must be {x, y, radius [, cost]}, radius > 0") != std::string::npos);
  CHECK(o.log.find("path options: 'algorithm' is \"auto\", \"astar\" or \"jps\", got jsp; did you mean 'jps'?") != std::string::npos);
  CHECK(o.log.find("path options: 'danger' is a list of zones {x, y, radius [, cost]}") != std::string::npos);
  CHECK(o.log.find("path options: unknown option 'algoritm'; did you mean 'algorithm'?") != std::string::npos);
  CHECK(o.log.find("path options: 'smooth' is true or false, got string") != std::string::npos);
  CHECK(o.log.find("path options: thicket.find_path is a whole search and takes no 'budget'") != std::string::npos);
  // move_to's own options too; every error is placed in leaves.lua, none inside the built-in
  // chunk that defines move_to.
  CHECK(o.log.find("move_to: option 'radius' is a number > 0, got string") != std::string::npos);
  CHECK(o.log.find("move_to: option 'radius' is a number > 0, got nan") != std::string::npos);  // (it said -nan)
  CHECK(o.log.find("(thicket)") == std::string::npos);
}

TEST_CASE("nav scenario: agent:path_to with a budget is sliced over ticks and ends as a whole search") {
  NavDir d;
  d.leaves(R"(
local function sliced(agent, x, y, budget)
  local falses, points, length, method = 0
  repeat
    points, length, method = agent:path_to(x, y, {budget = budget, algorithm = "astar"})
    if points == false then falses = falses + 1; coroutine.yield() end
  until points ~= false
  return falses, points, length, method
end
L.Slice = thicket.task(function(agent)
  dump("whole", agent:path_to(13.5, 6.5, {algorithm = "astar"}))
  local falses, points, length, method = sliced(agent, 13.5, 6.5, 3)
  dump("sliced", points, length, method)
  dump("whole_b", agent:path_to(8.5, 1.5, {algorithm = "astar"}))
  local fresh = sliced(agent, 8.5, 1.5, 3)
  -- Another goal while a search is under way starts over for the new goal.
  local first = agent:path_to(13.5, 6.5, {budget = 3, algorithm = "astar"})
  local again, p2, l2, m2 = sliced(agent, 8.5, 1.5, 3)
  dump("switched", p2, l2, m2)
  thicket.log("FALSES " .. falses .. " " .. fresh .. " " .. again .. " " .. tostring(first))
  dump("unreachable", select(2, sliced(agent, 13.5, 2.5, 3)))
  idle()
end)
)");
  d.brain("slicer", "Slice");
  Simulation* sim = nullptr;
  Outcome o = d.run(rooms_scenario(group("g", "slicer", at(2.5, 2.5))), 400, 1, &sim);
  INFO(o.log);
  CHECK(o.result.script_errors == 0);
  Path whole = o.path("whole"), sliced = o.path("sliced");
  REQUIRE(whole.found);
  REQUIRE(sliced.found);
  CHECK(sliced.points == whole.points);  // the agent stood still: the same search, in slices
  CHECK(sliced.length == whole.length);
  auto falses = o.numbers("FALSES");
  REQUIRE(falses.size() == 3);
  CHECK(falses[0] >= 3);        // three nodes a tick is not enough for this map
  CHECK(falses[2] == falses[1]);  // after the switch, the new goal's search from scratch
  CHECK(o.line("FALSES").find(" false") != std::string::npos);
  Path switched = o.path("switched");
  REQUIRE(switched.found);
  CHECK(switched.points == o.path("whole_b").points);
  CHECK_FALSE(o.path("unreachable").found);
  CHECK(o.path("unreachable").reason.rfind("unreachable", 0) == 0);
  CHECK(sim->path_searches_held() == 0);
}

TEST_CASE("nav scenario: a sliced search left behind is not resumed from where the agent used to be") {
  // A task that started a sliced search and was aborted (or gave up on it) leaves it with the
  // agent; asking again for the same goal ticks later must plan from where the agent is now.
  NavDir d;
  d.leaves(R"(
L.Leave = thicket.task(function(agent)
  local first = agent:path_to(13.5, 6.5, {budget = 1, algorithm = "astar"})
  for _ = 1, 20 do
    agent:steer{seek = {2.5, 6.5}}
    coroutine.yield()
  end
  agent:steer{seek = {2.5, 1.5}}
  local x, y = agent:position()
  thicket.log("NOW " .. num(x) .. " " .. num(y) .. " " .. tostring(first))
  local points, length, method
  repeat
    points, length, method = agent:path_to(13.5, 6.5, {budget = 5, algorithm = "astar"})
    if points == false then coroutine.yield() end
  until points ~= false
  dump("AGAIN", points, length, method)
  idle()
end)
)");
  d.brain("leave", "Leave");
  Outcome o = d.run(rooms_scenario(group("g", "leave", at(2.5, 1.5))), 60);
  INFO(o.log);
  CHECK(o.result.script_errors == 0);
  std::vector<double> now = o.numbers("NOW");
  REQUIRE(now.size() == 2);
  CHECK(o.line("NOW").find(" false") != std::string::npos);
  CHECK(now[1] > 3);  // it did move
  Path again = o.path("AGAIN");
  REQUIRE(again.found);
  CHECK(world::distance(again.points.front(), {now[0], now[1]}) == doctest::Approx(0.0));
}

TEST_CASE("nav scenario: an agent that dies holding a sliced search gives it back") {
  NavDir d;
  d.leaves(R"(
-- Plans one A* node a tick to the far corner: not done within the run.
L.Plan = thicket.task(function(agent)
  while true do
    local p = agent:path_to(14.5, 7.5, {budget = 1, algorithm = "astar"})
    if p ~= false then thicket.log("DONE") end
    coroutine.yield()
  end
end)
L.Kill = thicket.task(function(agent)
  thicket.wait(0.3)
  agent:damage(1, 1000)
  idle()
end)
)");
  d.brain("planner", "Plan");
  d.brain("killer", "Kill");
  std::string groups = group("victim", "planner", at(1.5, 1.5)) + group("holder", "planner", at(2.5, 1.5)) +
                       group("killer", "killer", at(3.5, 1.5), 1, "b");
  Simulation* sim = nullptr;
  Outcome o = d.run(rooms_scenario(groups), 10, 1, &sim);
  INFO(o.log);
  CHECK(o.result.script_errors == 0);
  CHECK(o.result.metrics.at("deaths") == 1);
  CHECK(o.lines.count("DONE") == 0);
  CHECK(sim->path_searches_held() == 1);  // the holder's; the victim's went back to the pool
}

TEST_CASE("nav scenario: thicket.move_to walks through a door, fails for an unreachable goal, follows an agent") {
  NavDir d;
  d.leaves(R"(
L.Door = thicket.task(function(agent)
  local x0, y0 = agent:position()
  dump("PLAN", thicket.find_path(x0, y0, 8.5, 1.5))
  -- Straight east is a wall: only the planned way through the door gets there.
  local ok, why = thicket.move_to(agent, 8.5, 1.5, {radius = 0.5})
  local x, y = agent:position()
  thicket.log("DOOR " .. tostring(ok) .. " " .. num(x) .. " " .. num(y))
  ok, why = thicket.move_to(agent, 13.5, 2.5)
  thicket.log("CLOSED " .. tostring(ok) .. " " .. tostring(why))
  idle()
end)
L.Walk = thicket.task(function(agent)
  thicket.move_to(agent, 12.5, 6.5, {radius = 0.3})
  idle()
end)
L.Follow = thicket.task(function(agent)
  local ok = thicket.move_to(agent, 4, {radius = 1})
  local x, y = agent:position()
  local tx, ty = agent:locate(4)
  thicket.log("FOLLOW " .. tostring(ok) .. " " .. num(math.sqrt((x - tx) ^ 2 + (y - ty) ^ 2)))
  idle()
end)
)");
  d.brain("door", "Door");
  d.brain("follow", "Follow");
  d.brain("walk", "Walk");
  d.brain("idle", "Idle");
  std::string groups = group("door", "door", at(2.5, 1.5)) + group("pad1", "idle", at(1.5, 6.5)) +
                       group("follower", "follow", at(2.5, 6.5)) + group("walker", "walk", at(6.5, 1.5), 1, "a", 1);
  Outcome o = d.run(rooms_scenario(groups), 300);
  INFO(o.log);
  CHECK(o.result.script_errors == 0);
  CHECK(o.line("DOOR").rfind("true ", 0) == 0);
  std::istringstream in(o.line("DOOR"));
  std::string ok;
  double x = 0, y = 0;
  in >> ok >> x >> y;
  CHECK(world::distance({x, y}, {8.5, 1.5}) <= 0.5);
  Path plan = o.path("PLAN");
  REQUIRE(plan.found);
  double strayed = straying(track_of(o.record, 1), plan.points, 0.5);
  CHECK(strayed < 2.0);
  CHECK(o.line("CLOSED").rfind("false unreachable", 0) == 0);
  std::istringstream fin(o.line("FOLLOW"));
  double gap = 99;
  fin >> ok >> gap;
  CHECK(ok == "true");
  CHECK(gap <= 1.0);
}

// A room above a corridor above a room; the doors are apart, so the way down turns twice.
const char* kZigzagMap =
    "type octile\nheight 9\nwidth 12\nmap\n"
    "@@@@@@@@@@@@\n"   // 0
    "@..........@\n"   // 1
    "@..........@\n"   // 2
    "@@@@@@@..@@@\n"   // 3   a door at x 7..9
    "@..........@\n"   // 4   the corridor
    "@..........@\n"   // 5
    "@@@@@..@@@@@\n"   // 6   a door at x 5..7
    "@..........@\n"   // 7
    "@@@@@@@@@@@@\n";  // 8

TEST_CASE("nav scenario: thicket.move_to goes through doors and round corners on a map without getting stuck") {
  // These three once ended "stuck": the walls' feelers pushed the agent off the doors (the
  // jambs are in reach of a one-cell door), and corners passed as early as the goal radius
  // were cut, so the agent pressed into the wall beside the door.
  NavDir d;
  d.write("zigzag.map", kZigzagMap);
  d.leaves(R"(
local goals = {{9, 7.5}, {3, 7.5}, {9, 7.5}}
L.Down = thicket.task(function(agent)
  local g = goals[agent.id]
  local ok, why = thicket.move_to(agent, g[1], g[2], {radius = 1})
  local x, y = agent:position()
  thicket.log("DOWN" .. agent.id .. " " .. tostring(ok) .. " " .. num(x) .. " " .. num(y) .. " " .. tostring(why))
  idle()
end)
)");
  d.brain("down", "Down");
  std::string yaml = "scenario: z\nseed: 4\nworld: {map: zigzag.map}\nteams: [a]\ngroups:\n" + group("g1", "down", at(1.5, 1.5), 1, "a", 2.5) +
                     group("g2", "down", at(4.5, 1.5), 1, "a", 2.5) + group("g3", "down", at(4.5, 1.5), 1, "a", 2.5);
  Outcome o = d.run(yaml, 300);
  INFO(o.log);
  CHECK(o.result.script_errors == 0);
  const Vec2 goals[] = {{9, 7.5}, {3, 7.5}, {9, 7.5}};
  for (int k = 0; k < 3; ++k) {
    CAPTURE(k);
    std::istringstream in(o.line("DOWN" + std::to_string(k + 1)));
    std::string ok;
    double x = 0, y = 0;
    in >> ok >> x >> y;
    CHECK(ok == "true");
    CHECK(world::distance({x, y}, goals[k]) <= 1.0);
  }
}

TEST_CASE("nav scenario: thicket.move_to arrives on a waypoint world and on a navmesh world") {
  for (const char* extra : {"waypoints: [[5, 17], [15, 17]]", "navmesh: true"}) {
    CAPTURE(extra);
    NavDir d;
    d.leaves(R"(
L.Go = thicket.task(function(agent)
  local x0, y0 = agent:position()
  dump("PLAN", thicket.find_path(x0, y0, 15, 5))
  local ok = thicket.move_to(agent, 15, 5, {radius = 0.6})
  local x, y = agent:position()
  thicket.log("ARRIVED " .. tostring(ok) .. " " .. num(x) .. " " .. num(y))
  idle()
end)
)");
    d.brain("goer", "Go");
    std::string yaml = std::string("scenario: w\nseed: 2\nworld: {size: [20, 20], obstacles: [{box: [[9, 0], [11, 15]]}], ") + extra +
                       "}\nteams: [a]\ngroups:\n" + group("g", "goer", at(5, 5), 1, "a", 3);
    Outcome o = d.run(yaml, 400);
    INFO(o.log);
    CHECK(o.result.script_errors == 0);
    Path plan = o.path("PLAN");
    REQUIRE(plan.found);
    CHECK(plan.method == (std::string(extra).rfind("navmesh", 0) == 0 ? "navmesh" : "waypoints"));
    CHECK(plan.length > 15);  // around the wall's free end at y > 15
    std::istringstream in(o.line("ARRIVED"));
    std::string ok;
    double x = 0, y = 0;
    in >> ok >> x >> y;
    CHECK(ok == "true");
    CHECK(world::distance({x, y}, {15, 5}) <= 0.6);
    double strayed = straying(track_of(o.record, 1), plan.points, 0.6);
    CHECK(strayed < 2.0);
  }
}

TEST_CASE("nav scenario: agents never spawn in a wall and never end a tick in a blocked cell") {
  NavDir d;
  d.leaves(R"(
-- Half the agents ram east, half west, through every wall in the way.
L.Ram = thicket.task(function(agent)
  local x, y = agent:position()
  thicket.log("SPAWN " .. num(x) .. " " .. num(y))
  local dx = agent.id % 2 == 0 and 40 or -40
  local dy = agent.id % 3 == 0 and 20 or -20
  while true do
    local px, py = agent:position()
    agent:steer{seek = {px + dx, py + dy}}
    coroutine.yield()
  end
end)
)");
  d.brain("ram", "Ram");
  std::string yaml = rooms_scenario(group("g", "ram", "{box: [[0, 0], [16, 9]]}", 60, "a", 6),
                                    ", obstacles: [{circle: [2.5, 6], radius: 1.2}, {box: [[7, 5], [9, 7]]}]");
  auto spec = d.spec(yaml);
  REQUIRE(spec);
  const nav::GridMap& map = *spec->nav.map;
  nav::Walls walls(spec->obstacles, &map);
  Outcome o = d.run(yaml, 60);
  INFO(o.log.substr(0, 2000));
  CHECK(o.result.script_errors == 0);
  REQUIRE(o.lines.count("SPAWN") == 60);
  int in_walls = 0;
  for (auto [it, end] = o.lines.equal_range("SPAWN"); it != end; ++it) {
    std::istringstream in(it->second);
    Vec2 p;
    in >> p.x >> p.y;
    if (walls.blocked(p)) ++in_walls;
  }
  CHECK(in_walls == 0);
  std::vector<Vec2> positions = recorded_positions(o.record);
  CHECK(positions.size() == 60 * 60);
  // The record rounds to the millimetre: a position on a wall's edge may round into it, so a
  // position counts as in a wall when it is more than that inside it.
  int blocked = 0;
  for (Vec2 p : positions) {
    bool inside = true;
    for (Vec2 nudge : {Vec2{-0.001, -0.001}, Vec2{0.001, -0.001}, Vec2{-0.001, 0.001}, Vec2{0.001, 0.001}}) {
      nav::Cell c = map.cell_at(p + nudge);
      inside = inside && (!map.in_bounds(c) || !map.passable(c));
    }
    blocked += inside;
  }
  CHECK(blocked == 0);
}

TEST_CASE("nav scenario: a fast agent does not pass through a wall thinner than its step") {
  NavDir d;
  // A runway, then a wall one cell thick at x 25..26.
  std::string map = "type octile\nheight 5\nwidth 40\nmap\n" + std::string(40, '@') + "\n";
  for (int r = 0; r < 3; ++r) map += "@" + std::string(24, '.') + "@" + std::string(13, '.') + "@\n";
  map += std::string(40, '@') + "\n";
  d.write("runway.map", map);
  d.leaves(R"(
L.Dash = thicket.task(function(agent)
  while true do agent:steer{seek = {38, 2.5}}; coroutine.yield() end
end)
)");
  d.brain("dash", "Dash");
  // Up to 3 m a tick: several start points, so some step would end beyond the wall.
  std::string groups;
  for (double x : {1.3, 1.6, 1.9, 2.2, 2.5, 2.8, 3.1})
    groups += "  - {name: g" + std::to_string(int(x * 10)) + ", team: a, count: 1, brain: dash.yaml, spawn: " + at(x, 2.5) +
              ", vehicle: {max_speed: 30, max_force: 200, radius: 0.3}}\n";
  Outcome o = d.run("scenario: r\nseed: 4\nworld: {map: runway.map}\nteams: [a]\ngroups:\n" + groups, 40);
  CHECK(o.result.script_errors == 0);
  double furthest = 0;
  for (Vec2 p : recorded_positions(o.record)) furthest = std::max(furthest, p.x);
  CHECK(furthest > 24);  // they got to the wall
  CHECK(furthest < 25);  // and none through it
}

TEST_CASE("nav scenario: neighbours and nearest with {sight = true} drop agents behind a wall") {
  NavDir d;
  d.leaves(R"(
L.Look = thicket.task(function(agent)
  local function ids(list)
    local out = {}
    for _, n in ipairs(list) do out[#out + 1] = n.id end
    table.sort(out)
    return table.concat(out, ",")
  end
  local all, seen = ids(agent:neighbours(10)), ids(agent:neighbours(10, {sight = true}))
  local near, near_seen = agent:nearest(10), agent:nearest(10, {sight = true})
  local enemy_seen = agent:nearest(10, {sight = true, enemies = true})
  thicket.log("SEE " .. all .. " " .. seen .. " " .. near.id .. " " .. near_seen.id .. " " .. tostring(enemy_seen))
  idle()
end)
)");
  d.brain("looker", "Look");
  d.brain("idle", "Idle");
  // 1 looks from the left room; 2 is nearest but behind the wall; 3 is in the same room.
  std::string groups = group("looker", "looker", at(2.5, 2.5)) + group("hidden", "idle", at(6.5, 2.5), 1, "b") +
                       group("open", "idle", at(2.5, 7.5));
  Outcome o = d.run(rooms_scenario(groups), 1);
  INFO(o.log);
  CHECK(o.result.script_errors == 0);
  CHECK(o.line("SEE") == "2,3 3 2 3 nil");
}

TEST_CASE("nav scenario: the same run with move_to on a map for 1 and 2 workers") {
  NavDir d;
  d.leaves(R"(
local spots = {{2.5, 2.5}, {8.5, 2.5}, {12.5, 6.5}, {2.5, 7.5}, {9.5, 5.5}}
L.Tour = thicket.task(function(agent)
  local i = agent.id
  while true do
    i = i % #spots + 1
    if thicket.move_to(agent, spots[i][1], spots[i][2], {radius = 0.8, budget = 20}) then thicket.metric("legs")
    else coroutine.yield() end
  end
end)
)");
  d.brain("tour", "Tour");
  std::string yaml = rooms_scenario(group("g", "tour", "{box: [[1, 1], [11, 8]]}", 12, "a", 2.5), "", "legs");
  Outcome one = d.run(yaml, 250, 1), two = d.run(yaml, 250, 2);
  CHECK(one.result.script_errors == 0);
  CHECK(one.result.metrics.at("legs") >= 12);
  CHECK(one.record == two.record);
  CHECK(one.result.metrics == two.result.metrics);
}

TEST_CASE("nav scenario: a map's search tables are built when the run is made, not by the first leaf that plans") {
  NavDir d;
  d.leaves("L.Idle2 = L.Idle\n");
  d.brain("idle", "Idle");
  auto s = d.spec(rooms_scenario(group("g", "idle", at(2.5, 2.5))));
  REQUIRE(s);
  REQUIRE(s->nav.map);
  REQUIRE(s->nav.map->table_cache());
  CHECK(s->nav.map->table_cache()->latest == nullptr);  // loading the scenario builds nothing
  SimOptions o;
  std::vector<Diagnostic> diags;
  auto sim = Simulation::create(*s, o, diags);
  REQUIRE(sim);
  // (a leaf's first search would otherwise build them inside its call, past --leaf-timeout on
  // a large map, and which leaf pays would depend on how agents are split over threads)
  const auto& built = s->nav.map->table_cache()->latest;
  REQUIRE(built != nullptr);
  CHECK(built->stamp == s->nav.map->stamp());
  CHECK(built->has.distances);
  CHECK(built->has.components);
  CHECK(built->has.landmarks);
}

TEST_CASE("nav scenario: errors found when the run is made point at their key") {
  NavDir d;
  d.leaves("");
  d.brain("idle", "Idle");
  auto errors = [&](const std::string& world, const std::string& spawn) {
    auto s = d.spec("scenario: e\nworld: " + world + "\nteams: [a]\ngroups:\n  - name: g\n    team: a\n    brain: idle.yaml\n"
                    "    spawn: " + spawn + "\n");
    REQUIRE(s);
    SimOptions o;
    std::vector<Diagnostic> diags;
    CHECK_FALSE(Simulation::create(*s, o, diags));
    std::string out;
    for (const auto& diag : diags) out += std::to_string(diag.line) + ":" + std::to_string(diag.column) + ": " + diag.message + "\n";
    return out;
  };
  CHECK(errors("{size: [10, 10], obstacles: [{box: [[0, 0], [10, 10]]}]}", "{centre: [5, 5], radius: 1}") ==
        "8:5: group 'g': no free place found in its spawn area in 10000 random tries: obstacles cover all or nearly all of it (make the area smaller, around the free ground)\n");
  const std::string big = errors("{size: [5000, 5000], navmesh: true}", "{centre: [5, 5], radius: 1}");
  INFO(big);
  CHECK(big.rfind("2:29: the navmesh could not be built: ", 0) == 0);
  CHECK(big.find("(navmesh: {cell: ...} in the scenario)") != std::string::npos);
  // Cells so coarse that nothing is left walkable: said once, not by every path's failure.
  CHECK(errors("{size: [45, 20], navmesh: {cell: 1000}}", "{centre: [5, 5], radius: 1}") ==
        "2:25: the navmesh has nothing walkable: cells of 1000 m over a 45 x 20 m world, less its obstacles and the "
        "agents' radius (0.5 m), leave no polygon; use a smaller 'cell', or leave the agents some open ground\n");
}
