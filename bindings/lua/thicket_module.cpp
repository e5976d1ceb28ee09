// The `thicket` module (SPEC 7), its read-only copies and require(); the sandbox is set up in
// lua_sandbox.cpp, the agent and blackboard objects in lua_agents.cpp.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <optional>
#include <sstream>


#include "lua_api.hpp"
#include "lua_order.hpp"
#include "lua_host.hpp"
#include "runtime_impl.hpp"
#include "suggest.hpp"

namespace thicket {
namespace fs = std::filesystem;

int LuaApi::time(lua_State* L) {
  const AgentInfo* a = agent(L);
  lua_pushnumber(L, a ? a->time : 0.0);
  return 1;
}

int LuaApi::dt(lua_State* L) {
  const AgentInfo* a = agent(L);
  lua_pushnumber(L, a ? a->dt : 0.0);
  return 1;
}

int LuaApi::tick(lua_State* L) {
  const AgentInfo* a = agent(L);
  lua_pushinteger(L, a ? static_cast<lua_Integer>(a->ticks) : 0);
  return 1;
}

void LuaApi::push_joined(lua_State* L) {
  const int n = lua_gettop(L);
  luaL_Buffer b;
  luaL_buffinit(L, &b);
  size_t kept = 0, cut = 0;  // bytes of the line kept, and left out past kMaxShownLine
  for (int i = 1; i <= n; ++i) {
    if (i > 1) {
      if (cut == 0 && kept < kMaxShownLine) luaL_addchar(&b, '\t'), ++kept;
      else ++cut;
    }
    size_t len;
    const char* text = luaL_tolstring(L, i, &len);  // (on the stack: a buffer op may follow only luaL_addvalue)
    if (cut == 0 && len <= kMaxShownLine - kept) {
      luaL_addvalue(&b);
      kept += len;
      continue;
    }
    // Past the cap: what fits of it, cut where a UTF-8 character begins; the rest is counted.
    size_t take = cut == 0 ? kMaxShownLine - kept : 0;
    while (take > 0 && (static_cast<unsigned char>(text[take]) & 0xC0) == 0x80) --take;
    cut += len - take;
    if (take == 0) {
      lua_pop(L, 1);
      continue;
    }
    lua_pushlstring(L, text, take);
    lua_remove(L, -2);
    luaL_addvalue(&b);
    kept = kMaxShownLine;
  }
  if (cut > 0) {
    lua_pushfstring(L, " ... (%I more bytes: a line shows its first %d)", static_cast<lua_Integer>(cut), static_cast<int>(kMaxShownLine));
    luaL_addvalue(&b);
  }
  luaL_pushresult(&b);
}

int LuaApi::log(lua_State* L) {
  push_joined(L);
  size_t len;
  const char* joined = lua_tolstring(L, -1, &len);
  count_output(L, "thicket.log", len);
  const std::string line(joined, len);
  const CallSite* at = host(L).current();
  std::ostringstream out;
  if (at) out << "t=" << at->agent->time << " agent " << at->agent->id << ": ";
  out << line;
  host(L).rt_.log(out.str());
  return 0;
}

int LuaApi::random(lua_State* L) {
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
  } else if (n == 2) {
    lo = luaL_checkinteger(L, 1);
    hi = luaL_checkinteger(L, 2);
  } else {
    // As Lua 5.4's math.random (a third was ignored), naming the function as its other errors do.
    return luaL_error(L, "wrong number of arguments to 'random' (0, 1 or 2: random(), random(n), random(m, n))");
  }
  luaL_argcheck(L, lo <= hi, n == 1 ? 1 : 2, "interval is empty");
  lua_pushinteger(L, rng->range(lo, hi));
  return 1;
}

int LuaApi::restored(lua_State* L) {
  LuaHost& h = host(L);
  const CallSite* at = h.current();
  lua_pushboolean(L, at && h.task_restored(*at));
  return 1;
}

AgentHandle LuaApi::handle_of(LuaHost& h, lua_Integer id) {
  if (id <= 0 || id > UINT32_MAX) return {};
  const auto found = h.rt_.find_index(static_cast<uint32_t>(id));
  if (!found) return {};
  return AgentHandle{*found, h.rt_.agents[*found].generation};
}

