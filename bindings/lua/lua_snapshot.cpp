// The Lua side of snapshots (leaf_host.hpp, snapshot_plain.hpp): an agent table's own
// fields, hook tables' `mem` and `any` blackboard values saved as plain data; running tasks
// saved with their journals (RuntimeOptions::journal_tasks, lua_journal.cpp) and replayed
// after a restore, or, without journaling, saved as "running" and restarted from their
// beginning after a restore, where thicket.restored() tells them so.
//
// Plain data: booleans, numbers, strings and tables of them (keys booleans, numbers or
// strings), nested at most kPlainMaxDepth deep. A value that is anything else (a function,
// a userdata, a coroutine, a table with a metatable, a table that contains itself, a table
// nested too deep) is left out with its key and counted; the runtime logs the first one.
// Tables are saved by value: two references to one table come back as two tables. Entries
// are written in a fixed key order, so one state gives the same bytes in every process.
#include <algorithm>
#include <cmath>

#include "lua_host.hpp"
#include "runtime_impl.hpp"

namespace thicket {

namespace {

// A key of a table being saved, in the order snapshots write them: booleans, numbers, strings.
struct SavedKey {
  int type;  // LUA_TBOOLEAN, LUA_TNUMBER, LUA_TSTRING
  bool boolean = false;
  bool integer = false;
  lua_Integer i = 0;
  double num = 0;
  std::string text;
  bool operator<(const SavedKey& o) const {
    if (type != o.type) return type < o.type;
    if (type == LUA_TBOOLEAN) return boolean < o.boolean;
    if (type == LUA_TSTRING) return text < o.text;
    double a = integer ? static_cast<double>(i) : num, b = o.integer ? static_cast<double>(o.i) : o.num;
    if (a != b) return a < b;
    if (integer != o.integer) return integer;  // 1 before 1.0 (Lua keeps them one key anyway)
    return integer ? i < o.i : false;
  }
};

class PlainSaver {
 public:
  PlainSaver(lua_State* L, SnapshotWriter& out, SnapshotDrops& drops) : L(L), out(out), drops(drops) {}

  // Why the value at idx cannot be saved, or nullptr when it can.
  const char* refusal(int idx, int depth) {
    switch (lua_type(L, idx)) {
      case LUA_TNIL:
      case LUA_TBOOLEAN:
      case LUA_TNUMBER:
      case LUA_TSTRING: return nullptr;
      case LUA_TTABLE:
        if (lua_getmetatable(L, idx)) {
          lua_pop(L, 1);
          return "a table with a metatable";
        }
        if (std::find(path_.begin(), path_.end(), lua_topointer(L, idx)) != path_.end()) return "a table that contains itself";
        if (depth + 1 >= kPlainMaxDepth) return "a table nested too deep";
        return nullptr;
      case LUA_TFUNCTION: return "a function";
      case LUA_TTHREAD: return "a coroutine";
      default: return "a userdata";
    }
  }

  void drop(const std::string& where, const char* why) {
    if (drops.count++ == 0) drops.first = context + where + ": " + why;
  }

  // Takes n bytes of the save's budget for plain values; past it the save is refused, and
  // nothing more is written (what was written is thrown away with the save).
  bool spend(size_t n, const std::string& where) {
    if (n <= drops.plain_left) {
      drops.plain_left -= n;
      return true;
    }
    if (drops.refused.empty())
      drops.refused = context + where + ": the scripts' values would take more than " + std::to_string(budget >> 20) +
                      " MiB in the snapshot, the Lua heap's cap (tables and texts are saved by value, once for each field "
                      "that reaches them: one 50 MB text in five fields is 250 MB)";
    drops.plain_left = 0;
    return false;
  }

