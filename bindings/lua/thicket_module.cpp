// The sandboxed Lua state, the `thicket` module, require(), and the agent and blackboard
// objects leaves see (SPEC 6 and 7).
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <optional>
#include <sstream>

#include "lua_host.hpp"
#include "runtime_impl.hpp"
#include "suggest.hpp"
#include "lua_loops.hpp"
#include "lua_patterns.hpp"

namespace thicket {
namespace fs = std::filesystem;

// The Lua-callable functions; a struct so they can reach LuaHost's insides.
struct LuaApi {
  // The host from the state's extra space (set at creation; threads inherit it): a load, where
  // the functions' upvalue would be an API call on every call from Lua.
  static LuaHost& host(lua_State* L) { return **static_cast<LuaHost**>(lua_getextraspace(L)); }
  static const AgentInfo* agent(lua_State* L) {
    const CallSite* at = host(L).current();
    return at ? at->agent : nullptr;
  }

  static int time(lua_State* L) {
    const AgentInfo* a = agent(L);
    lua_pushnumber(L, a ? a->time : 0.0);
    return 1;
  }
  static int dt(lua_State* L) {
    const AgentInfo* a = agent(L);
    lua_pushnumber(L, a ? a->dt : 0.0);
    return 1;
  }
  static int tick(lua_State* L) {
    const AgentInfo* a = agent(L);
    lua_pushinteger(L, a ? static_cast<lua_Integer>(a->ticks) : 0);
    return 1;
  }
  // Pushes the arguments converted with tostring and joined by tabs (print's way). A __tostring
  // that raises does so here, before the caller makes any C++ object that lua_error would skip.
  // (Through a luaL_Buffer, which keeps the stack within what Lua grants a C function: pushing
  // every piece first overran it from about ten arguments, corrupting memory.)
  static void push_joined(lua_State* L) {
    const int n = lua_gettop(L);
    luaL_Buffer b;
    luaL_buffinit(L, &b);
    for (int i = 1; i <= n; ++i) {
      if (i > 1) luaL_addchar(&b, '\t');
      luaL_tolstring(L, i, nullptr);
      luaL_addvalue(&b);
    }
    luaL_pushresult(&b);
  }
  static int log(lua_State* L) {
    push_joined(L);
    size_t len;
    const char* joined = lua_tolstring(L, -1, &len);
    const std::string line(joined, len);
    const CallSite* at = host(L).current();
    std::ostringstream out;
    if (at) out << "t=" << at->agent->time << " agent " << at->agent->id << ": ";
    out << line;
    host(L).rt_.log(out.str());
    return 0;
  }
  // thicket.random([m [, n]]) and math.random: the agent's own stream while a leaf runs.
  static int random(lua_State* L) {
    LuaHost& h = host(L);
    Rng* rng = h.current() ? &h.current()->agent->rng : &h.load_rng_;
    int n = lua_gettop(L);
    if (n == 0) {
      lua_pushnumber(L, rng->uniform());
      return 1;
    }
    lua_Integer lo = 1, hi;
    if (n == 1) {
      hi = luaL_checkinteger(L, 1);
      if (hi == 0) {  // Lua 5.4's math.random(0): an integer with all bits random
        lua_pushinteger(L, static_cast<lua_Integer>(rng->next()));
        return 1;
      }
    } else {
      lo = luaL_checkinteger(L, 1);
      hi = luaL_checkinteger(L, 2);
    }
    luaL_argcheck(L, lo <= hi, n == 1 ? 1 : 2, "interval is empty");
    lua_pushinteger(L, rng->range(lo, hi));
    return 1;
  }
  // thicket.restored(): true inside a task run that started again because its agent was
  // restored from a snapshot while the task was running (snapshot docs); false elsewhere.
  static int restored(lua_State* L) {
    LuaHost& h = host(L);
    const CallSite* at = h.current();
    lua_pushboolean(L, at && h.task_restored(*at));
    return 1;
  }
  // ---- other agents (SPEC 8.2): spawn, despawn and send wait for the end of tick_all ----
  // The live agent with this id, or an invalid handle.
  static AgentHandle handle_of(LuaHost& h, lua_Integer id) {
    if (id <= 0 || id > UINT32_MAX) return {};
    const auto found = h.rt_.find_index(static_cast<uint32_t>(id));
    if (!found) return {};
    return AgentHandle{*found, h.rt_.agents[*found].generation};
  }
  // print(...): as Lua's, through the runtime, so that lines printed by jobs on several
  // threads come out in agent order.
  static int print(lua_State* L) {
    push_joined(L);
    size_t len;
    const char* joined = lua_tolstring(L, -1, &len);
    host(L).rt_.print(std::string(joined, len));
    return 0;
  }
  // Scenarios split their agents over worker runtimes and own their bodies: there a leaf may
  // send only to its own agent, and spawn and despawn are the world's (groups, deaths).
  static int refuse_in_scenario(lua_State* L, const char* what) {
    return luaL_error(L, "%s is not available in scenarios yet: a scenario's agents are spread over worker "
                         "runtimes and have bodies in the world (agent:send to the leaf's own agent works)", what);
  }
  // Texts a script writes to the blackboard, passes to thicket.spawn or sends as event names
  // are kept in the runtime's table of texts for the whole run (each distinct text once), out
  // of the Lua heap: past RuntimeOptions::lua_memory_limit bytes there, a new text is refused,
  // so a leaf writing a new 1 MB text every tick cannot use up the host's memory. Pushes the
  // message and returns false then (the caller raises it, with its own frame gone).
  static bool text_fits(lua_State* L, LuaHost& h, std::string_view text, const char* what) {
    const size_t cap = h.rt_.options.lua_memory_limit;
    if (cap == 0 || h.rt_.strings.bytes() + text.size() <= cap || h.rt_.strings.contains(text)) return true;
    const std::string msg = std::string(what) + ": a new text of " + std::to_string(text.size()) +
                            " bytes, and the run's texts (every distinct text scripts have written to a "
                            "blackboard, spawned with or sent as an event, kept for the whole run) already take " +
                            byte_size(h.rt_.strings.bytes()) + " of the " + byte_size(cap) +
                            " cap (--lua-memory); write fewer distinct texts (a number instead of a formatted text?)";
    luaL_where(L, 1);  // FILE:LINE: of the script's line, as luaL_error gives
    lua_pushstring(L, msg.c_str());
    lua_concat(L, 2);
    return false;
  }
  // thicket.send(agent_id, name): an event to that agent (SPEC 4.1); false when no agent has the id.
  static int send(lua_State* L) {
    LuaHost& h = host(L);
    const lua_Integer id = luaL_checkinteger(L, 1);
    if (h.world && !(h.current() && h.current()->agent->id == id)) return refuse_in_scenario(L, "thicket.send to another agent");
    size_t len;
    const char* name = luaL_checklstring(L, 2, &len);
    luaL_argcheck(L, len > 0, 2, "an event name must not be empty");
    if (!text_fits(L, h, std::string_view(name, len), "thicket.send")) return lua_error(L);
    lua_pushboolean(L, h.rt_.send_or_defer(handle_of(h, id), std::string(name, len)));
    return 1;
  }
  // agent:send(name): an event to this agent; from its own leaf it joins the queue at once.
  static int agent_send(lua_State* L) {
    luaL_checktype(L, 1, LUA_TTABLE);
    lua_getfield(L, 1, "id");
    const lua_Integer id = lua_tointeger(L, -1);
    lua_pop(L, 1);
    lua_remove(L, 1);
    lua_pushinteger(L, id);
    lua_insert(L, 1);
    return send(L);
  }
  // thicket.despawn(agent_id): false when no agent has the id.
  static int despawn(lua_State* L) {
    LuaHost& h = host(L);
    if (h.world) return refuse_in_scenario(L, "thicket.despawn");
    const AgentHandle target = handle_of(h, luaL_checkinteger(L, 1));
    if (target.valid()) h.rt_.despawn_or_defer(target);
    lua_pushboolean(L, target.valid());
    return 1;
  }
  // thicket.spawn(brain [, blackboard [, id]]): a new agent of the loaded brain with that name
  // (`tree: NAME`), its blackboard values from the table; during a tick it is made at the end
  // of the tick_all (true), else at once (its id).
  // Every argument is checked before a C++ object lives in this frame: lua_error longjmps,
  // and would skip their destructors (the rule of the helpers above).
  static int spawn(lua_State* L) {
    LuaHost& h = host(L);
    if (h.world) return refuse_in_scenario(L, "thicket.spawn");
    const char* name = luaL_checkstring(L, 1);
    if (!lua_isnoneornil(L, 2)) luaL_checktype(L, 2, LUA_TTABLE);
    const lua_Integer id = luaL_optinteger(L, 3, 0);
    luaL_argcheck(L, lua_isnoneornil(L, 3) || (id >= 1 && id <= UINT32_MAX), 3,
                  "an agent id is a whole number from 1 to 4294967295 (leave it out for the next free id)");
    if (!spawn_checked(L, h, name, static_cast<uint32_t>(id))) return lua_error(L);  // its message is pushed
    return 1;
  }
  // spawn's work: pushes its result and returns true, or pushes the message of an unknown brain
  // and returns false (the caller raises it, with this frame's objects gone).
  static bool spawn_checked(lua_State* L, LuaHost& h, const char* name, uint32_t id) {
    std::optional<BrainHandle> brain;
    std::vector<std::string> names;
    for (uint32_t k = 0; k < h.rt_.brains.size(); ++k) {
      names.push_back(h.rt_.brains[k]->program->name);
      if (!brain && names.back() == name) brain = BrainHandle{k};
    }
    // Pushes "FILE:LINE: thicket.spawn: MSG" (the caller's place, as luaL_error gives it).
    auto refuse = [&](const std::string& msg) {
      lua_settop(L, 3);
      luaL_where(L, 1);
      lua_pushstring(L, ("thicket.spawn: " + msg).c_str());
      lua_concat(L, 2);
      return false;
    };
    if (!brain)
      return refuse("no loaded brain is called '" + clipped(name) + "'" + did_you_mean(name, names) +
                    " (loaded: " + join_names(names) + ")");
    std::vector<std::pair<std::string, Value>> bb;
    if (!lua_isnoneornil(L, 2)) {
      // Each value is checked against the brain's declaration, as agent.bb.KEY = value is: an
      // undeclared key or a value of another type is an error at the call's line (it was
      // dropped without a word, and the agent started with the default).
      const Program& p = *h.rt_.brains[brain->index]->program;
      lua_pushnil(L);
      while (lua_next(L, 2)) {
        if (lua_type(L, -2) != LUA_TSTRING) {  // (its text is not read: lua_tostring would change the key under lua_next)
          const std::string type = luaL_typename(L, -2);
          return refuse("the blackboard table's keys are names (text), got a key that is a " + type +
                        (lua_isinteger(L, -2) ? " (" + std::to_string(lua_tointeger(L, -2)) + ": a list?)" : std::string()));
        }
        const std::string key = lua_tostring(L, -2);
        const BlackboardKey* declared = nullptr;
        for (const BlackboardKey& k : p.blackboard)
          if (k.name == key) declared = &k;
        if (!declared) {  // the names, for the message only
          std::vector<std::string> keys;
          for (const BlackboardKey& k : p.blackboard) keys.push_back(k.name);
          return refuse("brain '" + p.name + "' has no blackboard key '" + clipped(key) + "'" + did_you_mean(key, keys) +
                        (keys.empty() ? " (it declares none)" : " (declared: " + join_names(keys) + ")"));
        }
        const int t = lua_type(L, -1);
        Value v;
        int is_int = 0;
        const lua_Integer whole = t == LUA_TNUMBER ? lua_tointegerx(L, -1, &is_int) : 0;
        switch (t) {
          case LUA_TBOOLEAN: v = static_cast<bool>(lua_toboolean(L, -1)); break;
          case LUA_TNUMBER:
            // An integer key takes a float with a whole value (2.0), as agent.bb does.
            if (declared->type == ValueType::Integer && is_int) v = static_cast<int64_t>(whole);
            else if (lua_isinteger(L, -1)) v = static_cast<int64_t>(lua_tointeger(L, -1));
            else v = static_cast<double>(lua_tonumber(L, -1));
            break;
          case LUA_TSTRING: {
            size_t len;
            const char* text = lua_tolstring(L, -1, &len);
            if (!text_fits(L, h, std::string_view(text, len), "thicket.spawn")) return false;
            v = std::string(text, len);
            break;
          }
          default:
            return refuse("blackboard key '" + key + "' is given a " + luaL_typename(L, -1) +
                          "; a spawn's values are numbers, integers, booleans and strings (a leaf of the new agent may "
                          "set other values of an any key)");
        }
        if (!value_fits(declared->type, v))
          return refuse("blackboard key '" + key + "' is declared " + std::string(value_type_name(declared->type)) +
                        "; cannot spawn with it " + (t == LUA_TNUMBER ? (lua_isinteger(L, -1) ? "an integer" : "a number") : std::string("a ") + luaL_typename(L, -1)) +
                        " (" + (t == LUA_TBOOLEAN ? std::string(lua_toboolean(L, -1) ? "true" : "false")
                                                : t == LUA_TSTRING ? "'" + clipped(lua_tostring(L, -1)) + "'"
                                                                   : std::string(lua_tostring(L, -1))) + ")");
        bb.emplace_back(key, std::move(v));
        lua_pop(L, 1);
      }
    }
    const size_t cap = h.rt_.options.max_script_agents;
    const size_t agents = h.rt_.live_agents + h.rt_.queued_spawns.load(std::memory_order_relaxed);
    if (cap > 0 && agents >= cap)
      return refuse("the run already has " + std::to_string(agents) +
                    " agents, counting the spawns queued this tick; scripts may spawn up to " + std::to_string(cap) +
                    "; no agent spawned (raise it with RuntimeOptions::max_script_agents, or thicket run --max-agents N)");
    const bool deferred = h.rt_.ticking;
    const AgentHandle made = h.rt_.spawn_or_defer(*brain, bb, id);
    if (deferred) lua_pushboolean(L, 1);
    else if (made.valid()) lua_pushinteger(L, h.rt_.agents[made.index].id);
    else lua_pushboolean(L, 0);
    return true;
  }
  static int task(lua_State* L) {
    luaL_checktype(L, 1, LUA_TFUNCTION);
    lua_createtable(L, 1, 0);
    lua_pushvalue(L, 1);
    lua_rawseti(L, -2, 1);
    lua_rawgeti(L, LUA_REGISTRYINDEX, host(L).task_meta_ref_);
    lua_setmetatable(L, -2);
    return 1;
  }
  // require(name): the thicket module, or NAME.lua beside the brain's leaf files.
  static int require(lua_State* L) {
    int results = require_impl(L);
    if (results < 0) return lua_error(L);  // the message is on the stack; our strings are gone
    return results;
  }
  // The folders the calling brain may require from: beside its own leaf files (a leaf call
  // knows its program; a file being loaded knows its brain's files).
  static std::vector<std::string> require_dirs(LuaHost& h) {
    std::vector<std::string> dirs;
    auto add = [&](const std::string& file) {
      std::string d = fs::path(file).parent_path().string();
      if (d.empty()) d = ".";
      if (std::find(dirs.begin(), dirs.end(), d) == dirs.end()) dirs.push_back(d);
    };
    if (h.current()) {
      for (const auto& f : h.current()->program->leaf_files) add(f);
    } else {
      for (const auto& f : h.loading_files_) add(f);
    }
    return dirs;
  }
  // luaL_where for the script's own code: the first calling frame not in the sandbox's Lua
  // (the per-file require is a wrapper there, so level 1 would name it, "(thicket):87:").
  static void where_in_script(lua_State* L) {
    lua_Debug ar;
    for (int level = 1; lua_getstack(L, level, &ar); ++level) {
      lua_getinfo(L, "Sl", &ar);
      if (std::strcmp(ar.source, "=(thicket)") == 0 || ar.currentline <= 0) continue;
      lua_pushfstring(L, "%s:%d: ", ar.short_src, ar.currentline);
      return;
    }
    lua_pushliteral(L, "");
  }
  static int require_impl(lua_State* L) {
    LuaHost& h = host(L);
    std::string name = luaL_checkstring(L, 1);
    lua_rawgeti(L, LUA_REGISTRYINDEX, h.loaded_ref_);
    if (name == "thicket") {
      lua_getfield(L, -1, "thicket");
      return 1;
    }
    std::string rel = name;
    for (char& ch : rel)
      if (ch == '.') ch = '/';
    if (rel.find("..") != std::string::npos || (!rel.empty() && rel[0] == '/')) {
      where_in_script(L);  // the line of the require
      lua_pushfstring(L, "module '%s' not found: modules are found only beside the brain's leaf files", name.c_str());
      lua_concat(L, 2);
      return -1;
    }
    std::string tried;
    for (const auto& dir : require_dirs(h)) {
      std::string p = (fs::path(dir) / (rel + ".lua")).lexically_normal().string();
      // Which leaf file needs it, for hot reload (module_users): the one loading now.
      if (!h.staging_file_.empty() && fs::exists(p)) h.module_users_[p].insert(h.staging_file_);
      // Modules are cached by file, so two brains' modules of one name stay apart.
      if (lua_getfield(L, -1, p.c_str()) != LUA_TNIL) return 1;
      lua_pop(L, 1);
      tried += "\n\tno file '" + p + "'";
      std::error_code exists_error;
      if (!fs::exists(p, exists_error)) continue;
      // A module that requires one still loading (itself, or one that required it) would
      // load them again and again until Lua's C stack overflowed ("C stack overflow", no line).
      if (auto at = std::find(h.modules_loading_.begin(), h.modules_loading_.end(), p); at != h.modules_loading_.end()) {
        std::string cycle;
        for (auto m = at; m != h.modules_loading_.end(); ++m) cycle += fs::path(*m).stem().string() + " -> ";
        cycle += name;
        where_in_script(L);  // the line of the require
        lua_pushfstring(L, "module '%s' is required while it is still loading (a require cycle: %s); break the cycle, "
                           "e.g. require it inside the function that needs it",
                        name.c_str(), cycle.c_str());
        lua_concat(L, 2);
        return -1;
      }
      if (!fs::is_regular_file(fs::status(p, exists_error))) {  // a pipe nothing writes to would block for ever
        where_in_script(L);
        lua_pushfstring(L, "module '%s' (%s) is not a plain file (a pipe, a device or a folder)", name.c_str(), p.c_str());
        lua_concat(L, 2);
        return -1;
      }
      if (luaL_loadfilex(L, p.c_str(), "t") != LUA_OK) return -1;
      h.push_file_env(L, p);  // a module has its own globals too
      lua_setupvalue(L, -2, 1);
      lua_pushstring(L, name.c_str());
      h.modules_loading_.push_back(p);
      const int loaded = lua_pcall(L, 1, 1, 0);
      h.modules_loading_.pop_back();
      if (loaded != LUA_OK) return -1;
      if (lua_isnil(L, -1)) {
        lua_pop(L, 1);
        lua_pushboolean(L, 1);
      }
      lua_pushvalue(L, -1);
      lua_setfield(L, -3, p.c_str());
      return 1;
    }
    where_in_script(L);  // the line of the require
    lua_pushfstring(L, "module '%s' not found (modules are found only beside the brain's leaf files):%s", name.c_str(),
                    tried.c_str());
    lua_concat(L, 2);
    return -1;
  }

