// thicket-game: a small top-down stealth game built on the installed thicket (find_package).
// The player must reach the green exit; the guards' brains are thicket HSMs with trees inside
// their states and Lua leaves (mods/guard.yaml, mods/guard.lua), hot-reloaded while it runs.
//
//   thicket-game [LEVEL]                  play (LEVEL: warehouse, courtyard, arena, or a .level file)
//   thicket-game --frames N [--autoplay] [--screenshot F.png] [--select ID] [--inspect]
//                [--log FILE] [--edit FRAME:FILE:SOURCE]...
//                                         N fixed-step frames headless (SDL's offscreen driver)
//   thicket-game --bench [--frames N]     AI milliseconds per frame at 100, 1,000 and 5,000 guards
#include <unistd.h>  // access

#include <SDL.h>

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <climits>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <string>
#include <vector>

#include "debugger.hpp"
#include "draw.hpp"
#include "game.hpp"
#include "level.hpp"
#include "thicket/version.hpp"

namespace fs = std::filesystem;

namespace {

struct Edit {
  uint64_t frame = 0;
  std::string file, source;
  bool made = false;
};

// What a test does at a given loop iteration, through SDL's own event queue (so the offscreen
// run goes through the same key and mouse handling as a person's).
struct Scripted {
  long iteration = 0;
  SDL_Keycode key = 0;   // a key press (repeat: the repeat a held key sends), or
  bool repeat = false;
  uint32_t guard = 0;    // a left click on this guard (where it is drawn), or
  int x = -1, y = -1;    // a left click at this window pixel
};

struct Args {
  std::string level = "warehouse";
  bool level_given = false;
  std::string levels, mods;
  long frames = -1;  // headless when >= 0
  bool autoplay = false, bench = false, inspect = false;
  std::string screenshot, log;
  uint32_t select = 0;
  double leaf_timeout = 0.01;  // s a Lua call may run (the runtime's default, 0.05 s, is a frame and a half)
  long lua_memory_mb = 512;
  long budget = 100'000;  // Lua instructions a task resume (and a mod file's top level) may run
  std::vector<Edit> edits;
  std::vector<Scripted> scripted;
  int threads = 2;
};

const char* kUsage =
    "usage: thicket-game [LEVEL] [--levels DIR] [--mods DIR] [--threads N] [--leaf-timeout S] [--lua-memory MB] [--budget N]\n"
    "       thicket-game --frames N [--autoplay] [--screenshot FILE.png] [--select ID] [--inspect]\n"
    "                    [--log FILE] [--edit FRAME:FILE:SOURCE]... [--press I:KEY]... [--repeat I:KEY]... [--click I:guard:ID]... [LEVEL]\n"
    "       thicket-game --bench [--frames N] [LEVEL]\n"
    "LEVEL: a name in the levels folder (warehouse, courtyard, arena) or a .level file.\n"
    "--levels DIR, --mods DIR: where the levels and the guards' mod files are (default: beside the game).\n"
    "--threads N: the threads the guards' AI is ticked and sensed on (default 2).\n"
    "--frames N: N fixed-step frames (1/30 s) headless under SDL's offscreen video driver, then quit\n"
    "  (sooner when the player escapes or is caught, unless --press or --click are given).\n"
    "--autoplay: a scripted player walks to the exit. --screenshot: the last frame as a PNG.\n"
    "--select ID: the guard whose debugger is open; --inspect: its debugger's lines printed at the end.\n"
    "--log FILE: a line per guard per frame (states, position, senses).\n"
    "--bench: AI milliseconds per frame at 100, 1,000 and 5,000 guards.\n"
    "Exit status: 0; 1 a mod or level that does not load (headless); 2 a usage error, a missing folder or file.\n"
    "--leaf-timeout S: seconds a mod's Lua call may run before it is stopped (default 0.01; 0: no limit).\n"
    "--lua-memory MB: the cap of each Lua heap (default 512; 0: no cap).\n"
    "--budget N: Lua instructions a task resume, and a mod file's top level as it loads, may run\n"
    "  (default 100000; 0: no budget). A mod that builds a big table as it loads needs more.\n"
    "--edit FRAME:FILE:SOURCE: at the end of frame FRAME, copy SOURCE over the mod file FILE (tests);\n"
    "  FRAME:FILE: (no SOURCE) deletes it.\n"
    "--press I:KEY, --click I:guard:ID or I:X:Y: a key press or a left click at loop iteration I (tests);\n"
    "--repeat I:KEY: the repeat a held key sends (which changes nothing).\n";

