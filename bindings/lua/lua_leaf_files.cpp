// Leaf files: staging a file (its leaves, hooks and declared arg types, with every error at
// once), the modules it requires, and the read-only `args` tables of a program's nodes.
#include <algorithm>
#include <cctype>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <map>
#include <mutex>
#include <sstream>

#include "lua_call_scope.hpp"
#include "lua_host.hpp"
#include "lua_order.hpp"
#include "runtime_impl.hpp"
#include "suggest.hpp"
#include "plain_file.hpp"

namespace thicket {

namespace {
// Where a leaf file declares things, for its errors' line:column. Lua keeps no positions for a
// table's keys, so a leaf's line is the first line of its first function (the leaf itself, or
// one of its hooks), and a key is found as a word near it in the file's text.
struct DeclLines {
  std::vector<std::string> lines;
  explicit DeclLines(std::string_view text) {  // the file's text, as it was loaded
    while (!text.empty()) {
      const size_t end = text.find('\n');
      lines.emplace_back(text.substr(0, end));
      if (end == std::string_view::npos) break;
      text.remove_prefix(end + 1);
    }
  }
  struct Pos {
    int line = 0, column = 0;
  };
  // The column (1-based) of `word` as a whole word in line `n` (1-based), 0 if absent: in
  // characters, as an editor counts them and the YAML files' columns are (it counted bytes).
  int column_of(int n, const std::string& word) const {
    if (n < 1 || n > static_cast<int>(lines.size()) || word.empty()) return 0;
    const std::string& l = lines[static_cast<size_t>(n - 1)];
    auto ident = [](char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_'; };
    for (size_t at = l.find(word); at != std::string::npos; at = l.find(word, at + 1)) {
      const bool left = at == 0 || !ident(l[at - 1]);
      const bool right = at + word.size() >= l.size() || !ident(l[at + word.size()]);
      if (left && right) return static_cast<int>(utf8_characters(std::string_view(l).substr(0, at))) + 1;
    }
    return 0;
  }
  // `word` nearest to line `from`: at or before it (30 lines back at most), then after it;
  // line `from` itself (column 1) when not found; nothing when from is 0 and it is nowhere.
  Pos near(int from, const std::string& word) const {
    const int n = static_cast<int>(lines.size());
    if (from < 1) {
      for (int k = 1; k <= n; ++k)
        if (int c = column_of(k, word)) return {k, c};
      return {};
    }
    for (int k = from; k >= 1 && k > from - 30; --k)
      if (int c = column_of(k, word)) return {k, c};
    for (int k = from + 1; k <= n && k < from + 30; ++k)
      if (int c = column_of(k, word)) return {k, c};
    return {from, 1};
  }
  // `word` at or after line `from` (30 lines at most); line `from` itself when not found.
  Pos after(int from, const std::string& word) const {
    const int n = static_cast<int>(lines.size());
    for (int k = std::max(from, 1); k <= n && k < std::max(from, 1) + 30; ++k)
      if (int c = column_of(k, word)) return {k, c};
    return {from, from ? 1 : 0};
  }
};
// Where a leaf file's own `return` is: the last `return` of its top level, outside every
// function (a `return` in a leaf's body, a comment or a string is not the file's), read with
// Lua's words, comments, strings and long brackets; {0, 0} when it has none. A file that forgot
// `return leaves` was told of the last "return" anywhere in its text: a leaf's own, or a word
// in a comment.
DeclLines::Pos top_level_return(std::string_view s) {
  DeclLines::Pos found{}, here{1, 1};
  size_t i = 0;
  auto step = [&](size_t n) {  // moves n bytes on, counting lines and columns (in characters)
    for (; n > 0 && i < s.size(); --n, ++i) {
      if (s[i] == '\n') {
        ++here.line;
        here.column = 1;
      } else if ((static_cast<unsigned char>(s[i]) & 0xC0) != 0x80) {  // (not a UTF-8 continuation byte)
        ++here.column;
      }
    }
  };
  // A long bracket's level at i ('[', then '=' x level, then '['), or -1 when there is none.
  auto long_level = [&](size_t at) {
    if (at >= s.size() || s[at] != '[') return -1;
    size_t k = at + 1;
    while (k < s.size() && s[k] == '=') ++k;
    return k < s.size() && s[k] == '[' ? static_cast<int>(k - at - 1) : -1;
  };
  auto skip_long = [&](int level) {  // from the opening bracket to past the closing one
    step(static_cast<size_t>(level) + 2);
    const std::string close = "]" + std::string(static_cast<size_t>(level), '=') + "]";
    const size_t end = s.find(close, i);
    step(end == std::string_view::npos ? s.size() - i : end - i + close.size());
  };
  // What each open block is: a function (its `end` closes it) or another block (do, if,
  // repeat: closed by `end`, or `until`); a `return` with no function open is the file's.
  std::vector<bool> blocks;
  size_t functions = 0;
  auto ident = [](char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_'; };
  while (i < s.size()) {
    const char c = s[i];
    if (c == '-' && i + 1 < s.size() && s[i + 1] == '-') {  // a comment: long, or to the line's end
      step(2);
      if (int level = long_level(i); level >= 0) {
        skip_long(level);
      } else {
        const size_t end = s.find('\n', i);
        step(end == std::string_view::npos ? s.size() - i : end - i);
      }
    } else if (c == '"' || c == '\'') {  // a short string, its escapes skipped
      step(1);
      while (i < s.size() && s[i] != c && s[i] != '\n') step(s[i] == '\\' ? 2 : 1);
      step(1);
    } else if (int level = long_level(i); level >= 0) {
      skip_long(level);
    } else if (ident(c)) {
      size_t end = i;
      while (end < s.size() && ident(s[end])) ++end;
      const std::string_view word = s.substr(i, end - i);
      if (!std::isdigit(static_cast<unsigned char>(c))) {
        if (word == "function") {
          blocks.push_back(true);
          ++functions;
        } else if (word == "do" || word == "if" || word == "repeat") {
          blocks.push_back(false);
        } else if ((word == "end" || word == "until") && !blocks.empty()) {
          functions -= blocks.back() ? 1 : 0;
          blocks.pop_back();
        } else if (word == "return" && functions == 0) {
          found = here;
        }
      }
      step(end - i);
    } else {
      step(1);
    }
  }
  return found;
}

// The first line of the function at `index`, or of the first function among a table's values
// (one level: a hook table, {fn = ...}, a task's table), 0 when there is none.
// `local d = thicket.defer(fn)` without <close>: the value is a plain table that nothing
// closes, so fn never runs. Read in the file's text at load (watching every task run's defer
// values for one left unclosed cost each run ~200 ns, and the weak table every collection).
void defers_without_close(const DeclLines& text, const std::string& path, std::vector<Diagnostic>& diags) {
  for (size_t k = 0; k < text.lines.size(); ++k) {
    const std::string& l = text.lines[k];
    const size_t at = l.find("thicket.defer");
    if (at == std::string::npos) continue;
    const size_t comment = l.find("--");
    const size_t local = l.find("local ");
    const size_t eq = l.rfind('=', at);
    if ((comment != std::string::npos && comment < at) || local == std::string::npos || eq == std::string::npos ||
        eq < local || l.find_first_not_of(" \t", eq + 1) != at)
      continue;  // no `local NAMES = thicket.defer`
    const size_t after = l.find_first_not_of(" \t", at + 13);
    if (after == std::string::npos || l[after] != '(')
      continue;  // `local defer = thicket.defer`: the function kept, not a value of it (8.8's advice)
    const std::string names = l.substr(local + 6, eq - local - 6);
    if (names.find("<close>") != std::string::npos ||
        names.find_first_not_of("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_ ,\t<>") != std::string::npos)
      continue;
    diags.push_back({Severity::Warning, path, static_cast<int>(k) + 1, static_cast<int>(at) + 1,
                     "thicket.defer's value is kept without <close>: nothing closes it, so its function never runs; "
                     "declare it local NAME <close> = thicket.defer(...)"});
  }
}

int first_line(lua_State* L, int index) {
  index = lua_absindex(L, index);
  int best = 0;
  auto take = [&](int i) {
    if (!lua_isfunction(L, i) || lua_iscfunction(L, i)) return;
    lua_Debug ar;
    lua_pushvalue(L, i);
    if (lua_getinfo(L, ">S", &ar) && ar.linedefined > 0 && (best == 0 || ar.linedefined < best)) best = ar.linedefined;
  };
  take(index);
  if (lua_istable(L, index)) {
    lua_pushnil(L);
    while (lua_next(L, index)) {
      take(-1);
      if (lua_istable(L, -1)) {
        lua_rawgeti(L, -1, 1);  // thicket.task(fn): the function
        take(-1);
        lua_pop(L, 1);
      }
      lua_pop(L, 1);
    }
  }
  return best;
}
}  // namespace

// The value on top of the stack is a leaf's `args = {name = "type", ...}`: reads it into def.
// `decl` and `leaf_line` place its errors.
static bool read_arg_types(lua_State* L_, LeafDef& def, const std::string& path, std::vector<Diagnostic>& diags,
                           const DeclLines& decl, int key_line) {
  const DeclLines::Pos args_at = decl.after(key_line, "args");
  static const std::vector<std::string> types = {"number", "integer", "string", "boolean", "table"};
  def.declares_args = true;
  if (!lua_istable(L_, -1)) {
    diags.push_back({Severity::Error, path, args_at.line, args_at.column, "'args' of leaf '" + def.name + "' must be a table {name = \"type\", ...}, got " + luaL_typename(L_, -1)});
    return false;
  }
  bool ok = true;
  lua_pushnil(L_);
  while (lua_next(L_, -2)) {
    if (lua_type(L_, -2) != LUA_TSTRING || lua_type(L_, -1) != LUA_TSTRING) {
      diags.push_back({Severity::Error, path, args_at.line, args_at.column, "'args' of leaf '" + def.name + "' maps arg names to type names, e.g. args = {per_log = \"number\"}"});
      ok = false;
    } else {
      LeafArgSpec spec;
      spec.name = lua_tostring(L_, -2);
      spec.type = lua_tostring(L_, -1);
      if (!spec.type.empty() && spec.type.back() == '?') {
        spec.optional = true;
        spec.type.pop_back();
      }
      if (std::find(types.begin(), types.end(), spec.type) == types.end()) {
        const DeclLines::Pos at = decl.after(args_at.line, spec.name);
        diags.push_back({Severity::Error, path, at.line, at.column, "arg '" + spec.name + "' of leaf '" + def.name + "' has an unknown type '" + spec.type + "'" +
                                                          did_you_mean_type(spec.type, types) + " (types: number, integer, string, boolean, table; a trailing ? makes it optional)"});
        ok = false;
      } else {
        def.args.push_back(std::move(spec));
      }
    }
    lua_pop(L_, 1);
  }
  std::sort(def.args.begin(), def.args.end(), [](const LeafArgSpec& a, const LeafArgSpec& b) { return a.name < b.name; });
  // A broken declaration is the error to fix: call sites are not checked against what is left
  // of it (a dropped arg would show as "leaf has no arg" at every call).
  if (!ok) def.declares_args = false;
  return ok;
}

void LuaHost::forget_module(const std::string& path) {
  lua_rawgeti(L_, LUA_REGISTRYINDEX, loaded_ref_);
  lua_getfield(L_, -1, path.c_str());
  if (lua_isnil(L_, -1) || forgotten_modules_.count(path)) {
    lua_pop(L_, 2);
    return;
  }
  forgotten_modules_[path] = luaL_ref(L_, LUA_REGISTRYINDEX);  // pops the old copy
  lua_pushnil(L_);
  lua_setfield(L_, -2, path.c_str());
  lua_pop(L_, 1);
}

void LuaHost::settle_module(const std::string& path) {
  auto it = forgotten_modules_.find(path);
  if (it == forgotten_modules_.end()) return;
  lua_rawgeti(L_, LUA_REGISTRYINDEX, loaded_ref_);
  if (lua_getfield(L_, -1, path.c_str()) == LUA_TNIL) {  // nothing loaded it anew: the old copy stays
    lua_rawgeti(L_, LUA_REGISTRYINDEX, it->second);
    lua_setfield(L_, -3, path.c_str());
  }
  lua_pop(L_, 2);
  luaL_unref(L_, LUA_REGISTRYINDEX, it->second);
  forgotten_modules_.erase(it);
}

namespace {
// The cut chunk names of files loaded (by any Lua state of the process: a lock), each with its
// file's path ("" when two files' names are cut alike).
struct CutNames {
  std::mutex lock;
  std::map<std::string, std::string> full;
};
CutNames& cut_names() {
  static CutNames names;
  return names;
}
// As Lua's luaO_chunkid cuts "@PATH": past LUA_IDSIZE - 1 characters, "..." and the last
// LUA_IDSIZE - 4 of them.
constexpr size_t kChunkIdChars = LUA_IDSIZE - 1;
void remember_chunk_name(const std::string& path) {
  if (path.size() <= kChunkIdChars) return;
  const std::string cut = "..." + path.substr(path.size() - (kChunkIdChars - 3));
  CutNames& names = cut_names();
  std::lock_guard<std::mutex> hold(names.lock);
  auto [it, fresh] = names.full.try_emplace(cut, path);
  if (!fresh && it->second != path) it->second.clear();
}
}  // namespace

std::string LuaHost::full_chunk_names(std::string text) {
  if (text.find("...") == std::string::npos) return text;
  CutNames& names = cut_names();
  std::lock_guard<std::mutex> hold(names.lock);
  for (const auto& [cut, full] : names.full) {
    if (full.empty()) continue;
    for (size_t at = text.find(cut); at != std::string::npos; at = text.find(cut, at + full.size()))
      text.replace(at, cut.size(), full);
  }
  return text;
}

int LuaHost::load_lua_file(lua_State* L, const std::string& path, std::string* text_out) {
  // Asked of the file opened, not of its path before (a file swapped for /dev/zero or a pipe
  // between the two, as a hot reload may meet, was read for ever), and within a size (a 300 MB
  // leaf file held a game for seconds).
  constexpr size_t kMaxLuaFileBytes = size_t(64) << 20;
  std::string text, why;
  if (!read_limited(path, kMaxLuaFileBytes, text, why, "a Lua file")) {
    lua_pushfstring(L, "cannot read %s: %s", path.c_str(), why.c_str());
    return LUA_ERRFILE;
  }
  // As luaL_loadfilex: a UTF-8 byte order mark is passed over, and a first line that starts
  // with '#' (#!/usr/bin/lua) is a comment, its line break kept so that lines count the same.
  std::string_view body(text);
  if (body.substr(0, 3) == "\xEF\xBB\xBF") body.remove_prefix(3);
  if (!body.empty() && body[0] == '#') {
    const size_t end = body.find('\n');
    body = end == std::string_view::npos ? std::string_view() : body.substr(end);
  }
  const std::string chunk = "@" + path;
  remember_chunk_name(path);
  const int status = load_text(L, body.data(), body.size(), chunk.c_str(), "t");
  if (text_out) *text_out = std::move(text);
  return status;
}

// Runs a leaf file in the sandbox and collects the leaves of the table it returns.
bool LuaHost::stage_leaf_file(const std::string& path, std::vector<LeafDef>& out, std::vector<Diagnostic>& diags) {
  // Which file the requires made while it runs belong to (module_users).
  struct Staging {
    std::string& file;
    ~Staging() { file.clear(); }
  } staging{staging_file_};
  staging_file_ = path;
  status_globals_read_.clear();
  if (!staged_files_.insert(path).second) forms_may_change_ = true;  // a reload
  auto lua_error = [&](const std::string& cut_raw) {
    // "path:LINE: message" -> a diagnostic at that line.
    const std::string raw = full_chunk_names(cut_raw);
    Diagnostic d;
    d.file = path;
    std::string msg = raw;
    if (msg.rfind(path + ":", 0) == 0) {
      size_t colon = msg.find(':', path.size() + 1);
      std::string line = msg.substr(path.size() + 1, colon - path.size() - 1);
      if (colon != std::string::npos && !line.empty() && line.find_first_not_of("0123456789") == std::string::npos) {
        d.line = std::stoi(line);
        msg = msg.substr(colon + 1);
        if (!msg.empty() && msg[0] == ' ') msg.erase(0, 1);
      }
    }
    size_t tb = msg.find("\nstack traceback:");
    if (tb != std::string::npos) msg = msg.substr(0, tb);
    // "other.lua:LINE: message": an error in a module this file require()s (a syntax error, or
    // one raised as it ran) is said at its own file and line, with the line of the require.
    if (d.line == 0) {
      const size_t ext = msg.find(".lua:");
      const size_t colon = ext == std::string::npos ? ext : msg.find(':', ext + 5);
      const std::string line = colon == std::string::npos ? "" : msg.substr(ext + 5, colon - ext - 5);
      if (colon != std::string::npos && !line.empty() && line.size() < 9 &&
          line.find_first_not_of("0123456789") == std::string::npos && msg.find('\n') > ext) {
        d.file = msg.substr(0, ext + 4);
        d.line = std::stoi(line);
        msg = msg.substr(colon + 1);
        if (!msg.empty() && msg[0] == ' ') msg.erase(0, 1);
        const std::string from = "\n\t" + path + ":";  // the traceback's frame of this file
        if (const size_t at = raw.find(from); at != std::string::npos) {
          const size_t end = raw.find(':', at + from.size());
          const std::string by = raw.substr(at + from.size(), end == std::string::npos ? 0 : end - at - from.size());
          msg += " (required by " + path + (!by.empty() && by.find_first_not_of("0123456789") == std::string::npos ? ":" + by : "") + ")";
        } else {
          msg += " (required by " + path + ")";
        }
      }
    }
    d.message = without_controls(msg) + sandbox_hint(msg);
    diags.push_back(std::move(d));
  };
  // Only a plain file is run (the brain's loader says so at its line; this covers a file swapped
  // for a pipe or a device before a reload, or while it is read): load_lua_file.
  allow_module_dir(std::filesystem::path(path).parent_path().string());
  int top = lua_gettop(L_);
  lua_rawgeti(L_, LUA_REGISTRYINDEX, traceback_ref_);
  std::string file_text;
  // Its compile is watched as its run below is, with the same limit (load_text).
  guard_.limit_scale.store(kLoadLimitScale, std::memory_order_relaxed);
  int loaded;
  bool compile_stopped;
  {
    CallScope scope(*this, L_, false);  // (a load's own limit, kLoadLimitScale)
    loaded = load_lua_file(L_, path, &file_text);
    compile_stopped = loaded != LUA_OK && told_to_stop(L_);
  }
  guard_.limit_scale.store(1, std::memory_order_relaxed);
  if (compile_stopped) {
    lua_pop(L_, 1);
    lua_pushfstring(L_, "compiling the file took more than %d ms, and it was stopped (Lua's compiler is slow on some "
                        "texts, e.g. an if/elseif chain of thousands of branches: a table does the same lookup; a file's "
                        "load may take %d times --leaf-timeout)",
                    static_cast<int>(guard_.timeout * 1000 * kLoadLimitScale + 0.5), static_cast<int>(kLoadLimitScale));
  }
  if (loaded != LUA_OK) {
    // (A NUL inside a string literal is Lua's to take: only a message cut short, with no
    // "near ...", is the NUL's.)
    const size_t nul = loaded == LUA_ERRSYNTAX && !std::strstr(lua_tostring(L_, -1), " near ")
                           ? file_text.find('\0') : std::string::npos;
    if (loaded == LUA_ERRFILE)  // (no line: about the whole file)
      diags.push_back({Severity::Error, path, 0, 0, std::string("cannot run the leaf file: ") + lua_tostring(L_, -1)});
    else if (nul != std::string::npos) {
      // Lua's message quotes the NUL and ends there ("unexpected symbol", "<eof> expected"):
      // said at the byte itself.
      const std::string_view before = std::string_view(file_text).substr(0, nul);
      const size_t line_start = before.rfind('\n') == std::string_view::npos ? 0 : before.rfind('\n') + 1;
      diags.push_back({Severity::Error, path, static_cast<int>(std::count(before.begin(), before.end(), '\n')) + 1,
                       static_cast<int>(utf8_characters(before.substr(line_start))) + 1,
                       "the file holds a NUL byte here: a Lua file is text (a binary file, or one saved as UTF-16?)"});
    }
    else if (loaded == LUA_ERRMEM && heap_.refused) {  // (a cap of a few kB: Lua said "not enough memory", nothing more)
      heap_.refused = false;
      lua_error("the Lua heap reached its cap of " + byte_size(heap_.cap) +
                " while the file was compiled; it did not load (--lua-memory sets the cap; lua_memory_limit when embedded)");
    } else
      lua_error(lua_tostring(L_, -1));
    lua_settop(L_, top);
    return false;
  }
  // The file's own globals: a new environment carrying the globals of its last good run, kept
  // only if this run succeeds (a failed reload leaves the running version's globals alone).
  push_new_env(L_, path, true);
  lua_pushvalue(L_, -1);
  lua_setupvalue(L_, -3, 1);
  lua_insert(L_, -2);  // handler, env, chunk
  // Running a leaf file is guarded by the budget too (an endless loop at load must not hang),
  // and by the watchdog with a longer limit (a file may build big tables once).
  const bool guard = budget_slice_ > 0 && !rt_.options.budget_all_leaves;
  if (guard) lua_sethook(L_, guard_hook, LUA_MASKCOUNT, budget_slice_);
  guard_.limit_scale.store(kLoadLimitScale, std::memory_order_relaxed);
  int rc;
  {
    CallScope scope(*this, L_, false);  // (a load's own limit, kLoadLimitScale)
    rc = lua_pcall(L_, 0, 1, top + 1);
  }
  guard_.limit_scale.store(1, std::memory_order_relaxed);
  if (guard) lua_sethook(L_, nullptr, 0, 0);
  if (rc != LUA_OK) {
    std::string message = lua_tostring(L_, -1) ? lua_tostring(L_, -1) : "error while running the file";
    if (heap_.refused && message.rfind("not enough memory", 0) == 0) {  // Lua gives it no position
      heap_.refused = false;
      message = refused_at_prefix() + "the Lua heap reached its cap of " + byte_size(heap_.cap) +
                " while the file ran (a table or string that keeps growing at its top level?); "
                "the allocation failed and the file did not load (--lua-memory sets the cap; lua_memory_limit when embedded)";
    }
    lua_error(message);
    lua_settop(L_, top);
    return false;
  }
  // Status constants read as globals while the file ran (at its top: `local S = SUCCESS`).
  for (size_t k = 0; k < status_globals_read_.size(); ++k) {
    const GlobalRead& r = status_globals_read_[k];
    bool again = false;
    for (size_t j = 0; j < k; ++j)
      again |= status_globals_read_[j].file == r.file && status_globals_read_[j].line == r.line &&
               status_globals_read_[j].name == r.name;
    if (again) continue;
    const int column = r.file == path && r.line > 0 ? DeclLines(file_text).column_of(r.line, r.name) : 0;
    diags.push_back({Severity::Warning, r.file.empty() ? path : r.file, r.line, column, status_global_words(r.name)});
  }
  status_globals_read_.clear();
  // Where the file returns its table: its top level's last `return`; when it has none, its
  // last line that is not blank (where `return leaves` belongs).
  auto return_at = [&file_text] {
    if (const DeclLines::Pos at = top_level_return(file_text); at.line > 0) return at;
    const DeclLines text(file_text);
    int last = static_cast<int>(text.lines.size());
    while (last > 1 && text.lines[static_cast<size_t>(last) - 1].find_first_not_of(" \t\r") == std::string::npos) --last;
    return DeclLines::Pos{std::max(last, 1), 1};
  };
  if (!lua_istable(L_, -1)) {
    const DeclLines::Pos at = return_at();
    diags.push_back({Severity::Error, path, at.line, at.column,
                     std::string("a leaf file must return a table of leaves (end it with 'return leaves'), it returned ") +
                         luaL_typename(L_, -1)});
    lua_settop(L_, top);
    return false;
  }
  bool ok = true;
  const DeclLines decl(file_text);
  defers_without_close(decl, path, diags);
  const size_t leaves_before = out.size();
  const size_t diags_before = diags.size();
  std::map<std::string, std::string>& data = data_entries_[path];
  data.clear();
  lua_pushnil(L_);
  while (lua_next(L_, -2)) {
    // A name with a NUL byte is none a brain can write either (it read as the text before the
    // NUL: leaves["Act\0x"] answered for Act).
    const bool nul_name = lua_type(L_, -2) == LUA_TSTRING && std::strlen(lua_tostring(L_, -2)) != lua_rawlen(L_, -2);
    if (lua_type(L_, -2) != LUA_TSTRING || lua_rawlen(L_, -2) == 0 || nul_name) {
      // Not a leaf (no brain can name it), but a function there is most likely meant as one
      // (`leaves[1] = function ...`, a list of leaves): said, as the file's data is not.
      if (lua_isfunction(L_, -1)) {
        const int line = first_line(L_, -1);
        diags.push_back({Severity::Warning, path, line, line > 0 ? 1 : 0,
                         std::string("the leaf table's entry ") +
                             (nul_name ? "[\"" + std::string(lua_tostring(L_, -2)) +
                                             "\\0...\"] is a function, but its name holds a NUL byte, which no brain can write"
                              : (lua_type(L_, -2) == LUA_TSTRING ? std::string("[\"\"]")
                                 : lua_isinteger(L_, -2)         ? "[" + std::to_string(lua_tointeger(L_, -2)) + "]"
                                                                 : std::string("under a ") + luaL_typename(L_, -2) + " key") +
                                    " is a function, but a leaf is named by text (leaves.Name = function ...)") +
                             ": no brain can name it, so it is no leaf"});
      }
      lua_pop(L_, 1);
      continue;  // array part: not leaves
    }
    LeafDef def;
    def.name = lua_tostring(L_, -2);
    bool hook_trouble = false;  // a misnamed hook or a hook that is no function: said, not also "without 'tick'"
    def.file = path;
    const int leaf_line = first_line(L_, -1);
    // Where the leaf is named (its key), near its first function; a part of it by its word.
    const DeclLines::Pos leaf_at = decl.near(leaf_line, def.name);
    def.line = leaf_at.line;
    def.column = leaf_at.column;
    auto part_at = [&](const std::string& word) { return decl.after(leaf_at.line, word); };
    // `function leaves:X(agent, args)`, with ':', takes (self, agent, args): called as
    // X(agent, args), it gets the agent in self and the args in agent (the function on top, popped).
    auto method_defined = [&] {
      const char* first = lua_getlocal(L_, nullptr, 1);  // its parameters' names (pushes nothing)
      const char* second = lua_getlocal(L_, nullptr, 2);
      const bool shifted = first && second && std::strcmp(first, "self") == 0 && std::strcmp(second, "agent") == 0;
      lua_pop(L_, 1);
      if (shifted)
        diags.push_back({Severity::Warning, path, leaf_at.line, leaf_at.column,
                         "leaf '" + def.name + "' takes (self, agent, ...), as `function leaves:" + def.name +
                             "(agent, ...)` (with ':') makes it: a leaf is called as (agent, args), so self gets the "
                             "agent and agent the args; write function leaves." + def.name + "(agent, args), with '.'"});
    };
    // Whether the value on top is a thicket.task (a table with the task metatable).
    auto task_on_top = [&] {
      bool task = false;
      if (lua_istable(L_, -1) && lua_getmetatable(L_, -1)) {
        lua_rawgeti(L_, LUA_REGISTRYINDEX, task_meta_ref_);
        task = lua_rawequal(L_, -1, -2);
        lua_pop(L_, 2);
      }
      return task;
    };
    int t = lua_type(L_, -1);
    if (t == LUA_TFUNCTION) {
      def.shape = LeafShape::Function;
      lua_pushvalue(L_, -1);
      method_defined();
      lua_pushvalue(L_, -1);
      def.fn = luaL_ref(L_, LUA_REGISTRYINDEX);
    } else if (t == LUA_TTABLE && lua_getmetatable(L_, -1)) {
      lua_rawgeti(L_, LUA_REGISTRYINDEX, task_meta_ref_);
      bool is_task = lua_rawequal(L_, -1, -2);
      lua_pop(L_, 2);
      if (!is_task) {
        diags.push_back({Severity::Error, path, leaf_at.line, leaf_at.column, "leaf '" + def.name + "' is a table with a metatable; a leaf is a function, a table of hooks or thicket.task(fn)"});
        ok = false;
      } else {
        def.shape = LeafShape::Task;
        lua_rawgeti(L_, -1, 1);
        method_defined();
        lua_rawgeti(L_, -1, 1);
        def.fn = luaL_ref(L_, LUA_REGISTRYINDEX);
      }
    } else if (t == LUA_TTABLE) {
      // A table of hooks {start, tick, stop}, or {fn = function or thicket.task(...)}; either
      // may declare its args' types: args = {name = "number", other = "string?"}.
      def.shape = LeafShape::Hooks;
      static const std::vector<std::string> hooks = {"start", "tick", "stop", "fn", "args"};
      bool has_fn = false, fn_is_task = false;
      lua_pushnil(L_);
      while (lua_next(L_, -2)) {
        std::string hook = lua_type(L_, -2) == LUA_TSTRING ? lua_tostring(L_, -2) : "?";
        int* slot = hook == "start" ? &def.start : hook == "tick" ? &def.tick : hook == "stop" ? &def.stop : nullptr;
        if (hook == "args") {
          ok = read_arg_types(L_, def, path, diags, decl, leaf_at.line) && ok;
        } else if (hook == "fn") {
          const bool is_task = task_on_top();
          if (is_task) lua_rawgeti(L_, -1, 1);
          else lua_pushvalue(L_, -1);
          if (!lua_isfunction(L_, -1)) {
            lua_pop(L_, 1);
            const DeclLines::Pos at = part_at("fn");
            diags.push_back({Severity::Error, path, at.line, at.column, "'fn' of leaf '" + def.name + "' must be a function or thicket.task(fn), got " + luaL_typename(L_, -1)});
            ok = false;
            hook_trouble = true;
          } else {
            def.fn = luaL_ref(L_, LUA_REGISTRYINDEX);
            has_fn = true;
            fn_is_task = is_task;
          }
        } else if (!slot && lua_type(L_, -2) == LUA_TNUMBER && lua_isfunction(L_, -1)) {
          // {args = {...}, function(agent, args) ... end}: a function in the list part, unnamed.
          diags.push_back({Severity::Error, path, leaf_at.line, leaf_at.column,
                           "leaf '" + def.name + "' holds a function without a name; name it: fn = function(agent, args) "
                           "... end (or tick = function(agent, args, mem) ... end with start and stop hooks)"});
          ok = false;
          hook_trouble = true;
        } else if (!slot) {
          const DeclLines::Pos at = part_at(hook);
          diags.push_back({Severity::Error, path, at.line, at.column, "leaf '" + def.name + "' has an unknown hook '" + hook + "'" +
                                                            did_you_mean(hook, hooks) + " (hooks: start, tick, stop; or fn; and args)"});
          ok = false;
          hook_trouble = true;
        } else if (!lua_isfunction(L_, -1)) {
          const DeclLines::Pos at = part_at(hook);
          const bool task = task_on_top();
          diags.push_back({Severity::Error, path, at.line, at.column,
                           "hook '" + hook + "' of leaf '" + def.name + "' must be a function, got " +
                               (task ? std::string("a task; a task is the whole leaf, not a hook: fn = thicket.task(...)")
                                     : std::string(luaL_typename(L_, -1)))});
          ok = false;
          hook_trouble = true;
        } else {
          lua_pushvalue(L_, -1);
          *slot = luaL_ref(L_, LUA_REGISTRYINDEX);
        }
        lua_pop(L_, 1);
      }
      if (has_fn) {
        def.shape = fn_is_task ? LeafShape::Task : LeafShape::Function;
        if (def.start != LUA_NOREF || def.tick != LUA_NOREF || def.stop != LUA_NOREF) {
          diags.push_back({Severity::Error, path, leaf_at.line, leaf_at.column, "leaf '" + def.name + "' has both 'fn' and hooks; give fn (a function or a task) or start/tick/stop hooks"});
          ok = false;
        }
      } else if (def.tick == LUA_NOREF && !hook_trouble) {
        diags.push_back({Severity::Error, path, leaf_at.line, leaf_at.column, "leaf '" + def.name + "' is a hook table without 'tick'; give it tick = function(agent, args, mem) ... end (or fn = function(agent, args) ... end)"});
        ok = false;
      }
    } else if (t == LUA_TTHREAD) {
      // coroutine.create(fn) where thicket.task(fn) was meant: said, not passed over as data.
      diags.push_back({Severity::Error, path, leaf_at.line, leaf_at.column,
                       "leaf '" + def.name + "' is a coroutine; a leaf that runs over several ticks is thicket.task(function(agent, args) ... end), "
                       "which makes a coroutine for each agent"});
      ok = false;
      lua_pop(L_, 1);
      continue;
    } else {
      // Data beside the leaves (numbers, texts): not a leaf; kept to say so to a brain that
      // names one as a leaf.
      data[def.name] = path + (leaf_at.line > 0 ? ":" + std::to_string(leaf_at.line) : std::string()) + " makes it " +
                       (t == LUA_TNUMBER ? "a number" : t == LUA_TSTRING ? "a text" : std::string("a ") + luaL_typename(L_, -1)) +
                       "; a leaf is a function, a table of hooks or thicket.task(fn)";
      lua_pop(L_, 1);
      continue;
    }
    out.push_back(std::move(def));
    lua_pop(L_, 1);
  }
  // Functions the file made global (function Patrol(agent) ... end, for function leaves.Patrol):
  // no leaves, said so to a brain that names one.
  lua_pushnil(L_);
  while (lua_next(L_, top + 2)) {
    if (lua_type(L_, -2) == LUA_TSTRING && lua_isfunction(L_, -1)) {
      const std::string name = lua_tostring(L_, -2);
      lua_getglobal(L_, name.c_str());  // (the sandbox's own, which every file's globals copy)
      const bool own = lua_isnil(L_, -1);
      lua_pop(L_, 1);
      if (own && !data.count(name) &&
          std::none_of(out.begin() + static_cast<std::ptrdiff_t>(leaves_before), out.end(),
                       [&](const LeafDef& d) { return d.name == name; })) {
        const int line = first_line(L_, -1);
        data[name] = path + (line > 0 ? ":" + std::to_string(line) : std::string()) +
                     " makes it a global function, outside the table the file returns: write function leaves." + name +
                     "(agent, args) (a field of the returned table)";
      }
    }
    lua_pop(L_, 1);
  }
  // The leaves were visited in the table's order, which changes from run to run: the errors are
  // said in the file's order (by line and column), the same each time.
  std::stable_sort(diags.begin() + static_cast<std::ptrdiff_t>(diags_before), diags.end(),
                   [](const Diagnostic& a, const Diagnostic& b) {
                     return a.line != b.line ? a.line < b.line : a.column < b.column;
                   });
  if (ok && out.size() == leaves_before && lua_getmetatable(L_, -1)) {
    // setmetatable({}, {__index = ...}): the leaves are read from the table's own fields (as
    // pairs would list them without __pairs), so this file's are nowhere to be found. The
    // thicket module's face is such a table (`return thicket`, for `return leaves`).
    lua_getfield(L_, -1, "__newindex");
    lua_rawgeti(L_, LUA_REGISTRYINDEX, module_meta_ref_);
    lua_getfield(L_, -1, "__newindex");
    const bool module = !lua_isnil(L_, -1) && lua_rawequal(L_, -1, -3);
    lua_pop(L_, 4);
    const DeclLines::Pos at = return_at();
    diags.push_back({Severity::Error, path, at.line, at.column,
                     module ? "this file returns the thicket module; a leaf file returns the table of its leaves "
                              "(end it with 'return leaves')"
                            : "the table this file returns has a metatable and no leaves of its own; the leaves are read "
                              "from its own fields (not through __index): return a plain table of leaves"});
    ok = false;
  }
  if (ok) {  // the file ran and its leaves are good: its globals are the ones to keep
    lua_pushvalue(L_, top + 2);
    keep_file_env(path);
    lua_pop(L_, 1);
  }
  lua_settop(L_, top);
  return ok;
}

void LuaHost::release_leaf(LeafDef& def) {
  if (lane_ > 0 && def.lane_refs.size() < lane_) return;  // never staged in this lane
  LeafDef::Refs lane_refs{def.fn, def.start, def.tick, def.stop};
  LeafDef::Refs& r = lane_ == 0 ? lane_refs : def.lane_refs[lane_ - 1];
  for (int* ref : {&r.fn, &r.start, &r.tick, &r.stop}) {
    if (*ref != LUA_NOREF) luaL_unref(L_, LUA_REGISTRYINDEX, *ref);
    *ref = LUA_NOREF;
  }
  if (lane_ == 0) def.fn = def.start = def.tick = def.stop = LUA_NOREF;
}

namespace {
// A node's args are built once and shared by every agent (SPEC 7), so a leaf must not change
// them: each table is handed out as a read-only view, an empty table whose metatable reads the
// real table (__index: the VM follows it without a call), answers # and pairs, and refuses
// every write (all keys are absent from the view, so all writes reach __newindex) with an
// error naming the node. The leaf files' rawset refuses views (lua_sandbox.cpp). Nested
// tables are views too. type() says "table"; only next() and rawget() see the view empty.
int args_refuse_write(lua_State* L) {
  return luaL_error(L, "the args of node '%s' are read-only (one table shared by every agent); copy what you need "
                       "into a local table",
                    lua_tostring(L, lua_upvalueindex(1)));
}
void push_args_table(lua_State* L, int view) {  // the real table behind the view at index `view`
  lua_getmetatable(L, view);
  lua_getfield(L, -1, "__index");
  lua_remove(L, -2);
}
int args_len(lua_State* L) {
  push_args_table(L, 1);
  lua_pushinteger(L, static_cast<lua_Integer>(lua_rawlen(L, -1)));
  return 1;
}
int args_pairs(lua_State* L) {  // in the same order in every run (lua_order.cpp)
  push_args_table(L, 1);
  push_ordered_pairs(L, -1);
  // The state handed to the loop is the view, not the real table (the iterator keeps that in
  // its upvalues): `local _, s = pairs(args); s.x = 1` wrote into every agent's args.
  lua_pushvalue(L, 1);
  lua_replace(L, -3);
  return 3;
}
// Replaces the table on top of the stack with its read-only view.
void make_read_only(lua_State* L, const std::string& node) {
  lua_createtable(L, 0, 0);
  lua_createtable(L, 0, 5);
  lua_pushvalue(L, -3);
  lua_setfield(L, -2, "__index");
  lua_pushlstring(L, node.data(), node.size());
  lua_pushcclosure(L, args_refuse_write, 1);
  lua_setfield(L, -2, "__newindex");
  lua_pushcfunction(L, args_len);
  lua_setfield(L, -2, "__len");
  lua_pushcfunction(L, args_pairs);
  lua_setfield(L, -2, "__pairs");
  lua_pushliteral(L, "read-only args");
  lua_setfield(L, -2, "__metatable");
  lua_setmetatable(L, -2);
  lua_remove(L, -2);
}

void push_arg(lua_State* L, const ArgValue& v, const std::string& node) {
  switch (v.type) {
    case ArgValue::Type::Nil: lua_pushnil(L); break;
    case ArgValue::Type::Bool: lua_pushboolean(L, v.boolean); break;
    case ArgValue::Type::Integer: lua_pushinteger(L, v.integer); break;
    case ArgValue::Type::Number: lua_pushnumber(L, v.number); break;
    case ArgValue::Type::String: lua_pushlstring(L, v.text.data(), v.text.size()); break;
    case ArgValue::Type::List:
      lua_createtable(L, static_cast<int>(v.items.size()), 0);
      for (size_t i = 0; i < v.items.size(); ++i) {
        push_arg(L, v.items[i], node);
        lua_rawseti(L, -2, static_cast<lua_Integer>(i + 1));
      }
      make_read_only(L, node);
      break;
    case ArgValue::Type::Map:
      lua_createtable(L, 0, static_cast<int>(v.entries.size()));
      for (const auto& [k, item] : v.entries) {
        push_arg(L, item, node);
        lua_setfield(L, -2, k.c_str());
      }
      make_read_only(L, node);
      break;
  }
}
}  // namespace

void LuaHost::install_args(Program& p) {
  if (!installed_programs_.insert(p.name).second) forms_may_change_ = true;  // a brain's reload
  missing_key_.clear();
  require_found_.clear();
  missing_msg_.clear();
  std::vector<const std::string*> node_of(p.calls.size(), nullptr);  // a call site's node id, for errors
  for (size_t i = 0; i < p.nodes.size(); ++i)
    if ((p.nodes[i].kind == NodeKind::Action || p.nodes[i].kind == NodeKind::Condition) && p.nodes[i].a < node_of.size())
      node_of[p.nodes[i].a] = &p.ids[i];
  static const std::string kUnknown = "?";
  for (size_t k = 0; k < p.calls.size(); ++k) {
    LeafCall& call = p.calls[k];
    push_arg(L_, call.args, node_of[k] ? *node_of[k] : kUnknown);
    args_slot(call) = luaL_ref(L_, LUA_REGISTRYINDEX);
  }
}

void LuaHost::release_args(Program& p) {
  for (auto& call : p.calls) {
    int& ref = args_slot(call);
    if (ref != LUA_NOREF) luaL_unref(L_, LUA_REGISTRYINDEX, ref);
    ref = LUA_NOREF;
  }
}

}  // namespace thicket
