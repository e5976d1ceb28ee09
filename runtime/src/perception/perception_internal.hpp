// What the perception manager keeps per sensing agent (private to runtime/src/perception).
#pragma once
#include <algorithm>
#include <cstring>
#include <memory>
#include <type_traits>
#include <vector>

#include "thicket/perception.hpp"

namespace thicket::perception {

// A list of trivially copyable records whose first N live in storage its owner keeps beside it
// (beyond them, on the heap): what a sensing agent keeps, inside its SensorState. At 10,000
// agents most of perception's time went to fetching each agent's lists from memory; held
// inline, one agent's state is one block, and agents registered one after another lie one
// after another, which the hardware fetches ahead (std::vectors, reallocated as they grew, lay
// scattered over the heap). The storage is apart so that an agent's lists' sizes and places
// share its state's first lines (sense() asks for those ahead). Not copyable or movable: it
// lives where its SensorState was made.
template <class T, std::size_t N>
class InlineBuffer {
  static_assert(std::is_trivially_copyable_v<T>);

 public:
  explicit InlineBuffer(T* storage) : data_(storage), storage_(storage) {}  // N records
  InlineBuffer(const InlineBuffer&) = delete;
  InlineBuffer& operator=(const InlineBuffer&) = delete;

  std::size_t size() const { return size_; }
  bool empty() const { return size_ == 0; }
  std::size_t capacity() const { return capacity_; }
  // Heap bytes held beyond the inline records.
  std::size_t heap_bytes() const { return heap_ ? capacity_ * sizeof(T) : 0; }
  T* data() { return data_; }
  const T* data() const { return data_; }
  T* begin() { return data_; }
  T* end() { return data_ + size_; }
  const T* begin() const { return data_; }
  const T* end() const { return data_ + size_; }
  T& operator[](std::size_t i) { return data_[i]; }
  const T& operator[](std::size_t i) const { return data_[i]; }
  void clear() { size_ = 0; }
  // Empties it and gives back any heap: a tick with more records than fit inline is rare, and
  // the buffer that grew for it would hold the agent's later ticks away from its other state.
  void clear_inline() {
    size_ = 0;
    if (heap_) {
      heap_.reset();
      data_ = storage_;
      capacity_ = N;
    }
  }
  // Becomes a copy of [first, last) (records of another list), its heap given back first as
  // clear_inline does.
  void assign(const T* first, const T* last) {
    clear_inline();
    const std::size_t n = std::size_t(last - first);
    if (n > capacity_) grow(n);
    std::memcpy(static_cast<void*>(data_), first, n * sizeof(T));
    size_ = std::uint32_t(n);
  }
  void push_back(const T& value) {
    if (size_ == capacity_) {
      const T copy = value;  // value may live in this buffer
      grow(size_ + 1);
      data_[size_++] = copy;
      return;
    }
    data_[size_++] = value;
  }
  // A new default record at the end, to be filled in place (a record built apart and copied
  // in was written field by field and read back whole: a store-forwarding stall each time).
  T& emplace_back() {
    if (size_ == capacity_) grow(size_ + 1);
    T& added = data_[size_++];
    added = T{};
    return added;
  }
  // Inserts before `at` (in begin()..end()); returns where the value now is.
  T* insert(T* at, const T& value) {
    const std::size_t i = std::size_t(at - begin());
    const T copy = value;
    if (size_ == capacity_) grow(size_ + 1);
    std::memmove(static_cast<void*>(data_ + i + 1), data_ + i, (size_ - i) * sizeof(T));
    data_[i] = copy;
    ++size_;
    return data_ + i;
  }
  // Shrinks (keeping the first n; back inline once they fill at most half of it, so that a
  // list hovering about N does not go to the heap and back every tick) or grows with default
  // records.
  void resize(std::size_t n) {
    if (n > capacity_) grow(n);
    for (std::size_t i = size_; i < n; ++i) data_[i] = T{};
    size_ = std::uint32_t(n);
    if (heap_ && n <= N / 2) {
      std::memcpy(static_cast<void*>(storage_), data_, n * sizeof(T));
      heap_.reset();
      data_ = storage_;
      capacity_ = N;
    }
  }

 private:
  [[gnu::noinline]] void grow(std::size_t at_least) {  // (rare: kept out of the callers)
    const std::size_t capacity = std::max(at_least, 2 * std::size_t(capacity_));
    std::unique_ptr<T[]> bigger(new T[capacity]);
    std::memcpy(static_cast<void*>(bigger.get()), data_, size_ * sizeof(T));
    heap_ = std::move(bigger);
    data_ = heap_.get();
    capacity_ = std::uint32_t(capacity);
  }
  T* data_;                    // storage_ or heap_'s
  std::uint32_t size_ = 0, capacity_ = N;
  std::unique_ptr<T[]> heap_;  // null while the records fit inline
  T* storage_;
};

// Inline room per agent: a typical tick's percepts and memory on bench_perception's open map
// (~9 percepts and exits a tick, ~28 remembered); more go to the heap.
inline constexpr std::size_t kInlinePercepts = 16, kInlineMemory = 32;
using PerceptBuffer = InlineBuffer<Percept, kInlinePercepts>;
using MemoryBuffer = InlineBuffer<MemoryEntry, kInlineMemory>;

// Its first lines hold everything but the lists' records (sense() asks for them ahead).
struct alignas(64) Manager::SensorState {
  SensorState() = default;
  SensorState(const SensorState&) = delete;
  SensorState& operator=(const SensorState&) = delete;

  const Senses* senses = nullptr;
  std::uint32_t agent = 0;
  // No entry of memory is forgotten before this tick (a lower bound: refreshing an entry only
  // moves its forget tick later), so update_memory looks for expired entries only from then on.
  // 0 after anything that replaces memory wholesale (registration, a snapshot).
  std::uint64_t next_forget = 0;
  // The last sense()'s percepts, sorted by sense then key, each sense's exits after its others.
  // sense() builds the next ones apart (phases come from comparing the two) and copies them in.
  PerceptBuffer percepts{percept_records};
  MemoryBuffer memory{memory_records};  // sorted by (kind, id)
  // The last cone check's sightings (Enter/Stay only): what stands on ticks LOD skips. Kept
  // only with LOD on (lod_skips); without it every tick is a check, and a snapshot takes them
  // from `percepts` (the same ones), so nothing is copied per tick that nothing reads.
  std::vector<Percept> sightings;

  Percept percept_records[kInlinePercepts];
  MemoryEntry memory_records[kInlineMemory];
};

// The percepts sense() is building, this thread's (sense() may run on many threads at once):
// built apart from the agent's state and copied in once phased, so that the agent's state holds
// one list of percepts, not two.
using BuildingBuffer = InlineBuffer<Percept, 64>;
BuildingBuffer& percepts_being_built();

// True when a sensor's sight may skip cone checks (level of detail), so it keeps its sightings.
inline bool lod_skips(const SightSpec& sight) { return sight.lod_distance > 0 && sight.lod_every > 1; }

// Sorts now[start..] (this tick's percepts of one sense, appended by its sense_*), gives each
// its phase against the previous tick's percepts of that sense in `before`, and appends an Exit
// for each of those no longer perceived.
void assign_phases(BuildingBuffer& now, std::size_t start, const PerceptBuffer& before, Sense sense);

}  // namespace thicket::perception