int LuaApi::print(lua_State* L) {
  push_joined(L);
  size_t len;
  const char* joined = lua_tolstring(L, -1, &len);
  count_output(L, "print", len);
  host(L).rt_.print(std::string(joined, len));
  return 0;
}

// An agent prints and logs at most kMaxOutputBytesPerTick a tick: past it the call raises at its
// line, in every run alike whatever the threads (a parallel tick holds its lines until it ends:
// an agent printing in a loop held gigabytes). Raises before any C++ object lives in the caller.
void LuaApi::count_output(lua_State* L, const char* what, size_t len) {
  LuaHost& h = host(L);
  const CallSite* at = h.current();
  if (!at) return;  // a file's top level, at load: its time limit bounds it
  LuaHost::TickBudget& b = h.tick_budget(*at->agent);
  if (len + 1 > kMaxOutputBytesPerTick - b.bytes)
    luaL_error(L, "%s: agent %d printed and logged more than %d MB this tick (a print in a loop?); this line is not "
                  "written",
               what, static_cast<int>(at->agent->id), static_cast<int>(kMaxOutputBytesPerTick >> 20));
  b.bytes += len + 1;
}

LuaHost::TickBudget& LuaHost::tick_budget(const AgentInfo& a) {
  const auto index = static_cast<size_t>(&a - rt_.agents.data());
  if (tick_budget_.size() <= index) tick_budget_.resize(index + 1);
  TickBudget& b = tick_budget_[index];
  if (b.ticks != a.ticks || b.generation != a.generation) b = {a.ticks, a.generation, 0, 0};
  return b;
}

int LuaApi::refuse_in_scenario(lua_State* L, const char* what, const char* instead) {
  return luaL_error(L, "%s is not available in scenarios yet: a scenario's agents are spread over worker "
                       "runtimes and have bodies in the world%s", what, instead);
}

bool LuaApi::at_file_top_level(const LuaHost& h) { return !h.current() && !h.staging_file_.empty(); }

int LuaApi::refuse_at_top_level(lua_State* L, const char* what, const char* instead) {
  return luaL_error(L, "%s at a leaf file's top level: the file runs while it loads or reloads, before the load is "
                       "judged, and what it changed there could not be undone if the load failed; %s (or from "
                       "on_reload, which is called once a reload has succeeded)", what, instead);
}

bool LuaApi::text_fits(lua_State* L, LuaHost& h, std::string_view text, const char* what) {
  const size_t cap = h.rt_.options.lua_memory_limit;
  if (cap == 0 || h.rt_.strings.bytes() + StringTable::cost(text.size()) <= cap || h.rt_.strings.contains(text)) return true;
  const std::string msg = std::string(what) + ": a new text of " + std::to_string(text.size()) +
                          " bytes, and the run's texts (every distinct text scripts have written to a "
                          "blackboard, spawned with or sent as an event, kept for the whole run) already take " +
                          byte_size(h.rt_.strings.bytes()) + " of the " + byte_size(cap) +
                          " cap (--lua-memory; lua_memory_limit when embedded); write fewer distinct texts (a number instead of a formatted text?)";
  luaL_where(L, 1);  // FILE:LINE: of the script's line, as luaL_error gives
  lua_pushstring(L, msg.c_str());
  lua_concat(L, 2);
  return false;
}

int LuaApi::send(lua_State* L) {
  LuaHost& h = host(L);
  const lua_Integer id = luaL_checkinteger(L, 1);
  if (at_file_top_level(h)) return refuse_at_top_level(L, "thicket.send", "send from a leaf");
  if (h.world && !(h.current() && h.current()->agent->id == id)) return refuse_in_scenario(L, "thicket.send to another agent", " (agent:send to the leaf's own agent works)");
  size_t len;
  const char* name = luaL_checklstring(L, 2, &len);
  luaL_argcheck(L, len > 0, 2, "an event name must not be empty");
  if (!text_fits(L, h, std::string_view(name, len), "thicket.send")) return lua_error(L);
  const AgentHandle target = handle_of(h, id);
  // At most kMaxSendsPerTick sends a tick from one agent's leaves: each is kept until the tick
  // ends (4,096 to each target: a loop over 200 agents' ids held 6 GB).
  if (const CallSite* at = h.current(); at && ++h.tick_budget(*at->agent).sends > kMaxSendsPerTick)
    return luaL_error(L, "thicket.send: agent %d sent more than %d events this tick (a send in a loop?); this one is "
                         "not sent",
                      static_cast<int>(at->agent->id), static_cast<int>(kMaxSendsPerTick));
  if (target.valid()) h.event_typo(h.rt_.agents[target.index], std::string_view(name, len));
  lua_pushboolean(L, h.rt_.send_or_defer(target, std::string_view(name, len)));
  return 1;
}

