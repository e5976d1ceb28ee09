// A C leaf's answer that no Status holds (an int outside 0..255: -1, 1000, a THICKET_ERR_*
// code): the C API keeps it here for the error the engine then reports, so the log says
// "returned the value -5", not "returned invalid". Kept per agent: the batched walk calls a
// node's leaf for many agents before it reports their bad answers. Set and read on the thread
// of the calls; error paths only.
#pragma once
#include <cstdint>
#include <vector>

namespace thicket {

struct RawLeafAnswer {
  uint32_t agent = 0;  // the agent's id
  int64_t value = 0;
};
extern thread_local std::vector<RawLeafAnswer> tl_raw_leaf_answers;

}  // namespace thicket
