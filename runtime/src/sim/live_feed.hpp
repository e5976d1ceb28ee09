// The live monitor's fan-out (issue 14, `thicket run SCENARIO --serve`): the record lines of a
// run, handed to any number of readers (the server's connections) without ever making the
// simulation wait for one. The simulation thread only copies the line once and appends a
// pointer to each reader's queue under a short lock; readers take lines on their own threads.
//
// What a reader gets: the header, the brains lines and the tick lines still kept (a history of
// at most `history_bytes`, so that a viewer opened late or after the run still sees the
// recent past), then each new line as it comes, then the end line. A reader more than
// `reader_queue` lines behind loses its oldest tick lines (counted in dropped()): "drop frames
// for slow clients rather than block". Header, brains and end lines are never dropped, so the
// node strings of the ticks a reader does get always refer to the right node tables.
#pragma once
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <deque>
#include <list>
#include <memory>
#include <mutex>
#include <string>

#include "record_sink.hpp"

namespace thicket {

class LiveFeed final : public RecordSink {
 public:
  using Line = std::shared_ptr<const std::string>;
  struct Reader;  // one connection's queue; owned by the feed, held by handle

  explicit LiveFeed(size_t reader_queue = 64, size_t history_bytes = size_t(256) << 20);
  ~LiveFeed() override;

  // The simulation thread: never waits for a reader (a short lock, no I/O).
  void write(Kind kind, std::string_view line) override;

  // A new reader, its queue filled with what is kept (header, brains, history, end).
  Reader* connect();
  // The reader's next line, waiting at most `timeout`; nullptr on timeout or once close() ran.
  Line next(Reader* reader, std::chrono::milliseconds timeout);
  void disconnect(Reader* reader);
  // Wakes every waiting reader for good (the server is stopping).
  void close();
  bool closed() const;

  uint64_t lines() const;      // lines written
  uint64_t dropped() const;    // tick lines readers lost by being slow, over all readers
  uint64_t readers_seen() const;
  bool ended() const;          // the end line was written

 private:
  struct Entry {
    Kind kind;
    Line line;
  };
  void push(Reader& reader, const Entry& entry);

  const size_t reader_queue_, history_bytes_;
  mutable std::mutex mutex_;
  std::condition_variable ready_;
  Line header_, base_brains_, end_;  // base_brains_: the brains line that precedes the history
  std::deque<Entry> history_;        // brains and tick lines, oldest first
  size_t history_size_ = 0;          // bytes in history_
  std::list<Reader> readers_;
  uint64_t lines_ = 0, dropped_ = 0, readers_seen_ = 0;
  bool closed_ = false;
};

}  // namespace thicket