int LuaApi::despawn(lua_State* L) {
  LuaHost& h = host(L);
  if (at_file_top_level(h)) return refuse_at_top_level(L, "thicket.despawn", "despawn from a leaf");
  if (h.world) return refuse_in_scenario(L, "thicket.despawn", " (a scenario's groups and their counts make its agents)");
  const AgentHandle target = handle_of(h, luaL_checkinteger(L, 1));
  if (target.valid()) h.rt_.despawn_or_defer(target);
  lua_pushboolean(L, target.valid());
  return 1;
}

int LuaApi::spawn(lua_State* L) {
  LuaHost& h = host(L);
  if (at_file_top_level(h)) return refuse_at_top_level(L, "thicket.spawn", "spawn from a leaf, once the brains are loaded");
  if (h.world) return refuse_in_scenario(L, "thicket.spawn", " (a scenario's groups and their counts make its agents)");
  size_t name_len = 0;
  const char* name = luaL_checklstring(L, 1, &name_len);
  // (A NUL would end the name early: "nul\0x" found the brain nul.)
  luaL_argcheck(L, std::strlen(name) == name_len, 1, "a brain's name holds no NUL byte");
  if (!lua_isnoneornil(L, 2)) luaL_checktype(L, 2, LUA_TTABLE);
  const lua_Integer id = luaL_optinteger(L, 3, 0);
  luaL_argcheck(L, lua_isnoneornil(L, 3) || (id >= 1 && id <= UINT32_MAX), 3,
                "an agent id is a whole number from 1 to 4294967295 (leave it out for the next free id)");
  if (!spawn_checked(L, h, name, static_cast<uint32_t>(id))) return lua_error(L);  // its message is pushed
  return 1;
}

bool LuaApi::spawn_checked(lua_State* L, LuaHost& h, const char* name, uint32_t id) {
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
      size_t key_len = 0;
      const char* key_text = lua_tolstring(L, -2, &key_len);
      const std::string key(key_text, key_len);  // whole: "hp\0x" is no key hp
      const BlackboardKey* declared = nullptr;
      for (const BlackboardKey& k : p.blackboard)
        if (k.name == key) declared = &k;
      if (!declared) {  // the names, for the message only
        std::vector<std::string> keys;
        for (const BlackboardKey& k : p.blackboard) keys.push_back(k.name);
        return refuse("brain '" + p.name + "' has no blackboard key '" + shown_name(key) + "'" + did_you_mean(key, keys) +
                      (keys.empty() ? " (it declares none)" : " (declared: " + join_names(keys) + ")"));
      }
      const int t = lua_type(L, -1);
      Value v;
      int is_int = 0;
      const lua_Integer whole = t == LUA_TNUMBER ? lua_tointegerx(L, -1, &is_int) : 0;
      switch (t) {
        case LUA_TBOOLEAN: v = static_cast<bool>(lua_toboolean(L, -1)); break;
        case LUA_TNUMBER:
          // An integer key takes a float with a whole value (2.0), as agent.bb does; nan, as
          // agent.bb does not, is refused.
          if (declared->type == ValueType::Number && std::isnan(lua_tonumber(L, -1)))
            return refuse("blackboard key '" + clipped(key) + "' takes no nan (not a number: 0/0?)");
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
                  "; no agent spawned (raise it with thicket run --max-agents N; max_script_agents when embedded)");
  // The agents' node state (each agent a block of its brain's size): a leaf spawning a brain of
  // 70,000 nodes (545 KB an agent) in a loop took the host's memory long before the agent cap.
  size_t state = 0;
  for (const auto& b : h.rt_.brains) state += b->storage.size();
  const size_t block = h.rt_.brains[brain->index]->program->block_size;
  state += h.rt_.queued_spawns.load(std::memory_order_relaxed) * block;
  if (const size_t cap_bytes = h.rt_.options.max_script_state_bytes; cap_bytes > 0 && state + block > cap_bytes)
    return refuse("the agents' node state would pass " + std::to_string(cap_bytes >> 20) + " MiB (" +
                  std::to_string(state >> 20) + " MiB now, and an agent of brain " + std::string(name) + " takes " +
                  std::to_string((block + 1023) >> 10) + " KiB); no agent spawned (max_script_state_bytes when embedded)");
  const bool deferred = h.rt_.ticking;
  const AgentHandle made = h.rt_.spawn_or_defer(*brain, bb, id);
  if (deferred) lua_pushboolean(L, 1);
  else if (made.valid()) lua_pushinteger(L, h.rt_.agents[made.index].id);
  else lua_pushboolean(L, 0);
  return true;
}

