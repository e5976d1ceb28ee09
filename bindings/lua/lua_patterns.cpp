// string.find, string.match, string.gmatch and string.gsub for leaf scripts, with Lua 5.4's
// pattern semantics (the reference manual, 6.4.1) and one difference: the matcher polls the
// watchdog while it works. Lua's own matcher runs in C, where the count hook that stops a
// runaway leaf never fires, so a pattern that backtracks for ever ("a*a*a*...b" against a row
// of a's) held the host past every limit. Here every 4,096 steps of matching ask whether the
// call has been told to stop (its time limit, Ctrl-C) and raise the usual error if so.
//
// Written from the manual, not from lstrlib.c; tests/unit/lua/test_lua_patterns.cpp compares
// every function with the library's own on random patterns and subjects.
#include "lua_patterns.hpp"

#include <cctype>
#include <cstddef>
#include <cstring>

#include "lua_host.hpp"

namespace thicket {

namespace {

constexpr int kMaxCaptures = 32;             // as Lua's LUA_MAXCAPTURES
constexpr int kMaxDepth = 200;               // nested matching calls, as Lua's MAXCCALLS
constexpr unsigned kPollEvery = 4096;        // matching steps between two looks at the watchdog
constexpr ptrdiff_t kUnfinished = -1;        // a capture opened, not closed yet
constexpr ptrdiff_t kPosition = -2;          // a position capture: ()
const char kSpecials[] = "^$*+?.([%-";      // a pattern without these is plain text

// No C++ object with a destructor lives in these frames: a Lua error (a bad pattern, a stop)
// unwinds them with longjmp.
struct Matcher {
  Matcher(lua_State* l, const char* s, const char* s_end, const char* p_end) : L(l), src(s), src_end(s_end), pat_end(p_end) {}
  lua_State* L;
  const char* src;      // the subject
  const char* src_end;
  const char* pat_end;  // the pattern's end
  int level = 0;        // captures opened so far
  int depth = 0;
  unsigned steps = 0;
  struct Capture {
    const char* init;
    ptrdiff_t len;
  } capture[kMaxCaptures];

  void step() {
    if (++steps % kPollEvery == 0) LuaHost::check_stop(L);
  }
  char at(const char* p) const { return p < pat_end ? *p : '\0'; }

  // Past the single-character class that starts at p ('%x', '[set]' or one character).
  const char* class_end(const char* p) {
    const char c = *p++;
    if (c == '%') {
      if (p >= pat_end) luaL_error(L, "malformed pattern (ends with '%%')");
      return p + 1;
    }
    if (c == '[') {
      if (at(p) == '^') ++p;
      do {  // the first character of a set, even ']', is taken as it is
        if (p >= pat_end) luaL_error(L, "malformed pattern (missing ']')");
        const char d = *p++;
        if (d == '%' && p < pat_end) ++p;
      } while (at(p) != ']');
      return p + 1;
    }
    return p;
  }

  static bool in_class(int c, int cl) {
    bool yes;
    switch (std::tolower(cl)) {
      case 'a': yes = std::isalpha(c); break;
      case 'c': yes = std::iscntrl(c); break;
      case 'd': yes = std::isdigit(c); break;
      case 'g': yes = std::isgraph(c); break;
      case 'l': yes = std::islower(c); break;
      case 'p': yes = std::ispunct(c); break;
      case 's': yes = std::isspace(c); break;
      case 'u': yes = std::isupper(c); break;
      case 'w': yes = std::isalnum(c); break;
      case 'x': yes = std::isxdigit(c); break;
      default: return cl == c;  // '%' and a non-letter: that character itself
    }
    return std::isupper(cl) ? !yes : yes;  // %A is the complement of %a
  }

  // c against the set [..] from p (at '[') to close (at its ']').
  static bool in_set(int c, const char* p, const char* close) {
    bool yes = true;
    ++p;
    if (*p == '^') {
      yes = false;
      ++p;
    }
    for (; p < close; ++p) {
      if (*p == '%') {
        ++p;
        if (in_class(c, static_cast<unsigned char>(*p))) return yes;
      } else if (p + 2 < close && p[1] == '-') {
        if (static_cast<unsigned char>(p[0]) <= c && c <= static_cast<unsigned char>(p[2])) return yes;
        p += 2;
      } else if (static_cast<unsigned char>(*p) == c) {
        return yes;
      }
    }
    return !yes;
  }

