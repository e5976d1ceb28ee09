// The Lua-callable functions of the sandbox (SPEC 7): the `thicket` module, require, the
// sandbox's guarded coroutine and traceback pieces, and the blackboard objects. Defined in
// thicket_module.cpp (the module and require), lua_sandbox.cpp (the sandbox pieces) and
// lua_agents.cpp (the agent and blackboard objects); private to those files.
#pragma once
#include <lua.hpp>

#include <string>
#include <string_view>
#include <vector>

#include "lua_host.hpp"
#include "runtime_impl.hpp"

namespace thicket {

// The Lua-callable functions; a struct so they can reach LuaHost's insides.
struct LuaApi {
  // The host from the state's extra space (set at creation; threads inherit it): a load, where
  // the functions' upvalue would be an API call on every call from Lua.
  static LuaHost& host(lua_State* L) { return **static_cast<LuaHost**>(lua_getextraspace(L)); }
  static const AgentInfo* agent(lua_State* L) {
    const CallSite* at = host(L).current();
    return at ? at->agent : nullptr;
  }

  static int time(lua_State* L);
  static int dt(lua_State* L);
  static int tick(lua_State* L);
  // Pushes the arguments converted with tostring and joined by tabs (print's way). A __tostring
  // that raises does so here, before the caller makes any C++ object that lua_error would skip.
  // (Through a luaL_Buffer, which keeps the stack within what Lua grants a C function: pushing
  // every piece first overran it from about ten arguments, corrupting memory.)
  // print's and thicket.log's line: its arguments as text, joined by tabs, as Lua's print
  // writes them; a line past kMaxShownLine bytes is cut there, its length said (printing tens of
  // megabytes took seconds a call, past any time limit: a call cannot be stopped inside).
  static constexpr size_t kMaxShownLine = 1 << 20;
  static void push_joined(lua_State* L);
  // What an agent's leaves may print and log in one tick, in bytes (count_output).
  static constexpr size_t kMaxOutputBytesPerTick = size_t(4) << 20;
  static void count_output(lua_State* L, const char* what, size_t len);
  // What an agent's leaves may send in one tick (thicket.send and agent:send together).
  static constexpr uint32_t kMaxSendsPerTick = 16384;
  static int log(lua_State* L);
  // thicket.random([m [, n]]) and math.random: the agent's own stream while a leaf runs.
  static int random(lua_State* L);
  // thicket.restored(): true inside a task run that started again because its agent was
  // restored from a snapshot while the task was running (snapshot docs); false elsewhere.
  static int restored(lua_State* L);
  // ---- other agents (SPEC 8.2): spawn, despawn and send wait for the end of tick_all ----
  // The live agent with this id, or an invalid handle.
  static AgentHandle handle_of(LuaHost& h, lua_Integer id);
  // print(...): as Lua's, through the runtime, so that lines printed by jobs on several
  // threads come out in agent order.
  static int print(lua_State* L);
  // Scenarios split their agents over worker runtimes and own their bodies: there a leaf may
  // send only to its own agent, and spawn and despawn are the world's (groups, deaths).
  static int refuse_in_scenario(lua_State* L, const char* what, const char* instead);
  // A leaf file's top level (and a module's it requires) runs while the file loads or reloads,
  // before the load is judged: a change of the run made there (a spawn, despawn, event or
  // blackboard write) could not be undone if the load failed (SPEC 10: nothing is lost). Those
  // calls are refused there (an error at the caller's line: the load fails, said so).
  static bool at_file_top_level(const LuaHost& h);
  static int refuse_at_top_level(lua_State* L, const char* what, const char* instead);
  // Texts a script writes to the blackboard, passes to thicket.spawn or sends as event names
  // are kept in the runtime's table of texts for the whole run (each distinct text once), out
  // of the Lua heap: past RuntimeOptions::lua_memory_limit bytes there, a new text is refused,
  // so a leaf writing a new 1 MB text every tick cannot use up the host's memory. Pushes the
  // message and returns false then (the caller raises it, with its own frame gone).
  static bool text_fits(lua_State* L, LuaHost& h, std::string_view text, const char* what);
  // thicket.send(agent_id, name): an event to that agent (SPEC 4.1); false when no agent has the id.
  static int send(lua_State* L);
  // agent:send(name): an event to this agent; from its own leaf it joins the queue at once.
  static int agent_send(lua_State* L);
  // thicket.despawn(agent_id): false when no agent has the id.
  static int despawn(lua_State* L);
  // thicket.spawn(brain [, blackboard [, id]]): a new agent of the loaded brain with that name
  // (`tree: NAME`), its blackboard values from the table; during a tick it is made at the end
  // of the tick_all (true), else at once (its id).
  // Every argument is checked before a C++ object lives in this frame: lua_error longjmps,
  // and would skip their destructors (the rule of the helpers above).
  static int spawn(lua_State* L);
  // spawn's work: pushes its result and returns true, or pushes the message of an unknown brain
  // and returns false (the caller raises it, with this frame's objects gone).
  static bool spawn_checked(lua_State* L, LuaHost& h, const char* name, uint32_t id);
  static int task(lua_State* L);
  // require(name): the thicket module, or NAME.lua beside the brain's leaf files.
  static int require(lua_State* L);
  // The folders the calling brain may require from: beside its own leaf files (a leaf call
  // knows its program; a file being loaded knows its brain's files).
  static std::vector<std::string> require_dirs(LuaHost& h);
  // luaL_where for the script's own code: the first calling frame not in the sandbox's Lua
  // (the per-file require is a wrapper there, so level 1 would name it, "(thicket):87:").
  static void where_in_script(lua_State* L);
  static int require_impl(lua_State* L);