  // Writes the value at idx (refusal() said yes).
  void value(int idx, int depth, const std::string& where) {
    idx = lua_absindex(L, idx);
    if (!spend(lua_type(L, idx) == LUA_TSTRING ? lua_rawlen(L, idx) + 5 : 9, where)) {
      out.u8(static_cast<uint8_t>(PlainTag::Nil));
      return;
    }
    switch (lua_type(L, idx)) {
      case LUA_TBOOLEAN: out.u8(static_cast<uint8_t>(lua_toboolean(L, idx) ? PlainTag::True : PlainTag::False)); return;
      case LUA_TNUMBER:
        if (lua_isinteger(L, idx)) {
          out.u8(static_cast<uint8_t>(PlainTag::Integer));
          out.i64(lua_tointeger(L, idx));
        } else {
          out.u8(static_cast<uint8_t>(PlainTag::Number));
          out.f64(lua_tonumber(L, idx));
        }
        return;
      case LUA_TSTRING: {
        size_t len;
        const char* s = lua_tolstring(L, idx, &len);
        out.u8(static_cast<uint8_t>(PlainTag::String));
        out.str(std::string_view(s, len));
        return;
      }
      case LUA_TTABLE: table(idx, depth, where, nullptr); return;
      default: out.u8(static_cast<uint8_t>(PlainTag::Nil)); return;
    }
  }

  // Writes the table at idx, leaving out the string keys in `skip` (the agent table's id, bb).
  void table(int idx, int depth, const std::string& where, const std::vector<const char*>* skip) {
    idx = lua_absindex(L, idx);
    luaL_checkstack(L, 6, "saving a snapshot");
    path_.push_back(lua_topointer(L, idx));
    std::vector<SavedKey> keys;
    lua_pushnil(L);
    while (lua_next(L, idx)) {
      SavedKey k;
      k.type = lua_type(L, -2);
      bool ok = true;
      if (k.type == LUA_TBOOLEAN) {
        k.boolean = lua_toboolean(L, -2);
      } else if (k.type == LUA_TNUMBER) {
        k.integer = lua_isinteger(L, -2);
        if (k.integer) k.i = lua_tointeger(L, -2);
        else k.num = lua_tonumber(L, -2);
      } else if (k.type == LUA_TSTRING) {
        size_t len;
        const char* s = lua_tolstring(L, -2, &len);
        k.text.assign(s, len);
        if (skip)
          for (const char* name : *skip) ok = ok && k.text != name;
        if (!ok) {
          lua_pop(L, 1);
          continue;
        }
      } else {
        drop(where + "[" + luaL_typename(L, -2) + " key]", "a key that is not a boolean, number or string");
        ok = false;
      }
      if (ok) {
        if (const char* why = refusal(-1, depth)) {
          drop(where + "." + key_text(k), why);
          ok = false;
        }
      }
      if (ok) keys.push_back(std::move(k));
      lua_pop(L, 1);
    }
    std::sort(keys.begin(), keys.end());
    write_plain_table(out, static_cast<uint32_t>(keys.size()));
    for (const SavedKey& k : keys) {
      if (drops.plain_left == 0) break;  // the save is refused: no need to walk on
      push_key(k);
      lua_pushvalue(L, -1);
      lua_rawget(L, idx);
      value(-2, depth, where);
      value(-1, depth + 1, where + "." + key_text(k));
      lua_pop(L, 2);
    }
    path_.pop_back();
  }

  std::string context;  // "agent 3" or "agent 3, node 'patrol' mem"
  size_t budget = 0;     // the save's whole budget for plain values, for the message

 private:
  static std::string key_text(const SavedKey& k) {
    if (k.type == LUA_TSTRING) return k.text;
    if (k.type == LUA_TBOOLEAN) return k.boolean ? "[true]" : "[false]";
    std::string text = "[";  // (appended: GCC 12's -Wrestrict misreads "[" + std::string)
    text += k.integer ? std::to_string(k.i) : std::to_string(k.num);
    return text + "]";
  }
  void push_key(const SavedKey& k) {
    if (k.type == LUA_TBOOLEAN) lua_pushboolean(L, k.boolean);
    else if (k.type == LUA_TSTRING) lua_pushlstring(L, k.text.data(), k.text.size());
    else if (k.integer) lua_pushinteger(L, k.i);
    else lua_pushnumber(L, k.num);
  }

