#include "live_feed.hpp"

#include <algorithm>

namespace thicket {

struct LiveFeed::Reader {
  std::deque<Entry> queue;
  size_t ticks = 0;  // tick lines in queue
  // Tick lines queued at connect (the kept history): a late reader may be far behind at first
  // without losing them while it catches up; only the lines that come after count against
  // the queue bound.
  size_t backlog = 0;
};

LiveFeed::LiveFeed(size_t reader_queue, size_t history_bytes)
    : reader_queue_(std::max<size_t>(reader_queue, 1)), history_bytes_(history_bytes) {}

LiveFeed::~LiveFeed() { close(); }

void LiveFeed::push(Reader& reader, const Entry& entry) {
  reader.queue.push_back(entry);
  if (entry.kind != Kind::Tick || ++reader.ticks <= reader_queue_ + reader.backlog) return;
  // Too far behind: the oldest tick line goes (never a header, brains or end line).
  auto oldest = std::find_if(reader.queue.begin(), reader.queue.end(), [](const Entry& e) { return e.kind == Kind::Tick; });
  reader.queue.erase(oldest);
  --reader.ticks;
  if (reader.backlog > 0) --reader.backlog;
  ++dropped_;
}

void LiveFeed::write(Kind kind, std::string_view text) {
  // The copy is made before the lock: readers wait on the lock, not on this allocation.
  Entry entry{kind, std::make_shared<const std::string>(text)};
  {
    std::lock_guard<std::mutex> lock(mutex_);
    ++lines_;
    if (kind == Kind::Header) {
      // A new record (not expected: --serve runs once): start over.
      header_ = entry.line;
      base_brains_.reset();
      end_.reset();
      history_.clear();
      history_size_ = 0;
    } else if (kind == Kind::End) {
      end_ = entry.line;
    } else {
      history_.push_back(entry);
      history_size_ += entry.line->size();
      while (history_size_ > history_bytes_ && history_.size() > 1) {
        if (history_.front().kind == Kind::Brains) base_brains_ = history_.front().line;
        history_size_ -= history_.front().line->size();
        history_.pop_front();
      }
    }
    for (Reader& reader : readers_) push(reader, entry);
  }
  ready_.notify_all();
}

LiveFeed::Reader* LiveFeed::connect() {
  std::lock_guard<std::mutex> lock(mutex_);
  Reader& reader = readers_.emplace_back();
  ++readers_seen_;
  if (header_) reader.queue.push_back({Kind::Header, header_});
  if (base_brains_) reader.queue.push_back({Kind::Brains, base_brains_});
  reader.queue.insert(reader.queue.end(), history_.begin(), history_.end());
  if (end_) reader.queue.push_back({Kind::End, end_});
  for (const Entry& e : reader.queue) reader.ticks += e.kind == Kind::Tick;
  reader.backlog = reader.ticks;
  return &reader;
}

LiveFeed::Line LiveFeed::next(Reader* reader, std::chrono::milliseconds timeout) {
  std::unique_lock<std::mutex> lock(mutex_);
  ready_.wait_for(lock, timeout, [&] { return closed_ || !reader->queue.empty(); });
  if (closed_ || reader->queue.empty()) return nullptr;
  Entry& front = reader->queue.front();
  if (front.kind == Kind::Tick) {
    --reader->ticks;
    if (reader->backlog > 0) --reader->backlog;
  }
  Line line = std::move(front.line);
  reader->queue.pop_front();
  return line;
}

void LiveFeed::disconnect(Reader* reader) {
  std::lock_guard<std::mutex> lock(mutex_);
  readers_.remove_if([&](const Reader& r) { return &r == reader; });
}

void LiveFeed::close() {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    closed_ = true;
  }
  ready_.notify_all();
}

bool LiveFeed::closed() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return closed_;
}

uint64_t LiveFeed::lines() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return lines_;
}

uint64_t LiveFeed::dropped() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return dropped_;
}

uint64_t LiveFeed::readers_seen() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return readers_seen_;
}

bool LiveFeed::ended() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return end_ != nullptr;
}

}  // namespace thicket