  // ---- the read-only thicket module ----
  // Each leaf file gets its own copy of the module table (push_file_env), so what one file
  // does to its copy reaches no other. Reading a field the module does not have is an error
  // (thicket.SUCESS would be nil and the leaf would silently fail); adding a field is one too.
  // Trusted modules loaded by Lua's own require get a userdata face with the same rules.
  static void push_unknown_field(lua_State* L, const char* key);
  // __index of a file's copy of the module (upvalue 1: the module table): a field added to
  // the module after the copy was made (the world's functions), or an error.
  static int module_missing(lua_State* L);
  static int module_write(lua_State* L);
  static int module_pairs(lua_State* L);  // pairs(thicket) walks the module table
  static int module_has(lua_State* L);  // thicket.has(name): whether the module has the field

  // ---- sandbox pieces ----
  // The message handler of every protected call: a C function, so no count hook fires in it
  // (a stopped call's hook keeps firing in Lua code until the call ends).
  // A call stack deeper than kDeepStack levels (a runaway recursion: Lua lets it reach about
  // a million) gets its first levels only: luaL_traceback also shows the last ones, and finding
  // them walks the whole stack some forty times (lua_getstack steps from the top, one frame at
  // a time), seconds at that depth.
  static constexpr int kDeepStack = 1000;
  static constexpr int kDeepShown = 10;
  static int traceback(lua_State* L);
  // The length of a message's leading position as Lua writes it ("guard.lua:12: "), 0 when it
  // has none: error(msg, 0), a C function's own error, a rethrow of a value that is no text.
  static size_t position_length(std::string_view message);
  // coroutine.resume, wrap and close that tell the watchdog which Lua thread runs (a leaf's
  // own coroutine that loops for ever is stopped too) and refuse a task's coroutine; otherwise
  // the standard ones. xpcall passes a stop through without calling the script's handler.
  // All in C, as the library's: a Lua function that is tail-called takes its caller's frame
  // away, and its errors named neither the caller's line nor the name it was called by.
  static int co_resume(lua_State* L);
  static int co_wrap(lua_State* L);
  static int co_wrapped(lua_State* L);  // the function wrap returns (upvalue 1: its coroutine)
  static int co_close(lua_State* L);
  static int co_create(lua_State* L);
  // coroutine.yield, refused in a cleanup that runs as the coroutine's error unwinds it (a
  // yield there left a failed coroutine suspended, its error lost).
  static int yield_checked(lua_State* L);
  static void new_based_thread(lua_State* L);  // a coroutine of the function at 1, pushed (co_base)
  // The base of every coroutine a script runs on (a leaf's own: co_base, its body upvalue 1; a
  // task run's: task_base, its body under its arguments): the body under a pcall, whose error
  // is raised again as it is. Lua turns a thread's hooks off while a hook runs and back on when
  // the hook returns, or where a pcall on that thread catches an error: a stop the count hook
  // raised as an error inside a C call (a table.sort comparison) left a coroutine with no pcall
  // of its own unguarded for good, and its cleanups ran with no limit. Under the base pcall
  // they run guarded, at once, as the error unwinds (the hook's yield, where it may yield,
  // leaves the coroutine suspended instead: its cleanups run when it is closed).
  static int co_base(lua_State* L);
  static int task_base(lua_State* L);
  // A stopped call's cleanups run with a grace (coroutine_unwinds).
  static int co_handler(lua_State* L);
  // A task run's error reported where it was raised (its traceback), then as co_handler.
  static int task_handler(lua_State* L);
  static int run_based(lua_State* L, lua_CFunction handler);  // [body, args...] under the base pcall
  static int based_k(lua_State* L, int status, lua_KContext);  // its continuation
  // Whether a thicket.defer cleanup running now may yield: in a task ending by itself, not in
  // one cancelled or failing (its error unwinding it).
  static int cleanup_may_yield(lua_State* L);
  static int xpcall(lua_State* L);
  // The __index of every leaf file's globals: a global no one set (LuaHost::status_global_read).
  static int missing_global(lua_State* L);
  static int xpcall_done(lua_State* L, int status, lua_KContext extra);  // its continuation
  static int resume_watched(lua_State* L, lua_State* co, int narg);
  static int close_watched(lua_State* L, lua_State* co);
  static bool is_task_thread(lua_State* L, int idx);  // the value at idx is a task run's coroutine
  // collectgarbage, setmetatable, load, and a leaf file's rawset and require (lua_sandbox.cpp).
  static int collect_garbage(lua_State* L);
  static int set_metatable(lua_State* L);
  static int load(lua_State* L);
  static int file_rawset(lua_State* L);
  static int file_require(lua_State* L);
  // thicket.wait(seconds) and thicket.defer(fn) (the module's Lua chunk makes their upvalues).
  static int wait(lua_State* L);
  static int defer(lua_State* L);

