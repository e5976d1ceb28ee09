// pairs and next in an order that is the same in every run. Lua 5.4 seeds its string hashes
// from the clock and from addresses (lstate.c, luai_makeseed), so the order in which the
// standard next walks a table's string keys changes from one process to the next: a leaf
// that took "the first enemy" of `pairs(enemies)` made a different run each time. Here keys
// come in a fixed order: numbers ascending, then strings (byte order), then false and true,
// then other keys (tables, functions, ...) in the table's own order, which no script can fix
// either way (their hashes are their addresses).
#include "lua_order.hpp"

#include <algorithm>
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
  bool boolean = false;
  int raw = 0;  // place in the table's own order: the tie-break, and the order of other keys
};

Key key_at(lua_State* L, int idx, int raw) {
  Key k;
  k.raw = raw;
  switch (lua_type(L, idx)) {
    case LUA_TNUMBER:
      k.group = kNumber;
      k.is_int = lua_isinteger(L, idx);
      if (k.is_int) k.i = lua_tointeger(L, idx);
      k.d = lua_tonumber(L, idx);
      break;
    case LUA_TSTRING: {
      k.group = kString;
      size_t n = 0;
      const char* s = lua_tolstring(L, idx, &n);
      k.text = std::string_view(s, n);
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

bool before(const Key& a, const Key& b) {
  if (a.group != b.group) return a.group < b.group;
  switch (a.group) {
    case kNumber:
      if (a.is_int && b.is_int) return a.i < b.i;
      if (a.d != b.d) return a.d < b.d;
      return a.raw < b.raw;  // an integer and a float of one value are one key: no tie
    case kString: return a.text < b.text;
    case kBoolean: return !a.boolean && b.boolean;
    default: return a.raw < b.raw;
  }
}

// The iterator pairs gives: upvalues 1 the table, 2 its keys in order, 3 the next position.
// A key whose value was set to nil during the walk is passed over, as next passes it.
int ordered_step(lua_State* L) {
  lua_Integer pos = lua_tointeger(L, lua_upvalueindex(3));
  for (;;) {
    ++pos;
    if (lua_rawgeti(L, lua_upvalueindex(2), pos) == LUA_TNIL) {
      lua_pushinteger(L, pos - 1);
      lua_replace(L, lua_upvalueindex(3));
      return 1;  // nil: the end
    }
    lua_pushvalue(L, -1);
    if (lua_rawget(L, lua_upvalueindex(1)) != LUA_TNIL) {
      lua_pushinteger(L, pos);
      lua_replace(L, lua_upvalueindex(3));
      return 2;
    }
    lua_pop(L, 2);
  }
}

}  // namespace

// (No C++ object with a destructor lives here: an allocation Lua refuses (the heap cap) raises
// with a longjmp. The keys are sorted in a userdata the collector frees.)
void push_ordered_keys(lua_State* L, int table) {
  table = lua_absindex(L, table);
  luaL_checkstack(L, 6, "pairs");
  size_t n = 0;
  lua_pushnil(L);
  while (lua_next(L, table)) {
    lua_pop(L, 1);
    ++n;
  }
  static_assert(std::is_trivially_destructible_v<Key>);
  Key* keys = static_cast<Key*>(lua_newuserdatauv(L, n * sizeof(Key) + 1, 0));
  lua_createtable(L, static_cast<int>(n), 0);  // the keys in the table's own order
  const int raw = lua_gettop(L);
  size_t got = 0;
  lua_pushnil(L);
  while (lua_next(L, table)) {
    lua_pop(L, 1);
    lua_pushvalue(L, -1);
    lua_rawseti(L, raw, static_cast<lua_Integer>(got + 1));
    new (&keys[got]) Key(key_at(L, -1, static_cast<int>(got)));
    ++got;
  }
  std::sort(keys, keys + got, before);
  lua_createtable(L, static_cast<int>(got), 0);  // the keys in order
  for (size_t k = 0; k < got; ++k) {
    lua_rawgeti(L, raw, keys[k].raw + 1);
    lua_rawseti(L, -2, static_cast<lua_Integer>(k + 1));
  }
  lua_replace(L, raw - 1);  // over the userdata
  lua_pop(L, 1);            // the keys in the table's own order
}

void push_ordered_pairs(lua_State* L, int table) {
  table = lua_absindex(L, table);
  push_ordered_keys(L, table);
  lua_pushvalue(L, table);
  lua_insert(L, -2);
  lua_pushinteger(L, 0);
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
