// pairs and next in an order that is the same in every run. Lua 5.4 seeds its string hashes
// from the clock and from addresses (lstate.c, luai_makeseed), so the order in which the
// standard next walks a table's string keys changes from one process to the next: a leaf
// that took "the first enemy" of `pairs(enemies)` made a different run each time. Here keys
// come in a fixed order: numbers ascending, then strings (byte order), then false and true,
// then other keys (tables, functions, ...) in the table's own order, which no script can fix
// either way (their hashes are their addresses).
#include "lua_order.hpp"

#include "lua_host.hpp"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <new>
#include <string_view>
#include <type_traits>

namespace thicket {
namespace {

enum Group { kNumber = 0, kString = 1, kBoolean = 2, kOther = 3 };

struct Key {
  int group = kOther;
  bool is_int = false;
  lua_Integer i = 0;
  lua_Number d = 0;
  std::string_view text;  // valid while the key stays in the table (it is kept in `raw` too)
  std::uint64_t prefix = 0;  // the text's first 8 bytes, big-endian (zeros past its end)
  bool boolean = false;
  int raw = 0;  // place in the table's own order: the tie-break, and the order of other keys
};

Key key_at(lua_State* L, int idx, int raw) {
  Key k;
  k.raw = raw;
  switch (lua_type(L, idx)) {
    case LUA_TNUMBER: {
      k.group = kNumber;
      int is_int = 0;
      k.i = lua_tointegerx(L, idx, &is_int);
      k.is_int = is_int && lua_isinteger(L, idx);  // (a float of integral value converts too)
      k.d = k.is_int ? static_cast<lua_Number>(k.i) : lua_tonumber(L, idx);
      break;
    }
    case LUA_TSTRING: {
      k.group = kString;
      size_t n = 0;
      const char* s = lua_tolstring(L, idx, &n);
      k.text = std::string_view(s, n);
      for (size_t b = 0; b < 8; ++b) k.prefix = k.prefix << 8 | (b < n ? static_cast<unsigned char>(s[b]) : 0u);
      break;
    }
    case LUA_TBOOLEAN:
      k.group = kBoolean;
      k.boolean = lua_toboolean(L, idx);
      break;
    default: break;
  }
  return k;
}

// An integer against a float, exactly, as Lua's own comparison (lvm.c, LTintfloat and its kin):
// through a double, math.maxinteger and 2^63 were one value, so two different keys were
// ordered by their places in the table, against the order of the integers around them, and
// next() went round them for ever. (A table has no NaN key.)
constexpr double kTwoTo63 = 9223372036854775808.0;
bool int_below_float(lua_Integer i, double f) {  // i < f: i < ceil(f)
  if (f >= kTwoTo63) return true;
  if (f < -kTwoTo63) return false;
  return i < static_cast<lua_Integer>(std::ceil(f));
}
bool float_below_int(double f, lua_Integer i) {  // f < i: floor(f) < i
  if (f >= kTwoTo63) return false;
  if (f < -kTwoTo63) return true;
  return static_cast<lua_Integer>(std::floor(f)) < i;
}

bool before(const Key& a, const Key& b) {
  if (a.group != b.group) return a.group < b.group;
  switch (a.group) {
    case kNumber:
      if (a.is_int && b.is_int) return a.i < b.i;
      if (a.is_int) return int_below_float(a.i, b.d);
      if (b.is_int) return float_below_int(a.d, b.i);
      if (a.d != b.d) return a.d < b.d;
      return a.raw < b.raw;  // (one float key is one value: no tie)
    // Byte order, as string_view's: the prefixes decide unless they are equal.
    case kString: return a.prefix != b.prefix ? a.prefix < b.prefix : a.text < b.text;
    case kBoolean: return !a.boolean && b.boolean;
    default: return a.raw < b.raw;
  }
}

// A walk's keys, sorted: a userdata of this header and `count` Keys after it (only `raw` is
// read once sorted: where each key is in the sequence of the table's keys).
struct Walk {
  lua_Integer next = 0;  // the place in the sorted keys the walk goes on from
  lua_Integer count = 0;
  Key* keys() { return reinterpret_cast<Key*>(this + 1); }
};
static_assert(sizeof(Walk) % alignof(Key) == 0 && std::is_trivially_destructible_v<Walk>);

// The iterator pairs gives: upvalues 1 the table, 2 its keys in the table's own order (a
// sequence), 3 the Walk. A key whose value was set to nil during the walk is passed over, as
// next passes it.
int ordered_step(lua_State* L) {
  Walk* walk = static_cast<Walk*>(lua_touserdata(L, lua_upvalueindex(3)));
  const Key* keys = walk->keys();
  for (; walk->next < walk->count; ++walk->next) {
    lua_rawgeti(L, lua_upvalueindex(2), keys[walk->next].raw + 1);
    lua_pushvalue(L, -1);
    if (lua_rawget(L, lua_upvalueindex(1)) != LUA_TNIL) {
      ++walk->next;
      return 2;
    }
    lua_pop(L, 2);
  }
  lua_pushnil(L);
  return 1;  // nil: the end
}

// The iterator of a table whose keys are the integers 1..n and nothing else (an array without
// holes), in that order already: no keys to keep, only the table (upvalue 1) and n (upvalue
// 2). The loop's control value, its argument 2, is the last key. (The table is an upvalue, not
// the loop's state in argument 1: the iterator may be called by hand, with anything.)
int array_step(lua_State* L) {
  const lua_Integer last = lua_tointeger(L, lua_upvalueindex(2));
  lua_Integer from = 1;
  if (!lua_isnoneornil(L, 2)) {
    int exact = 0;
    const lua_Integer after = lua_tointegerx(L, 2, &exact);
    from = exact && after >= 0 && after < last ? after + 1 : last + 1;  // not a key of it: the end
  }
  for (lua_Integer i = from; i <= last; ++i) {
    if (lua_rawgeti(L, lua_upvalueindex(1), i) != LUA_TNIL) {
      lua_pushinteger(L, i);
      lua_insert(L, -2);
      return 2;
    }
    lua_pop(L, 1);
  }
  lua_pushnil(L);
  return 1;
}

// Whether the table's keys, in its own order, are 1, 2, ..., n; n is set to their number.
// (Lua keeps integer keys 1..size in the table's array part and walks that part first, in
// order, so an array without holes walks so.)
bool keys_are_one_to_n(lua_State* L, int table, lua_Integer& n) {
  n = 0;
  lua_pushnil(L);
  while (lua_next(L, table)) {
    lua_pop(L, 1);
    int exact = 0;
    if (lua_type(L, -1) != LUA_TNUMBER || lua_tointegerx(L, -1, &exact) != n + 1 || !exact) {
      lua_pop(L, 1);
      return false;
    }
    ++n;
  }
  return true;
}

// The table's keys, sorted: pushes the keys in the table's own order (a sequence) and above it
// a Walk of their Keys in the order above, each naming its key's place in the sequence.
// (No C++ object with a destructor lives here: an allocation Lua refuses (the heap cap) raises
// with a longjmp. The keys are sorted in a userdata the collector frees.)
// The watchdog is asked every kOrderPollEvery keys walked and comparisons made: a table of millions
// of keys, grown over many ticks, took seconds a pairs() in C, where the count hook never fires.
// (A stop raised here longjmps out of std::sort, whose frames hold nothing to destroy.)
constexpr size_t kOrderPollEvery = 1 << 14;

Walk* push_sorted_keys(lua_State* L, int table) {
  table = lua_absindex(L, table);
  luaL_checkstack(L, 6, "pairs");
  size_t n = 0;
  lua_pushnil(L);
  while (lua_next(L, table)) {
    lua_pop(L, 1);
    if (++n % kOrderPollEvery == 0) LuaHost::check_stop(L);
  }
  static_assert(std::is_trivially_destructible_v<Key>);
  lua_createtable(L, static_cast<int>(n), 0);  // the keys in the table's own order
  const int raw = lua_gettop(L);
  Walk* walk = new (lua_newuserdatauv(L, sizeof(Walk) + n * sizeof(Key), 0)) Walk;
  Key* keys = walk->keys();
  size_t got = 0;
  lua_pushnil(L);
  while (lua_next(L, table)) {
    lua_pop(L, 1);
    lua_pushvalue(L, -1);
    lua_rawseti(L, raw, static_cast<lua_Integer>(got + 1));
    new (&keys[got]) Key(key_at(L, -1, static_cast<int>(got)));
    ++got;
  }
  walk->count = static_cast<lua_Integer>(got);
  // (Through a lambda, so that the comparison is inlined rather than called through a pointer.
  // The table's own order is often the sorted one already: integer keys in its array part.)
  size_t compared = 0;
  auto less = [L, &compared](const Key& a, const Key& b) {
    if (++compared % kOrderPollEvery == 0) LuaHost::check_stop(L);
    return before(a, b);
  };
  if (!std::is_sorted(keys, keys + got, less)) std::sort(keys, keys + got, less);
  return walk;
}

}  // namespace

void push_ordered_keys(lua_State* L, int table) {
  Walk* walk = push_sorted_keys(L, table);
  const Key* keys = walk->keys();
  lua_createtable(L, static_cast<int>(walk->count), 0);  // the keys in order
  for (lua_Integer k = 0; k < walk->count; ++k) {
    lua_rawgeti(L, -3, keys[k].raw + 1);
    lua_rawseti(L, -2, k + 1);
  }
  lua_replace(L, -3);  // over the keys in the table's own order
  lua_pop(L, 1);       // the Walk
}

void push_ordered_pairs(lua_State* L, int table) {
  table = lua_absindex(L, table);
  luaL_checkstack(L, 6, "pairs");
  lua_Integer n = 0;
  if (keys_are_one_to_n(L, table, n)) {
    lua_pushvalue(L, table);
    lua_pushinteger(L, n);
    lua_pushcclosure(L, array_step, 2);
    lua_pushvalue(L, table);
    lua_pushnil(L);
    return;
  }
  lua_pushvalue(L, table);
  push_sorted_keys(L, table);
  lua_pushcclosure(L, ordered_step, 3);
  lua_pushvalue(L, table);
  lua_pushnil(L);
}

int ordered_pairs(lua_State* L) {
  luaL_checkany(L, 1);
  if (luaL_getmetafield(L, 1, "__pairs") != LUA_TNIL) {  // the table's own way, as Lua's pairs
    lua_pushvalue(L, 1);
    lua_call(L, 1, 3);
    return 3;
  }
  luaL_checktype(L, 1, LUA_TTABLE);
  push_ordered_pairs(L, 1);
  return 3;
}

int ordered_next(lua_State* L) {
  luaL_checktype(L, 1, LUA_TTABLE);
  lua_settop(L, 2);
  // The key after `after` (none: the first) in the order above: one walk of the table. The
  // other keys come in the table's own order, so after one of them comes the next one of them.
  // (A key that is not in the table gives the one after it, where Lua's next raises.)
  const bool from_start = lua_isnil(L, 2);
  const Key after = from_start ? Key{} : key_at(L, 2, 0);
  bool passed = false;  // the walk passed `after` (for other keys)
  int best = 0;         // stack index of the best key so far (0: none)
  Key best_key;
  int raw = 0;
  lua_pushnil(L);
  while (lua_next(L, 1)) {
    lua_pop(L, 1);
    if ((raw + 1) % int(kOrderPollEvery) == 0) LuaHost::check_stop(L);
    const Key k = key_at(L, -1, raw++);
    bool later;
    if (from_start) {
      later = true;
    } else if (after.group == kOther) {
      later = k.group == kOther && passed;
      if (k.group == kOther && lua_rawequal(L, -1, 2)) passed = true;
    } else if (k.group != after.group) {
      later = k.group > after.group;
    } else {
      later = before(after, k) && !lua_rawequal(L, -1, 2);
    }
    if (later && (!best || before(k, best_key))) {
      if (best) lua_remove(L, best);
      lua_pushvalue(L, -1);
      lua_insert(L, -2);  // the best key below the walk's key
      best = lua_gettop(L) - 1;
      best_key = k;
    }
  }
  if (!best) {
    lua_pushnil(L);
    return 1;
  }
  lua_pushvalue(L, best);
  lua_pushvalue(L, best);
  lua_rawget(L, 1);
  return 2;
}

}  // namespace thicket