  // ---- the read-only thicket module ----
  // Each leaf file gets its own copy of the module table (push_file_env), so what one file
  // does to its copy reaches no other. Reading a field the module does not have is an error
  // (thicket.SUCESS would be nil and the leaf would silently fail); adding a field is one too.
  // Trusted modules loaded by Lua's own require get a userdata face with the same rules.
  static void push_unknown_field(lua_State* L, const char* key) {
    std::vector<std::string> names;
    lua_pushnil(L);
    while (lua_next(L, lua_upvalueindex(1))) {
      if (lua_type(L, -2) == LUA_TSTRING) names.push_back(lua_tostring(L, -2));
      lua_pop(L, 1);
    }
    std::sort(names.begin(), names.end());
    std::string msg = "the thicket module has no field '" + clipped(key) + "'" + did_you_mean(key, names) +
                      " (fields: " + join_names(names) + "; thicket.has(name) asks without an error)";
    luaL_where(L, 1);
    lua_pushstring(L, msg.c_str());
    lua_concat(L, 2);
  }
  // __index of a file's copy of the module (upvalue 1: the module table): a field added to
  // the module after the copy was made (the world's functions), or an error.
  static int module_missing(lua_State* L) {
    lua_pushvalue(L, 2);
    if (lua_rawget(L, lua_upvalueindex(1)) != LUA_TNIL) return 1;
    push_unknown_field(L, luaL_tolstring(L, 2, nullptr));
    return lua_error(L);
  }
  static int module_write(lua_State* L) {
    luaL_where(L, 1);
    lua_pushfstring(L, "the thicket module is read-only (cannot set '%s'); keep your own values in a local table "
                       "or on the agent",
                    luaL_tolstring(L, 2, nullptr));
    lua_remove(L, -2);
    lua_concat(L, 2);
    return lua_error(L);
  }
  static int module_pairs(lua_State* L) {  // pairs(thicket) walks the module table
    lua_pushcfunction(L, [](lua_State* L2) {
      lua_settop(L2, 2);
      return lua_next(L2, 1) ? 2 : (lua_pushnil(L2), 1);
    });
    lua_pushvalue(L, lua_upvalueindex(1));
    lua_pushnil(L);
    return 3;
  }
  static int module_has(lua_State* L) {  // thicket.has(name): whether the module has the field
    luaL_checkstring(L, 1);
    lua_pushvalue(L, 1);
    lua_pushboolean(L, lua_rawget(L, lua_upvalueindex(1)) != LUA_TNIL);
    return 1;
  }

