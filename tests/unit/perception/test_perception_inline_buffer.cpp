// The lists a sensing agent keeps inside its state (InlineBuffer): the first N records inline,
// more on the heap, back inline when they fill half of it again; against std::vector on random
// edits.
#include <doctest/doctest.h>

#include <cstdint>
#include <vector>

#include "perception/perception_internal.hpp"

using thicket::perception::InlineBuffer;

namespace {

struct Record {
  std::uint32_t key = 7;
  double value = 0.5;
};

template <std::size_t N>
bool same_as(const InlineBuffer<Record, N>& buffer, const std::vector<Record>& model) {
  if (buffer.size() != model.size()) return false;
  for (std::size_t i = 0; i < model.size(); ++i)
    if (buffer[i].key != model[i].key || buffer[i].value != model[i].value) return false;
  return true;
}


}  // namespace

TEST_CASE("inline buffer: assign copies another list, inline when it fits, its heap given back first") {
  Record storage[4];
  InlineBuffer<Record, 4> b(storage);
  std::vector<Record> six, three;
  for (std::uint32_t k = 0; k < 6; ++k) six.push_back({k + 10, double(k)});
  for (std::uint32_t k = 0; k < 3; ++k) three.push_back({k + 20, double(-k)});
  b.assign(three.data(), three.data() + three.size());
  CHECK(same_as(b, three));
  CHECK(b.data() == storage);
  b.assign(six.data(), six.data() + six.size());  // more than N: on the heap
  CHECK(same_as(b, six));
  CHECK(b.data() != storage);
  CHECK(b.heap_bytes() >= 6 * sizeof(Record));
  b.assign(three.data(), three.data() + three.size());  // fits again: back inline, heap freed
  CHECK(same_as(b, three));
  CHECK(b.data() == storage);
  CHECK(b.heap_bytes() == 0);
  b.assign(three.data(), three.data());  // nothing
  CHECK(b.empty());
  CHECK(b.data() == storage);
}

TEST_CASE("inline buffer: inline up to N, on the heap beyond, back inline when it fits again") {
  Record storage[4];
  InlineBuffer<Record, 4> b(storage);
  CHECK(b.capacity() == 4);
  CHECK(b.heap_bytes() == 0);
  for (std::uint32_t k = 0; k < 4; ++k) b.push_back({k, double(k)});
  CHECK(b.data() == storage);
  b.push_back({4, 4.0});  // the fifth goes to the heap, with the four before it
  CHECK(b.data() != storage);
  CHECK(b.capacity() >= 5);
  CHECK(b.heap_bytes() == b.capacity() * sizeof(Record));
  for (std::uint32_t k = 0; k < 5; ++k) CHECK(b[k].key == k);

  b.resize(3);  // would fit inline, but fills more than half of it: stays on the heap
  CHECK(b.data() != storage);
  b.resize(2);  // half: moved back, heap given up
  CHECK(b.data() == storage);
  CHECK(b.heap_bytes() == 0);
  REQUIRE(b.size() == 2);
  CHECK(b[1].key == 1);

  for (std::uint32_t k = 0; k < 10; ++k) b.push_back({k, 0});
  CHECK(b.heap_bytes() > 0);
  b.clear();  // keeps the heap (memory's compaction reuses it)
  CHECK(b.heap_bytes() > 0);
  b.clear_inline();  // gives it back (this tick's percepts)
  CHECK(b.heap_bytes() == 0);
  CHECK(b.empty());
  CHECK(b.capacity() == 4);
  CHECK(b.data() == storage);
  Record& added = b.emplace_back();  // a default record, in place
  CHECK(&added == storage);
  CHECK(added.key == 7);
  CHECK(b.size() == 1);
  for (int k = 0; k < 4; ++k) b.emplace_back().key = 40 + k;  // the fifth goes to the heap
  REQUIRE(b.size() == 5);
  CHECK(b.data() != storage);
  CHECK(b[0].key == 7);
  CHECK(b[4].key == 43);
}

TEST_CASE("inline buffer: push_back of its own record while it grows") {
  Record storage[2];
  InlineBuffer<Record, 2> b(storage);
  b.push_back({1, 1.0});
  b.push_back({2, 2.0});
  b.push_back(b[0]);  // the source moves to the heap with the rest
  REQUIRE(b.size() == 3);
  CHECK(b[2].key == 1);
  b.insert(b.begin(), b[2]);
  REQUIRE(b.size() == 4);
  CHECK(b[0].key == 1);
  CHECK(b[1].key == 1);
  CHECK(b[3].key == 1);
}

TEST_CASE("inline buffer: random edits agree with std::vector") {
  std::uint64_t rng = 12345;
  auto next = [&] {
    rng = rng * 6364136223846793005ull + 1442695040888963407ull;
    return std::uint32_t(rng >> 33);
  };
  Record storage[5];
  InlineBuffer<Record, 5> b(storage);
  std::vector<Record> model;
  for (int step = 0; step < 20000; ++step) {
    const std::uint32_t op = next() % 10;
    const Record r{next(), double(next() % 1000) / 7};
    if (op < 4) {  // (op 4: emplace_back)
      b.push_back(r);
      model.push_back(r);
    } else if (op == 4) {
      b.emplace_back() = r;
      model.push_back(r);
    } else if (op < 7) {
      const std::size_t at = model.empty() ? 0 : next() % (model.size() + 1);
      const Record* placed = b.insert(b.begin() + at, r);
      CHECK(placed == b.begin() + at);
      model.insert(model.begin() + std::ptrdiff_t(at), r);
    } else if (op < 9) {
      const std::size_t n = model.empty() ? 0 : next() % (model.size() + 2);  // may grow by one
      b.resize(n);
      model.resize(n);
    } else if (next() % 8 == 0) {
      b.clear_inline();
      model.clear();
    }
    if (model.size() > 40) {
      b.resize(3);
      model.resize(3);
    }
    REQUIRE(same_as(b, model));
    REQUIRE(b.capacity() >= b.size());
  }
}
