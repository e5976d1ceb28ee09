// Interned strings: blackboard string values and string literals in check
// expressions are ids into one table, so equality is an integer compare.
//
// Leaves of different agents may intern at once (tick_all on the game's threads, SPEC 8.2), so
// adding a string takes a lock, and get() reads without one: the strings live in chunks that
// never move, and an id reaches a reader only after the string it names was stored. Most
// interns are of strings seen before (a leaf writing "calm" to the blackboard every tick): each
// thread keeps a small cache of its recent ones, so those take no lock and share no cache line.
#pragma once
#include <atomic>
#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>
#include <stdexcept>
#include <string>
#include <string_view>
#include <unordered_map>

namespace thicket {

class StringTable {
 public:
  StringTable() : serial_(next_serial()) { intern(""); }
  StringTable(const StringTable&) = delete;
  StringTable& operator=(const StringTable&) = delete;
  // Returns the id of s, adding it on first sight (allocates only then).
  uint32_t intern(std::string_view s) {
    const size_t h = std::hash<std::string_view>{}(s);
    CacheEntry& c = cache()[h % kCacheSize];
    if (c.table == serial_ && c.hash == h && get(c.id) == s) return c.id;
    const uint32_t id = intern_locked(s);
    c = {serial_, h, id};
    return id;
  }
  std::string_view get(uint32_t id) const { return chunks_[id >> kChunkBits][id & kChunkMask]; }
  size_t size() const { return size_.load(std::memory_order_acquire); }
  // What holding the strings takes (a string is never removed: it may be in use anywhere):
  // their characters and, for each, its slot, its node and bucket in the index and malloc's
  // headers. Counting the characters alone let a script writing short unique texts hold ten
  // times its --lua-memory cap (~84 bytes of memory per 3-letter text, 3 counted).
  static constexpr size_t kHeld = 96;  // per string, beside its characters
  static size_t cost(size_t characters) { return characters + kHeld; }
  size_t bytes() const { return bytes_.load(std::memory_order_relaxed); }
  // Whether s is held already (interning it then adds nothing).
  bool contains(std::string_view s) {
    std::lock_guard<std::mutex> lock(mutex_);
    return ids_.count(s) > 0;
  }

 private:
  struct CacheEntry {
    uint64_t table = 0;  // the serial of the table the entry is for (0: empty)
    size_t hash = 0;
    uint32_t id = 0;
  };
  static constexpr size_t kCacheSize = 64;
  static CacheEntry* cache() {
    thread_local CacheEntry entries[kCacheSize];
    return entries;
  }
  static uint64_t next_serial() {
    static std::atomic<uint64_t> serial{0};
    return ++serial;
  }
  uint32_t intern_locked(std::string_view s) {
    std::lock_guard<std::mutex> lock(mutex_);
    auto it = ids_.find(s);
    if (it != ids_.end()) return it->second;
    const uint32_t id = size_.load(std::memory_order_relaxed);
    if ((id >> kChunkBits) >= kChunks) throw std::length_error("too many distinct strings (over 67 million)");
    std::unique_ptr<std::string[]>& chunk = chunks_[id >> kChunkBits];
    if (!chunk) chunk = std::make_unique<std::string[]>(size_t(1) << kChunkBits);
    std::string& slot = chunk[id & kChunkMask];
    slot.assign(s);
    bytes_.fetch_add(cost(s.size()), std::memory_order_relaxed);
    ids_.emplace(std::string_view(slot), id);
    size_.store(id + 1, std::memory_order_release);
    return id;
  }

  static constexpr uint32_t kChunkBits = 10;
  static constexpr uint32_t kChunkMask = (1u << kChunkBits) - 1;
  static constexpr size_t kChunks = size_t(1) << 16;  // 2^26 (67 million) strings in all
  const uint64_t serial_;  // tells this table's cache entries from another's at the same address
  std::mutex mutex_;
  std::unique_ptr<std::unique_ptr<std::string[]>[]> chunks_ = std::make_unique<std::unique_ptr<std::string[]>[]>(kChunks);
  std::atomic<uint32_t> size_{0};
  std::atomic<size_t> bytes_{0};
  std::unordered_map<std::string_view, uint32_t> ids_;
};

}  // namespace thicket
