// bench_pairs: what a leaf's `pairs` costs in thicket (bindings/lua/lua_order.cpp: keys in a
// fixed order, so that runs repeat) beside Lua 5.4's own pairs (an order that changes from one
// process to the next), on the tables leaves walk: arrays, an array with a hole, string-keyed
// records and sparse integer keys, of 10 and 100 keys. Each row is one `for k, v in pairs(t)`
// loop summing the values, in a plain lua_State whose global `pairs` is the library's or
// thicket's; ipairs over the arrays is printed as the floor. ns per loop, medians [bests] of
// interleaved reps; both walks must find the same sum.
//
// Arguments: [REPS] (default 15).
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "harness.hpp"
#include "lua_order.hpp"

using namespace bench;

namespace {

// The tables, and a function that walks one of them `n` times with the given iterator maker.
const char kTables[] = R"LUA(
local T = {}
local function array(n) local t = {} for i = 1, n do t[i] = i end return t end
local function holed(n) local t = array(n) t[n // 2] = nil return t end
local function record(n) local t = {} for i = 1, n do t["field_" .. i] = i end return t end
local function sparse(n) local t = {} for i = 1, n do t[i * 7919] = i end return t end
for _, n in ipairs({10, 100}) do
  T["array" .. n], T["holed" .. n], T["record" .. n], T["sparse" .. n] = array(n), holed(n), record(n), sparse(n)
end
local function walk(make, t, n)
  local sum = 0
  for _ = 1, n do
    for _, v in make(t) do sum = sum + v end
  end
  return sum
end
return {T = T, walk = walk}
)LUA";

struct World {
  lua_State* L;
  int walk_ref = LUA_NOREF, tables_ref = LUA_NOREF, make_ref = LUA_NOREF;
  World(bool ordered, bool ipairs) {
    L = luaL_newstate();
    luaL_openlibs(L);
    if (ordered) {
      lua_pushcfunction(L, thicket::ordered_pairs);
      lua_setglobal(L, "pairs");
    }
    run_chunk(L, kTables, "=tables");
    lua_getfield(L, -1, "walk");
    walk_ref = luaL_ref(L, LUA_REGISTRYINDEX);
    lua_getfield(L, -1, "T");
    tables_ref = luaL_ref(L, LUA_REGISTRYINDEX);
    lua_pop(L, 1);
    lua_getglobal(L, ipairs ? "ipairs" : "pairs");
    make_ref = luaL_ref(L, LUA_REGISTRYINDEX);
  }
  ~World() { lua_close(L); }
  World(const World&) = delete;
  World& operator=(const World&) = delete;
  // Walks table `name` n times; the sum of what it found.
  long long run(const std::string& name, int n) {
    lua_rawgeti(L, LUA_REGISTRYINDEX, walk_ref);
    lua_rawgeti(L, LUA_REGISTRYINDEX, make_ref);
    lua_rawgeti(L, LUA_REGISTRYINDEX, tables_ref);
    lua_getfield(L, -1, name.c_str());
    lua_remove(L, -2);
    lua_pushinteger(L, n);
    if (lua_pcall(L, 3, 1, 0) != LUA_OK) {
      std::fprintf(stderr, "bench_pairs: %s\n", lua_tostring(L, -1));
      std::exit(1);
    }
    const long long sum = lua_tointeger(L, -1);
    lua_pop(L, 1);
    return sum;
  }
};

}  // namespace

int main(int argc, char** argv) {
  const int reps = argc > 1 ? std::atoi(argv[1]) : 15;
  World lua(false, false), floor(false, true), thicket_pairs(true, false);  // floor: ipairs
  std::printf("bench_pairs: one `for k, v in pairs(t)` loop summing the values, ns per loop\n");
  std::printf("load average at start: %s\n", load_average().c_str());
  bool all_match = true;
  for (const char* size : {"10", "100"}) {
    const std::vector<std::string> kinds = {"array", "holed", "record", "sparse"};
    const int block = std::string(size) == "10" ? 20000 : 2000;
    std::printf("\n%s keys (%d reps of %d loops; median, best in brackets):\n", size, reps, block);
    Rows rows;
    for (const std::string& kind : kinds) {
      const std::string table = kind + size;
      const long long want = lua.run(table, 1), got = thicket_pairs.run(table, 1);
      if (want != got) {
        std::printf("  %s: sums differ (Lua %lld, thicket %lld): MISMATCH\n", table.c_str(), want, got);
        all_match = false;
      }
      rows.add(kind + " lua", "Lua 5.4's pairs", [&lua, table](int n) { lua.run(table, n); });
      rows.add(kind + " thicket", "thicket's pairs (fixed order)", [&thicket_pairs, table](int n) { thicket_pairs.run(table, n); });
    }
    const std::string array = std::string("array") + size;
    rows.add("array ipairs", "ipairs (the floor of an array walk)", [&floor, array](int n) { floor.run(array, n); });
    rows.measure(reps, block, block);
    rows.print();
    std::printf("  ratios thicket/lua (medians):");
    for (const std::string& kind : kinds)
      std::printf(" %s %.2fx", kind.c_str(), rows.ratio(kind + " thicket", kind + " lua"));
    std::printf("\n");
  }
  std::printf("\nload average at end: %s\n", load_average().c_str());
  consistency(all_match, "thicket's pairs and Lua's found the same sums");
  return all_match ? 0 : 1;
}
