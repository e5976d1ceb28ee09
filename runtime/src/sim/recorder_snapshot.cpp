// The recorder's pending part in a snapshot: with --record-every N > 1 a checkpoint can fall
// between tick lines, and the events and deaths since the last line belong in the next one.
#include "recorder.hpp"
#include "thicket/snapshot.hpp"

namespace thicket {

void Recorder::save(SnapshotWriter& out) const {
  out.u8(1);
  out.u64(last_written_);
  out.str(events_);
  out.u32(static_cast<uint32_t>(dead_.size()));
  for (const auto& [id, entry] : dead_) {
    out.u32(id);
    out.str(entry);
  }
}

void Recorder::save_none(SnapshotWriter& out) { out.u8(0); }

void Recorder::restore(SnapshotReader& in) {
  if (in.u8() == 0) return;  // made without --record: nothing was pending
  last_written_ = in.u64();
  events_ = in.str();
  uint32_t n = in.u32();
  dead_.clear();
  for (uint32_t k = 0; k < n && in.ok(); ++k) {
    uint32_t id = in.u32();
    dead_.emplace_back(id, in.str());
  }
}

void Recorder::skip(SnapshotReader& in) {
  if (in.u8() == 0) return;
  in.u64();
  in.str();
  uint32_t n = in.u32();
  for (uint32_t k = 0; k < n && in.ok(); ++k) {
    in.u32();
    in.str();
  }
}

}  // namespace thicket
