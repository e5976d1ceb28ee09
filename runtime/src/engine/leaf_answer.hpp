// A C leaf's answer that no Status holds (an int outside 0..255: -1, 1000, a THICKET_ERR_*
// code): the C API keeps it here for the error the engine then reports, so the log says
// "returned the value -5", not "returned invalid". Set and read on the thread of the call.
#pragma once
#include <cstdint>

namespace thicket {

struct RawLeafAnswer {
  int64_t value = 0;
  bool set = false;
};
extern thread_local constinit RawLeafAnswer tl_raw_leaf_answer;

}  // namespace thicket