  // ---- sandbox pieces ----
  // The message handler of every protected call: a C function, so no count hook fires in it
  // (a stopped call's hook keeps firing in Lua code until the call ends).
  // A call stack deeper than kDeepStack levels (a runaway recursion: Lua lets it reach about
  // a million) gets its first levels only: luaL_traceback also shows the last ones, and finding
  // them walks the whole stack some forty times (lua_getstack steps from the top, one frame at
  // a time), seconds at that depth.
  static constexpr int kDeepStack = 1000;
  static constexpr int kDeepShown = 10;
  static int traceback(lua_State* L) {
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
  // coroutine.resume that tells the watchdog which Lua thread runs (a leaf's own coroutine
  // that loops for ever is stopped too); otherwise the standard one.
  static int co_resume(lua_State* L) {
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

  // ---- blackboard objects: agent.bb.key reads and writes, typed (SPEC 6) ----
  struct BbRef {
    uint32_t agent;
  };
  static AgentInfo& bb_agent(lua_State* L, LuaHost& h) {
    auto* ref = static_cast<BbRef*>(lua_touserdata(L, 1));
    return h.rt_.agents[ref->agent];
  }
  // Inside a leaf call, only the running agent's blackboard: another's (kept from its own call
  // in a shared table or an upvalue) would be read or written from another agent's leaf, on
  // another worker's thread perhaps (SPEC 8.2: a leaf touches only its own agent; the results
  // changed with --threads). Pushes the error and returns false; the caller raises.
  static bool own_blackboard(lua_State* L, LuaHost& h, const AgentInfo& a) {
    const CallSite* at = h.current();
    if (!at || at->agent == &a) return true;
    luaL_where(L, 1);
    lua_pushfstring(L,
                    "agent %I's blackboard, reached from agent %I's leaf (kept in a shared table or an upvalue): a "
                    "leaf reads and writes only its own agent's blackboard (to reach another agent: agent:signal "
                    "in a scenario, thicket.send)",
                    static_cast<lua_Integer>(a.id), static_cast<lua_Integer>(at->agent->id));
    lua_concat(L, 2);
    return false;
  }
  // Errors are raised (lua_error longjmps) only from frames with no live C++ objects:
  // these helpers push the message and return, the caller raises.
  static void push_unknown_key(lua_State* L, LuaHost& h, const AgentInfo& a, const char* key) {
    const Program& p = h.rt_.program_of(a);
    std::vector<std::string> names;
    for (const auto& k : p.blackboard) names.push_back(k.name);
    std::string msg = "blackboard has no key '" + clipped(key) + "'" + did_you_mean(key, names) +
                      (names.empty() ? " (no keys are declared: add them under 'blackboard:' in the brain file)"
                                     : " (declared: " + join_names(names) + ")");
    luaL_where(L, 1);
    lua_pushstring(L, msg.c_str());
    lua_concat(L, 2);
  }
  static void push_wrong_type(lua_State* L, const BlackboardKey& key) {
    int t = lua_type(L, 3);
    std::string got = luaL_typename(L, 3);
    if (t == LUA_TNUMBER) got = lua_isinteger(L, 3) ? "integer" : "number";
    size_t len = 0;
    const char* text = luaL_tolstring(L, 3, &len);
    std::string value = clipped(std::string_view(text, len));
    lua_pop(L, 1);
    if (t == LUA_TSTRING) value = "'" + value + "'";
    std::string msg = "blackboard key '" + key.name + "' is declared " + std::string(value_type_name(key.type)) +
                      "; cannot set it to " +
                      (t == LUA_TNIL ? std::string("nil (a declared key always holds a value: set its default instead)")
                                     : (got == "integer" ? "an " : "a ") + got + " (" + value + ")");
    luaL_where(L, 1);
    lua_pushstring(L, msg.c_str());
    lua_concat(L, 2);
  }
  static int bb_index(lua_State* L) {
    LuaHost& h = host(L);
    AgentInfo& a = bb_agent(L, h);
    if (!own_blackboard(L, h, a)) return lua_error(L);
    lua_pushvalue(L, 2);
    if (lua_rawget(L, lua_upvalueindex(2)) != LUA_TNUMBER) {
      push_unknown_key(L, h, a, luaL_tolstring(L, 2, nullptr));
      return lua_error(L);
    }
    auto slot = static_cast<uint32_t>(lua_tointeger(L, -1));
    const Slot& v = h.rt_.slots_of(a)[slot];
    switch (h.rt_.program_of(a).blackboard[slot].type) {
      case ValueType::Number: lua_pushnumber(L, v.num); break;
      case ValueType::Integer: lua_pushinteger(L, v.i); break;
      case ValueType::Boolean: lua_pushboolean(L, v.i != 0); break;
      case ValueType::String: {
        std::string_view s = h.rt_.strings.get(v.str);
        lua_pushlstring(L, s.data(), s.size());
        break;
      }
      case ValueType::Any: lua_rawgeti(L, LUA_REGISTRYINDEX, v.ref); break;
    }
    return 1;
  }
  static int bb_newindex(lua_State* L) {
    LuaHost& h = host(L);
    AgentInfo& a = bb_agent(L, h);
    if (!own_blackboard(L, h, a)) return lua_error(L);
    lua_pushvalue(L, 2);
    if (lua_rawget(L, lua_upvalueindex(2)) != LUA_TNUMBER) {
      push_unknown_key(L, h, a, luaL_tolstring(L, 2, nullptr));
      return lua_error(L);
    }
    auto slot = static_cast<uint32_t>(lua_tointeger(L, -1));
    lua_pop(L, 1);
    const BlackboardKey& key = h.rt_.program_of(a).blackboard[slot];
    Slot& v = h.rt_.slots_of(a)[slot];
    int t = lua_type(L, 3);
    auto wrong = [&]() {
      push_wrong_type(L, key);
      return lua_error(L);
    };
    switch (key.type) {
      case ValueType::Number:
        if (t != LUA_TNUMBER) return wrong();
        v.num = lua_tonumber(L, 3);
        break;
      case ValueType::Integer: {
        int is_int = 0;
        lua_Integer i = lua_tointegerx(L, 3, &is_int);  // floats with an exact integer value pass
        if (t != LUA_TNUMBER || !is_int) return wrong();
        v.i = i;
        break;
      }
      case ValueType::Boolean:
        if (t != LUA_TBOOLEAN) return wrong();
        v.i = lua_toboolean(L, 3);
        break;
      case ValueType::String: {
        if (t != LUA_TSTRING) return wrong();
        size_t len;
        const char* s = lua_tolstring(L, 3, &len);
        if (!text_fits(L, h, std::string_view(s, len), "blackboard")) return lua_error(L);
        v.str = h.rt_.strings.intern(std::string_view(s, len));
        break;
      }
      case ValueType::Any:
        if (v.ref != LUA_NOREF && v.ref != LUA_REFNIL) luaL_unref(L, LUA_REGISTRYINDEX, v.ref);
        lua_pushvalue(L, 3);
        v.ref = luaL_ref(L, LUA_REGISTRYINDEX);
        break;
    }
    return 0;
  }
  static int bb_tostring(lua_State* L) {
    LuaHost& h = host(L);
    AgentInfo& a = bb_agent(L, h);
    lua_pushfstring(L, "blackboard of agent %d", static_cast<int>(a.id));
    return 1;
  }
};

// A helper Lua chunk for what reads best in Lua: wait and defer.
static const char* kThicketLua = R"LUA(
local thicket, yield, isyieldable, where = ...
local cancelling = 0  -- thicket.defer cleanups running while their task is cancelled
function thicket.wait(seconds)
  if not isyieldable() then
    if cancelling > 0 then
      error("thicket.wait in a thicket.defer cleanup of a cancelled task: the cleanup runs to its end at once, it cannot wait", 2)
    end
    error("thicket.wait can only be called inside a thicket.task", 2)
  end
  if type(seconds) ~= "number" then error("thicket.wait expects a number of seconds, got " .. type(seconds), 2) end
  local t0 = thicket.time()
  while thicket.time() - t0 < seconds - 1e-9 do yield() end
end
-- Lua's own words for a yield there have no position and name no cleanup.
local function yield_in_cleanup(message)
  if message == "attempt to yield across a C-call boundary" then
    return where() .. "a thicket.defer cleanup of a cancelled task cannot yield (coroutine.yield): it runs to its end at once"
  end
  return message
end
local function close(self)
  local fn = self[1]
  self[1] = nil
  if not fn then return end
  if isyieldable() then return fn() end  -- a task ending by itself: its cleanups may yield
  cancelling = cancelling + 1
  local ok, message = xpcall(fn, yield_in_cleanup)
  cancelling = cancelling - 1
  if not ok then error(message, 0) end
end
local Defer = { __close = close, __name = "thicket.defer", __metatable = "protected" }
function thicket.defer(fn)
  if type(fn) ~= "function" then error("thicket.defer expects a function", 2) end
  return setmetatable({ fn }, Defer)
end
)LUA";

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
  if (rt_.options.trusted) {
    luaL_openlibs(L_);
  } else {
    const luaL_Reg libs[] = {{LUA_GNAME, luaopen_base},        {LUA_STRLIBNAME, luaopen_string},
                             {LUA_TABLIBNAME, luaopen_table},  {LUA_MATHLIBNAME, luaopen_math},
                             {LUA_UTF8LIBNAME, luaopen_utf8},  {LUA_COLIBNAME, luaopen_coroutine}};
    for (const auto& lib : libs) {
      luaL_requiref(L_, lib.name, lib.func, 1);
      lua_pop(L_, 1);
    }
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
    __pairs = function() return next, data, nil end,
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

void LuaHost::push_leaf_global(const char* name) {
  lua_rawgeti(L_, LUA_REGISTRYINDEX, envs_ref_);
  lua_pushnil(L_);
  while (lua_next(L_, -2)) {
    if (lua_istable(L_, -1) && lua_getfield(L_, -1, name) != LUA_TNIL) {
      lua_replace(L_, -4);
      lua_pop(L_, 2);
      return;
    }
    lua_pop(L_, 2);
  }
  lua_pop(L_, 1);
  lua_pushnil(L_);
}

void LuaHost::push_file_env(lua_State* L, const std::string& path) {
  lua_rawgeti(L, LUA_REGISTRYINDEX, envs_ref_);
  if (lua_getfield(L, -1, path.c_str()) == LUA_TNIL) {
    lua_pop(L, 1);
    push_new_env(L, path, false);
    lua_pushvalue(L, -1);
    lua_setfield(L, -3, path.c_str());
  }
  lua_remove(L, -2);
}

void LuaHost::push_new_env(lua_State* L, const std::string& path, bool from_previous) {
  lua_rawgeti(L, LUA_REGISTRYINDEX, env_maker_ref_);
  lua_rawgeti(L, LUA_REGISTRYINDEX, thicket_ref_);
  lua_rawgeti(L, LUA_REGISTRYINDEX, module_meta_ref_);
  lua_rawgeti(L, LUA_REGISTRYINDEX, envs_ref_);
  if (from_previous) lua_getfield(L, -1, path.c_str());
  else lua_pushnil(L);
  lua_remove(L, -2);
  lua_call(L, 3, 1);
}

void LuaHost::keep_file_env(const std::string& path) {
  lua_rawgeti(L_, LUA_REGISTRYINDEX, envs_ref_);
  lua_pushvalue(L_, -2);
  lua_setfield(L_, -2, path.c_str());
  lua_pop(L_, 1);
}

void LuaHost::open_thicket_module() {
  lua_newtable(L_);  // the module
  const luaL_Reg fns[] = {{"time", LuaApi::time}, {"dt", LuaApi::dt},         {"tick", LuaApi::tick},
                          {"log", LuaApi::log},   {"random", LuaApi::random}, {"task", LuaApi::task},
                          {"restored", LuaApi::restored}, {"send", LuaApi::send},
                          {"spawn", LuaApi::spawn}, {"despawn", LuaApi::despawn},
                          {nullptr, nullptr}};
  lua_pushlightuserdata(L_, this);
  luaL_setfuncs(L_, fns, 1);
  lua_pushstring(L_, "success");
  lua_setfield(L_, -2, "SUCCESS");
  lua_pushstring(L_, "failure");
  lua_setfield(L_, -2, "FAILURE");
  lua_pushstring(L_, "running");
  lua_setfield(L_, -2, "RUNNING");
  lua_pushvalue(L_, -1);
  lua_pushcclosure(L_, LuaApi::module_has, 1);
  lua_setfield(L_, -2, "has");
  lua_pushvalue(L_, -1);
  thicket_ref_ = luaL_ref(L_, LUA_REGISTRYINDEX);
  // Tasks are recognised by this metatable.
  lua_newtable(L_);
  lua_pushstring(L_, "thicket.task");
  lua_setfield(L_, -2, "__name");
  lua_pushliteral(L_, "protected");
  lua_setfield(L_, -2, "__metatable");
  task_meta_ref_ = luaL_ref(L_, LUA_REGISTRYINDEX);
  // wait and defer, in Lua.
  luaL_loadbuffer(L_, kThicketLua, std::strlen(kThicketLua), "=(thicket)");
  lua_pushvalue(L_, -2);
  lua_getglobal(L_, "coroutine");
  lua_getfield(L_, -1, "yield");
  lua_getfield(L_, -2, "isyieldable");
  lua_remove(L_, -3);
  // where(): "file.lua:LINE: " of the innermost Lua function below the caller (a message
  // handler's: the line that raised the error, past C functions such as coroutine.yield).
  lua_pushcfunction(L_, [](lua_State* L) -> int {
    lua_Debug ar;
    for (int level = 2; level < 32 && lua_getstack(L, level, &ar); ++level) {
      if (lua_getinfo(L, "Sl", &ar) == 0 || ar.currentline <= 0) continue;
      if (std::strcmp(ar.source, "=(thicket)") == 0) continue;  // the sandbox's own Lua (coroutine.yield)
      lua_pushfstring(L, "%s:%d: ", ar.short_src, ar.currentline);
      return 1;
    }
    lua_pushliteral(L, "");
    return 1;
  });
  lua_call(L_, 4, 0);
  // math.random draws from the agent's stream too.
  lua_getglobal(L_, "math");
  lua_pushlightuserdata(L_, this);
  lua_pushcclosure(L_, LuaApi::random, 1);
  lua_setfield(L_, -2, "random");
  lua_pushnil(L_);
  lua_setfield(L_, -2, "randomseed");  // the run seed decides; scripts cannot reseed
  lua_pop(L_, 1);
  // require: package.loaded-like cache holding the module.
  lua_newtable(L_);
  push_module_face();
  lua_setfield(L_, -2, "thicket");
  loaded_ref_ = luaL_ref(L_, LUA_REGISTRYINDEX);
  if (rt_.options.trusted) {
    // Trusted scripts keep the standard package library; thicket is preloaded.
    lua_getglobal(L_, "package");
    lua_getfield(L_, -1, "loaded");
    lua_rawgeti(L_, LUA_REGISTRYINDEX, loaded_ref_);
    lua_getfield(L_, -1, "thicket");
    lua_setfield(L_, -3, "thicket");
    lua_pop(L_, 3);
  } else {
    lua_pushlightuserdata(L_, this);
    lua_pushcclosure(L_, LuaApi::require, 1);
    lua_setglobal(L_, "require");
  }
  lua_pop(L_, 1);  // the module table
}

// A metatable that keeps a view of the module (below it on the stack) read-only: unknown
// fields are errors with a did-you-mean, new fields are refused, the metatable is hidden.
static void push_module_guard(lua_State* L) {
  lua_newtable(L);
  lua_pushvalue(L, -2);
  lua_pushcclosure(L, LuaApi::module_missing, 1);
  lua_setfield(L, -2, "__index");
  lua_pushcfunction(L, LuaApi::module_write);
  lua_setfield(L, -2, "__newindex");
  lua_pushliteral(L, "protected: the thicket module is read-only");
  lua_setfield(L, -2, "__metatable");
}

// What scripts get from require("thicket"): a read-only face of the module table.
void LuaHost::push_module_face() {
  lua_rawgeti(L_, LUA_REGISTRYINDEX, thicket_ref_);
  if (module_meta_ref_ == LUA_NOREF) {  // the metatable of the files' copies
    push_module_guard(L_);
    module_meta_ref_ = luaL_ref(L_, LUA_REGISTRYINDEX);
  }
  lua_newuserdatauv(L_, 0, 0);
  lua_pushvalue(L_, -2);
  push_module_guard(L_);
  lua_remove(L_, -2);
  lua_pushvalue(L_, -3);
  lua_pushcclosure(L_, LuaApi::module_pairs, 1);
  lua_setfield(L_, -2, "__pairs");
  lua_pushliteral(L_, "thicket module");
  lua_setfield(L_, -2, "__name");
  lua_setmetatable(L_, -2);
  lua_remove(L_, -2);
}

void LuaHost::allow_module_dir(const std::string& dir) {
  std::string d = dir.empty() ? "." : dir;
  for (const auto& known : module_dirs_)
    if (known == d) return;
  module_dirs_.push_back(d);
  if (rt_.options.trusted) {
    lua_getglobal(L_, "package");
    lua_getfield(L_, -1, "path");
    std::string path = (fs::path(d) / "?.lua").string() + ";" + lua_tostring(L_, -1);
    lua_pop(L_, 1);
    lua_pushstring(L_, path.c_str());
    lua_setfield(L_, -2, "path");
    lua_pop(L_, 1);
  }
}

int& LuaHost::bb_meta_slot(Brain& b) {
  if (lane_ == 0) return b.bb_meta;
  if (b.lane_bb_meta.size() < lane_) b.lane_bb_meta.resize(lane_, LUA_NOREF);
  return b.lane_bb_meta[lane_ - 1];
}

void LuaHost::set_agent_metatable(int ref) {
  agent_methods_ref_ = ref;
  lua_rawgeti(L_, LUA_REGISTRYINDEX, ref);  // every agent has send among its methods
  lua_getfield(L_, -1, "__index");
  lua_pushlightuserdata(L_, this);
  lua_pushcclosure(L_, LuaApi::agent_send, 1);
  lua_setfield(L_, -2, "send");
  journal_wrap(-1, "agent:");  // every method (a simulation's world methods too)
  lua_pop(L_, 2);
}

void LuaHost::install_brain(Brain& b, uint32_t brain_index) {
  // key -> slot map shared by the metatable's closures; rebuilt when the brain reloads.
  lua_newtable(L_);
  const Program& p = *b.program;
  for (size_t k = 0; k < p.blackboard.size(); ++k) {
    lua_pushinteger(L_, static_cast<lua_Integer>(k));
    lua_setfield(L_, -2, p.blackboard[k].name.c_str());
  }
  int& bb_meta = bb_meta_slot(b);
  if (bb_meta == LUA_NOREF) {
    lua_newtable(L_);
    lua_pushvalue(L_, -1);
    bb_meta = luaL_ref(L_, LUA_REGISTRYINDEX);
  } else {
    lua_rawgeti(L_, LUA_REGISTRYINDEX, bb_meta);
  }
  lua_pushlightuserdata(L_, this);
  lua_pushvalue(L_, -3);
  lua_pushcclosure(L_, LuaApi::bb_index, 2);
  lua_setfield(L_, -2, "__index");
  lua_pushlightuserdata(L_, this);
  lua_pushvalue(L_, -3);
  lua_pushcclosure(L_, LuaApi::bb_newindex, 2);
  lua_setfield(L_, -2, "__newindex");
  lua_pushlightuserdata(L_, this);
  lua_pushcclosure(L_, LuaApi::bb_tostring, 1);
  lua_setfield(L_, -2, "__tostring");
  lua_pushstring(L_, "thicket.blackboard");
  lua_setfield(L_, -2, "__name");
  lua_pushliteral(L_, "protected: the blackboard's metatable is shared by every agent of the brain");
  lua_setfield(L_, -2, "__metatable");
  journal_wrap(-1, "agent.bb ", {"__index", "__newindex", "__tostring"});
  lua_pop(L_, 2);
  (void)brain_index;
}

void LuaHost::create_agent(AgentInfo& a) {
  lua_createtable(L_, 0, 2);  // id, bb; a leaf's own fields grow it
  lua_pushinteger(L_, a.id);
  lua_setfield(L_, -2, "id");
  auto* ref = static_cast<LuaApi::BbRef*>(lua_newuserdatauv(L_, sizeof(LuaApi::BbRef), 0));
  ref->agent = static_cast<uint32_t>(&a - rt_.agents.data());
  lua_rawgeti(L_, LUA_REGISTRYINDEX, bb_meta_slot(*rt_.brains[a.brain]));
  lua_setmetatable(L_, -2);
  lua_setfield(L_, -2, "bb");
  if (agent_methods_ref_ != LUA_NOREF) {  // a simulation's world methods: agent:position() ...
    lua_rawgeti(L_, LUA_REGISTRYINDEX, agent_methods_ref_);
    lua_setmetatable(L_, -2);
  }
  a.lua_agent = luaL_ref(L_, LUA_REGISTRYINDEX);
  a.lua_mem = LUA_NOREF;  // made on first use (push_mem)
}

void LuaHost::destroy_agent(AgentInfo& a) {
  // `any` blackboard values hold registry references.
  const Program& p = rt_.program_of(a);
  Slot* slots = rt_.slots_of(a);
  for (size_t k = 0; k < p.blackboard.size(); ++k)
    if (p.blackboard[k].type == ValueType::Any && slots[k].ref != LUA_NOREF && slots[k].ref != LUA_REFNIL)
      luaL_unref(L_, LUA_REGISTRYINDEX, slots[k].ref);
  if (journal_ && a.lua_mem != LUA_NOREF) {  // its running tasks' journals go with it
    lua_rawgeti(L_, LUA_REGISTRYINDEX, a.lua_mem);
    lua_pushnil(L_);
    while (lua_next(L_, -2)) {
      if (lua_type(L_, -1) == LUA_TTHREAD) journals_.erase(lua_tothread(L_, -1));
      lua_pop(L_, 1);
    }
    lua_pop(L_, 1);
  }
  luaL_unref(L_, LUA_REGISTRYINDEX, a.lua_agent);
  luaL_unref(L_, LUA_REGISTRYINDEX, a.lua_mem);
  a.lua_agent = a.lua_mem = LUA_NOREF;
}

}  // namespace thicket