  lua_State* L;
  SnapshotWriter& out;
  SnapshotDrops& drops;
  std::vector<const void*> path_;  // tables being written, outermost first (cycles)
};

void push_plain(lua_State* L, const PlainValue& v) {
  luaL_checkstack(L, 4, "restoring a snapshot");
  switch (v.tag) {
    case PlainTag::Nil: lua_pushnil(L); return;
    case PlainTag::False: lua_pushboolean(L, 0); return;
    case PlainTag::True: lua_pushboolean(L, 1); return;
    case PlainTag::Integer: lua_pushinteger(L, v.integer); return;
    case PlainTag::Number: lua_pushnumber(L, v.number); return;
    case PlainTag::String: lua_pushlstring(L, v.text.data(), v.text.size()); return;
    case PlainTag::Table:
      lua_createtable(L, 0, static_cast<int>(std::min<size_t>(v.entries.size(), 1 << 16)));
      for (const auto& [k, item] : v.entries) {
        push_plain(L, k);  // read_plain refused nil and NaN keys
        push_plain(L, item);
        lua_rawset(L, -3);
      }
      return;
  }
  lua_pushnil(L);
}

}  // namespace

void LuaHost::save_agent(const AgentInfo& a, SnapshotWriter& out, SnapshotDrops& drops) {
  const int top = lua_gettop(L_);
  PlainSaver saver(L_, out, drops);
  saver.budget = plain_budget(drops);
  saver.context = "agent " + std::to_string(a.id) + ", agent table";
  static const std::vector<const char*> kOwn = {"id", "bb"};  // made by create_agent
  lua_rawgeti(L_, LUA_REGISTRYINDEX, a.lua_agent);
  if (lua_istable(L_, -1)) saver.table(-1, 0, "", &kOwn);
  else out.u8(static_cast<uint8_t>(PlainTag::Nil));
  lua_settop(L_, top);
  // Per-node state: mem[node + 1] is a hook table's mem, a task's coroutine, or a restored
  // task's mark (not resumed since the restore).
  const Program& p = rt_.program_of(a);
  if (a.lua_mem == LUA_NOREF) lua_newtable(L_);  // none made yet: no per-node state
  else lua_rawgeti(L_, LUA_REGISTRYINDEX, a.lua_mem);
  std::vector<std::pair<uint32_t, bool>> entries;  // node, task
  lua_pushnil(L_);
  while (lua_next(L_, -2)) {
    if (lua_isinteger(L_, -2)) {
      lua_Integer key = lua_tointeger(L_, -2);
      if (key >= 1 && static_cast<size_t>(key) <= p.nodes.size()) {
        const bool task = lua_type(L_, -1) == LUA_TTHREAD || lua_islightuserdata(L_, -1) || is_journal_record(-1);
        saver.context = "agent " + std::to_string(a.id) + ", node '" + p.ids[key - 1] + "', mem";
        if (task || !saver.refusal(-1, 0)) entries.emplace_back(static_cast<uint32_t>(key - 1), task);
        else saver.drop("", saver.refusal(-1, 0));
      }
    }
    lua_pop(L_, 1);
  }
  std::sort(entries.begin(), entries.end());
  out.u32(static_cast<uint32_t>(entries.size()));
  for (const auto& [node, task] : entries) {
    out.u32(node);
    out.u8(task ? kMemTask : kMemHooks);
    if (task) {
      lua_rawgeti(L_, -1, static_cast<lua_Integer>(node) + 1);
      save_task(a, p, node, out, drops);
      lua_pop(L_, 1);
      continue;
    }
    lua_rawgeti(L_, -1, static_cast<lua_Integer>(node) + 1);
    saver.context = "agent " + std::to_string(a.id) + ", node '" + p.ids[node] + "'";
    saver.value(-1, 0, "mem");
    lua_pop(L_, 1);
  }
  lua_settop(L_, top);
}

// A running task's entry (the value on top is its coroutine, restart mark or journal record):
// its journal when it has one, else a restart; a journaled runtime refuses the save of a run
// it cannot keep exactly.
void LuaHost::save_task(const AgentInfo& a, const Program& p, uint32_t node, SnapshotWriter& out, SnapshotDrops& drops) {
  if (is_journal_record(-1)) {  // restored, not run since: saved as it came
    lua_rawgeti(L_, -1, 3);
    out.u8(lua_toboolean(L_, -1) ? kTaskJournalRestarted : kTaskJournal);
    lua_rawgeti(L_, -2, 2);
    out.u32(static_cast<uint32_t>(lua_tointeger(L_, -1)));
    lua_rawgeti(L_, -3, 1);
    size_t len = 0;
    const char* bytes = lua_tolstring(L_, -1, &len);
    out.str(std::string_view(bytes ? bytes : "", bytes ? len : 0));
    lua_pop(L_, 3);
    return;
  }
  lua_State* co = lua_tothread(L_, -1);
  if (!co || !journal_) {
    out.u8(kTaskRestart);
    return;
  }
  auto found = journals_.find(co);
  std::string why;
  if (found == journals_.end()) why = "it started before journaling was switched on (RuntimeOptions::journal_tasks)";
  else why = found->second.unsaveable;
  if (!why.empty()) {
    if (drops.refused.empty()) drops.refused = task_label(a, p, node) + " cannot be saved exactly: " + why;
    out.u8(kTaskRestart);
    return;
  }
  const TaskJournal& j = found->second;
  out.u8(j.restarted ? kTaskJournalRestarted : kTaskJournal);
  out.u32(j.resumes);
  out.str(j.bytes.bytes());
}

// The budget of a save's plain values, agent tables and `any` values alike: the heap's cap (each
// script state's, when agents are spread over several), or 4 GiB with no cap; the save's first
// value starts it (an agent's `any` values are written before its table: they had none).
size_t LuaHost::plain_budget(SnapshotDrops& drops) const {
  const size_t lanes = std::max<size_t>(1, rt_.options.script_states);
  const size_t budget = heap_.cap > 0 ? heap_.cap * lanes : size_t(4) << 30;
  if (!drops.plain_budget_set) {
    drops.plain_budget_set = true;
    drops.plain_left = budget;
  }
  return budget;
}

void LuaHost::save_any(const AgentInfo& a, int ref, SnapshotWriter& out, SnapshotDrops& drops) {
  const int top = lua_gettop(L_);
  PlainSaver saver(L_, out, drops);
  saver.budget = plain_budget(drops);
  saver.context = "agent " + std::to_string(a.id) + ", an `any` blackboard value";
  lua_rawgeti(L_, LUA_REGISTRYINDEX, ref);
  if (const char* why = saver.refusal(-1, 0)) {
    saver.drop("", why);
    out.u8(static_cast<uint8_t>(PlainTag::Nil));
  } else {
    saver.value(-1, 0, "");
  }
  lua_settop(L_, top);
}

void LuaHost::restore_agent(AgentInfo& a, const ScriptAgentState& s) {
  const int top = lua_gettop(L_);
  if (s.fields.tag == PlainTag::Table) {
    lua_rawgeti(L_, LUA_REGISTRYINDEX, a.lua_agent);
    for (const auto& [k, v] : s.fields.entries) {
      if (k.tag == PlainTag::String && (k.text == "id" || k.text == "bb")) continue;  // the runtime's own
      push_plain(L_, k);
      push_plain(L_, v);
      lua_rawset(L_, -3);
    }
    lua_settop(L_, top);
  }
  push_mem(a);
  for (const auto& m : s.mem) {
    if (m.task && m.journal == kTaskRestart) {
      lua_pushlightuserdata(L_, restored_task_mark());
    } else if (m.task) {  // replayed at its next tick (lua_journal.cpp)
      lua_createtable(L_, 3, 0);
      lua_pushlstring(L_, m.journal_bytes.data(), m.journal_bytes.size());
      lua_rawseti(L_, -2, 1);
      lua_pushinteger(L_, m.resumes);
      lua_rawseti(L_, -2, 2);
      lua_pushboolean(L_, m.journal == kTaskJournalRestarted);
      lua_rawseti(L_, -2, 3);
      lua_rawgeti(L_, LUA_REGISTRYINDEX, record_meta_ref_);
      lua_setmetatable(L_, -2);
    } else {
      push_plain(L_, m.value);
    }
    lua_rawseti(L_, -2, static_cast<lua_Integer>(m.node) + 1);
  }
  lua_settop(L_, top);
}

int LuaHost::any_from_plain(const AgentInfo&, const PlainValue& v) {
  push_plain(L_, v);
  return luaL_ref(L_, LUA_REGISTRYINDEX);
}

}  // namespace thicket
