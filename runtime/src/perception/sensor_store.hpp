// Where a perception manager keeps its sensing agents' states (private to runtime/src/perception).
#pragma once
#include <cstddef>
#include <vector>

namespace thicket::perception {

// Room for objects of one size and alignment, handed out one after another from slabs (so that
// agents registered in order lie in order) and reused once given back. At 10,000 agents their
// states (~4.3 KB each) span ~11,000 pages of 4 KB, more than the processor's translation
// cache holds: sensing them one after another missed it at nearly every agent. Slabs of 2 MB
// or more are 2 MB-aligned and, on Linux, advised as huge pages (a hint: the kernel may
// decline). The first slabs are small, so a manager of a few agents holds a few of them.
class SlabStore {
 public:
  SlabStore(std::size_t size, std::size_t alignment);
  ~SlabStore();
  SlabStore(const SlabStore&) = delete;
  SlabStore& operator=(const SlabStore&) = delete;

  void* take();             // uninitialised room for one object
  void give_back(void* p);  // (the object already destroyed)
  std::size_t slabs() const { return slabs_.size(); }
  // Bytes of the slabs together (for bytes_per_sensor-style reports).
  std::size_t reserved_bytes() const { return reserved_; }

  static constexpr std::size_t kHugePage = std::size_t(2) << 20;
  static constexpr std::size_t kFirstSlabObjects = 16;

 private:
  std::size_t size_, alignment_;
  std::vector<void*> slabs_;
  char* next_ = nullptr;   // in the newest slab
  char* end_ = nullptr;
  std::vector<void*> free_;  // given back, reused last in, first out
  std::size_t reserved_ = 0;
};

}  // namespace thicket::perception
