// SlabStore (see sensor_store.hpp).
#include "perception/sensor_store.hpp"

#include <algorithm>
#include <cstdlib>
#include <new>
#if defined(__linux__)
#include <sys/mman.h>
#endif

namespace thicket::perception {

SlabStore::SlabStore(std::size_t size, std::size_t alignment)
    : size_((std::max<std::size_t>(size, 1) + alignment - 1) / alignment * alignment), alignment_(alignment) {}

SlabStore::~SlabStore() {
  for (void* slab : slabs_) std::free(slab);
}

void* SlabStore::take() {
  if (!free_.empty()) {
    void* p = free_.back();
    free_.pop_back();
    return p;
  }
  if (next_ == end_) {
    // Each slab as large as all before it together (the first: a few objects), up to whole
    // huge pages once that much is in use.
    std::size_t bytes = std::max(kFirstSlabObjects * size_, reserved_);
    std::size_t align = alignment_;
    if (bytes >= kHugePage) {
      bytes = (bytes + kHugePage - 1) / kHugePage * kHugePage;
      align = std::max(align, kHugePage);
    } else {
      bytes = (bytes + align - 1) / align * align;  // aligned_alloc's rule
    }
    slabs_.reserve(slabs_.size() + 1);
    free_.reserve((reserved_ + bytes) / size_);  // give_back never allocates
    void* slab = std::aligned_alloc(align, bytes);
    if (slab == nullptr) throw std::bad_alloc();
#if defined(__linux__) && defined(MADV_HUGEPAGE)
    if (align == kHugePage) madvise(slab, bytes, MADV_HUGEPAGE);  // a hint; refused is fine
#endif
    slabs_.push_back(slab);
    reserved_ += bytes;
    next_ = static_cast<char*>(slab);
    end_ = next_ + bytes / size_ * size_;
  }
  void* p = next_;
  next_ += size_;
  return p;
}

void SlabStore::give_back(void* p) { free_.push_back(p); }  // (room reserved in take)

}  // namespace thicket::perception