// The folder the executable lives in: its levels/ and mods/ are beside it.
fs::path exe_dir(const char* argv0) {
  std::error_code ec;
  fs::path self = fs::read_symlink("/proc/self/exe", ec);
  if (ec) self = fs::absolute(argv0);
  return self.parent_path();
}

bool parse(int argc, char** argv, Args& a, std::string& error) {
  // A whole number from 0 to max (past it, or past what a long holds, is an error: it once
  // wrapped round or was capped without a word).
  auto number = [&](const std::string& flag, const char* text, long& out, long max = LONG_MAX, long min = 0) {
    char* end = nullptr;
    errno = 0;
    out = std::strtol(text, &end, 10);
    if (!*text || *end || out < min || errno == ERANGE || out > max) {
      error = flag + " takes a whole number from " + std::to_string(min) + " to " + std::to_string(max) + ", not '" +
              text + "'";
      return false;
    }
    return true;
  };
  for (int i = 1; i < argc; ++i) {
    std::string s = argv[i];
    auto value = [&]() -> const char* {
      if (i + 1 >= argc) {
        error = s + " needs a value";
        return nullptr;
      }
      return argv[++i];
    };
    const char* v = nullptr;
    long n = 0;
    if (s == "--help" || s == "-h") {
      std::fputs(kUsage, stdout);
      std::exit(0);
    } else if (s == "--frames") {
      if (!(v = value()) || !number(s, v, a.frames)) return false;
    } else if (s == "--threads") {
      // 1 to 64 (0 was raised to 1 without a word, 65 and more lowered to 64).
      // (One message for 0 and 65: "from 0 to 64", then "from 1 to 64", read as two rules.)
      if (!(v = value()) || !number(s, v, n, 64, 1)) return false;
      a.threads = int(n);
    } else if (s == "--leaf-timeout") {
      // Seconds, as thicket run's option (its errors name it): 0 turns the limit off.
      if (!(v = value())) return false;
      char* end = nullptr;
      const double t = std::strtod(v, &end);
      if (!*v || *end || !(t >= 0 && t <= 3600)) {
        error = "--leaf-timeout takes seconds from 0 (no limit) to 3600, not '" + std::string(v) + "'";
        return false;
      }
      a.leaf_timeout = t;
    } else if (s == "--lua-memory") {
      if (!(v = value()) || !number(s, v, n, 1 << 20)) return false;
      a.lua_memory_mb = n;
    } else if (s == "--budget") {
      if (!(v = value()) || !number(s, v, n, 4'000'000'000L)) return false;
      a.budget = n;
    } else if (s == "--select") {
      if (!(v = value()) || !number(s, v, n, UINT32_MAX)) return false;
      a.select = uint32_t(n);
    } else if (s == "--autoplay") {
      a.autoplay = true;
    } else if (s == "--bench") {
      a.bench = true;
    } else if (s == "--inspect") {
      a.inspect = true;
    } else if (s == "--screenshot") {
      if (!(v = value())) return false;
      a.screenshot = v;
      // A PNG whatever the name said (x.jpg was a PNG named .jpg): the name must say so.
      std::string ext = fs::path(a.screenshot).extension().string();
      std::transform(ext.begin(), ext.end(), ext.begin(), [](unsigned char c) { return char(std::tolower(c)); });
      if (ext != ".png") {
        error = "--screenshot writes a PNG: name a .png file, not '" + a.screenshot + "'";
        return false;
      }
    } else if (s == "--log") {
      if (!(v = value())) return false;
      a.log = v;
    } else if (s == "--levels") {
      if (!(v = value())) return false;
      a.levels = v;
    } else if (s == "--mods") {
      if (!(v = value())) return false;
      a.mods = v;
    } else if (s == "--edit") {
      if (!(v = value())) return false;
      std::string t = v;
      size_t c1 = t.find(':'), c2 = c1 == std::string::npos ? c1 : t.find(':', c1 + 1);
      long frame = 0;
      if (c2 == std::string::npos || !number("--edit's FRAME", t.substr(0, c1).c_str(), frame)) {
        if (error.empty()) error = "--edit takes FRAME:FILE:SOURCE, not '" + t + "'";
        return false;
      }
      a.edits.push_back({uint64_t(frame), t.substr(c1 + 1, c2 - c1 - 1), t.substr(c2 + 1)});
    } else if (s == "--press" || s == "--repeat" || s == "--click") {
      // --press/--repeat ITERATION:KEY (p, n, c, r, tab, esc) / --click ITERATION:guard:ID or ITERATION:X:Y
      if (!(v = value())) return false;
      std::string t = v;
      size_t c1 = t.find(':');
      long iteration = 0;
      if (c1 == std::string::npos || !number(s + "'s ITERATION", t.substr(0, c1).c_str(), iteration)) {
        if (error.empty()) error = s + " takes ITERATION:" + (s != "--click" ? "KEY" : "guard:ID or ITERATION:X:Y") + ", not '" + t + "'";
        return false;
      }
      Scripted sc;
      sc.iteration = iteration;
      std::string rest = t.substr(c1 + 1);
      if (s != "--click") {
        sc.repeat = s == "--repeat";
        sc.key = rest == "tab" ? SDLK_TAB : rest == "esc" ? SDLK_ESCAPE : rest.size() == 1 ? SDL_Keycode(rest[0]) : 0;
        if (!sc.key || std::string("pncr\t\x1b").find(char(sc.key)) == std::string::npos) {
          error = s + ": unknown key '" + rest + "' (p, n, c, r, tab, esc)";
          return false;
        }
      } else {
        size_t c2 = rest.find(':');
        long x = 0, y = 0;
        if (c2 == std::string::npos) {
          error = "--click takes ITERATION:guard:ID or ITERATION:X:Y, not '" + t + "'";
          return false;
        }
        if (rest.substr(0, c2) == "guard") {
          if (!number("--click's ID", rest.substr(c2 + 1).c_str(), x, UINT32_MAX)) return false;
          sc.guard = uint32_t(x);
        } else {
          if (!number("--click's X", rest.substr(0, c2).c_str(), x, INT_MAX) ||
              !number("--click's Y", rest.substr(c2 + 1).c_str(), y, INT_MAX))
            return false;
          sc.x = int(x), sc.y = int(y);
        }
      }
      a.scripted.push_back(sc);
    } else if (!s.empty() && s[0] == '-') {
      error = "unknown option " + s;
      return false;
    } else if (a.level_given) {  // (the last one was played, the others ignored without a word)
      error = "one level at a time: '" + a.level + "' and '" + s + "' (Tab moves to the next level in play)";
      return false;
    } else {
      a.level = s;
      a.level_given = true;
    }
  }
  // A screenshot's folder that cannot take it: said now, not after the whole run.
  if (!a.screenshot.empty()) {
    const fs::path folder = fs::path(a.screenshot).parent_path().empty() ? fs::path(".") : fs::path(a.screenshot).parent_path();
    std::error_code ec;
    if (!fs::is_directory(folder, ec) || ::access(folder.c_str(), W_OK) != 0) {
      error = "--screenshot " + a.screenshot + ": " + folder.string() +
              (fs::is_directory(folder, ec) ? " cannot be written" : " is no folder");
      return false;
    }
  }
  // An edit that could never be made was ignored without a word (and its SOURCE never read).
  for (const Edit& e : a.edits) {
    std::error_code ec;
    if (e.frame == 0 || (a.frames >= 0 && e.frame > static_cast<uint64_t>(a.frames))) {
      error = "--edit at frame " + std::to_string(e.frame) + " is never made: frames are 1 to " +
              (a.frames >= 0 ? std::to_string(a.frames) + " (--frames)" : std::string("the last one"));
      return false;
    }
    if (!e.source.empty() && !fs::is_regular_file(e.source, ec)) {
      error = "--edit's SOURCE " + e.source + (fs::exists(e.source, ec) ? " is not a plain file" : " does not exist");
      return false;
    }
    // FILE is a mod file: a name in the mod folder (it wrote a level, or any path, unsaid).
    if (e.file.empty() || e.file.find('/') != std::string::npos || e.file == "." || e.file == "..") {
      error = "--edit's FILE is a file of the mod folder, named without a folder (guard.lua), not '" + e.file + "'";
      return false;
    }
  }
  return true;
}

// The levels to play in order: warehouse, courtyard, arena, then any others by name.
std::vector<fs::path> level_files(const fs::path& dir) {
  std::vector<fs::path> out;
  for (const char* name : {"warehouse", "courtyard", "arena"})
    if (fs::exists(dir / (std::string(name) + ".level"))) out.push_back(dir / (std::string(name) + ".level"));
  std::vector<fs::path> more;
  std::error_code ec;
  for (auto& e : fs::directory_iterator(dir, ec))  // (a folder named x.level is no level)
    if (e.path().extension() == ".level" && !e.is_directory(ec) && std::find(out.begin(), out.end(), e.path()) == out.end())
      more.push_back(e.path());
  std::sort(more.begin(), more.end());
  out.insert(out.end(), more.begin(), more.end());
  return out;
}

fs::path level_path(const Args& a, const fs::path& levels) {
  if (a.level.size() > 6 && a.level.ends_with(".level")) return a.level;
  return levels / (a.level + ".level");
}

bool load(const fs::path& path, game::Level& level) {
  std::vector<thicket::Diagnostic> diags;
  if (game::load_level(path.string(), level, diags)) return true;
  for (auto& d : diags) std::fprintf(stderr, "%s\n", thicket::format_diagnostic(d).c_str());
  return false;
}

// A failed reload's first error as the errors on screen say it, "FILE:LINE:COL: error: ..."
// (ReloadReport::first_error is "FILE:LINE:COL: message").
std::string first_error_of(const thicket::ReloadReport& r) {
  for (const thicket::Diagnostic& d : r.diagnostics)
    if (d.severity == thicket::Severity::Error) {
      const std::string line = thicket::format_diagnostic(d);
      return line.substr(0, line.find('\n'));
    }
  return r.first_error;
}

// One line per guard per frame, plus reloads and the outcome: what the tests compare.
void log_frame(std::ofstream& out, const game::Game& g) {
  for (const auto& r : g.reloads())
    out << "frame " << g.frame() << " reload " << fs::path(r.file).filename().string() << (r.ok ? " ok" : " failed: ")
        << (r.ok ? "" : first_error_of(r)) << "\n";
  for (const game::ModMessage& m : g.mod_errors())
    for (const std::string& l : m.lines) out << "frame " << g.frame() << " showing error: " << l << "\n";
  if (g.last_script_error_frame() == g.frame() && g.frame() > 0)
    out << "frame " << g.frame() << " script error: " << g.last_script_error() << "\n";
  char buf[160];
  for (const game::Guard& guard : g.guards()) {
    std::string states;
    for (const std::string& s : g.states_of(guard)) states += (states.empty() ? "" : ">") + s;
    std::snprintf(buf, sizeof buf, " %.3f %.3f sight %.2f %.1f", guard.position.x, guard.position.y,
                  guard.senses.sight.cones[0].range, g.number(guard, g.slots().sight_range));
    out << "frame " << g.frame() << " guard " << guard.id << " " << (states.empty() ? "-" : states) << buf << "\n";
  }
  std::snprintf(buf, sizeof buf, " %.3f %.3f", g.player().x, g.player().y);
  out << "frame " << g.frame() << " player" << buf << "\n";
}

void print_log(game::Game& g) {
  for (const std::string& line : g.take_log()) std::fprintf(stderr, "%s\n", line.c_str());
}

int run_bench(const Args& a, const fs::path& mods, const game::Level& level) {
  long frames = a.frames > 0 ? a.frames : 300;
  std::printf("thicket-game --bench: %s, %ld frames of %.1f ms after 30 warm-up frames; AI = perception + "
              "thicket's tick_all of every guard (HSM, trees, Lua leaves, native MoveTo)\n",
              level.name.c_str(), frames, game::kDt * 1000);
  std::printf("%8s %8s %14s %14s %14s %14s\n", "guards", "threads", "AI ms/frame", "perception", "brains", "frame ms");
  game::View view;
  std::string error;
  if (!view.open(true, error)) {
    std::fprintf(stderr, "thicket-game: %s\n", error.c_str());
    return 2;
  }
  for (int guards : {100, 1000, 5000}) {
    for (int threads : {1, a.threads}) {
      if (threads == 1 && a.threads == 1 && guards) {}  // one row when --threads 1
      game::Options o;
      o.mods = mods.string();
      o.threads = threads;
      o.extra_guards = guards;
      o.no_catch = true;
      game::Game g(o);
      if (!g.load_brain(error) || !g.start_level(level, error)) {
        std::fprintf(stderr, "thicket-game: %s", error.c_str());
        return 2;
      }
      game::Ui ui;
      double ai = 0, sensing = 0, total = 0;
      for (long f = 0; f < 30 + frames; ++f) {
        // SDL turns Ctrl-C and SIGTERM into a quit event: the bench stops on it, as the game
        // does (it polled no events, so neither stopped it; a whole bench takes minutes).
        for (SDL_Event e; SDL_PollEvent(&e);)
          if (e.type == SDL_QUIT) {
            std::printf("thicket-game --bench: stopped\n");
            return 130;
          }
        auto t0 = std::chrono::steady_clock::now();
        g.step(g.autoplay());
        view.draw(g, ui);
        view.present();
        double dt = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
        if (f >= 30) ai += g.ai_seconds(), sensing += g.sense_seconds(), total += dt;
        g.take_log();
      }
      std::printf("%8d %8d %14.3f %14.3f %14.3f %14.3f\n", guards, threads, ai / frames * 1e3, sensing / frames * 1e3,
                  (ai - sensing) / frames * 1e3, total / frames * 1e3);
      std::fflush(stdout);
      if (a.threads == 1) break;
    }
  }
  return 0;
}

void push_scripted(const Scripted& s, const game::Game& g, const game::View& view) {
  SDL_Event e{};
  if (s.key) {
    e.type = SDL_KEYDOWN;
    e.key.state = SDL_PRESSED;
    e.key.keysym.sym = s.key;
    e.key.repeat = s.repeat ? 1 : 0;
    SDL_PushEvent(&e);
    return;
  }
  SDL_Point at{s.x, s.y};
  if (s.guard) {
    const game::Guard* guard = g.guard(s.guard);
    at = guard ? view.to_screen(g, guard->position) : SDL_Point{-1, -1};
  }
  e.type = SDL_MOUSEBUTTONDOWN;
  e.button.button = SDL_BUTTON_LEFT;
  e.button.state = SDL_PRESSED;
  e.button.x = at.x;
  e.button.y = at.y;
  SDL_PushEvent(&e);
}

// The game loop, on screen or headless (--frames N: N iterations, one fixed step each unless
// paused, no pacing, SDL's offscreen driver).
int run(const Args& a, std::vector<fs::path> levels, size_t level_index, const fs::path& mods) {
  std::vector<Edit> edits = a.edits;  // each made once
  bool headless = a.frames >= 0;
  game::View view;
  std::string error;
  if (!view.open(headless, error)) {
    std::fprintf(stderr, "thicket-game: %s\n", error.c_str());
    if (!headless) std::fprintf(stderr, "(without a display: thicket-game --frames N --screenshot FILE.png)\n");
    return 2;
  }
  game::Options o;
  o.mods = mods.string();
  o.threads = a.threads;
  o.leaf_timeout = a.leaf_timeout;
  o.lua_memory_mb = a.lua_memory_mb;
  o.budget = uint64_t(a.budget);
  game::Game g(o);
  if (!g.load_brain(error)) {
    std::fprintf(stderr, "%s", error.c_str());
    // The errors on screen too (a player who starts the game from a desktop sees no console):
    // on screen, the game waits for the mod to be fixed, trying it twice a second; headless, a
    // screenshot shows them, and the run ends.
    bool quit = false;
    while (!quit) {
      view.draw_load_errors("The guards' mod (" + mods.string() + ") does not load, so the game cannot start:", error,
                            "Fix the file and save it: the game starts as soon as the mod loads. Esc quits.");
      if (headless) {
        if (!a.screenshot.empty() && !view.screenshot(a.screenshot, error)) std::fprintf(stderr, "thicket-game: %s\n", error.c_str());
        return 1;
      }
      view.present();
      for (int k = 0; k < 10 && !quit; ++k) {
        SDL_Event e;
        while (SDL_PollEvent(&e))
          if (e.type == SDL_QUIT || (e.type == SDL_KEYDOWN && e.key.keysym.sym == SDLK_ESCAPE)) quit = true;
        SDL_Delay(50);
      }
      if (!quit && g.load_brain(error)) break;
    }
    if (quit) return 1;
    std::printf("%s loads: the game starts\n", (mods / "guard.yaml").c_str());
  }
  game::Level level;
  size_t level_starts = 0;  // levels started so far (R and Tab start one)
  // Loads level i aside: only a level that loads replaces the one being played (the game
  // points at `level`; a failed load into it left a mixed state, once scored as an escape),
  // and the failure is shown on screen.
  size_t tried_index = level_index;  // the level last tried (Tab goes on from it, past one that did not load)
  std::vector<std::string> level_errors;  // why the level last tried did not start (printed once while they stay)
  auto start = [&](size_t i) {
    game::Level next;
    std::vector<thicket::Diagnostic> diags;
    const size_t index = i % levels.size();
    std::vector<std::string> lines;
    const bool loaded = game::load_level(levels[index].string(), next, diags);
    for (auto& d : diags) lines.push_back(thicket::format_diagnostic(d));
    if (loaded) {
      level = std::move(next);
      level_index = index;
      // A restart (R, Tab) takes the mod as saved, in a fresh runtime; one that does not load
      // now leaves the guards their last good version, and says why on the console and on
      // screen (a file that loaded only over an older version's globals, or a require'd module
      // deleted since, was silent: the old Lua state went on as if restarted).
      std::string mod_error;
      if (level_starts > 0 && !g.load_brain(mod_error)) {
        std::fprintf(stderr, "thicket-game: the mod as saved does not load in fresh Lua states; the guards keep their "
                             "last good version:\n%s", mod_error.c_str());
        g.show_restart_error(mod_error);
      }
      if (!g.start_level(level, error)) lines = {"thicket-game: " + error};
    }
    if (!lines.empty()) {
      if (lines != level_errors || index != tried_index)
        for (const std::string& l : lines) std::fprintf(stderr, "%s\n", l.c_str());
      tried_index = index;
      level_errors = lines;
      g.show_level_error(lines);
      return false;
    }
    tried_index = index;
    level_errors.clear();
    g.show_level_error({});
    ++level_starts;
    return true;
  };
  // A level that does not load at start-up: its errors on screen too, as a broken mod's. On
  // screen the game tries it again twice a second (a person fixing it), and Tab tries the next
  // level; headless, a screenshot shows them, and the run ends.
  while (!start(tried_index)) {
    std::string text;
    for (const std::string& l : level_errors) text += l + "\n";
    view.draw_load_errors("The level " + levels[tried_index].string() + " does not load, so the game cannot start:", text,
                          "Fix the file and save it: the game starts as soon as it loads. Tab tries the next level; Esc quits.");
    if (headless) {
      if (!a.screenshot.empty() && !view.screenshot(a.screenshot, error)) std::fprintf(stderr, "thicket-game: %s\n", error.c_str());
      return 1;
    }
    view.present();
    bool quit = false, next = false;
    for (int k = 0; k < 10 && !quit && !next; ++k) {
      SDL_Event e;
      while (SDL_PollEvent(&e)) {
        if (e.type == SDL_QUIT || (e.type == SDL_KEYDOWN && e.key.keysym.sym == SDLK_ESCAPE)) quit = true;
        if (e.type == SDL_KEYDOWN && !e.key.repeat && e.key.keysym.sym == SDLK_TAB) next = true;
      }
      SDL_Delay(50);
    }
    if (quit) return 1;
    if (next) ++tried_index;  // (start takes it modulo the levels)
  }
  std::ofstream log;
  if (!a.log.empty()) {
    log.open(a.log);
    if (!log) {
      std::fprintf(stderr, "thicket-game: cannot write %s\n", a.log.c_str());
      return 2;
    }
  }
  game::Ui ui;
  size_t drawn_start = 0;  // headless: the level start drawn after its first frame
  ui.autoplay = a.autoplay;
  ui.selected = a.select;
  if (!headless)
    std::printf("thicket-game %s: %s. Edit %s/guard.lua or guard.yaml while it runs.\n", THICKET_VERSION_STRING,
                level.name.c_str(), mods.c_str());
  Uint64 last = SDL_GetPerformanceCounter();
  double behind = 0;
  double step_seconds = 0;  // what the last step took (on screen)
  bool step_once = false;
  for (long iteration = 1; !headless || iteration <= a.frames; ++iteration) {
    if (headless)
      for (const Scripted& s : a.scripted)
        if (s.iteration == iteration) push_scripted(s, g, view);
    bool quit = false;
    SDL_Event e;
    while (SDL_PollEvent(&e)) {
      if (e.type == SDL_QUIT) quit = true;
      // (A held key sends repeats: they would toggle pause and the cones, and restart or skip
      // levels, at the keyboard's repeat rate.)
      if (e.type == SDL_KEYDOWN && !e.key.repeat) {
        switch (e.key.keysym.sym) {
          case SDLK_ESCAPE: quit = true; break;
          case SDLK_p: ui.paused = !ui.paused; break;
          case SDLK_n: if (ui.paused) step_once = true; break;
          case SDLK_c: ui.cones = !ui.cones; break;
          // (The reload notice is timed in frames, which a start counts from 0 again.)
          case SDLK_r: start(level_index); ui.notice_until = 0; break;
          case SDLK_TAB: start(tried_index + 1); ui.selected = 0; ui.notice_until = 0; break;
          default: break;
        }
      }
      if (e.type == SDL_MOUSEBUTTONDOWN && e.button.button == SDL_BUTTON_LEFT)
        ui.selected = view.pick(g, e.button.x, e.button.y);
    }
    if (quit) break;
    game::Input in;
    if (!headless) {
      const Uint8* keys = SDL_GetKeyboardState(nullptr);
      in.move.x = (keys[SDL_SCANCODE_RIGHT] || keys[SDL_SCANCODE_D]) - (keys[SDL_SCANCODE_LEFT] || keys[SDL_SCANCODE_A]);
      in.move.y = (keys[SDL_SCANCODE_DOWN] || keys[SDL_SCANCODE_S]) - (keys[SDL_SCANCODE_UP] || keys[SDL_SCANCODE_W]);
      in.run = keys[SDL_SCANCODE_LSHIFT] || keys[SDL_SCANCODE_RSHIFT];
    }
    // Fixed steps of kDt: headless one per iteration; on screen as many as real time asks for
    // (at most 5 per drawn frame). Paused: none, or one for N.
    int steps = 1;
    if (!headless) {
      Uint64 now = SDL_GetPerformanceCounter();
      behind += double(now - last) / double(SDL_GetPerformanceFrequency());
      last = now;
      steps = std::min(5, int(behind / game::kDt));
      // A step that takes longer than a frame (a mod's leaf that loops until its time limit,
      // every guard every frame) is not caught up on: one step a drawn frame, in slow motion,
      // so that the screen and the keys still answer while the mod is being fixed.
      if (step_seconds > game::kDt) steps = std::min(steps, 1);
      behind = std::min(behind - steps * game::kDt, game::kDt);
    }
    if (ui.paused) {
      steps = step_once ? 1 : 0;
      step_once = false;
      behind = 0;
    }
    auto report_reloads = [&] {
      for (const auto& r : g.reloads()) {
        if (r.ok) {
          ui.notice = "reloaded " + fs::path(r.file).filename().string() + " at frame " + std::to_string(g.frame());
          ui.notice_until = g.frame() + 90;
        }
        std::printf("frame %llu: %s %s\n", static_cast<unsigned long long>(g.frame()), r.file.c_str(),
                    r.ok ? "reloaded" : ("did not load: " + first_error_of(r)).c_str());
      }
    };
    int stepped = 0;
    for (int k = 0; k < steps; ++k) {
      if (g.outcome() != game::Outcome::Playing) break;
      const Uint64 step_start = SDL_GetPerformanceCounter();
      g.step(ui.autoplay ? g.autoplay() : in);
      step_seconds = double(SDL_GetPerformanceCounter() - step_start) / double(SDL_GetPerformanceFrequency());
      ++stepped;
      print_log(g);
      report_reloads();
      if (log) log_frame(log, g);
      // The tests' deterministic edit: a mod file replaced at the end of a given frame, picked
      // up by the next frame's reload poll (as a save from an editor would be).
      for (Edit& edit : edits) {
        if (edit.frame != g.frame() || edit.made) continue;  // once (R and Tab count frames from 1 again)
        edit.made = true;
        std::error_code ec;
        if (edit.source.empty()) fs::remove(mods / edit.file, ec);  // FRAME:FILE: deletes it
        else fs::copy_file(edit.source, mods / edit.file, fs::copy_options::overwrite_existing, ec);
        if (ec) {
          std::fprintf(stderr, "thicket-game: --edit: cannot copy %s over %s: %s\n", edit.source.c_str(),
                       (mods / edit.file).c_str(), ec.message().c_str());
          return 2;
        }
      }
    }
    // Paused, caught or out: no frame is stepped, but a mod saved now is reloaded now (its
    // errors shown) rather than when play goes on.
    if (stepped == 0) {
      g.poll_mods();
      print_log(g);
      report_reloads();
    }
    if (headless) {
      if (g.outcome() != game::Outcome::Playing && a.scripted.empty()) break;
      // Drawn once, at the end; and for a screenshot also after each level's first frame, so
      // that what the screen caches between frames (the map's picture) is that of a played game.
      if (drawn_start != level_starts && !a.screenshot.empty()) {
        view.draw(g, ui);
        drawn_start = level_starts;
      }
      continue;
    }
    view.draw(g, ui);
    view.present();
    if (steps == 0) SDL_Delay(5);
  }
  if (!headless) return 0;

  if (!a.log.empty()) {
    log << "outcome " << game::outcome_name(g.outcome()) << " frame " << g.frame() << "\n";
    log.close();  // written whole, or said (a full disk, /dev/full: the log was lost with exit 0)
    if (log.fail()) {
      std::fprintf(stderr, "thicket-game: cannot write %s: the log is incomplete\n", a.log.c_str());
      return 2;
    }
  }
  std::printf("%s: %s at frame %llu (t = %.1f s)", g.level().name.c_str(), game::outcome_name(g.outcome()),
              static_cast<unsigned long long>(g.frame()), g.time());
  if (g.outcome() == game::Outcome::Caught) std::printf(" by guard %u", g.caught_by());
  std::printf("; %zu guards, %llu script errors\n", g.guards().size(),
              static_cast<unsigned long long>(g.runtime().script_errors()));
  if (a.inspect) {
    if (const game::Guard* guard = g.guard(ui.selected)) {
      for (const std::string& line : game::debugger_lines(g, *guard)) std::printf("| %s\n", line.c_str());
    } else {
      std::printf("| no guard selected\n");
    }
  }
  if (!a.screenshot.empty()) {
    view.draw(g, ui);
    if (!view.screenshot(a.screenshot, error)) {
      std::fprintf(stderr, "thicket-game: %s\n", error.c_str());
      return 2;
    }
    SDL_Point p = view.to_screen(g, g.player());
    const SDL_Point exit = view.to_screen(g, {g.level().exit.x + 0.5, g.level().exit.y + 0.5});
    std::printf("screenshot %s: %dx%d, player at (%d, %d), exit at (%d, %d)", a.screenshot.c_str(), game::View::kWidth,
                game::View::kHeight, p.x, p.y, exit.x, exit.y);
    for (const game::Guard& guard : g.guards()) {
      SDL_Point q = view.to_screen(g, guard.position);
      std::printf(", guard %u at (%d, %d)", guard.id, q.x, q.y);
    }
    SDL_Rect box = view.debugger_box();
    if (box.w > 0) std::printf(", debugger box %d %d %d %d", box.x, box.y, box.w, box.h);
    std::printf("\n");
  }
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  // Line by line, also into a pipe or a file: a launcher (or a test) reading the game's log
  // sees "loads: the game starts" and each reload as it happens, not when 4 kB have gathered.
  std::setvbuf(stdout, nullptr, _IOLBF, 0);
  Args a;
  std::string error;
  if (!parse(argc, argv, a, error)) {
    std::fprintf(stderr, "thicket-game: %s\n%s", error.c_str(), kUsage);
    return 2;
  }
  fs::path here = exe_dir(argv[0]);
  fs::path levels_dir = a.levels.empty() ? here / "levels" : fs::path(a.levels);
  fs::path mods = a.mods.empty() ? here / "mods" : fs::path(a.mods);
  if (!fs::exists(mods / "guard.yaml")) {
    std::fprintf(stderr, "thicket-game: no %s (the guards' mod folder; --mods DIR)\n", (mods / "guard.yaml").c_str());
    return 2;
  }
  fs::path first = level_path(a, levels_dir);
  if (!fs::exists(first)) {  // the levels of the folder in use (--levels DIR), not the game's own
    std::string names;
    for (const fs::path& p : level_files(levels_dir)) names += (names.empty() ? "" : ", ") + p.stem().string();
    std::fprintf(stderr, "thicket-game: no level %s (levels in %s: %s)\n", first.c_str(), levels_dir.c_str(),
                 names.empty() ? "none" : names.c_str());
    return 2;
  }
  if (a.bench) {
    game::Level level;
    if (!load(a.level_given ? first : levels_dir / "arena.level", level)) return 1;
    return run_bench(a, mods, level);
  }
  std::vector<fs::path> levels = level_files(levels_dir);
  // The same file however it was named (levels/courtyard.level beside the levels folder's own).
  auto same = [&](const fs::path& p) {
    std::error_code ec;
    return fs::equivalent(p, first, ec);
  };
  size_t index = std::find_if(levels.begin(), levels.end(), same) - levels.begin();
  if (index >= levels.size()) levels.insert(levels.begin(), first), index = 0;
  return run(a, levels, index, mods);
}
