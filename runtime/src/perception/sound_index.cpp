// Hearing (issue 13): the sound queues, their deterministic merge, the bucket grid that tells a
// listener which sounds could reach it, and the hearing test itself.
//
// The grid covers the world's bounds. A sound is listed in every cell its audible disc
// overlaps: the disc where its strength reaches the lowest threshold of any registered
// listener, radius sqrt(loudness / threshold) (inverse square, see sound_strength). A listener
// then reads only its own cell (positions outside the bounds fall into the edge cells, as do
// the discs that reach past them). A disc that would cover too many cells is kept apart, in
// loud_sounds_, and checked by every listener: a few shouts cost less there than being copied
// into hundreds of cells.
#include <algorithm>
#include <cmath>

#include "perception/perception_internal.hpp"

namespace thicket::perception {

namespace {

constexpr double kMinSoundCell = 16.0;     // m
constexpr double kMaxSoundColumns = 128;   // the grid's cell grows with larger worlds
constexpr std::int64_t kMaxCellsPerSound = 64;

}  // namespace

void Manager::set_queues(std::uint32_t queues) {
  queues = std::max<std::uint32_t>(1, queues);
  // Sounds already queued in queues that go away are kept, in queue 0.
  for (std::size_t q = queues; q < queues_.size(); ++q)
    queues_[0].insert(queues_[0].end(), queues_[q].begin(), queues_[q].end());
  queues_.resize(queues);
}

void Manager::emit_sound(std::uint32_t queue, Vec2 position, double loudness, double seconds,
                         std::uint32_t source) {
  if (queue >= queues_.size()) return;  // a caller's mistake: dropped, never a crash
  std::vector<QueuedSound>& q = queues_[queue];
  QueuedSound queued;
  queued.sound = {position, loudness, source, ticks_for(seconds)};
  queued.order = std::uint32_t(q.size());
  q.push_back(queued);
}

// The queued sounds join sounds_ in the order (source, emission order) whatever thread queued
// them: each source agent runs on one thread in a tick, so its own sounds share a queue and
// their queue order is their emission order. Anonymous sounds (source 0) may come from any
// thread, so among them the order is by content (position, loudness, length), never by queue.
void Manager::merge_queued_sounds() {
  merge_scratch_.clear();
  for (std::vector<QueuedSound>& q : queues_) {
    merge_scratch_.insert(merge_scratch_.end(), q.begin(), q.end());
    q.clear();
  }
  if (merge_scratch_.empty()) return;
  std::sort(merge_scratch_.begin(), merge_scratch_.end(), [](const QueuedSound& a, const QueuedSound& b) {
    if (a.sound.source != b.sound.source) return a.sound.source < b.sound.source;
    if (a.sound.source != 0 && a.order != b.order) return a.order < b.order;
    if (a.sound.position.x != b.sound.position.x) return a.sound.position.x < b.sound.position.x;
    if (a.sound.position.y != b.sound.position.y) return a.sound.position.y < b.sound.position.y;
    if (a.sound.loudness != b.sound.loudness) return a.sound.loudness < b.sound.loudness;
    return a.sound.last_tick < b.sound.last_tick;
  });
  for (const QueuedSound& queued : merge_scratch_) {
    Sound sound = queued.sound;
    sound.last_tick = tick_ + queued.sound.last_tick - 1;  // it held the length in ticks
    SoundMeta meta;
    meta.serial = next_sound_serial_++;
    // Targets filter by the source's team; a source that is gone counts as anonymous.
    if (const world::Entity* source = entity_of_agent(sound.source)) {
      meta.team = source->team;
      meta.has_team = true;
    }
    sounds_.push_back(sound);
    sound_meta_.push_back(meta);
  }
}

void Manager::build_sound_index() {
  const world::Bounds& b = world_->bounds();
  const double extent = std::max(b.max.x - b.min.x, b.max.y - b.min.y);
  sound_cell_ = std::max(kMinSoundCell, extent / kMaxSoundColumns);
  if (!std::isfinite(sound_cell_)) sound_cell_ = kMinSoundCell;
  sound_origin_ = b.min;
  sound_columns_ = std::int32_t(std::clamp(std::ceil((b.max.x - b.min.x) / sound_cell_), 1.0, kMaxSoundColumns));
  sound_rows_ = std::int32_t(std::clamp(std::ceil((b.max.y - b.min.y) / sound_cell_), 1.0, kMaxSoundColumns));
  const std::size_t cells = std::size_t(sound_columns_) * std::size_t(sound_rows_);
  sound_bucket_start_.assign(cells + 1, 0);
  sound_bucket_items_.clear();
  loud_sounds_.clear();
  if (sounds_.empty() || !std::isfinite(min_threshold_) || !(min_threshold_ > 0)) {
    // No listener, or one that hears everything (threshold 0): every sound is "loud".
    if (!sounds_.empty() && !(min_threshold_ > 0))
      for (std::uint32_t i = 0; i < sounds_.size(); ++i) loud_sounds_.push_back(i);
    return;
  }

  // Each sound's block of cells, or none (inaudible) or too many (loud).
  auto block_of = [&](const Sound& sound, std::int32_t& x0, std::int32_t& x1, std::int32_t& y0,
                      std::int32_t& y1) -> int {  // 0 none, 1 block, 2 loud
    if (!(sound.loudness >= min_threshold_) || !std::isfinite(sound.position.x) ||
        !std::isfinite(sound.position.y))
      return 0;
    // A hair wider than exact, so rounding never drops a listener on the disc's edge.
    double r = std::sqrt(sound.loudness / min_threshold_) * (1 + 1e-9) + 1e-9;
    if (!std::isfinite(r)) return 2;
    auto column = [&](double v, double origin, std::int32_t n) {
      return std::int32_t(std::clamp(std::floor((v - origin) / sound_cell_), 0.0, double(n - 1)));
    };
    x0 = column(sound.position.x - r, sound_origin_.x, sound_columns_);
    x1 = column(sound.position.x + r, sound_origin_.x, sound_columns_);
    y0 = column(sound.position.y - r, sound_origin_.y, sound_rows_);
    y1 = column(sound.position.y + r, sound_origin_.y, sound_rows_);
    std::int64_t covered = std::int64_t(x1 - x0 + 1) * std::int64_t(y1 - y0 + 1);
    return covered > kMaxCellsPerSound ? 2 : 1;
  };
  // Counting sort: sizes, then ends, then fill backwards so each cell lists its sounds in order.
  std::int32_t x0 = 0, x1 = 0, y0 = 0, y1 = 0;
  for (std::uint32_t i = 0; i < sounds_.size(); ++i) {
    int kind = block_of(sounds_[i], x0, x1, y0, y1);
    if (kind == 2) loud_sounds_.push_back(i);
    if (kind != 1) continue;
    for (std::int32_t y = y0; y <= y1; ++y)
      for (std::int32_t x = x0; x <= x1; ++x) ++sound_bucket_start_[std::size_t(y) * sound_columns_ + x];
  }
  for (std::size_t c = 1; c <= cells; ++c) sound_bucket_start_[c] += sound_bucket_start_[c - 1];
  sound_bucket_items_.resize(sound_bucket_start_[cells]);
  for (std::uint32_t i = std::uint32_t(sounds_.size()); i-- > 0;) {
    if (block_of(sounds_[i], x0, x1, y0, y1) != 1) continue;
    for (std::int32_t y = y0; y <= y1; ++y)
      for (std::int32_t x = x0; x <= x1; ++x)
        sound_bucket_items_[--sound_bucket_start_[std::size_t(y) * sound_columns_ + x]] = i;
  }
}

void Manager::sense_hearing(SensorState& s, const world::Entity& self, Stats* stats) {
  const HearingSpec& hearing = s.senses->hearing;
  BuildingBuffer& now = percepts_being_built();
  const std::size_t start = now.size();
  if (!hearing.enabled) return;
  const Targets targets = s.senses->targets;
  const bool damped = walls_ != nullptr && hearing.walls < 1;
  std::uint64_t candidates = 0;

  auto hear = [&](std::uint32_t i) {
    ++candidates;
    const Sound& sound = sounds_[i];
    const SoundMeta& meta = sound_meta_[i];
    if (sound.source == s.agent) return;  // nobody hears their own noise
    if (meta.has_team) {
      if (targets == Targets::Enemies && meta.team == self.team) return;
      if (targets == Targets::Friends && meta.team != self.team) return;
    }
    double d = world::distance(self.position, sound.position);
    double strength = sound_strength(sound.loudness, d);
    if (!(strength >= hearing.threshold)) return;
    if (damped && !walls_->clear(sound.position, self.position)) {
      strength *= hearing.walls;
      if (!(strength >= hearing.threshold)) return;
    }
    Percept& p = now.emplace_back();
    p.sense = Sense::Hearing;
    p.kind = Kind::Sound;
    p.id = sound.source;
    p.sound = meta.serial;
    p.position = sound.position;
    p.distance = d;
    p.strength = strength;
  };

  if (!sound_bucket_items_.empty()) {
    auto column = [&](double v, double origin, std::int32_t n) {
      double c = std::floor((v - origin) / sound_cell_);
      return std::int32_t(c >= 0 ? std::min(c, double(n - 1)) : 0.0);  // NaN: cell 0
    };
    std::size_t cell = std::size_t(column(self.position.y, sound_origin_.y, sound_rows_)) * sound_columns_ +
                       std::size_t(column(self.position.x, sound_origin_.x, sound_columns_));
    for (std::uint32_t k = sound_bucket_start_[cell]; k < sound_bucket_start_[cell + 1]; ++k)
      hear(sound_bucket_items_[k]);
  }
  for (std::uint32_t i : loud_sounds_) hear(i);
  if (stats != nullptr) stats->sound_candidates += candidates;
  assign_phases(now, start, s.percepts, Sense::Hearing);
}

}  // namespace thicket::perception
