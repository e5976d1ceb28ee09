// Interned strings: blackboard string values and string literals in check
// expressions are ids into one table, so equality is an integer compare.
//
// Leaves of different agents may intern at once (tick_all on the game's threads, SPEC 8.2), so
// intern takes a lock, and get() reads without one: the strings live in chunks that never move,
// and an id reaches a reader only after the string it names was stored.
#pragma once
#include <atomic>
#include <cstdint>
#include <memory>
#include <mutex>
#include <stdexcept>
#include <string>
#include <string_view>
#include <unordered_map>

namespace thicket {

class StringTable {
 public:
  StringTable() { intern(""); }
  StringTable(const StringTable&) = delete;
  StringTable& operator=(const StringTable&) = delete;
  // Returns the id of s, adding it on first sight (allocates only then).
  uint32_t intern(std::string_view s) {
    std::lock_guard<std::mutex> lock(mutex_);
    auto it = ids_.find(s);
    if (it != ids_.end()) return it->second;
    const uint32_t id = size_.load(std::memory_order_relaxed);
    if ((id >> kChunkBits) >= kChunks) throw std::length_error("too many distinct strings (over 67 million)");
    std::unique_ptr<std::string[]>& chunk = chunks_[id >> kChunkBits];
    if (!chunk) chunk = std::make_unique<std::string[]>(size_t(1) << kChunkBits);
    std::string& slot = chunk[id & kChunkMask];
    slot.assign(s);
    ids_.emplace(std::string_view(slot), id);
    size_.store(id + 1, std::memory_order_release);
    return id;
  }
  std::string_view get(uint32_t id) const { return chunks_[id >> kChunkBits][id & kChunkMask]; }
  size_t size() const { return size_.load(std::memory_order_acquire); }

 private:
  static constexpr uint32_t kChunkBits = 10;
  static constexpr uint32_t kChunkMask = (1u << kChunkBits) - 1;
  static constexpr size_t kChunks = size_t(1) << 16;  // 2^26 (67 million) strings in all
  std::mutex mutex_;
  std::unique_ptr<std::unique_ptr<std::string[]>[]> chunks_ = std::make_unique<std::unique_ptr<std::string[]>[]>(kChunks);
  std::atomic<uint32_t> size_{0};
  std::unordered_map<std::string_view, uint32_t> ids_;
};

}  // namespace thicket
