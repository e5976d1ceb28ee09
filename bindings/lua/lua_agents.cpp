// The agent and blackboard objects leaves see (SPEC 6 and 7): agent.bb.key reads and writes,
// typed; agent:send; each brain's blackboard metatable and each agent's Lua table.
#include <cmath>
#include <cstdlib>
#include <string>
#include <vector>

#include "lua_api.hpp"
#include "lua_host.hpp"
#include "runtime_impl.hpp"
#include "suggest.hpp"
#include "yaml_scalar.hpp"

namespace thicket {

// agent:send(name): to the agent the table was made for, whatever its `id` field now holds (a
// leaf may keep its own fields on the table, `id` too: the event went to that agent, or none).
// A table kept past its agent's despawn sends to no one (false).
int LuaApi::agent_send(lua_State* L) {
  LuaHost& h = host(L);
  // agent.send("alarm"): the dot passes no agent, the name comes first.
  if (lua_type(L, 1) == LUA_TSTRING && lua_gettop(L) == 1)
    return luaL_error(L, "agent.send was called with a dot: write agent:send(name), with a colon, which passes the "
                         "agent (the event goes to it)");
  luaL_checktype(L, 1, LUA_TTABLE);
  lua_rawgeti(L, LUA_REGISTRYINDEX, h.agent_of_ref_);
  lua_pushvalue(L, 1);
  lua_rawget(L, -2);
  if (!lua_isinteger(L, -1))
    return luaL_argerror(L, 1, "not an agent table: send is called on the agent a leaf is given, agent:send(name)");
  const auto bound = static_cast<uint64_t>(lua_tointeger(L, -1));
  lua_pop(L, 2);
  const auto index = static_cast<uint32_t>(bound & 0xffffffffu);
  const auto generation = static_cast<uint32_t>(bound >> 32);
  lua_Integer id = 0;  // gone: thicket.send finds no agent 0
  if (index < h.rt_.agents.size() && h.rt_.agents[index].alive && h.rt_.agents[index].generation == generation)
    id = h.rt_.agents[index].id;
  lua_pushinteger(L, id);
  lua_replace(L, 1);
  return send(L);
}

AgentInfo& LuaApi::bb_agent(lua_State* L, LuaHost& h) {
  const auto* ref = static_cast<const BbRef*>(lua_touserdata(L, 1));
  AgentInfo& a = h.rt_.agents[ref->agent];
  if (a.alive && a.generation == ref->generation) return a;
  luaL_where(L, 1);
  lua_pushliteral(L, "the blackboard of an agent that has been despawned (its agent table was kept after it went): "
                     "it is gone, with its values");
  lua_concat(L, 2);
  lua_error(L);
  return a;  // (not reached)
}

bool LuaApi::own_blackboard(lua_State* L, LuaHost& h, const AgentInfo& a) {
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

void LuaApi::push_unknown_key(lua_State* L, LuaHost& h, const AgentInfo& a, const char* key_text) {
  const Program& p = h.rt_.program_of(a);
  // The key whole when it is text (one holding a NUL was named by its part before: "has no key
  // 'hp' (declared: hp)"), shown with its NUL escaped.
  const std::string key = lua_type(L, 2) == LUA_TSTRING ? std::string(lua_tostring(L, 2), lua_rawlen(L, 2)) : key_text;
  std::string asked = "blackboard " + std::to_string(reinterpret_cast<uintptr_t>(&p)) + " " + key;
  if (asked != h.missing_key_) {  // a leaf reading the same undeclared key every tick: once
    std::vector<std::string> names;
    for (const auto& k : p.blackboard) names.push_back(k.name);
    // A number: ipairs(agent.bb) or agent.bb[1], as if it were a list.
    const bool number = lua_type(L, 2) == LUA_TNUMBER;
    h.missing_msg_ = "blackboard has no key '" + shown_name(key) + "'" + did_you_mean(key, names) +
                     (number ? " (its keys are the names declared under 'blackboard:', read one by one as agent.bb.NAME: "
                               "it is no list, and ipairs and pairs do not walk it)"
                      : names.empty() ? " (no keys are declared: add them under 'blackboard:' in the brain file)"
                                    : " (declared: " + join_names(names) + ")");
    h.missing_key_ = std::move(asked);
  }
  luaL_where(L, 1);
  lua_pushlstring(L, h.missing_msg_.data(), h.missing_msg_.size());
  lua_concat(L, 2);
}

void LuaApi::push_wrong_type(lua_State* L, const Program& p, const BlackboardKey& key) {
  int t = lua_type(L, 3);
  std::string got = luaL_typename(L, 3);
  if (t == LUA_TNUMBER) got = lua_isinteger(L, 3) ? "integer" : "number";
  // The value of a text, number or boolean; a table's or function's address would change from
  // run to run (and make each repeat of the error a new one, past the repeat limit).
  std::string value;
  if (t == LUA_TSTRING || t == LUA_TNUMBER || t == LUA_TBOOLEAN) {
    size_t len = 0;
    const char* text = luaL_tolstring(L, 3, &len);
    value = clipped(std::string_view(text, len));
    lua_pop(L, 1);
  }
  if (t == LUA_TSTRING) value = "'" + value + "'";
  if (t == LUA_TNUMBER && std::isnan(lua_tonumber(L, 3))) value = "nan, not a number: 0/0?";  // Lua prints "-nan"
  // SPEC 6: the error names the key and the declared keys.
  std::vector<std::string> names;
  for (const auto& k : p.blackboard) names.push_back(k.name);
  const std::string declared = "declared: " + join_names(names);
  // A default written as a quoted number ("100") makes a text key: said with where it is.
  std::string quoted;
  if (key.type == ValueType::String && t == LUA_TNUMBER && !key.text_default.empty()) {
    char* end = nullptr;
    c_strtod(key.text_default.c_str(), &end);
    if (end && *end == '\0' && key.pos.line > 0 && key.pos.file < p.files.size())
      quoted = " (its default \"" + clipped(key.text_default, 40) + "\" at " + p.files[key.pos.file] + ":" +
               std::to_string(key.pos.line) + ":" + std::to_string(key.pos.column) +
               " is quoted, which makes it text: without the quotes it is a number)";
  }
  std::string msg = "blackboard key '" + key.name + "' is declared " + std::string(value_type_name(key.type)) + quoted +
                    "; cannot set it to " +
                    (t == LUA_TNIL ? "nil (a declared key always holds a value: set its default instead; " + declared + ")"
                                   : (got == "integer" ? "an " : "a ") + got + (value.empty() ? "" : " (" + value + ")") +
                                         " (" + declared + ")");
  luaL_where(L, 1);
  lua_pushstring(L, msg.c_str());
  lua_concat(L, 2);
}

// The slot of the key at index 2 (upvalue 2: the brain's key -> slot table); raises the Lua
// error for another agent's blackboard or an undeclared key. (lua_error longjmps out of this
// frame and its caller's: neither holds an object with a destructor when it is called.)
uint32_t LuaApi::bb_slot(lua_State* L, LuaHost& h, const AgentInfo& a) {
  if (!own_blackboard(L, h, a)) lua_error(L);
  lua_pushvalue(L, 2);
  if (lua_rawget(L, lua_upvalueindex(2)) != LUA_TNUMBER) {
    const int type = lua_type(L, 2);
    if (type != LUA_TSTRING && type != LUA_TNUMBER) {  // (its text was an address: 'table: 0x5646...')
      luaL_where(L, 1);
      lua_pushfstring(L, "blackboard keys are the names declared under 'blackboard:', read as agent.bb.NAME; got a %s as "
                         "a key", luaL_typename(L, 2));
      lua_concat(L, 2);
      lua_error(L);
    }
    const bool nan = type == LUA_TNUMBER && lua_tonumber(L, 2) != lua_tonumber(L, 2);  // ("-nan" from printf)
    push_unknown_key(L, h, a, nan ? "nan" : luaL_tolstring(L, 2, nullptr));
    lua_error(L);
  }
  const auto slot = static_cast<uint32_t>(lua_tointeger(L, -1));
  lua_pop(L, 1);
  return slot;
}

int LuaApi::bb_index(lua_State* L) {
  LuaHost& h = host(L);
  AgentInfo& a = bb_agent(L, h);
  const uint32_t slot = bb_slot(L, h, a);
  const Slot& v = h.rt_.slots_of(a)[slot];
  switch (h.rt_.program_of(a).blackboard[slot].type) {
    case ValueType::Number: lua_pushnumber(L, v.num); break;
    case ValueType::Integer: lua_pushinteger(L, v.i); break;
    case ValueType::Boolean: lua_pushboolean(L, v.i != 0); break;
    case ValueType::String: h.push_text(L, v.str); break;
    case ValueType::Any: lua_rawgeti(L, LUA_REGISTRYINDEX, v.ref); break;
  }
  return 1;
}

int LuaApi::bb_newindex(lua_State* L) {
  LuaHost& h = host(L);
  AgentInfo& a = bb_agent(L, h);
  if (at_file_top_level(h)) {  // (the text on Lua's stack: no C++ object lives across the longjmp)
    const char* what = lua_pushfstring(L, "agent %I's blackboard written", static_cast<lua_Integer>(a.id));
    return refuse_at_top_level(L, what, "write it from the agent's leaf");
  }
  const uint32_t slot = bb_slot(L, h, a);
  const BlackboardKey& key = h.rt_.program_of(a).blackboard[slot];
  Slot& v = h.rt_.slots_of(a)[slot];
  int t = lua_type(L, 3);
  auto wrong = [&]() {
    push_wrong_type(L, h.rt_.program_of(a), key);
    return lua_error(L);
  };
  switch (key.type) {
    case ValueType::Number: {
      if (t != LUA_TNUMBER) return wrong();
      const double d = lua_tonumber(L, 3);
      if (d != d)  // as a default, a scenario value or a signal of nan is refused
        return luaL_error(L, "blackboard key '%s' takes no nan (not a number: 0/0?): it compares false with everything, "
                             "so a health of nan never reaches 0", key.name.c_str());
      v.num = d;
      break;
    }
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
      // The text it holds already (a leaf setting its state every tick): nothing to intern. A
      // compare of the bytes, where interning hashed them and looked them up: a 2,000-byte text
      // cost ~390 ns a write.
      if (h.rt_.strings.get(v.str) == std::string_view(s, len)) break;
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

int LuaApi::bb_tostring(lua_State* L) {
  LuaHost& h = host(L);
  const auto* ref = static_cast<const BbRef*>(lua_touserdata(L, 1));
  const AgentInfo& a = h.rt_.agents[ref->agent];
  if (!a.alive || a.generation != ref->generation) lua_pushliteral(L, "blackboard of a despawned agent");
  else lua_pushfstring(L, "blackboard of agent %d", static_cast<int>(a.id));
  return 1;
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
  ref->generation = a.generation;
  lua_rawgeti(L_, LUA_REGISTRYINDEX, bb_meta_slot(*rt_.brains[a.brain]));
  lua_setmetatable(L_, -2);
  lua_setfield(L_, -2, "bb");
  lua_rawgeti(L_, LUA_REGISTRYINDEX, agent_of_ref_);
  lua_pushvalue(L_, -2);
  lua_pushinteger(L_, static_cast<lua_Integer>(uint64_t(a.generation) << 32 | ref->agent));
  lua_rawset(L_, -3);
  lua_pop(L_, 1);
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
