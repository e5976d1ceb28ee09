// pairs and next in an order that is the same in every run (lua_order.cpp): numbers
// ascending, strings in byte order, false and true, then other keys in the table's own order.
#pragma once
#include <lua.hpp>

namespace thicket {

// Pushes a sequence of the table's keys in that order.
void push_ordered_keys(lua_State* L, int table);
// Pushes the three values of `for k, v in pairs(t)` over the table at `table`, in that order
// (a snapshot of its keys: keys added during the walk are not seen, removed ones are passed over).
void push_ordered_pairs(lua_State* L, int table);
// pairs(t): the table's __pairs if it has one, else push_ordered_pairs.
int ordered_pairs(lua_State* L);
// next(t [, k]): the key after k in that order, and its value (one walk of the table a call).
int ordered_next(lua_State* L);

}  // namespace thicket
