// string.rep, table.move, table.insert, table.remove and table.sort for leaf scripts that a leaf's time
// limit can stop (lua_loops.cpp). Lua's own versions loop in C, where the count hook that stops
// a runaway leaf never fires: string.rep("", math.maxinteger), table.move({}, 1, 1e15, 2) or
// table.insert on a table whose __len says 2^50 held the host past every limit (and past
// Ctrl-C). These do the same work with the same results and errors, and ask the watchdog every
// few thousand steps whether the call has been told to stop, as the pattern functions do.
#pragma once
#include <lua.hpp>

namespace thicket {

// Replaces the five functions in the state's string and table libraries (before any leaf
// file's copy of them is made).
void install_watched_loops(lua_State* L);

}  // namespace thicket
