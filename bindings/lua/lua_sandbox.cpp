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

namespace thicket {

int LuaApi::traceback(lua_State* L) {
  const char* msg = lua_tostring(L, 1);
  lua_Debug ar;
  if (!msg) {
    // error({...}) carries no position: the line that raised it (past `error`, a C function).
    const char* where = "";
    for (int level = 1; level < 16 && lua_getstack(L, level, &ar); ++level)
      if (lua_getinfo(L, "Sl", &ar) && ar.currentline > 0) {
        where = lua_pushfstring(L, "%s:%d: ", ar.short_src, ar.currentline);
        break;
      }
    msg = lua_pushfstring(L, "%s(error object is a %s value)", where, luaL_typename(L, 1));
  }
  if (!lua_getstack(L, kDeepStack, &ar)) {
    luaL_traceback(L, L, msg, 1);
    return 1;
  }
  luaL_Buffer b;
  luaL_buffinit(L, &b);
  luaL_addstring(&b, msg);
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

int LuaApi::co_resume(lua_State* L) {
  LuaHost& h = host(L);
  lua_State* co = lua_tothread(L, 1);
  luaL_argexpected(L, co, 1, "coroutine");
  // A task's coroutine (another agent's, or another node's, got through a shared table) runs
  // only when thicket resumes it: resumed from a leaf, its body ran inside that leaf's call.
  lua_rawgeti(L, LUA_REGISTRYINDEX, h.task_threads_ref_);
  lua_pushvalue(L, 1);
  const bool task = lua_rawget(L, -2) != LUA_TNIL;
  lua_pop(L, 2);
  if (task) {
    lua_pushboolean(L, 0);
    lua_pushliteral(L, "cannot resume a task's coroutine: thicket resumes each task itself, once a tick (a leaf "
                       "resumes only coroutines it made)");
    return 2;
  }
  int narg = lua_gettop(L) - 1;
  if (lua_status(co) == LUA_OK && lua_gettop(co) == 0) {
    lua_pushboolean(L, 0);
    lua_pushliteral(L, "cannot resume dead coroutine");
    return 2;
  }
  if (!lua_checkstack(co, narg)) {
    lua_pushboolean(L, 0);
    lua_pushliteral(L, "too many arguments to resume");
    return 2;
  }
  lua_xmove(L, co, narg);
  lua_State* outer = h.guard_.running.load(std::memory_order_relaxed);
  if (outer) h.guard_.running.store(co, std::memory_order_release);
  int nres = 0;
  int status = lua_resume(co, L, narg, &nres);
  if (outer) h.guard_.running.store(outer, std::memory_order_release);
  if (status == LUA_OK || status == LUA_YIELD) {
    if (!lua_checkstack(L, nres + 1)) {
      lua_pop(co, nres);
      lua_pushboolean(L, 0);
      lua_pushliteral(L, "too many results to resume");
      return 2;
    }
    // The results first, then true under them, as the standard resume does: a coroutine
    // resuming itself is L (lua_xmove of a thread to itself does nothing).
    lua_xmove(co, L, nres);
    lua_pushboolean(L, 1);
    lua_insert(L, -(nres + 1));
    return nres + 1;
  }
  // Stopped (time limit, instruction budget, Ctrl-C): the stop goes on into the resumer, as
  // it passes through pcall and xpcall, with its message (the line the coroutine was stopped
  // at). Handed back as (false, message), a leaf that resumed fresh coroutines in a loop
  // caught every stop and ran for ever. The hook, set to fire at every instruction, raises
  // the stop again after any pcall around this resume.
  if (LuaHost::told_to_stop(L)) {
    lua_sethook(L, LuaHost::guard_hook, LUA_MASKCOUNT, 1);
    lua_xmove(co, L, 1);
    return lua_error(L);
  }
  lua_xmove(co, L, 1);  // the error object ("cannot resume non-suspended coroutine" on L itself)
  lua_pushboolean(L, 0);
  lua_insert(L, -2);
  return 2;
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
  guard_.hook = guard_hook;
  watch_lua(&guard_);
  if (rt.options.instruction_budget > 0) {
    uint64_t slice = std::max<uint64_t>(1000, rt.options.instruction_budget / kBudgetSlices);
    budget_slice_ = static_cast<int>(std::min<uint64_t>(slice, INT32_MAX));
    // The hook tells the budget from the stop's grace by its count: never the same.
    if (budget_slice_ == kStopGraceInstructions) ++budget_slice_;
    if (rt.options.budget_all_leaves) lua_sethook(L_, guard_hook, LUA_MASKCOUNT, budget_slice_);
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
    static const char kLoadText[] = "local load = load; _G.load = function(chunk, name, mode, env) "
                                   "return load(chunk, name, 't', env) end; string.dump = nil";
    luaL_loadbuffer(L_, kLoadText, sizeof kLoadText - 1, "=(thicket)");
    lua_call(L_, 0, 0);
    // The collector is every mod's: a script may read it, not stop or retune it (a mod that
    // stopped it made another mod's leaves hit the heap cap).
    static const char kCollect[] =
        "local collect, tostring, error = collectgarbage, tostring, error; "
        "_G.collectgarbage = function(option) "
        "if option == 'count' or option == 'isrunning' then return collect(option) end "
        "error(\"collectgarbage('\" .. tostring(option or 'collect'):sub(1, 40) .. \"') is not allowed in leaf scripts: \" .. "
        "\"the collector is shared by every mod's leaves (allowed: 'count', 'isrunning')\", 2) end";
    luaL_loadbuffer(L_, kCollect, sizeof kCollect - 1, "=(thicket)");
    lua_call(L_, 0, 0);
    // os: only the clocks.
    luaL_requiref(L_, "__os", luaopen_os, 0);
    lua_newtable(L_);
    for (const char* name : {"clock", "time"}) {
      lua_getfield(L_, -2, name);
      lua_setfield(L_, -2, name);
    }
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
  // coroutine.resume (and wrap, built on it) tell the watchdog which coroutine runs.
  lua_getglobal(L_, "coroutine");
  lua_pushlightuserdata(L_, this);
  lua_pushcclosure(L_, LuaApi::co_resume, 1);
  lua_setfield(L_, -2, "resume");
  lua_pop(L_, 1);
  static const char kSandboxLua[] = R"LUA(
local create, resume, close, status, error, type, rawget, setmetatable, tasks, stopping = ...
-- A message handler runs where the error was raised. Once the watchdog (time limit, Ctrl-C)
-- has told the call to stop, the handler is not called: its stop error, raised by a hook, ran
-- the handler with hooks off, and one that looped held the host for ever (and one that looped
-- on an ordinary error was stopped into itself, the same way).
-- The stop itself passes through the xpcall: caught, it would end the call as a success.
local xpcall_raw = xpcall
local function passed(ok, ...)
  if not ok and stopping() then error((...), 0) end
  return ok, ...
end
xpcall = function(f, msgh, ...)
  if type(msgh) ~= "function" then return xpcall_raw(f, msgh, ...) end
  return passed(xpcall_raw(f, function(m)
    if stopping() then return m end
    return msgh(m)
  end, ...))
end
-- A task's coroutine is thicket's: closed by a leaf, its cleanups ran inside that leaf's call.
coroutine.close = function(co)
  if tasks[co] then
    error("cannot close a task's coroutine: thicket ends each task itself (a leaf closes only coroutines it made)", 2)
  end
  return close(co)
end
-- coroutine.wrap on the guarded resume; errors pass through as the standard wrap's do.
-- Only a coroutine its error ended is closed (its to-be-closed variables run): one resuming
-- itself is running, and one resumed after its end has nothing to close.
coroutine.wrap = function(fn)
  local co = create(fn)
  local function finish(ok, ...)
    if ok then return ... end
    local err = ...
    if status(co) == "dead" then close(co) end
    error(err, 0)
  end
  return function(...) return finish(resume(co, ...)) end
end
-- Finalizers run at unpredictable times, outside any leaf call: scripts may not set them.
-- Its errors name the leaf's line, as the library's own do (called from here, they named this
-- chunk's): the argument checks are made here, the rest is raised again one level up.
local pcall, select, getmetatable = pcall, select, getmetatable
_G.setmetatable = function(...)
  local t, mt = ...
  if type(t) ~= "table" then
    error("bad argument #1 to 'setmetatable' (table expected, got " .. (select("#", ...) == 0 and "no value" or type(t)) .. ")", 2)
  end
  if mt ~= nil and type(mt) ~= "table" or select("#", ...) < 2 then
    error("bad argument #2 to 'setmetatable' (nil or table expected, got " .. (select("#", ...) < 2 and "no value" or type(mt)) .. ")", 2)
  end
  if type(mt) == "table" and rawget(mt, "__gc") ~= nil then
    error("__gc metamethods are not allowed in leaf scripts (they would run outside any leaf call)", 2)
  end
  -- Only a table that has a metatable can refuse a new one (a protected metatable); the
  -- common case, a fresh table, skips the protected call.
  if getmetatable(t) == nil then return setmetatable(t, mt) end
  local ok, err = pcall(setmetatable, t, mt)
  if not ok then error(err, 2) end
  return t
end
-- A fresh environment for one leaf file: its own globals, its own copies of the libraries and
-- of the thicket module (as fast to read as a plain table; what one file does to its copy
-- reaches no other file), and a require that gives that copy.
local pairs, next = pairs, next
local libraries = { string = true, table = true, math = true, utf8 = true, coroutine = true, os = true }
local base = _G
local base_load = base.load
local base_rawset, rawequal, base_getmetatable = base.rawset, base.rawequal, base.getmetatable
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
  env.load = function(chunk, name, mode, e) return base_load(chunk, name, mode, e or env) end
  -- The file's copy of the module, behind an empty face: every write, to a new field or an
  -- existing one, reaches __newindex and is refused, so no leaf changes the module for the
  -- other leaves of its file; reads go through __index to the copy (unknown names: did-you-mean).
  local data = {}
  for k, v in next, module do data[k] = v end
  setmetatable(data, module_meta)
  local own = setmetatable({}, {
    __index = data,
    __newindex = rawget(module_meta, "__newindex"),
    __pairs = function() return pairs(data) end,
    __metatable = rawget(module_meta, "__metatable"),
  })
  -- rawset skips __newindex: refused on the module copy, which the file's leaves share.
  if base_rawset then
    env.rawset = function(t, k, v)
      if rawequal(t, own) then error("the thicket module is read-only (rawset included); keep your own values in a local table", 2) end
      if base_getmetatable(t) == "read-only args" then
        error("a node's args are read-only (rawset included: one table shared by every agent); copy what you need into a local table", 2)
      end
      if type(t) ~= "table" then error("bad argument #1 to 'rawset' (table expected, got " .. type(t) .. ")", 2) end
      return base_rawset(t, k, v)
    end
  end
  local base_require = base.require
  env.require = function(name, ...)
    if name == "thicket" then return own end
    return base_require(name, ...)
  end
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
  lua_getglobal(L_, "coroutine");
  lua_getfield(L_, -1, "create");
  lua_getfield(L_, -2, "resume");
  lua_getfield(L_, -3, "close");
  lua_getfield(L_, -4, "status");
  lua_remove(L_, -5);
  lua_getglobal(L_, "error");
  lua_getglobal(L_, "type");
  lua_getglobal(L_, "rawget");
  lua_getglobal(L_, "setmetatable");
  lua_rawgeti(L_, LUA_REGISTRYINDEX, task_threads_ref_);
  lua_pushcfunction(L_, [](lua_State* L) -> int {
    lua_pushboolean(L, LuaHost::told_to_stop(L));
    return 1;
  });
  lua_call(L_, 10, 1);
  env_maker_ref_ = luaL_ref(L_, LUA_REGISTRYINDEX);
  lua_newtable(L_);
  envs_ref_ = luaL_ref(L_, LUA_REGISTRYINDEX);
}

}  // namespace thicket
