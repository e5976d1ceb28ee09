// Task journals (RuntimeOptions::journal_tasks; guide 8.6 "Tasks" and 11.6 "Checkpoints and
// resume"): how a running Lua task is saved exactly although Lua cannot save a coroutine.
//
// Live, every world call a task's coroutine makes (a host function that observes or changes
// anything outside the coroutine: the thicket module's functions, the agent's methods, agent.bb,
// print, math.random) goes through a gate that runs it and appends its results, as plain data,
// to the task run's journal; the run also counts its resumes. A snapshot keeps the journal and
// the count. After a restore, at the agent's next tick (or when the task is stopped first), a
// fresh coroutine of the same task function is resumed as many times as the run was, with the
// same agent and args; meanwhile the gates answer each world call with its journal entry and
// do nothing (no world effect, no random draw, no print, no blackboard write). When the
// resumes are done the journal must be used up exactly, else the replay diverged: the task
// starts again from its beginning (as without journaling, thicket.restored() true) and a
// warning names it. The agent table's own fields are the snapshot's after a replay (the
// replay's writes to them are undone). Plain Lua state the task keeps in its locals is
// rebuilt by the replay; state it keeps elsewhere (upvalues shared with other leaves, module
// tables) is not journaled: a task reaches the world through the API.
//
// A journal entry: u32 function id (FNV-1a of its name), u8 kind (0 results, 1 error), u32
// count, then the values (snapshot_plain.hpp tags; a table: tag, u32 border, u32 count, then
// key, value pairs in traversal order). A value that is not plain data, or a journal past its
// cap, makes the run unsaveable: a save while it runs is refused with the reason.
#include <algorithm>
#include <cmath>

#include "lua_host.hpp"
#include "lua_order.hpp"
#include "runtime_impl.hpp"

