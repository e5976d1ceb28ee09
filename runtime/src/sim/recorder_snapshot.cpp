// The recorder's pending part in a snapshot: with --record-every N > 1 a checkpoint can fall
// between tick lines, and the events and deaths since the last line belong in the next one.
#include "recorder.hpp"
#include "sim_internal.hpp"
#include "thicket/snapshot.hpp"

namespace thicket {

void Recorder::save(SnapshotWriter& out) const {
  // A checkpoint of the run's last tick (or of where it stopped) comes after that tick's line,
  // written off the --record-every beat: the resumed run's next line must still hold what
  // that line took.
  const bool off_beat = off_beat_tick_ == sim_.tick && last_written_ == sim_.tick;
  const std::string& events = off_beat ? off_beat_events_ : events_;
  const auto& dead = off_beat ? off_beat_dead_ : dead_;
  out.u8(1);
  out.u64(off_beat ? 0 : last_written_);
  out.str(events);
  out.u32(static_cast<uint32_t>(dead.size()));
  for (const auto& [id, entry] : dead) {
    out.u32(id);
    out.str(entry);
  }
}

void Recorder::save_none(SnapshotWriter& out) { out.u8(0); }

void Recorder::restore(SnapshotReader& in, uint64_t tick) {
  if (in.u8() == 0) {  // made without --record: nothing was pending, and the checkpoint's tick
    last_written_ = tick;  // is no line of this record (a resume at it wrote one)
    return;
  }
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
