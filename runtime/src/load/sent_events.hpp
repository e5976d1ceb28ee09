// The events a Lua leaf file sends to its own agent under a literal name, read from its text
// at load: `agent:send("alarm")` (also `:send 'alarm'`, any receiver name). An fsm brain
// checks them against the names its states take, so a misspelt send (or transition) is said
// by `thicket check`, before any run sends it (the run-time warning says it at the first send).
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace thicket {

struct SentEvent {
  std::string name;
  int line = 0, column = 0;  // of the literal's opening quote, 1-based (column in bytes)
};

// Literal names of `:send(` calls in Lua source: quoted without escapes, not in a `--`
// comment (a line comment, or a block comment opened on an earlier line is not told apart:
// a name there is at worst a warning too many).
std::vector<SentEvent> self_sent_events(std::string_view lua);

}  // namespace thicket
