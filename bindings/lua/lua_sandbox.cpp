// The sandboxed Lua state (SPEC 7): the host's state and its guard, the standard libraries
// scripts may use, the guarded coroutine functions and the message handler of every call.
#include <algorithm>
#include <cstdio>
#include <cstring>

#include "lua_api.hpp"
#include "lua_host.hpp"
#include "lua_loops.hpp"
#include "lua_order.hpp"
#include "lua_patterns.hpp"
#include "runtime_impl.hpp"
#include "suggest.hpp"

namespace thicket {

size_t LuaApi::position_length(std::string_view message) {
  const size_t line_end = std::min(message.find('\n'), message.size());
  for (size_t i = message.find(':'); i < line_end; i = message.find(':', i + 1)) {
    size_t j = i + 1;
    while (j < line_end && message[j] >= '0' && message[j] <= '9') ++j;
    if (j > i + 1 && j + 1 < line_end && message[j] == ':' && message[j + 1] == ' ') return j + 2;
  }
  return 0;
}

int LuaApi::traceback(lua_State* L) {
  // Every headline names the line that raised it. error(42) and error({...}) carry no position
  // (Lua adds one to text only), nor does error("text", 0) or an error a C function raises
  // itself: the line that raised them (past `error`, a C function), then the text, the number
  // or the value's type. A text keeps its every byte (a NUL ended it).
  const bool number = lua_type(L, 1) == LUA_TNUMBER;
  size_t len = 0;
  const char* msg = number ? nullptr : lua_tolstring(L, 1, &len);
  int at = 1;  // the headline's slot
  lua_Debug ar;
  if (!msg || position_length(std::string_view(msg, len)) == 0) {
    int where = 0;
    for (int level = 1; level < 16 && lua_getstack(L, level, &ar); ++level)
      if (lua_getinfo(L, "Sl", &ar) && ar.currentline > 0) {
        lua_pushfstring(L, "%s:%d: ", ar.short_src, ar.currentline);
        where = 1;
        break;
      }
    // An error object with a __tostring metamethod says what it is, as in Lua's own interpreter.
    // Called protected: an error inside it raised in this handler, which Lua then called again
    // with that error (a task's report took it for a cleanup's); such an object is named by its
    // type, as one without __tostring is.
    bool said = msg || number;
    if (said) {
      lua_pushvalue(L, 1);
    } else if (luaL_getmetafield(L, 1, "__tostring") != LUA_TNIL) {
      lua_pushvalue(L, 1);
      if (lua_pcall(L, 1, 1, 0) == LUA_OK && lua_type(L, -1) == LUA_TSTRING) {
        said = true;
      } else if (LuaHost::told_to_stop(L) && lua_type(L, -1) == LUA_TSTRING) {
        // Stopped inside it (a time limit, the budget, Ctrl-C): the stop is the report, at its
        // own line (the pcall caught it; said as the error object's type, nothing said why).
        if (where) lua_remove(L, -2);  // the error's position
        where = 0;
        said = true;
      } else {
        // Its own error (a text, clipped), or a result that is no text: said with the type, so
        // that a broken __tostring is seen (it was the type alone, as without one).
        const bool failed = lua_type(L, -1) == LUA_TSTRING;
        std::string why = failed ? clipped(lua_tostring(L, -1), 200) : luaL_typename(L, -1);
        lua_pop(L, 1);
        lua_pushfstring(L, failed ? "(error object is a %s value; its __tostring failed: %s)"
                                  : "(error object is a %s value; its __tostring returned a %s, not text)",
                        luaL_typename(L, 1), why.c_str());
        said = true;
      }
    }
    if (!said) lua_pushfstring(L, "(error object is a %s value)", luaL_typename(L, 1));
    if (number) lua_tolstring(L, -1, nullptr);  // the copy, not the error value, made text
    lua_concat(L, 1 + where);
    msg = lua_tolstring(L, -1, &len);
    at = lua_gettop(L);
  }
  // A leaf failing again where its error was printed enough times is only counted: no
  // traceback (thousands of agents running one broken leaf ran ~100x slower for it).
  if (const LuaHost& h = host(L); h.current() && h.repeat_silenced(*h.current(), std::string_view(msg, len))) {
    lua_pushvalue(L, at);
    return 1;
  }
  if (!lua_getstack(L, kDeepStack, &ar)) {
    lua_pushvalue(L, at);
    lua_pushliteral(L, "\n");
    luaL_traceback(L, L, nullptr, 1);
    lua_concat(L, 3);
    return 1;
  }
  luaL_Buffer b;
  luaL_buffinit(L, &b);
  luaL_addlstring(&b, msg, len);
  luaL_addstring(&b, "\nstack traceback:");
  for (int level = 1; level <= kDeepShown && lua_getstack(L, level, &ar); ++level) {
    lua_getinfo(L, "Slnt", &ar);
    if (ar.currentline > 0)
      lua_pushfstring(L, "\n\t%s:%d: in ", ar.short_src, ar.currentline);
    else
      lua_pushfstring(L, "\n\t%s: in ", ar.short_src);
    luaL_addvalue(&b);
    if (*ar.namewhat != '\0')
      lua_pushfstring(L, "%s '%s'", std::strcmp(ar.namewhat, "global") == 0 ? "function" : ar.namewhat, ar.name);
    else if (*ar.what == 'm')
      lua_pushliteral(L, "main chunk");
    else if (*ar.what != 'C')
      lua_pushfstring(L, "function <%s:%d>", ar.short_src, ar.linedefined);
    else
      lua_pushliteral(L, "?");
    luaL_addvalue(&b);
    if (ar.istailcall) luaL_addstring(&b, "\n\t(...tail calls...)");
  }
  lua_pushfstring(L, "\n\t...\t(more than %d levels: a runaway recursion?)", kDeepStack);
  luaL_addvalue(&b);
  luaL_pushresult(&b);
  return 1;
}

// Resumes co from L with the top narg values of L as its arguments, telling the watchdog that
// co runs meanwhile. Returns the number of results, moved onto L; or -1 with the error object
// on L (a refusal: a dead coroutine, one resuming itself; or the coroutine's own error).
// A stop (time limit, instruction budget, Ctrl-C) is not returned: it goes on into L.
int LuaApi::resume_watched(lua_State* L, lua_State* co, int narg) {
  LuaHost& h = host(L);
  // (A coroutine resuming itself is L, whose stack is this C function's: lua_resume says it is
  // not suspended.)
  if (co != L && lua_status(co) == LUA_OK && lua_gettop(co) == 0) {
    lua_pushliteral(L, "cannot resume dead coroutine");
    return -1;
  }
  if (!lua_checkstack(co, narg)) {
    lua_pushliteral(L, "too many arguments to resume");
    return -1;
  }
  lua_xmove(L, co, narg);
  lua_State* outer = h.guard_.running.load(std::memory_order_relaxed);
  if (outer) h.guard_.running.store(co, std::memory_order_release);
  int nres = 0;
  int status = lua_resume(co, L, narg, &nres);
  if (outer) h.guard_.running.store(outer, std::memory_order_release);
  h.end_unwind();
  if (status == LUA_YIELD && h.take_stop_yield(co)) {
    // Stopped by the count hook, which yields a coroutine it stops (stop_from_hook): the stop
    // goes on into the resumer, as below; co stays suspended where it was stopped, its hooks
    // whole, so that closing it runs its cleanups under the watchdog.
    lua_pop(co, nres);
    lua_sethook(L, LuaHost::guard_hook, kStopMask, 1);
    lua_pushlstring(L, h.stop_yield_message().data(), h.stop_yield_message().size());
    return lua_error(L);
  }
  if (status == LUA_OK || status == LUA_YIELD) {
    if (!lua_checkstack(L, nres + 1)) {
      lua_pop(co, nres);
      lua_pushliteral(L, "too many results to resume");
      return -1;
    }
    lua_xmove(co, L, nres);  // (a coroutine resuming itself is L: lua_xmove does nothing then)
    return nres;
  }
  // Stopped (time limit, instruction budget, Ctrl-C): the stop goes on into the resumer, as
  // it passes through pcall and xpcall, with its message (the line the coroutine was stopped
  // at). Handed back as (false, message), a leaf that resumed fresh coroutines in a loop
  // caught every stop and ran for ever. The hook, set to fire at every instruction, raises
  // the stop again after any pcall around this resume.
  if (LuaHost::told_to_stop(L)) {
    lua_sethook(L, LuaHost::guard_hook, kStopMask, 1);
    lua_xmove(co, L, 1);
    return lua_error(L);
  }
  lua_xmove(co, L, 1);  // the error object ("cannot resume non-suspended coroutine" on L itself)
  return -1;
}

// Closes co (runs its pending to-be-closed variables) as lua_closethread does, telling the
// watchdog that co runs meanwhile: a __close that looped for ever used to hold the host, the
// watchdog's hook being set on the leaf's thread, not on co. Returns the status; the error
// object, if any, is pushed on L. A stop goes on into L, as from resume_watched.
int LuaApi::close_watched(lua_State* L, lua_State* co) {
  LuaHost& h = host(L);
  lua_State* outer = h.guard_.running.load(std::memory_order_relaxed);
  if (outer) h.guard_.running.store(co, std::memory_order_release);
#if LUA_VERSION_RELEASE_NUM >= 50406
  const int status = lua_closethread(co, L);
#else
  const int status = lua_resetthread(co);
#endif
  if (outer) h.guard_.running.store(outer, std::memory_order_release);
  h.end_unwind();
  if (status == LUA_OK) return status;
  lua_xmove(co, L, 1);
  if (LuaHost::told_to_stop(L)) {
    lua_sethook(L, LuaHost::guard_hook, kStopMask, 1);
    return lua_error(L);
  }
  return status;
}

bool LuaApi::is_task_thread(lua_State* L, int idx) {
  idx = lua_absindex(L, idx);
  lua_rawgeti(L, LUA_REGISTRYINDEX, host(L).task_threads_ref_);
  lua_pushvalue(L, idx);
  const bool task = lua_rawget(L, -2) != LUA_TNIL;
  lua_pop(L, 2);
  return task;
}

int LuaApi::co_resume(lua_State* L) {
  lua_State* co = lua_tothread(L, 1);
  luaL_argexpected(L, co, 1, "coroutine");
  // A task's coroutine (another agent's, or another node's, got through a shared table) runs
  // only when thicket resumes it: resumed from a leaf, its body ran inside that leaf's call.
  if (is_task_thread(L, 1)) {
    lua_pushboolean(L, 0);
    lua_pushliteral(L, "cannot resume a task's coroutine: thicket resumes each task itself, once a tick (a leaf "
                       "resumes only coroutines it made)");
    return 2;
  }
  const int nres = resume_watched(L, co, lua_gettop(L) - 1);
  // The results first, then true under them, as the standard resume does; false and the error.
  lua_pushboolean(L, nres >= 0);
  lua_insert(L, nres >= 0 ? -(nres + 1) : -2);
  return nres >= 0 ? nres + 1 : 2;
}

// The function coroutine.wrap returns (upvalue 1: its coroutine).
int LuaApi::co_wrapped(lua_State* L) {
  lua_State* co = lua_tothread(L, lua_upvalueindex(1));
  const int nres = resume_watched(L, co, lua_gettop(L));
  if (nres >= 0) return nres;
  const int status = lua_status(co);
  if (status != LUA_OK && status != LUA_YIELD) {
    // The coroutine's own error, passed on as it is (it names its line already); the
    // coroutine it ended is closed first, so its to-be-closed variables run (given the error).
    if (lua_checkstack(co, 1)) {
      lua_pushvalue(L, -1);
      lua_xmove(L, co, 1);
    }
    if (close_watched(L, co) != LUA_OK) lua_pop(L, 1);  // (a __close's own error is left out)
  } else if (lua_type(L, -1) == LUA_TSTRING) {
    // A refusal (a dead coroutine, one resuming itself): at the caller's line, as Lua's wrap.
    luaL_where(L, 1);
    lua_insert(L, -2);
    lua_concat(L, 2);
  }
  return lua_error(L);
}

// Written in C, as the library's own: a C function keeps its caller's frame (a Lua one that
// is tail-called replaces it), so its argument errors name the caller's line and the name the
// caller gave it, as Lua's do.
int LuaApi::co_wrap(lua_State* L) {
  new_based_thread(L);
  lua_pushcclosure(L, co_wrapped, 1);
  return 1;
}

int LuaApi::co_close(lua_State* L) {
  lua_State* co = lua_tothread(L, 1);
  luaL_argexpected(L, co, 1, "coroutine");
  // A task's coroutine is thicket's: closed by a leaf, its cleanups ran inside that leaf's call.
  if (is_task_thread(L, 1))
    return luaL_error(L, "cannot close a task's coroutine: thicket ends each task itself (a leaf closes only "
                         "coroutines it made)");
  // The standard close's rule: a suspended or dead coroutine is closed; a running or a normal
  // one (it resumed the running one) is an error.
  const char* busy = nullptr;
  lua_Debug ar;
  if (co == L) busy = "running";
  else if (lua_status(co) == LUA_OK && lua_getstack(co, 0, &ar)) busy = "normal";
  if (busy) return luaL_error(L, "cannot close a %s coroutine", busy);
  if (close_watched(L, co) == LUA_OK) {
    lua_pushboolean(L, 1);
    return 1;
  }
  lua_pushboolean(L, 0);
  lua_insert(L, -2);
  return 2;
}

int LuaApi::co_create(lua_State* L) {
  new_based_thread(L);
  return 1;
}

void LuaApi::new_based_thread(lua_State* L) {
  luaL_checktype(L, 1, LUA_TFUNCTION);
  lua_State* co = lua_newthread(L);
  lua_pushvalue(L, 1);
  lua_pushcclosure(L, co_base, 1);
  lua_xmove(L, co, 1);
}

int LuaApi::co_base(lua_State* L) {
  lua_pushvalue(L, lua_upvalueindex(1));
  lua_insert(L, 1);
  return run_based(L, co_handler);
}

int LuaApi::task_base(lua_State* L) { return run_based(L, task_handler); }

int LuaApi::run_based(lua_State* L, lua_CFunction handler) {
  lua_pushcfunction(L, handler);
  lua_insert(L, 1);
  return based_k(L, lua_pcallk(L, lua_gettop(L) - 2, LUA_MULTRET, 1, 0, based_k), 0);
}

int LuaApi::based_k(lua_State* L, int status, lua_KContext) {
  if (status == LUA_OK || status == LUA_YIELD) return lua_gettop(L) - 1;  // the results, above the handler
  // The error, raised again by a C function, not a hook: the coroutine ends with its hooks on.
  // A stop whose grace co_handler gave the cleanups goes on as the stop it is. Before Lua
  // 5.4.7 a reused task thread may still name this frame's handler slot as its message handler
  // (a reset keeps the handler of the pcall it was suspended in: task_release), so the slot
  // gets one that passes the error on as it is.
  host(L).end_unwind();
  lua_pushcfunction(L, [](lua_State* L) -> int { return 1; });
  lua_replace(L, 1);
  return lua_error(L);
}

// Where the error was raised, before the unwinding runs the coroutine's cleanups: a call
// stopped at its time limit would stop them at their first instruction (a cleanup may not be
// cut before it starts), so they get the stop's grace, as a call past its limit does: the
// stop is lifted until based_k raises it on, and a cleanup still running after the grace is
// stopped in turn (the watchdog goes on hooking the call meanwhile). A stop by the instruction
// budget gives them the next slice of the budget; Ctrl-C stops them at once.
int LuaApi::co_handler(lua_State* L) {
  LuaHost& h = host(L);
  h.unwinding_ = L;
  const uint64_t marked = LuaHost::marked_call(h);
  if (marked != 0 && h.stopping_serial_ == marked && !lua_stop_requested(h.guard_)) {
    h.unwind_stop_serial_ = marked;
    h.stopping_serial_ = 0;
  }
  if (h.over_budget() && h.budget_slice_ > 0) {  // one more slice of the budget
    h.unwind_budget_serial_ = h.call_serial_;
    h.hook_count_ = LuaHost::kBudgetSlices;
    lua_sethook(L, LuaHost::guard_hook, LUA_MASKCOUNT, h.budget_slice_);
  }
  lua_settop(L, 1);
  return 1;
}

int LuaApi::yield_checked(lua_State* L) {
  if (lua_isyieldable(L) && host(L).unwinding_ == L)
    return luaL_error(L, "a cleanup cannot yield while its coroutine's error unwinds it: the cleanups of a failed "
                         "coroutine or task run to their end at once");
  return lua_yield(L, lua_gettop(L));
}

int LuaApi::cleanup_may_yield(lua_State* L) {
  lua_pushboolean(L, lua_isyieldable(L) && host(L).unwinding_ != L);
  return 1;
}

int LuaApi::task_handler(lua_State* L) {
  LuaHost& h = host(L);
  if (h.task_resuming_ != nullptr && lua_gettop(L) >= 1) {
    const CallSite& at = *h.task_resuming_;
    const LeafDef& leaf = *h.task_leaf_;
    if (h.task_reported_ != L) {
      h.task_reported_ = L;
      traceback(L);  // the headline and its traceback (the headline alone, when silenced)
      size_t len = 0;
      const char* text = lua_tolstring(L, -1, &len);
      h.report(at, leaf, std::string(text, len));
    } else {  // a cleanup's error, as the failed run unwinds
      lua_pushvalue(L, 1);
      const char* text = lua_type(L, -1) == LUA_TSTRING || lua_type(L, -1) == LUA_TNUMBER ? lua_tostring(L, -1) : nullptr;
      h.report(at, leaf, std::string("while closing the failed task: ") +
                             (text ? std::string(text) : std::string("(error object is a ") + luaL_typename(L, 1) + " value)"));
    }
    lua_settop(L, 1);
  }
  return co_handler(L);
}

// xpcall's message handler (upvalue 1: the script's). A message handler runs where the error
// was raised. Once the watchdog (time limit, Ctrl-C) has told the call to stop, the script's
// handler is not called: the stop error, raised by a hook, ran the handler with hooks off, and
// one that looped held the host for ever (and one that looped on an ordinary error was stopped
// into itself, the same way).
static int xpcall_handler(lua_State* L) {
  if (LuaHost::told_to_stop(L)) return 1;  // the message, as it is
  lua_pushvalue(L, lua_upvalueindex(1));
  lua_insert(L, 1);
  lua_call(L, lua_gettop(L) - 1, 1);
  return 1;
}

// The end of xpcall, also its continuation after a yield: the stop passes through (caught, it
// would end the call as a success).
int LuaApi::xpcall_done(lua_State* L, int status, lua_KContext extra) {
  --host(L).xpcalls_open_;
  if (status != LUA_OK && status != LUA_YIELD) {
    if (LuaHost::told_to_stop(L)) return lua_error(L);
    lua_pushboolean(L, 0);
    lua_pushvalue(L, -2);
    return 2;
  }
  return lua_gettop(L) - static_cast<int>(extra);
}

// xpcall(f, msgh, ...): Lua's own (lbaselib.c), with the message handler behind xpcall_handler.
int LuaApi::missing_global(lua_State* L) {
  if (lua_type(L, 2) == LUA_TSTRING) {
    const char* name = lua_tostring(L, 2);
    for (const char* status : {"SUCCESS", "FAILURE", "RUNNING"})
      if (std::strcmp(name, status) == 0) host(L).status_global_read(L, status);
  }
  return 0;  // nil, as without this
}

void LuaHost::status_global_read(lua_State* L, const char* name) {
  lua_Debug ar;
  GlobalRead read{{}, 0, name};
  if (lua_getstack(L, 1, &ar) && lua_getinfo(L, "Sl", &ar) && ar.currentline > 0) {  // the reading line
    read.file = ar.source[0] == '@' ? ar.source + 1 : ar.short_src;  // (short_src cuts long paths)
    read.line = ar.currentline;
  }
  if (current_) {
    const Program& p = *current_->program;
    const Node& n = p.nodes[current_->node];
    const bool leaf = n.kind == NodeKind::Action || n.kind == NodeKind::Condition;
    warn(*current_, leaf ? std::string_view(p.calls[n.a].leaf) : std::string_view("?"), std::string("global ") + name,
         (read.line > 0 ? read.file + ":" + std::to_string(read.line) + ": " : std::string()) + status_global_words(name));
  } else if (!staging_file_.empty() && status_globals_read_.size() < 64) {
    status_globals_read_.push_back(std::move(read));
  }
}

std::string LuaHost::status_global_words(const std::string& name) {
  return "the global '" + name + "' is not set, so it reads nil (an action returning it fails); did you mean thicket." +
         name + "?";
}

int LuaApi::xpcall(lua_State* L) {
  const int n = lua_gettop(L);
  luaL_checktype(L, 2, LUA_TFUNCTION);
  lua_pushvalue(L, 2);
  lua_pushcclosure(L, xpcall_handler, 1);
  lua_replace(L, 2);
  lua_pushboolean(L, 1);  // the first result, when f raises no error
  lua_pushvalue(L, 1);
  lua_rotate(L, 3, 2);  // f, handler, true, f, args...
  ++host(L).xpcalls_open_;
  const int status = lua_pcallk(L, n - 2, LUA_MULTRET, 2, 2, xpcall_done);
  return xpcall_done(L, status, 2);
}

// ---- the sandbox's other replacements, in C for the same reason as co_wrap ----

// collectgarbage(option): a script may read the collector, not stop or retune it (upvalue 1:
// Lua's collectgarbage).
int LuaApi::collect_garbage(lua_State* L) {
  const char* option = lua_type(L, 1) == LUA_TSTRING ? lua_tostring(L, 1) : nullptr;
  if (option && (std::strcmp(option, "count") == 0 || std::strcmp(option, "isrunning") == 0)) {
    lua_settop(L, 1);
    lua_pushvalue(L, lua_upvalueindex(1));
    lua_insert(L, 1);
    lua_call(L, 1, 1);
    return 1;
  }
  if (lua_toboolean(L, 1)) luaL_tolstring(L, 1, nullptr);
  else lua_pushliteral(L, "collect");
  size_t len = 0;
  const char* text = lua_tolstring(L, -1, &len);
  lua_pushlstring(L, text, std::min<size_t>(len, 40));
  return luaL_error(L, "collectgarbage('%s') is not allowed in leaf scripts: the collector is shared by every mod's "
                       "leaves (allowed: 'count', 'isrunning')", lua_tostring(L, -1));
}

// setmetatable(t, mt): Lua's own (lbaselib.c), refusing a metatable with __gc or __mode.
int LuaApi::set_metatable(lua_State* L) {
  const int t = lua_type(L, 2);
  luaL_checktype(L, 1, LUA_TTABLE);
  luaL_argexpected(L, t == LUA_TNIL || t == LUA_TTABLE, 2, "nil or table");
  if (t == LUA_TTABLE) {
    lua_pushliteral(L, "__gc");
    const bool gc = lua_rawget(L, 2) != LUA_TNIL;
    lua_pop(L, 1);
    if (gc) return luaL_error(L, "__gc metamethods are not allowed in leaf scripts (they would run outside any leaf call)");
    // A weak table keeps what the collector has not yet taken, and when it runs depends on what
    // every agent sharing the script state allocated: a run came out differently on 1, 2 and 4
    // threads, with --agents 7 and 500, and after a checkpoint's resume.
    lua_pushliteral(L, "__mode");
    const bool weak = lua_rawget(L, 2) != LUA_TNIL;
    lua_pop(L, 1);
    if (weak)
      return luaL_error(L, "weak tables (__mode) are not allowed in leaf scripts: what they keep depends on when the "
                           "collector runs, which other agents' leaves decide, so a run would differ with --threads or "
                           "--agents; keep a plain table and remove its entries yourself");
  }
  if (luaL_getmetafield(L, 1, "__metatable") != LUA_TNIL) return luaL_error(L, "cannot change a protected metatable");
  lua_settop(L, 2);
  lua_setmetatable(L, 1);
  return 1;
}

// A leaf file's rawset (upvalue 1: the file's copy of the module): rawset skips __newindex, so
// it is refused on the module copy, which the file's leaves share, and on a node's args.
int LuaApi::file_rawset(lua_State* L) {
  if (lua_rawequal(L, 1, lua_upvalueindex(1)))
    return luaL_error(L, "the thicket module is read-only (rawset included); keep your own values in a local table");
  const int protection = luaL_getmetafield(L, 1, "__metatable");
  const bool args = protection == LUA_TSTRING && std::strcmp(lua_tostring(L, -1), "read-only args") == 0;
  if (protection != LUA_TNIL) lua_pop(L, 1);
  if (args)
    return luaL_error(L, "a node's args are read-only (rawset included: one table shared by every agent); copy what "
                         "you need into a local table");
  // Lua's own checks (lbaselib.c), and its words. Called with no name (pcall(rawset, ...)),
  // Lua names a function by where it finds it among the loaded modules, which this per-file
  // closure is not: it said "bad argument #1 to '?'"; it is rawset there.
  auto argerror = [](lua_State* L, int arg, const char* why) {
    lua_Debug ar;
    if (lua_getstack(L, 0, &ar) && lua_getinfo(L, "n", &ar) && ar.name == nullptr)
      return luaL_error(L, "bad argument #%d to 'rawset' (%s)", arg, why);
    return luaL_argerror(L, arg, why);
  };
  if (lua_type(L, 1) != LUA_TTABLE)
    return argerror(L, 1, lua_pushfstring(L, "table expected, got %s", luaL_typename(L, 1)));
  for (int arg = 2; arg <= 3; ++arg)
    if (lua_type(L, arg) == LUA_TNONE) return argerror(L, arg, "value expected");
  lua_settop(L, 3);
  lua_rawset(L, 1);
  return 1;
}

// A leaf file's require (upvalue 1: the file's copy of the module; 2: the base require):
// "thicket" is that copy; other names go to the base require.
int LuaApi::file_require(lua_State* L) {
  const char* name = luaL_checkstring(L, 1);
  if (std::strcmp(name, "thicket") == 0) {
    lua_pushvalue(L, lua_upvalueindex(1));
    return 1;
  }
  // The sandbox's require runs in this frame: its errors name the line of the require.
  if (lua_tocfunction(L, lua_upvalueindex(2)) == LuaApi::require) return LuaApi::require(L);
  const int args = lua_gettop(L);
  lua_pushvalue(L, lua_upvalueindex(2));
  lua_insert(L, 1);
  lua_call(L, args, LUA_MULTRET);
  return lua_gettop(L);
}

// load's reader of a function's pieces (lbaselib.c's generic_reader): the piece is kept in
// stack slot 5.
static const char* load_piece(lua_State* L, void*, size_t* size) {
  // The watchdog is asked at every piece: a reader that is a C function (load(os.clock)) runs
  // no Lua instruction for the count hook to stop, and its pieces came until the heap's cap.
  LuaHost::check_stop(L);
  luaL_checkstack(L, 2, "too many nested functions");
  lua_pushvalue(L, 1);
  lua_call(L, 0, 1);
  if (lua_isnil(L, -1)) {
    lua_pop(L, 1);
    *size = 0;
    return nullptr;
  }
  if (!lua_isstring(L, -1)) luaL_error(L, "reader function must return a string");
  lua_replace(L, 5);
  return lua_tolstring(L, 5, size);
}

// load(chunk [, chunkname [, mode [, env]]]): Lua's own (lbaselib.c), of text only when upvalue 1
// is true (binary chunks can break the sandbox), in the environment of upvalue 2 when none is
// given (a leaf file's load: its own globals).
int LuaApi::load(lua_State* L) {
  size_t len = 0;
  const char* text = lua_tolstring(L, 1, &len);
  // The caller's mode, less binary in the sandbox: "b" or a mode with no 't' loads nothing
  // there, and says so as Lua does (a text chunk loaded whatever the mode said).
  const char* asked = luaL_optstring(L, 3, "bt");
  const bool text_only = lua_toboolean(L, lua_upvalueindex(1));
  if (text_only && !std::strchr(asked, 't')) {
    luaL_pushfail(L);
    lua_pushfstring(L, "attempt to load a %s chunk (mode is '%s')",
                    text && len > 0 && text[0] == LUA_SIGNATURE[0] ? "binary" : "text", asked);
    return 2;
  }
  const char* mode = text_only ? "t" : asked;
  // An env given, nil or false included, is the chunk's _ENV (load(src, name, "t", nil) runs
  // it with no globals), as Lua's; given none, the loading file's globals (upvalue 2).
  int env = 0;
  if (!lua_isnone(L, 4)) env = 4;
  else if (!lua_isnil(L, lua_upvalueindex(2))) env = lua_upvalueindex(2);
  // A sandboxed script names its chunk as Lua names a text's (`[string "NAME"]:LINE:`): a name
  // starting with '@' or '=' would have its errors say they come from another file.
  const char* chunkname = luaL_optstring(L, 2, text ? text : "=(load)");
  if (lua_toboolean(L, lua_upvalueindex(1)) && !lua_isnoneornil(L, 2)) {
    while (*chunkname == '@' || *chunkname == '=') ++chunkname;
  }
  int status;
  if (text) {
    status = LuaHost::load_text(L, text, len, chunkname, mode);
  } else {
    luaL_checktype(L, 1, LUA_TFUNCTION);
    lua_settop(L, 5);  // slot 5 keeps the reader's piece
    status = lua_load(L, load_piece, nullptr, chunkname, mode);
  }
  if (status != LUA_OK) {
    luaL_pushfail(L);
    lua_insert(L, -2);
    return 2;
  }
  if (env != 0) {
    lua_pushvalue(L, env);
    if (!lua_setupvalue(L, -2, 1)) lua_pop(L, 1);
  }
  return 1;
}

LuaHost::LuaHost(RuntimeImpl& rt) : rt_(rt) {
  heap_.cap = rt.options.lua_memory_limit;
  heap_.guard = &guard_;
  L_ = lua_newstate(lua_heap_alloc, &heap_);
  lua_atpanic(L_, [](lua_State* L) {
    std::fprintf(stderr, "thicket: unprotected Lua error: %s\n", lua_tostring(L, -1) ? lua_tostring(L, -1) : "?");
    return 0;  // Lua aborts
  });
  *static_cast<LuaHost**>(lua_getextraspace(L_)) = this;  // threads inherit it: the hooks find us
  guard_.timeout = rt.options.leaf_timeout;
  guard_.interrupt = rt.options.interrupt;
  guard_.hook = guard_hook;
  watch_lua(&guard_);
  if (rt.options.instruction_budget > 0) {
    uint64_t slice = std::max<uint64_t>(1000, rt.options.instruction_budget / kBudgetSlices);
    budget_slice_ = static_cast<int>(std::min<uint64_t>(slice, INT32_MAX));
    // The hook tells the budget from the stop's grace by its count: never the same.
    if (budget_slice_ == kStopGraceInstructions) ++budget_slice_;
    if (rt.options.budget_all_leaves) lua_sethook(L_, guard_hook, LUA_MASKCOUNT, budget_slice_);
    leaves_budgeted_ = rt.options.budget_all_leaves;
    guard_.budget_seconds = static_cast<double>(std::max<uint64_t>(rt.options.instruction_budget,
                                                                   uint64_t(budget_slice_) * kBudgetSlices)) *
                            kBudgetLimitNs * 1e-9;
  }
  load_rng_ = Rng::seeded(rt.options.seed, 0);
  journal_ = rt.options.journal_tasks;
  open_sandbox();
  open_thicket_module();
  if (journal_) {  // the world calls of the module and the sandbox pass the journal's gates
    push_module();
    journal_wrap(-1, "thicket.", {"time", "dt", "tick", "log", "random", "restored", "send", "spawn", "despawn"});
    lua_pop(L_, 1);
    lua_getglobal(L_, "math");
    journal_wrap(-1, "math.", {"random"});
    lua_pop(L_, 1);
    lua_pushglobaltable(L_);
    journal_wrap(-1, "", {"print"});
    lua_pop(L_, 1);
  }
  lua_newtable(L_);
  thread_pool_ref_ = luaL_ref(L_, LUA_REGISTRYINDEX);
  lua_createtable(L_, kTextCache, 0);  // every slot filled, so a store into it never grows the table
  for (uint32_t k = 1; k <= kTextCache; ++k) {
    lua_pushboolean(L_, 0);
    lua_rawseti(L_, -2, k);
  }
  text_cache_ref_ = luaL_ref(L_, LUA_REGISTRYINDEX);
  lua_newtable(L_);  // which agent an agent table is (agent:send: not its `id` field, which a leaf may set); weak keys
  lua_newtable(L_);
  lua_pushliteral(L_, "k");
  lua_setfield(L_, -2, "__mode");
  lua_setmetatable(L_, -2);
  agent_of_ref_ = luaL_ref(L_, LUA_REGISTRYINDEX);
  lua_newtable(L_);  // agent tables' metatable: agent:send (a simulation's adds the world methods)
  lua_newtable(L_);
  lua_pushliteral(L_, "protected: the agent methods are shared by every agent");
  lua_setfield(L_, -3, "__metatable");
  lua_setfield(L_, -2, "__index");
  set_agent_metatable(luaL_ref(L_, LUA_REGISTRYINDEX));
  lua_newtable(L_);  // coroutines of restarted task runs (thicket.restored); weak keys
  lua_newtable(L_);
  lua_pushliteral(L_, "k");
  lua_setfield(L_, -2, "__mode");
  lua_setmetatable(L_, -2);
  restored_ref_ = luaL_ref(L_, LUA_REGISTRYINDEX);
  lua_newtable(L_);  // the metatable of restored tasks' journal records (lua_journal.cpp)
  lua_pushliteral(L_, "thicket.journal");
  lua_setfield(L_, -2, "__name");
  record_meta_ref_ = luaL_ref(L_, LUA_REGISTRYINDEX);
  // The message handler of every leaf call sits at the bottom of the stack for good.
  lua_settop(L_, 0);
  lua_rawgeti(L_, LUA_REGISTRYINDEX, traceback_ref_);
  for (int i = 0; i < 3; ++i) {
    const char* names[] = {"success", "failure", "running"};
    lua_pushstring(L_, names[i]);
    status_strings_[i] = lua_tostring(L_, -1);
    luaL_ref(L_, LUA_REGISTRYINDEX);  // kept alive: the address stays the interned one
  }
}

std::string LuaHost::sandbox_hint(std::string_view message) const {
  // Lua 5.4 names the value it could not use: "a nil value (global 'io')", "(field 'exit')"
  // for os.exit, "a function value (field 'tick')".
  auto named_as = [&](const char* value, const char* kind) -> std::string_view {
    const std::string open = std::string(value) + " (" + kind + " '";
    const size_t at = message.find(open);
    if (at == std::string_view::npos) return {};
    const size_t from = at + open.size(), end = message.find("')", from);
    return end == std::string_view::npos ? std::string_view() : message.substr(from, end - from);
  };
  auto named = [&](const char* kind) { return named_as("a nil value", kind); };
  if (message.find("attempt to yield across a C-call boundary") != std::string_view::npos)
    return " (a coroutine cannot yield inside a function that a library function calls: a string.gsub replacement, a "
           "table.sort comparison, a metamethod such as __tostring; yield outside it)";
  if (message.find("<eof>") != std::string_view::npos && message.find(" expected near ") != std::string_view::npos)
    return message.find("near 'end'") != std::string_view::npos
               ? " (an 'end' that closes nothing: one 'end' too many?)"
               : " (code after a 'return' that ends its block: a return must be its block's last statement)";
  if (!current_ && message.find("attempt to yield from outside a coroutine") != std::string_view::npos)
    return " (a leaf file's top level runs once, at load, outside any task: it cannot yield)";
  if (message.find("(table expected, got thicket.blackboard)") != std::string_view::npos)
    return " (agent.bb is no table: read its keys one by one, agent.bb.NAME; pairs and ipairs do not walk it)";
  // The thicket module's names without `thicket.` (wait(1), task(fn)), and its clock used
  // without its call (thicket.tick + 1, or a local holding the function).
  for (const char* fn : {"wait", "defer", "task", "log", "tick", "time", "dt", "random", "send", "spawn", "despawn",
                         "restored", "has"})
    if (named("global") == fn)
      return std::string(" (did you mean thicket.") + fn + "?)";
  for (const char* fn : {"tick", "time", "dt", "random"})
    for (const char* kind : {"field", "local", "upvalue", "global"})
      if (named_as("a function value", kind) == fn)
        return std::string(" (if this is thicket.") + fn + ": it is a function, so call it: thicket." + fn + "())";
  if (named("global") == "thicket")
    return " (thicket is a module, not a global: put `local thicket = require(\"thicket\")` at the top of the leaf file)";
  if (rt_.options.trusted) return {};
  const std::string lift = "--trusted opens Lua's whole standard library; guide 8.10";
  const std::string_view global = named("global");
  for (const char* gone : {"io", "debug", "package", "dofile", "loadfile"})
    if (global == gone) return std::string(" (leaf scripts run in a sandbox without ") + gone + ": " + lift + ")";
  const std::string_view field = named("field");
  if (field.empty()) return {};
  for (const char* gone : {"exit", "execute", "getenv", "remove", "rename", "tmpname", "date", "difftime", "setlocale"})
    if (field == gone)
      return std::string(" (if this is os.") + gone + ": the sandbox's os has only os.clock and os.time; " + lift + ")";
  if (field == "dump") return " (if this is string.dump: the sandbox has none, as binary chunks could break it; " + lift + ")";
  if (field == "randomseed")
    return " (if this is math.randomseed: there is none, even under --trusted: math.random is the agent's own stream, "
           "seeded from the run's --seed)";
  return {};
}

void LuaHost::open_sandbox() {
  lua_newtable(L_);  // the coroutines task runs are made in; weak keys
  lua_newtable(L_);
  lua_pushliteral(L_, "k");
  lua_setfield(L_, -2, "__mode");
  lua_setmetatable(L_, -2);
  task_threads_ref_ = luaL_ref(L_, LUA_REGISTRYINDEX);
  // Tables walk in the same order in every run (Lua's own order of string keys follows a hash
  // seeded from the clock and addresses): deterministic runs need it (lua_order.cpp).
  auto ordered_walks = [this] {
    lua_pushcfunction(L_, ordered_pairs);
    lua_setglobal(L_, "pairs");
    lua_pushcfunction(L_, ordered_next);
    lua_setglobal(L_, "next");
  };
  if (rt_.options.trusted) {
    luaL_openlibs(L_);
    ordered_walks();
  } else {
    const luaL_Reg libs[] = {{LUA_GNAME, luaopen_base},        {LUA_STRLIBNAME, luaopen_string},
                             {LUA_TABLIBNAME, luaopen_table},  {LUA_MATHLIBNAME, luaopen_math},
                             {LUA_UTF8LIBNAME, luaopen_utf8},  {LUA_COLIBNAME, luaopen_coroutine}};
    for (const auto& lib : libs) {
      luaL_requiref(L_, lib.name, lib.func, 1);
      lua_pop(L_, 1);
    }
    ordered_walks();
    for (const char* name : {"dofile", "loadfile"}) {
      lua_pushnil(L_);
      lua_setglobal(L_, name);
    }
    // load() of text only: binary chunks can break the sandbox.
    lua_pushboolean(L_, 1);
    lua_pushnil(L_);
    lua_pushcclosure(L_, LuaApi::load, 2);
    lua_setglobal(L_, "load");
    lua_getglobal(L_, "string");
    lua_pushnil(L_);
    lua_setfield(L_, -2, "dump");
    lua_pop(L_, 1);
    // The collector is every mod's: a script may read it, not stop or retune it (a mod that
    // stopped it made another mod's leaves hit the heap cap).
    lua_getglobal(L_, "collectgarbage");
    lua_pushcclosure(L_, LuaApi::collect_garbage, 1);
    lua_setglobal(L_, "collectgarbage");
    // os: only the clocks. Lua names a function called with no name at its call
    // (pcall(os.time, 5)) by where a loaded library holds it: this table is registered as the
    // library "os", so errors say 'os.time' (the full library, registered as "__os", made it
    // '__os.time').
    lua_pushcfunction(L_, luaopen_os);
    lua_call(L_, 0, 1);
    lua_newtable(L_);
    for (const char* name : {"clock", "time"}) {
      lua_getfield(L_, -2, name);
      lua_setfield(L_, -2, name);
    }
    luaL_getsubtable(L_, LUA_REGISTRYINDEX, LUA_LOADED_TABLE);
    lua_pushvalue(L_, -2);
    lua_setfield(L_, -2, "os");
    lua_pop(L_, 1);
    lua_setglobal(L_, "os");
    lua_pop(L_, 1);
  }
  // Pattern matching that the time limit can stop (Lua's own runs in C, out of the hook's reach).
  install_watched_patterns(L_);
  // The same for the other library loops in C that a script can make endless or huge.
  install_watched_loops(L_);
  // print goes through the runtime (agent order when jobs run on several threads).
  lua_pushlightuserdata(L_, this);
  lua_pushcclosure(L_, LuaApi::print, 1);
  lua_setglobal(L_, "print");
  // The message handler of every protected call (C: scripts cannot replace it).
  lua_pushcfunction(L_, LuaApi::traceback);
  traceback_ref_ = luaL_ref(L_, LUA_REGISTRYINDEX);
  // Shared metatables are not the scripts': getmetatable("") gives a placeholder, so no leaf
  // can take string methods away from every other leaf.
  lua_pushliteral(L_, "");
  lua_getmetatable(L_, -1);
  lua_pushliteral(L_, "protected: the string metatable is shared by every script");
  lua_setfield(L_, -2, "__metatable");
  lua_pop(L_, 2);
  // coroutine.resume, wrap and close tell the watchdog which coroutine runs, and keep a
  // task's coroutine thicket's; xpcall passes a stop through. In C, as the library's own.
  lua_getglobal(L_, "coroutine");
  lua_pushcfunction(L_, LuaApi::co_resume);
  lua_setfield(L_, -2, "resume");
  lua_pushcfunction(L_, LuaApi::co_wrap);
  lua_setfield(L_, -2, "wrap");
  lua_pushcfunction(L_, LuaApi::co_close);
  lua_setfield(L_, -2, "close");
  lua_pushcfunction(L_, LuaApi::co_create);
  lua_setfield(L_, -2, "create");
  lua_pushcfunction(L_, LuaApi::yield_checked);
  lua_setfield(L_, -2, "yield");
  lua_pop(L_, 1);
  lua_pushcfunction(L_, LuaApi::xpcall);
  lua_setglobal(L_, "xpcall");
  static const char kSandboxLua[] = R"LUA(
local type, rawget, setmetatable, bind, file_load, file_rawset, file_require, text_only, missing_global = ...
-- A fresh environment for one leaf file: its own globals, its own copies of the libraries and
-- of the thicket module (as fast to read as a plain table; what one file does to its copy
-- reaches no other file), and a require that gives that copy.
local pairs, next = pairs, next
local libraries = { string = true, table = true, math = true, utf8 = true, coroutine = true, os = true }
local base = _G
return function(module, module_meta, previous)
  local env = {}
  for k, v in next, base do
    if libraries[k] and type(v) == "table" then
      local copy = {}
      for name, fn in next, v do copy[name] = fn end
      env[k] = copy
    else
      env[k] = v
    end
  end
  env._G = env
  -- A global no one set reads nil as before; reading thicket's status constants so is said.
  setmetatable(env, { __index = missing_global })
  -- load, rawset and require of this file: C functions (lua_sandbox.cpp), given their upvalues.
  env.load = bind(file_load, text_only, env)
  -- The file's copy of the module, behind an empty face: every write, to a new field or an
  -- existing one, reaches __newindex and is refused, so no leaf changes the module for the
  -- other leaves of its file; reads go through __index to the copy (unknown names: did-you-mean).
  local data = {}
  for k, v in next, module do data[k] = v end
  setmetatable(data, module_meta)
  local own = setmetatable({}, {
    __index = data,
    __newindex = rawget(module_meta, "__newindex"),
    -- (the face, not the copy, as the loop's state: the iterator keeps the copy to itself)
    __pairs = function(self) local step, _, first = pairs(data); return step, self, first end,
    __metatable = rawget(module_meta, "__metatable"),
  })
  env.rawset = bind(file_rawset, own)
  env.require = bind(file_require, own, base.require)
  -- A reload starts from the globals the file's previous version made (not the standard ones,
  -- which are fresh): `count = count or 0` survives an edit.
  if previous then
    for k, v in next, previous do
      if base[k] == nil then env[k] = v end
    end
  end
  return env
end
)LUA";
  luaL_loadbuffer(L_, kSandboxLua, sizeof kSandboxLua - 1, "=(thicket)");
  lua_getglobal(L_, "type");
  lua_getglobal(L_, "rawget");
  lua_getglobal(L_, "setmetatable");
  lua_pushcfunction(L_, [](lua_State* L) -> int {  // bind(f, ...): the C function f with upvalues ...
    lua_pushcclosure(L, lua_tocfunction(L, 1), lua_gettop(L) - 1);
    return 1;
  });
  lua_pushcfunction(L_, LuaApi::load);
  lua_pushcfunction(L_, LuaApi::file_rawset);
  lua_pushcfunction(L_, LuaApi::file_require);
  lua_pushboolean(L_, !rt_.options.trusted);
  lua_pushcfunction(L_, LuaApi::missing_global);
  lua_call(L_, 9, 1);
  // Finalizers run at unpredictable times, outside any leaf call: scripts may not set them.
  lua_pushcfunction(L_, LuaApi::set_metatable);
  lua_setglobal(L_, "setmetatable");
  env_maker_ref_ = luaL_ref(L_, LUA_REGISTRYINDEX);
  lua_newtable(L_);
  envs_ref_ = luaL_ref(L_, LUA_REGISTRYINDEX);
}

}  // namespace thicket