  // ---- blackboard objects: agent.bb.key reads and writes, typed (SPEC 6) ----
  // An agent table's `bb`: the agent's slot, and its generation then (AgentInfo::generation,
  // bumped when the agent is despawned): an agent table kept after its agent went (in a file's
  // globals, reached from on_reload or a file's own code) would otherwise reach whichever agent
  // took the slot, and release its `any` values' registry references a second time.
  struct BbRef {
    uint32_t agent;
    uint32_t generation;
  };
  // The agent a blackboard belongs to; raises (no C++ object lives in its callers' frames) when
  // that agent has been despawned.
  static AgentInfo& bb_agent(lua_State* L, LuaHost& h);
  // Inside a leaf call, only the running agent's blackboard: another's (kept from its own call
  // in a shared table or an upvalue) would be read or written from another agent's leaf, on
  // another worker's thread perhaps (SPEC 8.2: a leaf touches only its own agent; the results
  // changed with --threads). Pushes the error and returns false; the caller raises.
  static bool own_blackboard(lua_State* L, LuaHost& h, const AgentInfo& a);
  // Errors are raised (lua_error longjmps) only from frames with no live C++ objects:
  // these helpers push the message and return, the caller raises.
  static void push_unknown_key(lua_State* L, LuaHost& h, const AgentInfo& a, const char* key);
  static void push_wrong_type(lua_State* L, const Program& p, const BlackboardKey& key);
  // The slot of the key at index 2 of a blackboard read or write; raises (no C++ object lives
  // in its frame or its callers') for another agent's blackboard or an undeclared key.
  static uint32_t bb_slot(lua_State* L, LuaHost& h, const AgentInfo& a);
  static int bb_index(lua_State* L);
  static int bb_newindex(lua_State* L);
  static int bb_tostring(lua_State* L);
};

}  // namespace thicket