int LuaApi::task(lua_State* L) {
  luaL_checktype(L, 1, LUA_TFUNCTION);
  lua_createtable(L, 1, 0);
  lua_pushvalue(L, 1);
  lua_rawseti(L, -2, 1);
  lua_rawgeti(L, LUA_REGISTRYINDEX, host(L).task_meta_ref_);
  lua_setmetatable(L, -2);
  return 1;
}

// The message handler of a module's top level: Lua's words for a yield there have no position
// ("attempt to yield across a C-call boundary", require being a C function; "... from outside a
// coroutine" in a plain leaf), so the require's line was blamed, with a hint that did not fit.
// Said at the yield's own file and line.
static int module_yield_error(lua_State* L) {
  const char* message = lua_tostring(L, 1);
  if (message == nullptr || (std::strcmp(message, "attempt to yield across a C-call boundary") != 0 &&
                             std::strcmp(message, "attempt to yield from outside a coroutine") != 0))
    return 1;  // as it was
  lua_Debug ar;
  lua_pushliteral(L, "");
  for (int level = 1; lua_getstack(L, level, &ar); ++level) {
    lua_getinfo(L, "Sl", &ar);
    if (ar.currentline > 0) {
      lua_pop(L, 1);
      lua_pushfstring(L, "%s:%d: ", ar.short_src, ar.currentline);
      break;
    }
  }
  lua_pushliteral(L, "a module's top level cannot yield (coroutine.yield): require runs it to its end at once; yield in "
                     "the task that calls the module's functions");
  lua_concat(L, 2);
  return 1;
}

int LuaApi::require(lua_State* L) {
  int results = require_impl(L);
  if (results < 0) return lua_error(L);  // the message is on the stack; our strings are gone
  return results;
}

std::vector<std::string> LuaApi::require_dirs(LuaHost& h) {
  std::vector<std::string> dirs;
  auto add = [&](const std::string& file) {
    fs::path parent = fs::path(file).parent_path();
    const std::string d = parent.empty() ? std::string(".") : parent.string();
    if (std::find(dirs.begin(), dirs.end(), d) == dirs.end()) dirs.push_back(d);
  };
  if (h.current()) {
    for (const auto& f : h.current()->program->leaf_files) add(f);
  } else {
    for (const auto& f : h.loading_files_) add(f);
  }
  return dirs;
}

void LuaApi::where_in_script(lua_State* L) {
  lua_Debug ar;
  for (int level = 1; lua_getstack(L, level, &ar); ++level) {
    lua_getinfo(L, "Sl", &ar);
    if (std::strcmp(ar.source, "=(thicket)") == 0 || ar.currentline <= 0) continue;
    lua_pushfstring(L, "%s:%d: ", ar.short_src, ar.currentline);
    return;
  }
  lua_pushliteral(L, "");
}

