// Drawing thicket-game with SDL2 (and SDL2_ttf for text): the map, the exit, the player, the
// guards coloured by their brain's state with their sight cones and paths, the side panel, the
// mod error banner, and the debugger box beside the selected guard. Screenshots with SDL2_image.
#pragma once
#include <SDL.h>
#include <SDL_ttf.h>

#include <string>
#include <unordered_map>
#include <vector>

#include "game.hpp"

namespace game {

struct Ui {
  uint32_t selected = 0;   // the guard the debugger shows (0: none)
  bool paused = false;
  bool cones = true;       // sight cones and paths
  bool autoplay = false;
  std::string notice;      // a short message (a reload), shown until notice_until
  uint64_t notice_until = 0;
};

class View {
 public:
  static constexpr int kWidth = 1280, kHeight = 720, kPanel = 320;

  // headless: no window on screen (SDL's offscreen video driver). false with `error` set when
  // SDL, the window or the font cannot be had.
  bool open(bool headless, std::string& error);
  ~View();

  void draw(const Game& game, const Ui& ui);
  // The mods that do not load at start-up (`errors`: one diagnostic a line), while the game
  // waits for them to be fixed.
  // A file that keeps the game from starting: `title`, then `errors` (one a line) in red, then
  // `footer` (what to do).
  void draw_load_errors(const std::string& title, const std::string& errors, const std::string& footer);
  void present();
  bool screenshot(const std::string& path, std::string& error);
  // The guard under a window pixel (within a cell of it), 0 when none.
  uint32_t pick(const Game& game, int x, int y) const;
  // Where the last draw put the debugger box ({0, 0, 0, 0}: none).
  SDL_Rect debugger_box() const { return debugger_box_; }
  // Where a world point of the game's level lands in the window.
  SDL_Point to_screen(const Game& game, Vec2 p) const;

 private:
  struct Layout {
    double scale = 10;  // pixels per metre
    int x = 0, y = 0;   // where the map's (0, 0) is drawn
  };
  static Layout layout_of(const Game& game);
  SDL_Point to_screen(Vec2 p) const;
  void text(const std::string& s, int x, int y, SDL_Color colour);
  int text_width(const std::string& s);
  // Lines made to fit a box `width` pixels wide and at most `most` lines high: a long line
  // wrapped (its rest indented), and past `most` the last lines kept and "... N more lines"
  // said where the cut is (`keep_last`: lines at the end that always stay, such as the advice).
  std::vector<std::string> fitted(const std::vector<std::string>& lines, int width, size_t most, size_t keep_last = 0);
  void fill(SDL_Rect r, SDL_Color c);
  void disc(Vec2 centre, double radius, SDL_Color c);
  void cone(const Game& game, Vec2 eye, Vec2 heading, double range, double half_angle, SDL_Color c);
  void draw_map(const Game& game);
  void draw_guards(const Game& game, const Ui& ui);
  void draw_panel(const Game& game, const Ui& ui);
  void draw_debugger(const Game& game, const Guard& g);
  void draw_errors(const Game& game);
  void draw_script_error(const Game& game);

  SDL_Window* window_ = nullptr;
  SDL_Renderer* renderer_ = nullptr;
  TTF_Font* font_ = nullptr;
  int line_height_ = 14;
  double scale_ = 10;     // the layout of the frame being drawn
  int origin_x_ = 0, origin_y_ = 0;
  SDL_Rect debugger_box_{0, 0, 0, 0};
  SDL_Texture* map_texture_ = nullptr;
  // What map_texture_ shows: the map's stamp (new for every map read or edited) and the exit.
  // (Not the Level's address: every level is loaded into the same Level object.)
  uint64_t map_stamp_ = 0;
  thicket::nav::Cell map_exit_{-1, -1};
  std::unordered_map<std::string, SDL_Texture*> text_cache_;
};

}  // namespace game
