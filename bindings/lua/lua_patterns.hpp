// string.find, string.match, string.gmatch and string.gsub that a leaf's time limit can stop
// (lua_patterns.cpp): Lua 5.4's pattern semantics, with the watchdog polled while matching.
#pragma once
#include <lua.hpp>

namespace thicket {

// Replaces the four functions in the state's string library (before any leaf file's copy of
// it is made).
void install_watched_patterns(lua_State* L);

}  // namespace thicket