int LuaApi::require_impl(lua_State* L) {
  LuaHost& h = host(L);
  // A module's name names a file: an empty name ("no file '.lua'") and one with a NUL
  // (searched for up to the NUL, and said as that) are said as such.
  size_t name_len = 0;
  const char* name_text = luaL_checklstring(L, 1, &name_len);
  std::string name(name_text, name_len);
  if (name.empty() || name.find('\0') != std::string::npos) {
    where_in_script(L);
    lua_pushfstring(L, "require: a module's name %s (a Lua file beside the leaf files, without '.lua')",
                    name.empty() ? "is empty" : "holds a NUL character, which no file name can");
    lua_concat(L, 2);
    return -1;
  }
  lua_rawgeti(L, LUA_REGISTRYINDEX, h.loaded_ref_);
  if (name == "thicket") {
    lua_getfield(L, -1, "thicket");
    return 1;
  }
  // Found before by this brain's leaves (and still loaded): no search.
  const Program* brain = h.current() && h.staging_file_.empty() ? h.current()->program : nullptr;
  if (brain) {
    if (auto found = h.require_found_.find({brain, name}); found != h.require_found_.end()) {
      if (lua_getfield(L, -1, found->second.c_str()) != LUA_TNIL) return 1;
      lua_pop(L, 1);
    }
  }
  // Words joined by single dots: `ai..util`, `ai/util`, `.util` and `util.` were taken (the
  // first two loaded ai/util.lua by the file system's reading of `ai//util`), though names with
  // `..` and paths are refused; `../x` was said as "not found".
  if (name.find("..") != std::string::npos || name.front() == '.' || name.back() == '.' ||
      name.find_first_of("/\\") != std::string::npos) {
    where_in_script(L);  // the line of the require
    lua_pushfstring(L,
                    "require: module name '%s' is refused: a module is named by words joined by single dots "
                    "(require(\"ai.util\") loads ai/util.lua beside the leaf files); '..', '/', '\\' and a leading or "
                    "trailing dot are not allowed, and modules are found only beside the brain's leaf files",
                    shown_name(name).c_str());
    lua_concat(L, 2);
    return -1;
  }
  std::string rel = name;
  for (char& ch : rel)
    if (ch == '.') ch = '/';
  std::string tried;
  for (const auto& dir : require_dirs(h)) {
    std::string p = (fs::path(dir) / (rel + ".lua")).lexically_normal().string();
    // Which leaf file needs it, for hot reload (module_users): the one loading now.
    if (!h.staging_file_.empty() && fs::exists(p)) h.module_users_[p].insert(h.staging_file_);
    // Modules are cached by file, so two brains' modules of one name stay apart.
    if (lua_getfield(L, -1, p.c_str()) != LUA_TNIL) {
      if (brain) h.require_found_[{brain, name}] = p;
      return 1;
    }
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
      lua_pushfstring(L, "module '%s' (%s) is not a plain file (a pipe, a device or a folder)", shown_name(name).c_str(),
                      shown_name(p).c_str());
      lua_concat(L, 2);
      return -1;
    }
    if (LuaHost::load_lua_file(L, p) != LUA_OK) return -1;  // (read once: whatever the file is swapped for)
    // A module has its own globals too, apart from those of a leaf file of the same path: a
    // leaf file required by another as a module runs again in globals of its own, not in the
    // leaf file's (whose counters and state it reset, one mod breaking another).
    h.push_file_env(L, "(module) " + p);
    lua_setupvalue(L, -2, 1);
    lua_pushstring(L, name.c_str());
    h.modules_loading_.push_back(p);
    lua_pushcfunction(L, module_yield_error);  // under the chunk and its argument
    lua_insert(L, -3);
    const int loaded = lua_pcall(L, 1, 1, lua_gettop(L) - 2);
    lua_remove(L, -2);  // the handler
    h.modules_loading_.pop_back();
    if (loaded != LUA_OK) return -1;
    if (lua_isnil(L, -1)) {
      // A module runs in globals of its own, so one that returns nothing offers nothing: most
      // likely a file emptied or not yet written (a save under way, `: > util.lua`), which
      // Lua's require took for `true` and a reload then handed on to every leaf file.
      lua_pop(L, 1);
      where_in_script(L);  // the line of the require
      std::error_code size_error;
      const bool empty = fs::file_size(p, size_error) == 0 && !size_error;
      lua_pushfstring(L, "module '%s' (%s) %s: a module ends with `return` of what it offers (return M)",
                      shown_name(name).c_str(), shown_name(p).c_str(), empty ? "is empty" : "returned nothing");
      lua_concat(L, 2);
      return -1;
    }
    lua_pushvalue(L, -1);
    lua_setfield(L, -3, p.c_str());
    if (brain) h.require_found_[{brain, name}] = p;
    return 1;
  }
  // A module named as its file (require("util.lua")), or a near name of a file that is there.
  std::string hint;
  const auto is_one_of = [&](std::initializer_list<const char*> names) {
    return std::any_of(names.begin(), names.end(), [&](const char* n) { return name == n; });
  };
  if (is_one_of({"string", "table", "math", "utf8", "coroutine", "os", "_G"})) {
    // Lua's own libraries are globals already (require("string") is how some code reads them).
    hint = "; '" + name + "' is Lua's standard library, open in leaf files as the global `" + name +
           "`: use it without require" + (name == "os" ? " (the sandbox's os has only os.clock and os.time)" : "");
  } else if (is_one_of({"io", "debug", "package"})) {
    hint = "; '" + name +
           "' is Lua's standard library, which leaf scripts' sandbox leaves out: --trusted opens Lua's whole standard "
           "library; guide 8.10";
  } else if (rel.size() > 4 && rel.compare(rel.size() - 4, 4, "/lua") == 0) {
    hint = "; a module is named without '.lua': require(\"" + shown_name(name.substr(0, name.size() - 4)) + "\")";
  } else {
    std::vector<std::string> there = {"thicket"};
    for (const auto& dir : require_dirs(h)) {
      std::error_code error;
      for (fs::directory_iterator it(dir, error), end; !error && it != end && there.size() < 10000; it.increment(error))
        if (it->path().extension() == ".lua") there.push_back(it->path().stem().string());
    }
    hint = did_you_mean(name, there);
  }
  where_in_script(L);  // the line of the require
  lua_pushfstring(L, "module '%s' not found%s (modules are found only beside the brain's leaf files):%s",
                  shown_name(name).c_str(), hint.c_str(), without_controls(tried).c_str());
  lua_concat(L, 2);
  return -1;
}

