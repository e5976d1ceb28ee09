// The in-game brain debugger's text for one guard: its active state path, running nodes,
// blackboard and what it perceives and remembers. draw.cpp draws it beside the guard;
// --inspect prints it.
#pragma once
#include <string>
#include <vector>

#include "game.hpp"

namespace game {

std::vector<std::string> debugger_lines(const Game& game, const Guard& guard);

}  // namespace game
