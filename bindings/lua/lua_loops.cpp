// Watched versions of Lua's C loops (see lua_loops.hpp). Written from the reference manual
// (6.4 string.rep, 6.6 table.concat, table.insert, table.move, table.remove, table.sort) with the library's own argument
// checks and messages; tests/unit/lua/test_lua_loops.cpp compares them with the library's on
// random arguments. No C++ object with a destructor lives in these frames: a Lua error (a bad
// argument, a stop) unwinds them with longjmp.
#include "lua_loops.hpp"

#include <climits>
#include <cstring>

#include "lua_host.hpp"

namespace thicket {

namespace {

constexpr lua_Integer kLoopPollEvery = 4096;  // loop steps between two looks at the watchdog
constexpr size_t kRepPollBytes = 1 << 20;    // string.rep: bytes copied between two looks
constexpr size_t kMaxRepString = INT_MAX;    // the longest string string.rep makes, as Lua's

// string.rep(s, n [, sep]): n copies of s joined by sep; "" when n <= 0.
int str_rep(lua_State* L) {
  size_t l = 0, lsep = 0;
  const char* s = luaL_checklstring(L, 1, &l);
  const lua_Integer n = luaL_checkinteger(L, 2);
  const char* sep = luaL_optlstring(L, 3, "", &lsep);
  // Nothing to copy (no copies, or copies of nothing): Lua's loop still ran n times.
  if (n <= 0 || l + lsep == 0) {
    lua_pushliteral(L, "");
    return 1;
  }
  if (l + lsep < l || l + lsep > kMaxRepString / static_cast<lua_Unsigned>(n)) return luaL_error(L, "resulting string too large");
  const size_t total = static_cast<size_t>(n) * l + static_cast<size_t>(n - 1) * lsep;
  luaL_Buffer b;
  char* p = luaL_buffinitsize(L, &b, total);
  size_t since_poll = 0;
  for (lua_Integer k = 0; k < n; ++k) {
    if (k > 0 && lsep > 0) {
      std::memcpy(p, sep, lsep);
      p += lsep;
    }
    if (l > 0) {
      std::memcpy(p, s, l);
      p += l;
    }
    since_poll += l + lsep + 64;  // a step costs something even when it copies little
    if (since_poll >= kRepPollBytes) {
      since_poll = 0;
      LuaHost::check_stop(L);
    }
  }
  luaL_pushresultsize(&b, total);
  return 1;
}

// The library's own function, kept as an upvalue of each replacement: for the cases these
// do not handle themselves (non-table arguments, whose metamethods are Lua code the hook
// reaches), and table.move's chunks.
int call_original(lua_State* L) {
  const int args = lua_gettop(L);
  lua_pushvalue(L, lua_upvalueindex(1));
  lua_insert(L, 1);
  lua_call(L, args, LUA_MULTRET);
  return lua_gettop(L);
}

// True when argument i is a table; false when it is some other value with a metatable (the
// library takes those when their metamethods serve; call_original then); else the library's
// own argument error.
bool table_argument(lua_State* L, int i) {
  if (lua_type(L, i) == LUA_TTABLE) return true;
  if (lua_getmetatable(L, i)) {
    lua_pop(L, 1);
    return false;
  }
  luaL_checktype(L, i, LUA_TTABLE);
  return false;
}

// t[to] = t[from] for one step of a shift (metamethods respected, as Lua's lua_geti/lua_seti).
void shift(lua_State* L, lua_Integer from, lua_Integer to, lua_Integer& steps) {
  lua_geti(L, 1, from);
  lua_seti(L, 1, to);
  if (++steps % kLoopPollEvery == 0) LuaHost::check_stop(L);
}

// table.insert(list, [pos,] value).
int tab_insert(lua_State* L) {
  if (!table_argument(L, 1)) return call_original(L);
  const int args = lua_gettop(L);
  if (args != 2 && args != 3) return luaL_error(L, "wrong number of arguments to 'insert'");
  // The first empty element (wrapping as Lua's integers do).
  const lua_Integer e = static_cast<lua_Integer>(static_cast<lua_Unsigned>(luaL_len(L, 1)) + 1u);
  lua_Integer pos = e;
  if (args == 3) {
    pos = luaL_checkinteger(L, 2);
    luaL_argcheck(L, static_cast<lua_Unsigned>(pos) - 1u < static_cast<lua_Unsigned>(e), 2, "position out of bounds");
    lua_Integer steps = 0;
    for (lua_Integer i = e; i > pos; --i) shift(L, i - 1, i, steps);
  }
  lua_seti(L, 1, pos);  // the value, on top
  return 0;
}

// table.remove(list [, pos]).
int tab_remove(lua_State* L) {
  if (!table_argument(L, 1)) return call_original(L);
  const lua_Integer size = luaL_len(L, 1);
  lua_Integer pos = luaL_optinteger(L, 2, size);
  if (pos != size)  // pos may be size + 1, or 0 when size is 0
    luaL_argcheck(L, static_cast<lua_Unsigned>(pos) - 1u <= static_cast<lua_Unsigned>(size), 2, "position out of bounds");
  lua_geti(L, 1, pos);  // the result
  lua_Integer steps = 0;
  for (; pos < size; ++pos) shift(L, pos + 1, pos, steps);
  lua_pushnil(L);
  lua_seti(L, 1, pos);
  return 1;
}

// table.move(a1, f, e, t [, a2]): the library's own function on stretches of kLoopPollEvery
// elements, in the order it would walk them (backwards when the stretches overlap with the
// destination above the source), with the watchdog asked between stretches.
int tab_move(lua_State* L) {
  const lua_Integer f = luaL_checkinteger(L, 2), e = luaL_checkinteger(L, 3), t = luaL_checkinteger(L, 4);
  const int dest = lua_isnoneornil(L, 5) ? 1 : 5;
  if (!table_argument(L, 1) || !table_argument(L, dest) || e < f ||
      static_cast<lua_Unsigned>(e) - static_cast<lua_Unsigned>(f) < static_cast<lua_Unsigned>(kLoopPollEvery))
    return call_original(L);
  // The library's checks, on the whole move (each stretch passes them then).
  luaL_argcheck(L, f > 0 || e < LUA_MAXINTEGER + f, 3, "too many elements to move");
  const lua_Integer n = e - f + 1;
  luaL_argcheck(L, t <= LUA_MAXINTEGER - n + 1, 4, "destination wrap around");
  // As the library: forwards unless the destination starts inside the source, in one table.
  const bool forwards = t > e || t <= f || (dest != 1 && !lua_compare(L, 1, dest, LUA_OPEQ));
  for (lua_Integer done = 0; done < n; done += kLoopPollEvery) {
    const lua_Integer count = n - done < kLoopPollEvery ? n - done : kLoopPollEvery;
    const lua_Integer from = forwards ? f + done : e - done - count + 1;
    lua_pushvalue(L, lua_upvalueindex(1));
    lua_pushvalue(L, 1);
    lua_pushinteger(L, from);
    lua_pushinteger(L, from + count - 1);
    lua_pushinteger(L, t + (from - f));
    lua_pushvalue(L, dest);
    lua_call(L, 5, 0);
    LuaHost::check_stop(L);
  }
  lua_pushvalue(L, dest);
  return 1;
}

// table.concat(list [, sep [, i [, j]]]): the library's loop, asking the watchdog every
// kLoopPollEvery elements. (The library's loop runs in C, and so may each element it reads: a
// table whose __index is a C function, `setmetatable({}, {__index = table.concat})`, gave ""
// for every index of 1..math.maxinteger without a Lua instruction or a byte of memory.)
void concat_element(lua_State* L, luaL_Buffer& b, lua_Integer i) {
  lua_geti(L, 1, i);
  if (!lua_isstring(L, -1)) {
    // The library's own error, worded as this Lua version words it: its concat of that one
    // element (should a metamethod answer otherwise this time, the message is ours).
    lua_pushvalue(L, lua_upvalueindex(1));
    lua_pushvalue(L, 1);
    lua_pushliteral(L, "");
    lua_pushinteger(L, i);
    lua_pushinteger(L, i);
    lua_call(L, 4, 0);
    luaL_error(L, "invalid value (at index %I) in table for 'concat'", static_cast<LUAI_UACINT>(i));
  }
  luaL_addvalue(&b);
}

int tab_concat(lua_State* L) {
  if (!table_argument(L, 1)) return call_original(L);
  lua_Integer last = luaL_len(L, 1);
  size_t lsep = 0;
  const char* sep = luaL_optlstring(L, 2, "", &lsep);
  lua_Integer i = luaL_optinteger(L, 3, 1);
  last = luaL_optinteger(L, 4, last);
  luaL_Buffer b;
  luaL_buffinit(L, &b);
  lua_Integer steps = 0;
  for (; i < last; ++i) {
    concat_element(L, b, i);
    luaL_addlstring(&b, sep, lsep);
    if (++steps % kLoopPollEvery == 0) LuaHost::check_stop(L);
  }
  if (i == last) concat_element(L, b, i);  // the last one (when the stretch is not empty)
  luaL_pushresult(&b);
  return 1;
}

// table.sort's comparison when none is given (a < b, metamethods respected, as the library's):
// a C function the library's sort calls like any comparator, which asks the watchdog every
// kLoopPollEvery comparisons. (The library compares in C, where the count hook never fires:
// sorting 8 million numbers held the host some 3 s per call, past every limit.)
int sort_less(lua_State* L) {
  thread_local lua_Integer comparisons = 0;
  if (++comparisons % kLoopPollEvery == 0) LuaHost::check_stop(L);
  lua_pushboolean(L, lua_compare(L, 1, 2, LUA_OPLT));
  return 1;
}

// table.sort(list [, comp]): the library's own, given sort_less when no comp is given and the
// list is long enough to take a while (a Lua comp is Lua code the hook reaches).
constexpr lua_Integer kWatchedSortLength = 1 << 16;  // (below, Lua's C sort takes a few ms at most)
int tab_sort(lua_State* L) {
  // The library's argument checks, made here first: made by the library's function, called
  // from this C function, their errors named no line and called it '?' (Lua takes both from
  // the caller). A value with a metatable is the library's to check.
  if (lua_type(L, 1) != LUA_TTABLE) table_argument(L, 1);
  if (lua_type(L, 1) == LUA_TTABLE) {
    // (Its length first, as the library's sort asks it: "array too big" before the comparator.)
    const lua_Integer n = luaL_len(L, 1);
    if (n > 1 && n >= INT_MAX) return luaL_argerror(L, 1, "array too big");
    if (n > 1 && !lua_isnoneornil(L, 2)) luaL_checktype(L, 2, LUA_TFUNCTION);  // (a list of 0 or 1: not looked at)
    if (lua_isnoneornil(L, 2) && n >= kWatchedSortLength) {
      lua_settop(L, 1);
      lua_pushcfunction(L, sort_less);
    }
  }
  return call_original(L);
}

void replace_library_function(lua_State* L, const char* library, const char* name, lua_CFunction f, bool keep_original) {
  lua_getglobal(L, library);
  if (keep_original) {
    lua_getfield(L, -1, name);
    lua_pushcclosure(L, f, 1);
  } else {
    lua_pushcfunction(L, f);
  }
  lua_setfield(L, -2, name);
  lua_pop(L, 1);
}

}  // namespace

void install_watched_loops(lua_State* L) {
  replace_library_function(L, LUA_STRLIBNAME, "rep", str_rep, false);
  replace_library_function(L, LUA_TABLIBNAME, "insert", tab_insert, true);
  replace_library_function(L, LUA_TABLIBNAME, "remove", tab_remove, true);
  replace_library_function(L, LUA_TABLIBNAME, "move", tab_move, true);
  replace_library_function(L, LUA_TABLIBNAME, "sort", tab_sort, true);
  replace_library_function(L, LUA_TABLIBNAME, "concat", tab_concat, true);
}

}  // namespace thicket