namespace thicket {

namespace {

uint32_t name_id(const char* s) {
  uint32_t h = 2166136261u;
  for (; *s; ++s) {
    h ^= static_cast<unsigned char>(*s);
    h *= 16777619u;
  }
  return h;
}

// Appends the value at idx to w; why it is not plain data (nothing sensible written) or nullptr.
const char* encode_value(lua_State* L, SnapshotWriter& w, int idx, int depth, std::vector<const void*>& path) {
  idx = lua_absindex(L, idx);
  switch (lua_type(L, idx)) {
    case LUA_TNIL: w.u8(static_cast<uint8_t>(PlainTag::Nil)); return nullptr;
    case LUA_TBOOLEAN: w.u8(static_cast<uint8_t>(lua_toboolean(L, idx) ? PlainTag::True : PlainTag::False)); return nullptr;
    case LUA_TNUMBER:
      if (lua_isinteger(L, idx)) {
        w.u8(static_cast<uint8_t>(PlainTag::Integer));
        w.i64(lua_tointeger(L, idx));
      } else {
        w.u8(static_cast<uint8_t>(PlainTag::Number));
        w.f64(lua_tonumber(L, idx));
      }
      return nullptr;
    case LUA_TSTRING: {
      size_t len;
      const char* s = lua_tolstring(L, idx, &len);
      w.u8(static_cast<uint8_t>(PlainTag::String));
      w.str(std::string_view(s, len));
      return nullptr;
    }
    case LUA_TTABLE: {
      if (lua_getmetatable(L, idx)) {
        lua_pop(L, 1);
        return "a table with a metatable";
      }
      const void* self = lua_topointer(L, idx);
      if (std::find(path.begin(), path.end(), self) != path.end()) return "a table that contains itself";
      if (depth + 1 >= kPlainMaxDepth) return "a table nested too deep";
      if (!lua_checkstack(L, 10)) return "a table nested too deep";
      uint32_t count = 0;
      lua_pushnil(L);
      while (lua_next(L, idx)) {
        ++count;
        lua_pop(L, 1);
      }
      w.u8(static_cast<uint8_t>(PlainTag::Table));
      w.u32(static_cast<uint32_t>(std::min<lua_Unsigned>(lua_rawlen(L, idx), count)));
      w.u32(count);
      path.push_back(self);
      // In the same order in every run (lua_order.cpp), so a snapshot's bytes are too.
      push_ordered_keys(L, idx);
      for (uint32_t k = 1; k <= count; ++k) {
        lua_rawgeti(L, -1, k);
        lua_pushvalue(L, -1);
        lua_rawget(L, idx);
        const int kt = lua_type(L, -2);
        const char* why = nullptr;
        if (kt != LUA_TBOOLEAN && kt != LUA_TNUMBER && kt != LUA_TSTRING) why = "a table with a key that is not a boolean, number or string";
        if (!why) why = encode_value(L, w, -2, depth + 1, path);
        if (!why) why = encode_value(L, w, -1, depth + 1, path);
        lua_pop(L, 2);
        if (why) {
          lua_pop(L, 1);
          path.clear();
          return why;
        }
      }
      lua_pop(L, 1);
      path.pop_back();
      return nullptr;
    }
    case LUA_TFUNCTION: return "a function";
    case LUA_TTHREAD: return "a coroutine";
    default: return "a userdata";
  }
}

// Pushes the next value of a journal; false (nothing pushed) when the bytes are bad.
bool decode_value(lua_State* L, SnapshotReader& in, int depth) {
  if (depth >= kPlainMaxDepth || !lua_checkstack(L, 4)) return false;
  const uint8_t tag = in.u8();
  if (!in.ok()) return false;
  switch (static_cast<PlainTag>(tag)) {
    case PlainTag::Nil: lua_pushnil(L); return true;
    case PlainTag::False: lua_pushboolean(L, 0); return true;
    case PlainTag::True: lua_pushboolean(L, 1); return true;
    case PlainTag::Integer: {
      const int64_t v = in.i64();
      if (!in.ok()) return false;
      lua_pushinteger(L, v);
      return true;
    }
    case PlainTag::Number: {
      const double v = in.f64();
      if (!in.ok()) return false;
      lua_pushnumber(L, v);
      return true;
    }
    case PlainTag::String: {
      const uint32_t len = in.u32();
      if (!in.ok() || len > in.remaining()) return false;
      const std::string_view s = in.raw(len);
      if (!in.ok()) return false;
      lua_pushlstring(L, s.data(), s.size());
      return true;
    }
    case PlainTag::Table: {
      const uint32_t border = in.u32(), count = in.u32();
      if (!in.ok() || count > in.remaining() / 2 || border > count) return false;
      lua_createtable(L, static_cast<int>(std::min<uint32_t>(border, 1 << 16)),
                      static_cast<int>(std::min<uint32_t>(count - border, 1 << 16)));
      for (uint32_t k = 0; k < count; ++k) {
        if (!decode_value(L, in, depth + 1)) {
          lua_pop(L, 1);
          return false;
        }
        if (lua_isnil(L, -1) || (lua_type(L, -1) == LUA_TNUMBER && std::isnan(lua_tonumber(L, -1))) ||
            !decode_value(L, in, depth + 1)) {
          lua_pop(L, 2);
          return false;
        }
        lua_rawset(L, -3);
      }
      return true;
    }
  }
  return false;
}

}  // namespace

void LuaHost::journal_wrap(int idx, const char* prefix, std::initializer_list<const char*> names) {
  if (!journal_) return;
  idx = lua_absindex(L_, idx);
  std::vector<std::string> keys(names.begin(), names.end());
  if (keys.empty()) {
    lua_pushnil(L_);
    while (lua_next(L_, idx)) {
      if (lua_type(L_, -2) == LUA_TSTRING && lua_iscfunction(L_, -1)) keys.emplace_back(lua_tostring(L_, -2));
      lua_pop(L_, 1);
    }
    std::sort(keys.begin(), keys.end());
  }
  for (const std::string& key : keys) {
    lua_pushlstring(L_, key.data(), key.size());
    lua_rawget(L_, idx);
    if (!lua_iscfunction(L_, -1) || lua_tocfunction(L_, -1) == journal_gate) {
      lua_pop(L_, 1);
      continue;
    }
    // The gate's upvalues: the function's own (two at most), its name, its id, the function;
    // and the C function itself, which a call outside a task runs directly on the gate's frame
    // (it finds its upvalues where it expects them).
    const int f = lua_gettop(L_);
    int own = 0;
    while (lua_getupvalue(L_, f, own + 1)) ++own;  // pushes each
    lua_CFunction direct = own <= kGateOwnUpvalues ? lua_tocfunction(L_, f) : nullptr;
    if (own > kGateOwnUpvalues) {
      lua_pop(L_, own);
      own = 0;
    }
    for (int k = own; k < kGateOwnUpvalues; ++k) lua_pushnil(L_);
    const std::string full = std::string(prefix) + key;
    lua_pushlstring(L_, full.data(), full.size());
    lua_pushinteger(L_, name_id(full.c_str()));
    lua_pushvalue(L_, f);
    if (direct) lua_pushlightuserdata(L_, reinterpret_cast<void*>(direct));
    else lua_pushnil(L_);
    lua_pushcclosure(L_, journal_gate, kGateOwnUpvalues + 4);
    lua_remove(L_, f);
    lua_pushlstring(L_, key.data(), key.size());
    lua_insert(L_, -2);
    lua_rawset(L_, idx);
  }
}

// A world call: replayed from the journal, or run (and journaled inside a task's resume).
int LuaHost::journal_gate(lua_State* L) {
  LuaHost* h = *static_cast<LuaHost**>(lua_getextraspace(L));
  if (h->replay_) return h->replay_call(L);
  TaskJournal* j = h->live_journal_;
  if (!j || h->gate_depth_ > 0 || !j->unsaveable.empty()) {  // outside a task, or nested: as it is
    if (void* direct = lua_touserdata(L, lua_upvalueindex(kGateDirect)))
      return reinterpret_cast<lua_CFunction>(direct)(L);
    const int n = lua_gettop(L);
    lua_pushvalue(L, lua_upvalueindex(kGateFunction));
    lua_insert(L, 1);
    lua_call(L, n, LUA_MULTRET);
    return lua_gettop(L);
  }
  const int n = lua_gettop(L);
  lua_pushvalue(L, lua_upvalueindex(kGateFunction));
  lua_insert(L, 1);
  ++h->gate_depth_;
  const int rc = lua_pcall(L, n, LUA_MULTRET, 0);
  --h->gate_depth_;
  h->journal_results(L, *j, rc == LUA_OK);
  if (rc != LUA_OK) return lua_error(L);
  return lua_gettop(L);
}

void LuaHost::journal_results(lua_State* L, TaskJournal& j, bool ok) {
  static thread_local std::vector<const void*> path;
  path.clear();
  const int n = lua_gettop(L);
  j.bytes.u32(static_cast<uint32_t>(lua_tointeger(L, lua_upvalueindex(kGateId))));
  j.bytes.u8(ok ? 0 : 1);
  j.bytes.u32(static_cast<uint32_t>(n));
  const char* why = nullptr;
  for (int i = 1; i <= n && !why; ++i) why = encode_value(L, j.bytes, i, 0, path);
  if (why) {
    j.unsaveable = std::string(lua_tostring(L, lua_upvalueindex(kGateName))) + (ok ? " returned " : " raised ") + why +
                   ", which a journal cannot keep (only nil, booleans, numbers, strings and plain tables of them)";
  } else if (++j.entries > kJournalMaxEntries || j.bytes.bytes().size() > kJournalMaxBytes) {
    j.unsaveable = "its journal passed its cap (" + std::to_string(kJournalMaxEntries) + " world calls or " +
                   std::to_string(kJournalMaxBytes >> 20) + " MB) in one run; a task that runs for ever keeps a "
                   "growing journal: end it now and then (a loop in the tree instead of in the task)";
  }
  if (!j.unsaveable.empty()) j.bytes = SnapshotWriter();  // journaling of this run stops here
}

int LuaHost::replay_call(lua_State* L) {
  Replay& r = *replay_;
  if (!r.diverged) {
    const uint32_t id = static_cast<uint32_t>(lua_tointeger(L, lua_upvalueindex(kGateId)));
    const uint32_t saved = r.in.u32();
    const uint8_t kind = r.in.u8();
    const uint32_t n = r.in.u32();
    if (!r.in.ok()) r.diverged = "the task made more world calls than its journal holds";
    else if (saved != id) r.diverged = "the task made another world call than its journal holds";
    else if (kind > 1 || n > r.in.remaining() || n > (1u << 16) || (kind == 1 && n != 1)) r.diverged = "its journal is damaged";
    else {
      lua_settop(L, 0);
      if (!lua_checkstack(L, static_cast<int>(n) + 8)) r.diverged = "its journal is damaged";
      for (uint32_t k = 0; k < n && !r.diverged; ++k)
        if (!decode_value(L, r.in, 0)) r.diverged = "its journal is damaged";
      if (!r.diverged) {
        ++r.used;
        if (kind == 1) return lua_error(L);
        return static_cast<int>(n);
      }
    }
  }
  lua_settop(L, 0);
  lua_pushliteral(L, "(thicket) the task's replay left its journal");
  return lua_error(L);
}

bool LuaHost::is_journal_record(int idx) {
  if (lua_type(L_, idx) != LUA_TTABLE || !lua_getmetatable(L_, idx)) return false;
  lua_rawgeti(L_, LUA_REGISTRYINDEX, record_meta_ref_);
  const bool is = lua_rawequal(L_, -1, -2);
  lua_pop(L_, 2);
  return is;
}

std::string LuaHost::task_label(const AgentInfo& a, const Program& p, uint32_t node) const {
  std::string leaf = "?";
  if (node < p.nodes.size() && p.nodes[node].a < p.calls.size()) {
    const uint32_t id = p.calls[p.nodes[node].a].leaf_id;
    if (id < rt_.leaves.size()) leaf = rt_.leaves[id].name;
  }
  std::string where;
  if (node < p.positions.size()) {
    const SourcePos& pos = p.positions[node];
    if (pos.file < p.files.size()) where = " (" + p.files[pos.file] + ":" + std::to_string(pos.line) + ")";
  }
  return "agent " + std::to_string(a.id) + "'s task " + leaf + " at node " + p.ids[node] + where;
}

lua_State* LuaHost::replay_task(const CallSite& at, const LeafDef& leaf) {
  AgentInfo& a = *at.agent;
  const int top = lua_gettop(L_);
  push_mem_table(at);
  lua_rawgeti(L_, -1, at.node + 1);
  lua_rawgeti(L_, -1, 1);
  size_t len = 0;
  const char* data = lua_tolstring(L_, -1, &len);
  std::string bytes(data ? data : "", data ? len : 0);
  lua_rawgeti(L_, -2, 2);
  const lua_Integer resumes = lua_tointeger(L_, -1);
  lua_rawgeti(L_, -3, 3);
  const bool restarted = lua_toboolean(L_, -1);
  lua_settop(L_, top);

  const char* why = nullptr;
  lua_State* co = nullptr;
  if (!journal_) why = "journaling is off in this runtime (RuntimeOptions::journal_tasks)";
  else if (resumes < 0 || resumes > kJournalMaxResumes) why = "its journal is damaged";
  Replay r{SnapshotReader(bytes)};
  if (!why) {
    // The agent table's own fields as restored: the replay's writes to them are undone.
    lua_rawgeti(L_, LUA_REGISTRYINDEX, a.lua_agent);
    const int agent_at = lua_gettop(L_);
    lua_newtable(L_);
    lua_pushnil(L_);
    while (lua_next(L_, agent_at)) {
      lua_pushvalue(L_, -2);
      lua_insert(L_, -2);
      lua_rawset(L_, agent_at + 1);
    }
    co = new_task_thread(at, leaf);
    Replay* saved_replay = replay_;
    TaskJournal* saved_live = live_journal_;
    const CallSite* saved_at = current_;
    replay_ = &r;
    live_journal_ = nullptr;
    current_ = &at;
    for (lua_Integer k = 0; k < resumes && !r.diverged; ++k) {
      const int nargs = k == 0 ? push_task_start(co, at) : 0;
      int nres = 0;
      const int rc = resume_guarded(co, nargs, &nres);
      if (rc == LUA_YIELD) lua_pop(co, nres);
      else if (!r.diverged) r.diverged = rc == LUA_OK ? "the task ended before its saved resume count" : "the task raised an error";
    }
    replay_ = saved_replay;
    live_journal_ = saved_live;
    current_ = saved_at;
    if (!r.diverged && !r.in.at_end()) r.diverged = "the task made fewer world calls than its journal holds";
    why = r.diverged;
    // Back to the restored fields.
    lua_pushnil(L_);
    while (lua_next(L_, agent_at)) {
      lua_pop(L_, 1);
      lua_pushvalue(L_, -1);
      lua_pushnil(L_);
      lua_rawset(L_, agent_at);
    }
    lua_pushnil(L_);
    while (lua_next(L_, agent_at + 1)) {
      lua_pushvalue(L_, -2);
      lua_insert(L_, -2);
      lua_rawset(L_, agent_at);
    }
    lua_settop(L_, top);
  }
  if (why) {
    // The replayed coroutine is dropped as it is: not closed (its cleanups already ran, or
    // will, in the real run), not reused.
    push_mem_table(at);
    lua_pushnil(L_);
    lua_rawseti(L_, -2, at.node + 1);
    lua_settop(L_, top);
    if (co) journals_.erase(co);
    rt_.log("warning: " + task_label(a, *at.program, at.node) + " could not be replayed after the restore (" + why +
            "); it starts again from its beginning, with thicket.restored() true");
    return nullptr;
  }
  TaskJournal& j = journals_[co];
  j = TaskJournal{};
  j.bytes.raw(bytes);
  j.entries = r.used;
  j.resumes = static_cast<uint32_t>(resumes);
  j.restarted = restarted;
  if (restarted) {
    mark_restored(co);
  }
  return co;
}

}  // namespace thicket