  // Does the subject character at s match the class from p to ep?
  bool single(const char* s, const char* p, const char* ep) {
    step();
    if (s >= src_end) return false;
    const int c = static_cast<unsigned char>(*s);
    switch (*p) {
      case '.': return true;
      case '%': return in_class(c, static_cast<unsigned char>(p[1]));
      case '[': return in_set(c, p, ep - 1);
      default: return static_cast<unsigned char>(*p) == c;
    }
  }

  const char* balance(const char* s, const char* p) {
    if (p + 1 >= pat_end) luaL_error(L, "malformed pattern (missing arguments to '%%b')");
    if (s >= src_end || *s != *p) return nullptr;
    const char open = p[0], close = p[1];
    int open_count = 1;
    while (++s < src_end) {
      step();
      if (*s == close) {
        if (--open_count == 0) return s + 1;
      } else if (*s == open) {
        ++open_count;
      }
    }
    return nullptr;
  }

  const char* back_reference(const char* s, int digit) {
    const int l = digit - '1';
    if (l < 0 || l >= level || capture[l].len == kUnfinished)
      luaL_error(L, "invalid capture index %%%d", l + 1);
    const ptrdiff_t len = capture[l].len;
    if (len < 0) return nullptr;  // a position capture: no text to repeat
    if (src_end - s >= len && std::memcmp(capture[l].init, s, static_cast<size_t>(len)) == 0) return s + len;
    return nullptr;
  }

  const char* greedy(const char* s, const char* p, const char* ep) {
    ptrdiff_t n = 0;
    while (single(s + n, p, ep)) ++n;
    for (; n >= 0; --n)  // the longest run first, then shorter ones
      if (const char* e = match(s + n, ep + 1)) return e;
    return nullptr;
  }

  const char* lazy(const char* s, const char* p, const char* ep) {
    for (;;) {
      if (const char* e = match(s, ep + 1)) return e;
      if (!single(s, p, ep)) return nullptr;
      ++s;
    }
  }

  const char* open_capture(const char* s, const char* p, ptrdiff_t what) {
    if (level >= kMaxCaptures) luaL_error(L, "too many captures");
    capture[level] = {s, what};
    ++level;
    const char* e = match(s, p);
    if (!e) --level;
    return e;
  }

  const char* close_capture(const char* s, const char* p) {
    int l = level - 1;
    while (l >= 0 && capture[l].len != kUnfinished) --l;
    if (l < 0) luaL_error(L, "invalid pattern capture");
    capture[l].len = s - capture[l].init;
    const char* e = match(s, p);
    if (!e) capture[l].len = kUnfinished;
    return e;
  }

  // The end of a match of the pattern from p at s, or null.
  const char* match(const char* s, const char* p) {
    if (++depth > kMaxDepth) luaL_error(L, "pattern too complex");
    const char* e = match_here(s, p);
    --depth;
    return e;
  }

  const char* match_here(const char* s, const char* p) {
    for (;;) {
      step();
      if (p >= pat_end) return s;
      switch (*p) {
        case '(':
          if (at(p + 1) == ')') return open_capture(s, p + 2, kPosition);
          return open_capture(s, p + 1, kUnfinished);
        case ')': return close_capture(s, p + 1);
        case '$':
          if (p + 1 == pat_end) return s == src_end ? s : nullptr;
          break;  // a '$' elsewhere is itself
        case '%':
          switch (at(p + 1)) {
            case 'b':
              s = balance(s, p + 2);
              if (!s) return nullptr;
              p += 4;
              continue;
            case 'f': {
              p += 2;
              if (at(p) != '[') luaL_error(L, "missing '[' after '%%f' in pattern");
              const char* ep = class_end(p);
              const int before = s == src ? 0 : static_cast<unsigned char>(s[-1]);
              const int here = s < src_end ? static_cast<unsigned char>(*s) : 0;
              if (!in_set(before, p, ep - 1) && in_set(here, p, ep - 1)) {
                p = ep;
                continue;
              }
              return nullptr;
            }
            case '0': case '1': case '2': case '3': case '4':
            case '5': case '6': case '7': case '8': case '9':
              s = back_reference(s, static_cast<unsigned char>(p[1]));
              if (!s) return nullptr;
              p += 2;
              continue;
            default: break;
          }
          break;
        default: break;
      }
      // One character class, maybe with a repetition after it.
      const char* ep = class_end(p);
      const char rep = at(ep);
      if (!single(s, p, ep)) {
        if (rep == '*' || rep == '?' || rep == '-') {  // none is fine
          p = ep + 1;
          continue;
        }
        return nullptr;
      }
      switch (rep) {
        case '?':
          if (const char* e = match(s + 1, ep + 1)) return e;
          p = ep + 1;
          continue;
        case '+': return greedy(s + 1, p, ep);
        case '*': return greedy(s, p, ep);
        case '-': return lazy(s, p, ep);
        default:
          ++s;
          p = ep;
          continue;
      }
    }
  }

