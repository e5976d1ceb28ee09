// Where a leaf call happens: the tick loop hands this to the leaf host (bindings/lua).
#pragma once
#include <cstdint>

namespace thicket {

struct Program;
struct AgentInfo;

struct CallSite {
  const Program* program;
  uint32_t node;
  AgentInfo* agent;
  uint8_t* block;
};

}  // namespace thicket