void LuaApi::push_unknown_field(lua_State* L, const char* key) {
  LuaHost& h = host(L);
  std::string asked = "module " + std::to_string(reinterpret_cast<uintptr_t>(lua_topointer(L, lua_upvalueindex(1)))) +
                      " " + key;
  if (asked != h.missing_key_) {  // a leaf reading the same misspelt field every tick: once
    std::vector<std::string> names;
    lua_pushnil(L);
    while (lua_next(L, lua_upvalueindex(1))) {
      if (lua_type(L, -2) == LUA_TSTRING) names.push_back(lua_tostring(L, -2));
      lua_pop(L, 1);
    }
    std::sort(names.begin(), names.end());
    h.missing_msg_ = "the thicket module has no field '" + clipped(key) + "'" + did_you_mean(key, names) +
                     " (fields: " + join_names(names) + "; thicket.has(name) asks without an error)";
    h.missing_key_ = std::move(asked);
  }
  luaL_where(L, 1);
  lua_pushlstring(L, h.missing_msg_.data(), h.missing_msg_.size());
  lua_concat(L, 2);
}

int LuaApi::module_missing(lua_State* L) {
  lua_pushvalue(L, 2);
  if (lua_rawget(L, lua_upvalueindex(1)) != LUA_TNIL) return 1;
  push_unknown_field(L, luaL_tolstring(L, 2, nullptr));
  return lua_error(L);
}

int LuaApi::module_write(lua_State* L) {
  luaL_where(L, 1);
  lua_pushfstring(L, "the thicket module is read-only (cannot set '%s'); keep your own values in a local table "
                     "or on the agent",
                  luaL_tolstring(L, 2, nullptr));
  lua_remove(L, -2);
  lua_concat(L, 2);
  return lua_error(L);
}

int LuaApi::module_pairs(lua_State* L) {  // in the same order in every run (lua_order.cpp)
  lua_pushvalue(L, lua_upvalueindex(1));
  push_ordered_pairs(L, -1);
  return 3;
}