  void reset() {
    level = 0;
    depth = 0;
  }

  // Capture i of the match s..e (i 0 with no captures: the whole match).
  void push_capture(int i, const char* s, const char* e) {
    if (i >= level) {
      if (i != 0) luaL_error(L, "invalid capture index %%%d", i + 1);
      lua_pushlstring(L, s, static_cast<size_t>(e - s));
      return;
    }
    const ptrdiff_t len = capture[i].len;
    if (len == kUnfinished) luaL_error(L, "unfinished capture");
    if (len == kPosition)
      lua_pushinteger(L, static_cast<lua_Integer>(capture[i].init - src) + 1);
    else
      lua_pushlstring(L, capture[i].init, static_cast<size_t>(len));
  }

  // Every capture (or the whole match when there are none and s is given); how many.
  int push_captures(const char* s, const char* e) {
    const int n = (level == 0 && s) ? 1 : level;
    luaL_checkstack(L, n, "too many captures");
    for (int i = 0; i < n; ++i) push_capture(i, s, e);
    return n;
  }
};

// A 1-based start position, negative from the end, as Lua's string functions read it.
size_t start_position(lua_Integer pos, size_t len) {
  if (pos > 0) return static_cast<size_t>(pos);
  if (pos == 0) return 1;
  if (pos < -static_cast<lua_Integer>(len)) return 1;
  return len + static_cast<size_t>(pos) + 1;
}

bool plain_text(const char* p, size_t len) {
  for (size_t i = 0; i < len;) {
    if (std::strpbrk(p + i, kSpecials)) return false;
    i += std::strlen(p + i) + 1;  // past an embedded zero
  }
  return true;
}

// Plain text (find's fourth argument, or a pattern without specials). glibc's memmem is linear
// in the two lengths (the two-way algorithm): a first-character-then-memcmp loop was quadratic,
// and a 2 MB needle missing from a 4 MB subject ran 93 s in C, past the leaf's time limit.
const char* find_text(const char* s, size_t ls, const char* p, size_t lp) {
  if (lp == 0) return s;
  return static_cast<const char*>(memmem(s, ls, p, lp));
}

int find_or_match(lua_State* L, bool find) {
  size_t ls, lp;
  const char* s = luaL_checklstring(L, 1, &ls);
  const char* p = luaL_checklstring(L, 2, &lp);
  const size_t init = start_position(luaL_optinteger(L, 3, 1), ls) - 1;
  if (init > ls) {
    luaL_pushfail(L);
    return 1;
  }
  if (find && (lua_toboolean(L, 4) || plain_text(p, lp))) {
    if (const char* at = find_text(s + init, ls - init, p, lp)) {
      lua_pushinteger(L, static_cast<lua_Integer>(at - s) + 1);
      lua_pushinteger(L, static_cast<lua_Integer>(at - s + lp));
      return 2;
    }
    luaL_pushfail(L);
    return 1;
  }
  Matcher m(L, s, s + ls, p + lp);
  const bool anchored = lp > 0 && *p == '^';
  if (anchored) ++p;
  const char* from = s + init;
  do {
    m.reset();
    if (const char* e = m.match(from, p)) {
      if (!find) return m.push_captures(from, e);
      lua_pushinteger(L, static_cast<lua_Integer>(from - s) + 1);
      lua_pushinteger(L, static_cast<lua_Integer>(e - s));
      return m.push_captures(nullptr, nullptr) + 2;
    }
  } while (from++ < m.src_end && !anchored);
  luaL_pushfail(L);
  return 1;
}

int str_find(lua_State* L) { return find_or_match(L, true); }
int str_match(lua_State* L) { return find_or_match(L, false); }

// gmatch's state, in a userdata beside the subject and the pattern (upvalues keep them alive).
struct GMatch {
  size_t next;         // where the next search starts (offset in the subject)
  ptrdiff_t last_end;  // the end of the last match (-1: none yet): an empty match there is skipped
};

int gmatch_next(lua_State* L) {
  size_t ls, lp;
  const char* s = lua_tolstring(L, lua_upvalueindex(1), &ls);
  const char* p = lua_tolstring(L, lua_upvalueindex(2), &lp);
  auto* g = static_cast<GMatch*>(lua_touserdata(L, lua_upvalueindex(3)));
  Matcher m(L, s, s + ls, p + lp);
  for (const char* from = s + g->next; from <= m.src_end; ++from) {
    m.reset();
    const char* e = m.match(from, p);
    if (e && e - s != g->last_end) {
      g->next = static_cast<size_t>(e - s);
      g->last_end = e - s;
      return m.push_captures(from, e);
    }
  }
  g->next = ls + 1;
  return 0;
}

int str_gmatch(lua_State* L) {
  size_t ls;
  luaL_checklstring(L, 1, &ls);
  luaL_checkstring(L, 2);
  size_t init = start_position(luaL_optinteger(L, 3, 1), ls) - 1;
  if (init > ls) init = ls + 1;  // no match at all
  lua_settop(L, 2);
  auto* g = static_cast<GMatch*>(lua_newuserdatauv(L, sizeof(GMatch), 0));
  g->next = init;
  g->last_end = -1;
  lua_pushcclosure(L, gmatch_next, 3);
  return 1;
}

// gsub's replacement of the match s..e, added to b.
void add_replacement(Matcher& m, luaL_Buffer& b, const char* s, const char* e, int kind) {
  lua_State* L = m.L;
  if (kind == LUA_TSTRING || kind == LUA_TNUMBER) {
    size_t lr;
    const char* r = lua_tolstring(L, 3, &lr);
    for (size_t i = 0; i < lr; ++i) {
      m.step();
      if (r[i] != '%') {
        luaL_addchar(&b, r[i]);
        continue;
      }
      ++i;
      const char d = i < lr ? r[i] : '\0';
      if (d == '%') {
        luaL_addchar(&b, '%');
      } else if (std::isdigit(static_cast<unsigned char>(d))) {
        if (d == '0') {
          luaL_addlstring(&b, s, static_cast<size_t>(e - s));
        } else {
          m.push_capture(d - '1', s, e);
          luaL_tolstring(L, -1, nullptr);  // a position capture is a number
          lua_remove(L, -2);
          luaL_addvalue(&b);
        }
      } else {
        luaL_error(L, "invalid use of '%c' in replacement string", '%');
      }
    }
    return;
  }
  if (kind == LUA_TFUNCTION) {
    lua_pushvalue(L, 3);
    const int n = m.push_captures(s, e);
    lua_call(L, n, 1);
  } else {  // a table
    m.push_capture(0, s, e);
    lua_gettable(L, 3);
  }
  if (!lua_toboolean(L, -1)) {  // nil or false: the match stays as it was
    lua_pop(L, 1);
    luaL_addlstring(&b, s, static_cast<size_t>(e - s));
  } else if (!lua_isstring(L, -1)) {
    luaL_error(L, "invalid replacement value (a %s)", luaL_typename(L, -1));
  } else {
    luaL_addvalue(&b);
  }
}

int str_gsub(lua_State* L) {
  size_t ls, lp;
  const char* s = luaL_checklstring(L, 1, &ls);
  const char* p = luaL_checklstring(L, 2, &lp);
  const int kind = lua_type(L, 3);
  const lua_Integer max_n = luaL_optinteger(L, 4, static_cast<lua_Integer>(ls) + 1);
  luaL_argexpected(L, kind == LUA_TNUMBER || kind == LUA_TSTRING || kind == LUA_TFUNCTION || kind == LUA_TTABLE, 3,
                   "string/function/table");
  Matcher m(L, s, s + ls, p + lp);
  const bool anchored = lp > 0 && *p == '^';
  if (anchored) ++p;
  luaL_Buffer b;
  luaL_buffinit(L, &b);
  const char* from = s;
  const char* last_end = nullptr;
  lua_Integer n = 0;
  while (n < max_n) {
    m.reset();
    const char* e = m.match(from, p);
    if (e && e != last_end) {
      ++n;
      add_replacement(m, b, from, e, kind);
      from = last_end = e;
    } else if (from < m.src_end) {
      luaL_addchar(&b, *from++);
    } else {
      break;
    }
    if (anchored) break;
  }
  if (n == 0) {
    lua_pushvalue(L, 1);  // nothing replaced: the subject itself
  } else {
    luaL_addlstring(&b, from, static_cast<size_t>(m.src_end - from));
    luaL_pushresult(&b);
  }
  lua_pushinteger(L, n);
  return 2;
}

}  // namespace

void install_watched_patterns(lua_State* L) {
  lua_getglobal(L, LUA_STRLIBNAME);
  const luaL_Reg functions[] = {{"find", str_find}, {"match", str_match}, {"gmatch", str_gmatch}, {"gsub", str_gsub}};
  for (const luaL_Reg& f : functions) {
    lua_pushcfunction(L, f.func);
    lua_setfield(L, -2, f.name);
  }
  lua_pop(L, 1);
}

}  // namespace thicket
