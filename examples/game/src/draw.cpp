#include "draw.hpp"

#include <SDL_image.h>

#include <algorithm>
#include <cmath>
#include <cstdio>

#include "debugger.hpp"

namespace game {
namespace {

constexpr SDL_Color kFloor{206, 200, 184, 255};
constexpr SDL_Color kWall{52, 54, 64, 255};
constexpr SDL_Color kTree{46, 96, 58, 255};
constexpr SDL_Color kWater{50, 90, 150, 255};
constexpr SDL_Color kExit{40, 190, 80, 255};
constexpr SDL_Color kPlayer{30, 110, 250, 255};
constexpr SDL_Color kCalm{235, 190, 30, 255};
constexpr SDL_Color kAlert{250, 130, 0, 255};
constexpr SDL_Color kChase{225, 30, 30, 255};
constexpr SDL_Color kPanelColour{28, 30, 38, 255};
constexpr SDL_Color kText{225, 228, 235, 255};
constexpr SDL_Color kDim{150, 155, 170, 255};
constexpr SDL_Color kError{255, 110, 110, 255};
constexpr SDL_Color kGood{120, 230, 140, 255};

// A guard's colour by the top-most state that tells: chase, alert, or calm.
SDL_Color guard_colour(const std::vector<std::string>& states) {
  for (const std::string& s : states) {
    if (s == "chase") return kChase;
    if (s == "alert" || s == "investigate") return kAlert;
  }
  return kCalm;
}

const char* kFonts[] = {
    "/usr/share/fonts/truetype/dejavu/DejaVuSansMono.ttf",
    "/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf",
};

}  // namespace

bool View::open(bool headless, std::string& error) {
  if (headless) SDL_setenv("SDL_VIDEODRIVER", "offscreen", 1);
  if (SDL_Init(SDL_INIT_VIDEO) != 0) {
    error = std::string("SDL_Init: ") + SDL_GetError();
    return false;
  }
  // No display, and SDL fell back to a driver that shows nothing by itself: the game ran with
  // no window and no word. (SDL_VIDEODRIVER=offscreen given by hand still runs, unseen.)
  const char* driver = SDL_GetCurrentVideoDriver();
  if (!headless && !SDL_getenv("SDL_VIDEODRIVER") && driver &&
      (std::string(driver) == "offscreen" || std::string(driver) == "dummy")) {
    error = std::string("no display to open a window on (SDL found none and chose its '") + driver +
            "' driver; is DISPLAY or WAYLAND_DISPLAY set?)";
    SDL_Quit();
    return false;
  }
  if (TTF_Init() != 0) {
    error = std::string("TTF_Init: ") + TTF_GetError();
    return false;
  }
  window_ = SDL_CreateWindow("thicket-game", SDL_WINDOWPOS_CENTERED, SDL_WINDOWPOS_CENTERED, kWidth, kHeight,
                             headless ? SDL_WINDOW_HIDDEN : 0);
  if (!window_) {
    error = std::string("SDL_CreateWindow: ") + SDL_GetError();
    return false;
  }
  // Headless: the software renderer (the same pixels on every machine); on screen: any, with vsync.
  Uint32 flags = headless ? SDL_RENDERER_SOFTWARE : (SDL_RENDERER_ACCELERATED | SDL_RENDERER_PRESENTVSYNC);
  renderer_ = SDL_CreateRenderer(window_, -1, flags);
  if (!renderer_ && !headless) renderer_ = SDL_CreateRenderer(window_, -1, SDL_RENDERER_SOFTWARE);
  if (!renderer_) {
    error = std::string("SDL_CreateRenderer: ") + SDL_GetError();
    return false;
  }
  SDL_SetRenderDrawBlendMode(renderer_, SDL_BLENDMODE_BLEND);
  for (const char* path : kFonts) {
    if ((font_ = TTF_OpenFont(path, 12))) break;
  }
  if (!font_) {
    error = "no font: install fonts-dejavu-core (looked for /usr/share/fonts/truetype/dejavu/DejaVuSansMono.ttf)";
    return false;
  }
  line_height_ = TTF_FontLineSkip(font_);
  return true;
}

View::~View() {
  for (auto& [s, t] : text_cache_) SDL_DestroyTexture(t);
  if (map_texture_) SDL_DestroyTexture(map_texture_);
  if (font_) TTF_CloseFont(font_);
  if (renderer_) SDL_DestroyRenderer(renderer_);
  if (window_) SDL_DestroyWindow(window_);
  if (TTF_WasInit()) TTF_Quit();
  SDL_Quit();
}

static_assert(View::kWidth - View::kPanel == kMaxMapWidth && View::kHeight == kMaxMapHeight,
              "level.hpp's largest map is the map's area of the window");

View::Layout View::layout_of(const Game& game) {
  const auto& map = game.level().map;
  int area_w = kWidth - kPanel, area_h = kHeight;
  Layout l;
  l.scale = std::max(1.0, std::floor(std::min(double(area_w) / map.width(), double(area_h) / map.height())));
  l.x = int((area_w - l.scale * map.width()) / 2);
  l.y = int((area_h - l.scale * map.height()) / 2);
  return l;
}

SDL_Point View::to_screen(Vec2 p) const {
  return {origin_x_ + int(std::lround(p.x * scale_)), origin_y_ + int(std::lround(p.y * scale_))};
}

SDL_Point View::to_screen(const Game& game, Vec2 p) const {
  Layout l = layout_of(game);
  return {l.x + int(std::lround(p.x * l.scale)), l.y + int(std::lround(p.y * l.scale))};
}

uint32_t View::pick(const Game& game, int x, int y) const {
  Layout l = layout_of(game);
  Vec2 p{(x - l.x) / l.scale, (y - l.y) / l.scale};
  uint32_t best = 0;
  double best_d = 1.0;  // within a metre (a cell)
  for (const Guard& g : game.guards()) {
    double d = thicket::world::distance(g.position, p);
    if (d < best_d) best = g.id, best_d = d;
  }
  return best;
}

void View::fill(SDL_Rect r, SDL_Color c) {
  SDL_SetRenderDrawColor(renderer_, c.r, c.g, c.b, c.a);
  SDL_RenderFillRect(renderer_, &r);
}

void View::disc(Vec2 centre, double radius, SDL_Color c) {
  constexpr int kSides = 16;
  SDL_Vertex v[kSides * 3];
  SDL_Point o = to_screen(centre);
  float r = float(radius * scale_);
  for (int i = 0; i < kSides; ++i) {
    float a0 = float(2 * M_PI * i / kSides), a1 = float(2 * M_PI * (i + 1) / kSides);
    v[i * 3] = {{float(o.x), float(o.y)}, c, {0, 0}};
    v[i * 3 + 1] = {{o.x + r * std::cos(a0), o.y + r * std::sin(a0)}, c, {0, 0}};
    v[i * 3 + 2] = {{o.x + r * std::cos(a1), o.y + r * std::sin(a1)}, c, {0, 0}};
  }
  SDL_RenderGeometry(renderer_, nullptr, v, kSides * 3, nullptr, 0);
}

void View::cone(const Game& game, Vec2 eye, Vec2 heading, double range, double half_angle, SDL_Color c) {
  // The part of the cone the guard really sees: each ray stops at the first wall (a march in
  // quarter-cell steps), as perception's line of sight does.
  constexpr int kSlices = 16;
  const auto& map = game.level().map;
  SDL_Vertex v[kSlices * 3];
  SDL_Point o = to_screen(eye);
  double base = std::atan2(heading.y, heading.x);
  SDL_FPoint rim[kSlices + 1];
  for (int i = 0; i <= kSlices; ++i) {
    double a = base - half_angle + 2 * half_angle * i / kSlices;
    Vec2 dir{std::cos(a), std::sin(a)};
    double reach = 0;
    while (reach < range && map.passable(map.cell_at(eye + dir * std::min(range, reach + 0.25)))) reach += 0.25;
    reach = std::min(reach, range);
    rim[i] = {float(o.x + dir.x * reach * scale_), float(o.y + dir.y * reach * scale_)};
  }
  for (int i = 0; i < kSlices; ++i) {
    v[i * 3] = {{float(o.x), float(o.y)}, c, {0, 0}};
    v[i * 3 + 1] = {rim[i], c, {0, 0}};
    v[i * 3 + 2] = {rim[i + 1], c, {0, 0}};
  }
  SDL_RenderGeometry(renderer_, nullptr, v, kSlices * 3, nullptr, 0);
}

int View::text_width(const std::string& s) {
  int w = 0, h = 0;
  TTF_SizeUTF8(font_, s.c_str(), &w, &h);
  return w;
}

std::vector<std::string> View::fitted(const std::vector<std::string>& lines, int width, size_t most, size_t keep_last) {
  std::vector<std::string> out;
  for (const std::string& whole : lines) {
    std::string rest = whole;
    bool first = true;
    while (true) {
      const std::string shown = first ? rest : "  " + rest;
      if (text_width(shown) <= width) {
        out.push_back(shown);
        break;
      }
      // The longest start that fits, not cutting a UTF-8 character, at least one character.
      size_t lo = 1, hi = rest.size();
      while (lo < hi) {
        const size_t mid = (lo + hi + 1) / 2;
        if (text_width((first ? "" : "  ") + rest.substr(0, mid)) <= width) lo = mid;
        else hi = mid - 1;
      }
      while (lo > 1 && lo < rest.size() && (static_cast<unsigned char>(rest[lo]) & 0xC0) == 0x80) --lo;
      out.push_back((first ? "" : "  ") + rest.substr(0, lo));
      rest = rest.substr(lo);
      first = false;
    }
  }
  if (out.size() > most && most > keep_last + 1) {
    const size_t head = most - keep_last - 1, cut = out.size() - head - keep_last;
    std::vector<std::string> kept(out.begin(), out.begin() + static_cast<std::ptrdiff_t>(head));
    kept.push_back("... " + std::to_string(cut) + " more line(s): the console has them all");
    kept.insert(kept.end(), out.end() - static_cast<std::ptrdiff_t>(keep_last), out.end());
    out = std::move(kept);
  }
  return out;
}

void View::text(const std::string& s, int x, int y, SDL_Color colour) {
  if (s.empty()) return;
  std::string key = s + '\x01' + char(colour.r) + char(colour.g) + char(colour.b);
  auto it = text_cache_.find(key);
  if (it == text_cache_.end()) {
    if (text_cache_.size() > 1024) {
      for (auto& [k, t] : text_cache_) SDL_DestroyTexture(t);
      text_cache_.clear();
    }
    SDL_Surface* surface = TTF_RenderUTF8_Blended(font_, s.c_str(), colour);
    if (!surface) return;
    SDL_Texture* texture = SDL_CreateTextureFromSurface(renderer_, surface);
    SDL_FreeSurface(surface);
    if (!texture) return;
    it = text_cache_.emplace(key, texture).first;
  }
  int w = 0, h = 0;
  SDL_QueryTexture(it->second, nullptr, nullptr, &w, &h);
  SDL_Rect dst{x, y, w, h};
  SDL_RenderCopy(renderer_, it->second, nullptr, &dst);
}

void View::draw_map(const Game& game) {
  const Level& level = game.level();
  if (map_stamp_ != level.map.stamp() || !(map_exit_ == level.exit) || !map_texture_) {
    // The map's cells drawn once into a texture, then copied every frame.
    if (map_texture_) SDL_DestroyTexture(map_texture_);
    const auto& map = level.map;
    SDL_Surface* s = SDL_CreateRGBSurfaceWithFormat(0, map.width(), map.height(), 32, SDL_PIXELFORMAT_RGBA32);
    for (int y = 0; y < map.height(); ++y) {
      for (int x = 0; x < map.width(); ++x) {
        char sym = map.symbol({x, y});
        SDL_Color c = map.passable({x, y}) ? kFloor : sym == 'T' ? kTree : sym == 'W' ? kWater : kWall;
        if (thicket::nav::Cell{x, y} == level.exit) c = kExit;
        static_cast<Uint32*>(s->pixels)[y * (s->pitch / 4) + x] = SDL_MapRGBA(s->format, c.r, c.g, c.b, 255);
      }
    }
    map_texture_ = SDL_CreateTextureFromSurface(renderer_, s);
    SDL_FreeSurface(s);
    map_stamp_ = level.map.stamp();
    map_exit_ = level.exit;
  }
  SDL_Rect dst{origin_x_, origin_y_, int(scale_ * level.map.width()), int(scale_ * level.map.height())};
  SDL_RenderCopy(renderer_, map_texture_, nullptr, &dst);
  // The exit: a green cell with a white frame.
  SDL_Point e = to_screen({double(level.exit.x), double(level.exit.y)});
  SDL_Rect frame{e.x, e.y, int(scale_), int(scale_)};
  SDL_SetRenderDrawColor(renderer_, 255, 255, 255, 255);
  SDL_RenderDrawRect(renderer_, &frame);
}

void View::draw_guards(const Game& game, const Ui& ui) {
  std::vector<std::vector<std::string>> states;
  states.reserve(game.guards().size());
  for (const Guard& g : game.guards()) states.push_back(game.states_of(g));
  if (ui.cones) {
    // Sight cones, as perception uses them this frame (the brain's sight_range and sight_angle).
    for (size_t i = 0; i < game.guards().size(); ++i) {
      const Guard& g = game.guards()[i];
      SDL_Color c = guard_colour(states[i]);
      c.a = g.id == ui.selected ? 90 : 45;
      const auto& cone_spec = g.senses.sight.cones[0];
      cone(game, g.position, g.heading, cone_spec.range, cone_spec.half_angle, c);
    }
  }
  for (size_t i = 0; i < game.guards().size(); ++i) {
    const Guard& g = game.guards()[i];
    bool selected = g.id == ui.selected;
    if ((ui.cones || selected) && g.has_path) {
      // The path MoveTo walks (thicket::nav), from the guard on.
      SDL_SetRenderDrawColor(renderer_, 255, 255, 255, selected ? 230 : 120);
      SDL_Point a = to_screen(g.position);
      for (size_t k = g.next; k < g.path.size(); ++k) {
        SDL_Point b = to_screen(g.path[k]);
        SDL_RenderDrawLine(renderer_, a.x, a.y, b.x, b.y);
        SDL_Rect dot{b.x - 1, b.y - 1, 3, 3};
        SDL_RenderFillRect(renderer_, &dot);
        a = b;
      }
    }
    if (selected) disc(g.position, 0.75, {255, 255, 255, 255});
    disc(g.position, 0.45, guard_colour(states[i]));
    // The way it faces.
    SDL_Point o = to_screen(g.position), h = to_screen(g.position + g.heading * 0.6);
    SDL_SetRenderDrawColor(renderer_, 20, 20, 20, 255);
    SDL_RenderDrawLine(renderer_, o.x, o.y, h.x, h.y);
  }
}

void View::draw_errors(const Game& game) {
  if (game.mod_errors().empty()) return;
  // A file that did not load (its last good version runs on), or a brain that loaded but lacks
  // what the game drives the guards with (it runs, and the guards do without those keys).
  std::vector<std::string> lines;
  for (const ModMessage& m : game.mod_errors()) {
    lines.push_back(m.file == "(blackboard)" ? "guard.yaml loaded, but the game cannot drive the guards with it:"
                    : m.file == "(level)"    ? "A level did not load; the game goes on with the one being played:"
                    : m.file == "(restart)"  ? "The level restarted, but the mod as saved does not load in fresh Lua states; the guards go on with its last good version:"
                                             : "A mod file did not load; the guards go on with its last good version:");
    for (const std::string& l : m.lines) lines.push_back(l);
  }
  const bool mod_trouble = std::any_of(game.mod_errors().begin(), game.mod_errors().end(),
                                       [](const ModMessage& m) { return m.file != "(level)"; });
  // (Levels are read when started, not reloaded: Tab tries the next one, R replays this one.)
  const bool restart = std::any_of(game.mod_errors().begin(), game.mod_errors().end(),
                                   [](const ModMessage& m) { return m.file == "(restart)"; });
  lines.push_back(restart       ? "Fix the file, save it and press R (a restart loads the mod afresh)."
                  : mod_trouble ? "Fix the file and save it again."
                                : "Fix the level file; Tab tries the next level.");
  // Within the map area: long lines wrapped, and as many lines as fit (the advice kept).
  const int most_width = kWidth - kPanel - 32;
  lines = fitted(lines, most_width, size_t(std::max(3, (kHeight - 28) / line_height_)), 1);
  int w = 0;
  for (auto& l : lines) w = std::max(w, text_width(l));
  SDL_Rect box{8, 8, std::min(w + 16, kWidth - kPanel - 16), int(lines.size()) * line_height_ + 12};
  fill(box, {90, 10, 14, 225});
  int y = box.y + 6;
  for (size_t i = 0; i < lines.size(); ++i, y += line_height_) text(lines[i], box.x + 8, y, i == 0 ? kText : kError);
}

void View::draw_script_error(const Game& game) {
  // A Lua error in a leaf, for five seconds after the last one (the leaf failed that tick; the
  // game goes on). The console has the traceback.
  if (game.last_script_error_frame() == 0 || game.frame() > game.last_script_error_frame() + 150) return;
  std::vector<std::string> lines{game.last_error_is_game()
                                     ? std::string("A mod broke the level's rules (the console has every message):")
                                     : "A Lua leaf failed (" + std::to_string(game.runtime().script_errors()) +
                                           " script errors so far; the console has the traceback):",
                                 game.last_script_error()};
  lines = fitted(lines, kWidth - kPanel - 32, 8);  // a long message wrapped; at most 8 lines
  int w = 0;
  for (auto& l : lines) w = std::max(w, text_width(l));
  int h = int(lines.size()) * line_height_ + 12;
  SDL_Rect box{8, kHeight - h - 8, std::min(w + 16, kWidth - kPanel - 16), h};
  fill(box, {110, 60, 0, 225});
  int y = box.y + 6;
  for (size_t i = 0; i < lines.size(); ++i, y += line_height_) text(lines[i], box.x + 8, y, kText);
}

void View::draw_debugger(const Game& game, const Guard& g) {
  std::vector<std::string> lines = debugger_lines(game, g);
  int w = 0;
  for (auto& l : lines) w = std::max(w, text_width(l));
  int h = int(lines.size()) * line_height_ + 12;
  w += 16;
  SDL_Point at = to_screen(g.position);
  int area_w = kWidth - kPanel;
  // Beside the guard: to its right if it fits, else to its left; kept inside the map area.
  int x = at.x + 18;
  if (x + w > area_w) x = at.x - 18 - w;
  x = std::clamp(x, 0, std::max(0, area_w - w));
  int y = std::clamp(at.y - h / 2, 0, std::max(0, kHeight - h));
  debugger_box_ = {x, y, w, h};
  fill(debugger_box_, {16, 18, 26, 215});
  SDL_SetRenderDrawColor(renderer_, 255, 255, 255, 200);
  SDL_Rect frame{x, y, w, h};
  SDL_RenderDrawRect(renderer_, &frame);
  int ty = y + 6;
  for (size_t i = 0; i < lines.size(); ++i, ty += line_height_)
    text(lines[i], x + 8, ty, i < 2 ? kText : lines[i].rfind("  ", 0) == 0 ? kText : kDim);
}

void View::draw_panel(const Game& game, const Ui& ui) {
  fill({kWidth - kPanel, 0, kPanel, kHeight}, kPanelColour);
  int x = kWidth - kPanel + 14, y = 12;
  auto line = [&](const std::string& s, SDL_Color c = kText) {
    text(s, x, y, c);
    y += line_height_;
  };
  line("thicket-game", kGood);
  line("level: " + game.level().name);
  char buf[128];
  std::snprintf(buf, sizeof buf, "frame %llu  t = %.1f s", static_cast<unsigned long long>(game.frame()), game.time());
  line(buf, kDim);
  std::snprintf(buf, sizeof buf, "guards: %zu", game.guards().size());
  line(buf, kDim);
  y += line_height_ / 2;
  switch (game.outcome()) {
    case Outcome::Playing: line(ui.paused ? "PAUSED  (P: go on, N: one frame)" : "reach the green exit", ui.paused ? kAlert : kText); break;
    case Outcome::Escaped: line("ESCAPED!  (R: again, Tab: next level)", kGood); break;
    case Outcome::Caught: line("CAUGHT by guard " + std::to_string(game.caught_by()) + "  (R: again)", kError); break;
  }
  if (ui.autoplay) line("autoplay: the scripted player", kDim);
  y += line_height_ / 2;
  line("arrows/WASD: move   shift: run (noisy)", kDim);
  line("click a guard: its brain   P: pause", kDim);
  line("N: step   C: cones   R: restart", kDim);
  line("Tab: next level   Esc: quit", kDim);
  y += line_height_ / 2;
  line("guards:", kText);
  auto legend = [&](SDL_Color c, const std::string& s) {
    fill({x, y + 3, 10, 10}, c);
    text(s, x + 16, y, kDim);
    y += line_height_;
  };
  legend(kCalm, "calm: patrol, going back");
  legend(kAlert, "alert: investigate a noise");
  legend(kChase, "chase: the player in sight");
  y += line_height_ / 2;
  line("mods (hot reload):", kText);
  // The mod files' troubles (a level that did not load is no mod file: its own line).
  const auto mod_troubles = std::count_if(game.mod_errors().begin(), game.mod_errors().end(),
                                          [](const ModMessage& m) { return m.file != "(level)"; });
  if (mod_troubles == 0) {
    line("guard.yaml, guard.lua: ok", kGood);
  } else {
    line(std::to_string(mod_troubles) + " file(s) failed: see the map", kError);
  }
  if (mod_troubles < std::ptrdiff_t(game.mod_errors().size())) line("a level did not load: see the map", kError);
  if (!ui.notice.empty() && game.frame() <= ui.notice_until) line(ui.notice, kGood);
  if (ui.selected == 0) {
    y += line_height_ / 2;
    line("(click a guard to open its debugger)", kDim);
  }
}

void View::draw(const Game& game, const Ui& ui) {
  Layout l = layout_of(game);
  scale_ = l.scale, origin_x_ = l.x, origin_y_ = l.y;
  debugger_box_ = {0, 0, 0, 0};
  SDL_SetRenderDrawColor(renderer_, 14, 15, 20, 255);
  SDL_RenderClear(renderer_);
  draw_map(game);
  draw_guards(game, ui);
  // The player.
  disc(game.player(), 0.45, kPlayer);
  disc(game.player(), 0.2, {255, 255, 255, 255});
  draw_panel(game, ui);
  if (const Guard* g = game.guard(ui.selected)) draw_debugger(game, *g);
  draw_errors(game);
  draw_script_error(game);
}

void View::draw_load_errors(const std::string& title, const std::string& errors, const std::string& footer) {
  SDL_SetRenderDrawColor(renderer_, 14, 15, 20, 255);
  SDL_RenderClear(renderer_);
  std::vector<std::string> lines{title};
  for (size_t from = 0; from < errors.size();) {
    size_t end = errors.find('\n', from);
    if (end == std::string::npos) end = errors.size();
    if (end > from) lines.push_back(errors.substr(from, end - from));
    from = end + 1;
  }
  lines.push_back(footer);
  lines = fitted(lines, kWidth - 48, size_t(std::max(3, (kHeight - 48) / line_height_)), 1);
  int y = 24;
  for (size_t i = 0; i < lines.size(); ++i, y += line_height_)
    text(lines[i], 24, y, i == 0 || i + 1 == lines.size() ? kText : kError);
}

void View::present() { SDL_RenderPresent(renderer_); }

bool View::screenshot(const std::string& path, std::string& error) {
  SDL_Surface* s = SDL_CreateRGBSurfaceWithFormat(0, kWidth, kHeight, 24, SDL_PIXELFORMAT_RGB24);
  if (!s) {
    error = SDL_GetError();
    return false;
  }
  bool ok = SDL_RenderReadPixels(renderer_, nullptr, SDL_PIXELFORMAT_RGB24, s->pixels, s->pitch) == 0 &&
            IMG_SavePNG(s, path.c_str()) == 0;
  if (!ok) error = std::string("cannot write ") + path + ": " + SDL_GetError();
  SDL_FreeSurface(s);
  return ok;
}

}  // namespace game