int LuaApi::module_has(lua_State* L) {
  luaL_checkstring(L, 1);
  lua_pushvalue(L, 1);
  lua_pushboolean(L, lua_rawget(L, lua_upvalueindex(1)) != LUA_TNIL);
  return 1;
}

// thicket.defer's cleanups, in Lua: what the closing of a defer value does reads best there.
// The chunk gives back the metatable of the values thicket.defer makes, and a function that
// tells whether a cancelled task's cleanup is running (thicket.wait cannot wait then).
static const char* kThicketLua = R"LUA(
local may_yield, where, call_at_once = ...
local cancelling = 0  -- thicket.defer cleanups running while their task is cancelled
-- Lua's own words for a yield there have no position and name no cleanup.
-- An error object that is no text gets its line here, where the stack still shows it (the
-- closing that reports it has unwound it: it was said with no file or line).
local function yield_in_cleanup(message)
  if message == "attempt to yield across a C-call boundary" then
    return where() .. "a thicket.defer cleanup of a cancelled or failed task cannot yield (coroutine.yield): it runs to its end at once"
  end
  local kind = type(message)
  if kind ~= "string" and kind ~= "number" then return where() .. "(error object is a " .. kind .. " value)" end
  return message
end
local function close(self)
  local fn = self[1]
  self[1] = nil
  if not fn then return end
  if may_yield() then return fn() end  -- a task ending by itself: its cleanups may yield
  cancelling = cancelling + 1
  local ok, message = call_at_once(fn, yield_in_cleanup)
  cancelling = cancelling - 1
  if not ok then error(message, 0) end
end
local Defer = { __close = close, __name = "thicket.defer", __metatable = "protected" }
return Defer, function() return cancelling > 0 end
)LUA";

// thicket.wait and thicket.defer are C functions, as the library's own: a Lua function that is
// tail-called (`return thicket.wait(x)`) takes its caller's frame away, and its errors named no
// line. Their errors are raised with luaL_error and luaL_argerror: at the caller's line.

// thicket.defer(fn): a to-be-closed value that calls fn when closed (upvalue 1: its metatable).
int LuaApi::defer(lua_State* L) {
  luaL_checktype(L, 1, LUA_TFUNCTION);
  lua_createtable(L, 1, 0);
  lua_pushvalue(L, 1);
  lua_rawseti(L, -2, 1);
  lua_pushvalue(L, lua_upvalueindex(1));
  lua_setmetatable(L, -2);
  return 1;
}

// The sim time, from the module's time function (upvalue 1: the module), which a journaled
// task's replay answers from its journal.
static lua_Number wait_clock(lua_State* L) {
  lua_getfield(L, lua_upvalueindex(1), "time");
  lua_call(L, 0, 1);
  const lua_Number now = lua_tonumber(L, -1);
  lua_pop(L, 1);
  return now;
}

// thicket.wait's loop, and its continuation after each yield: stack 1 the seconds, 2 the
// time of the call. The test of the wait node (SPEC 3.1): elapsed >= seconds, within 1e-9.
static int wait_more(lua_State* L, int, lua_KContext) {
  lua_settop(L, 2);
  if (wait_clock(L) - lua_tonumber(L, 2) < lua_tonumber(L, 1) - 1e-9) return lua_yieldk(L, 0, 0, wait_more);
  return 0;
}

