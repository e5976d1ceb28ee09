#include "debugger.hpp"

#include <cstdio>
#include <variant>

namespace game {
namespace {

std::string fmt(const char* format, double a, double b) {
  char buf[96];
  std::snprintf(buf, sizeof buf, format, a, b);
  return buf;
}

std::string value_text(const thicket::Value& v) {
  if (auto* d = std::get_if<double>(&v)) {
    char buf[48];
    std::snprintf(buf, sizeof buf, "%.2f", *d);
    return buf;
  }
  if (auto* i = std::get_if<int64_t>(&v)) return std::to_string(*i);
  if (auto* b = std::get_if<bool>(&v)) return *b ? "true" : "false";
  if (auto* s = std::get_if<std::string>(&v)) return "\"" + *s + "\"";
  return "nil";
}

std::string who(uint32_t id) { return id == 1 ? "player" : id == 0 ? "someone" : "guard " + std::to_string(id); }

}  // namespace

std::vector<std::string> debugger_lines(const Game& game, const Guard& g) {
  const thicket::Runtime& rt = game.runtime();
  std::vector<std::string> out;
  out.push_back("guard " + std::to_string(g.id) + fmt(" at (%.1f, %.1f)", g.position.x, g.position.y));
  std::string path;
  for (const std::string& s : game.states_of(g)) path += (path.empty() ? "" : " > ") + s;
  out.push_back("states: " + (path.empty() ? std::string("(none)") : path));
  out.push_back("running:");
  for (const std::string& n : rt.running_nodes(g.agent)) out.push_back("  " + n);
  out.push_back("blackboard:");
  for (const std::string& key : rt.blackboard_keys(game.brain())) {
    auto v = rt.get(g.agent, key);
    out.push_back("  " + key + " = " + (v ? value_text(*v) : "?"));
  }
  out.push_back("percepts:");
  size_t shown = out.size();
  namespace p = thicket::perception;
  for (const p::Percept& percept : game.perception().percepts(g.id)) {
    std::string what = percept.kind == p::Kind::Sound ? "a sound of " + who(percept.id) : who(percept.id);
    out.push_back(std::string("  ") + p::sense_name(percept.sense) + " " + p::phase_name(percept.phase) + ": " + what +
                  fmt(" at (%.1f, %.1f)", percept.position.x, percept.position.y) +
                  fmt(", %.1f m", percept.distance, 0));
  }
  if (out.size() == shown) out.push_back("  (nothing)");
  out.push_back("memory:");
  shown = out.size();
  for (const p::MemoryEntry& m : game.perception().memory(g.id)) {
    double ago = double(game.perception().tick() - m.last_tick) * kDt;
    std::string what = m.kind == p::Kind::Sound ? "a sound" : who(m.id);
    out.push_back("  " + what + " (" + p::sense_name(m.sense) + ")" + fmt(" at (%.1f, %.1f)", m.position.x, m.position.y) +
                  fmt(", %.1f s ago", ago, 0));
  }
  if (out.size() == shown) out.push_back("  (nothing)");
  for (std::string& line : out) line = printable(line);  // a blackboard text a script wrote
  return out;
}

}  // namespace game