// thicket.wait(seconds): yields the task until that much sim time has passed (upvalue 1: the
// module; 2: whether a cancelled task's cleanup runs).
int LuaApi::wait(lua_State* L) {
  LuaHost& h = host(L);
  const CallSite* at = h.current();
  const bool in_task = at && h.rt_.leaves[at->program->calls[at->program->nodes[at->node].a].leaf_id].shape ==
                                 LeafShape::Task;
  if (!lua_isyieldable(L)) {
    lua_pushvalue(L, lua_upvalueindex(2));
    lua_call(L, 0, 1);
    if (lua_toboolean(L, -1))
      return luaL_error(L, "thicket.wait in a thicket.defer cleanup of a cancelled or failed task: the cleanup runs "
                           "to its end at once, it cannot wait");
    lua_pushthread(L);
    if (in_task && is_task_thread(L, -1))
      return luaL_error(L, "thicket.wait cannot wait here: it is called by a library function that cannot pause "
                           "(a table.sort comparison, a string.gsub replacement); wait in the task's own code");
    return luaL_error(L, "thicket.wait can only be called inside a thicket.task");
  }
  if (h.unwinding_ == L)  // a `__close` of the task's own, run as its error unwinds it
    return luaL_error(L, "thicket.wait in a cleanup of a failed task: its cleanups run to their end at once, they "
                         "cannot wait");
  lua_pushthread(L);
  const bool task_thread = is_task_thread(L, -1);
  lua_pop(L, 1);
  // Inside a coroutine the leaf made, a yield pauses that coroutine only: the wait returned at
  // once to whoever resumed it, and the task went on without waiting.
  if (!task_thread && in_task)
    return luaL_error(L, "thicket.wait must be called from the task itself, not from a coroutine inside it (there "
                         "it would pause only that coroutine, and the task would go on at once)");
  if (!task_thread) return luaL_error(L, "thicket.wait can only be called inside a thicket.task");
  // As the wait node's seconds (a load error there): a negative or NaN wait would end at once,
  // hiding the mistake. An infinite one waits for ever, as `wait: .inf` does.
  if (lua_type(L, 1) != LUA_TNUMBER) return luaL_typeerror(L, 1, "number of seconds");
  const lua_Number seconds = lua_tonumber(L, 1);
  if (std::isnan(seconds)) return luaL_argerror(L, 1, "a number of seconds expected, got nan (not a number)");
  if (seconds < 0) {
    lua_pushfstring(L, "seconds must not be negative, got %s", luaL_tolstring(L, 1, nullptr));
    return luaL_argerror(L, 1, lua_tostring(L, -1));
  }
  lua_settop(L, 1);
  lua_pushnumber(L, wait_clock(L));
  return wait_more(L, LUA_OK, 0);
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
  // wait and defer (the cleanups of defer values in Lua).
  luaL_loadbuffer(L_, kThicketLua, std::strlen(kThicketLua), "=(thicket)");
  lua_pushcfunction(L_, LuaApi::cleanup_may_yield);
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
  // call_at_once(fn, handler): xpcall(fn, handler) called where it may not yield (so neither
  // may fn), whether the caller may or not (a failed task's cleanups run as its error unwinds
  // it, where a yield would suspend the task).
  lua_pushcfunction(L_, [](lua_State* L) -> int {
    lua_settop(L, 2);
    lua_pushcfunction(L, LuaApi::xpcall);
    lua_insert(L, 1);
    lua_call(L, 2, LUA_MULTRET);  // no continuation: not yieldable
    return lua_gettop(L);
  });
  lua_call(L_, 3, 2);  // the metatable of defer values; whether a cancelled task's cleanup runs
  lua_pushvalue(L_, -3);  // the module
  lua_insert(L_, -2);
  lua_pushcclosure(L_, LuaApi::wait, 2);
  lua_setfield(L_, -3, "wait");
  lua_pushcclosure(L_, LuaApi::defer, 1);
  lua_setfield(L_, -2, "defer");
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
    // Lua names a function called with no name at its call (pcall(thicket.wait, -1)) by where
    // a loaded library holds it: "'thicket.wait'", not "'?'". (Scripts cannot reach this table.)
    luaL_getsubtable(L_, LUA_REGISTRYINDEX, LUA_LOADED_TABLE);
    lua_pushvalue(L_, -2);
    lua_setfield(L_, -2, "thicket");
    lua_pop(L_, 1);
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

void LuaHost::set_loading_files(std::vector<std::string> files) {
  loading_files_ = std::move(files);
  // --trusted: the folder of every leaf file of the brain on package.path before the first of
  // them runs, as the sandbox's require looks beside all of them (a file that requires a
  // module beside one listed after it found none), the first listed first.
  for (auto file = loading_files_.rbegin(); file != loading_files_.rend(); ++file)
    allow_module_dir(fs::path(*file).parent_path().string());
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

}  // namespace thicket
