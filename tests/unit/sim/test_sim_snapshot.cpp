// Checkpoints of scenario runs (issue 15; runtime/src/sim/sim_snapshot.cpp): a run of 2T ticks
// and a run of T ticks saved, restored into a fresh Simulation and run T more end alike (result
// and record), at any thread count on either side; bad bytes are refused, never misread.
#include <doctest/doctest.h>

#include <string>

#include <zlib.h>

#include "record_file.hpp"
#include "simulation.hpp"

using namespace thicket;

namespace {

// The task-free skirmish of the e2e test: perception bound to blackboard keys, pickups, damage
// and deaths, noises, cooldowns, hook-table mem, gauges.
const char* const kSkirmish = THICKET_SOURCE_DIR "/tests/e2e/checkpoint/skirmish.yaml";

struct Run {
  RunResult result;
  std::string record;
};

ScenarioSpec skirmish() {
  std::vector<Diagnostic> diags;
  auto spec = load_scenario(kSkirmish, diags);
  REQUIRE(spec);
  return *spec;
}

SimOptions options(const ScenarioSpec& spec, uint32_t threads, uint64_t ticks) {
  SimOptions o;
  o.threads = threads;
  o.seed = spec.seed;
  o.dt = spec.dt;
  o.ticks = ticks;
  o.log = [](const std::string&) {};
  return o;
}

std::unique_ptr<Simulation> make(const ScenarioSpec& spec, SimOptions o, RecordSink* record) {
  o.record = record;
  std::vector<Diagnostic> diags;
  auto sim = Simulation::create(spec, o, diags);
  REQUIRE(sim);
  return sim;
}

// Only what follows tick `after` in a record: its tick lines past it and the end line.
std::string lines_after(const std::string& record, uint64_t after) {
  std::string out;
  size_t at = 0;
  while (at < record.size()) {
    size_t end = record.find('\n', at);
    std::string line = record.substr(at, end - at);
    at = end + 1;
    if (line.rfind("{\"tick\":", 0) == 0) {
      if (std::stoull(line.substr(8)) > after) out += line + "\n";
    } else if (line.rfind("{\"end\"", 0) == 0) {
      out += line + "\n";
    }
  }
  return out;
}

// Ticks 1..t with a save after tick t, the bytes.
std::string checkpoint_at(const ScenarioSpec& spec, uint32_t threads, uint64_t t) {
  auto sim = make(spec, options(spec, threads, t), nullptr);
  sim->run();
  std::string bytes;
  sim->save(bytes);
  return bytes;
}

}  // namespace

TEST_CASE("checkpoint: 2T ticks == T ticks, saved, restored into a fresh run, T more (threads 1 and 2, either way)") {
  const ScenarioSpec spec = skirmish();
  const uint64_t t = 25;
  for (uint32_t full_threads : {1u, 2u}) {
    RecordString full_record;
    RunResult full = make(spec, options(spec, full_threads, 2 * t), &full_record)->run();
    REQUIRE(full.agents_at_end < full.agents_at_start);  // deaths happen: the test covers them
    for (uint32_t save_threads : {1u, 2u}) {
      CAPTURE(full_threads);
      CAPTURE(save_threads);
      std::string bytes = checkpoint_at(spec, save_threads, t);
      RecordString record;
      auto resumed = make(spec, options(spec, full_threads, 2 * t), &record);
      std::vector<Diagnostic> diags;
      REQUIRE(resumed->restore(bytes, "cp", diags));
      CHECK(diags.empty());
      RunResult r = resumed->run();
      CHECK(r.ticks == full.ticks);
      CHECK(r.agent_ticks == full.agent_ticks);
      CHECK(r.metrics == full.metrics);
      CHECK(r.statuses == full.statuses);
      CHECK(r.agents_at_end == full.agents_at_end);
      CHECK(r.script_errors == full.script_errors);
      CHECK(r.gauges.size() == full.gauges.size());
      for (const auto& [name, g] : full.gauges) {
        CHECK(r.gauges[name].mean == g.mean);
        CHECK(r.gauges[name].min == g.min);
        CHECK(r.gauges[name].max == g.max);
        CHECK(r.gauges[name].ticks == g.ticks);
      }
      CHECK(lines_after(record.text, t) == lines_after(full_record.text, t));
    }
  }
}

TEST_CASE("checkpoint: time-sliced path searches in progress come back exactly (threads 1 and 2, either way)") {
  // paths.yaml: four agents each searching a few nodes a tick, finding paths (their tick and
  // length are metrics) and stepping along them; a search brought back wrong finds another
  // path or finds it at another tick.
  std::vector<Diagnostic> load_diags;
  auto loaded = load_scenario(THICKET_SOURCE_DIR "/tests/e2e/checkpoint/paths.yaml", load_diags);
  REQUIRE(loaded);
  const ScenarioSpec spec = *loaded;
  for (uint64_t t : {4u, 11u}) {
    for (uint32_t save_threads : {1u, 2u}) {
      for (uint32_t threads : {1u, 2u}) {
        CAPTURE(t);
        CAPTURE(save_threads);
        CAPTURE(threads);
        RecordString full_record;
        RunResult full = make(spec, options(spec, threads, 3 * t), &full_record)->run();
        REQUIRE(full.metrics["found"] > 0);
        auto first = make(spec, options(spec, save_threads, t), nullptr);
        first->run();
        const size_t held = first->path_searches_held();
        CHECK(held > 0);  // searches are in progress at the checkpoint
        std::string bytes;
        first->save(bytes);
        RecordString record;
        auto resumed = make(spec, options(spec, threads, 3 * t), &record);
        std::vector<Diagnostic> diags;
        REQUIRE(resumed->restore(bytes, "cp", diags));
        CHECK(diags.empty());
        CHECK(resumed->path_searches_held() == held);
        if (threads == save_threads) {  // saved again as they were (another thread count has another header)
          auto plain = make(spec, options(spec, threads, 3 * t), nullptr);
          REQUIRE(plain->restore(bytes, "cp", diags));
          std::string again;
          plain->save(again);
          CHECK(again == bytes);
        }
        RunResult r = resumed->run();
        CHECK(r.metrics == full.metrics);
        CHECK(lines_after(record.text, t) == lines_after(full_record.text, t));
      }
    }
  }
}

TEST_CASE("checkpoint: a save of a restored run is the same bytes as the save it came from") {
  const ScenarioSpec spec = skirmish();
  for (uint32_t threads : {1u, 2u}) {
    CAPTURE(threads);
    std::string bytes = checkpoint_at(spec, threads, 12);
    auto restored = make(spec, options(spec, threads, 40), nullptr);
    std::vector<Diagnostic> diags;
    REQUIRE(restored->restore(bytes, "cp", diags));
    std::string again;
    restored->save(again);
    CHECK(again == bytes);
  }
}

TEST_CASE("checkpoint: every truncation, flipped bytes, another format version: refused with a reason") {
  const ScenarioSpec spec = skirmish();
  std::string bytes = checkpoint_at(spec, 1, 5);
  std::string error;
  REQUIRE(Simulation::read_header(bytes, error));
  // Every length short of the whole (the header check reads no further than it must).
  for (size_t n = 0; n < bytes.size(); n += (n < 64 ? 1 : 97)) {
    CAPTURE(n);
    error.clear();
    CHECK_FALSE(Simulation::read_header(std::string_view(bytes).substr(0, n), error));
    CHECK(!error.empty());
  }
  for (size_t at : {size_t(30), bytes.size() / 2, bytes.size() - 1}) {
    std::string flipped = bytes;
    flipped[at] = static_cast<char>(flipped[at] ^ 0x10);
    CHECK_FALSE(Simulation::read_header(flipped, error));
    CHECK(error.find("corrupt") != std::string::npos);
  }
  // A length field near 2^64 (length + header wrapped round): said as a damaged header.
  std::string huge = bytes;
  for (int k = 12; k < 20; ++k) huge[k] = static_cast<char>(0xff);
  CHECK_FALSE(Simulation::read_header(huge, error));
  CHECK(error == "corrupt: its header announces 18446744073709551615 bytes");
  std::string newer = bytes;
  newer[8] = 10;
  CHECK_FALSE(Simulation::read_header(newer, error));
  CHECK(error.find("format version 10 is newer") != std::string::npos);
  std::string older = bytes;
  older[8] = 6;  // format 6 had no warnings in its script error book: refused, never misread
  CHECK_FALSE(Simulation::read_header(older, error));
  CHECK(error.find("format version 6 is older") != std::string::npos);
  // A restore of a refused checkpoint says why, on the name given.
  auto sim = make(spec, options(spec, 1, 10), nullptr);
  std::vector<Diagnostic> diags;
  CHECK_FALSE(sim->restore(std::string_view(bytes).substr(0, bytes.size() - 3), "cp.snap", diags));
  REQUIRE(diags.size() == 1);
  CHECK(format_diagnostic(diags[0]).rfind("cp.snap: error: truncated", 0) == 0);
}

TEST_CASE("checkpoint: a run of another seed, dt, length or scenario does not take it") {
  const ScenarioSpec spec = skirmish();
  std::string bytes = checkpoint_at(spec, 1, 10);
  std::string error;
  SnapshotInfo info = *Simulation::read_header(bytes, error);
  CHECK(info.tick == 10);
  CHECK(info.seed == spec.seed);
  CHECK(Simulation::mismatch(info, spec, options(spec, 3, 20)) == "");
  SimOptions o = options(spec, 1, 20);
  o.seed = 99;
  CHECK(Simulation::mismatch(info, spec, o).find("seed 11, not 99") != std::string::npos);
  o = options(spec, 1, 20);
  o.dt = 0.05;
  CHECK(Simulation::mismatch(info, spec, o).find("dt 0.1 s, not 0.05 s") != std::string::npos);
  CHECK(Simulation::mismatch(info, spec, options(spec, 1, 9)).find("past the run's end") != std::string::npos);
  ScenarioSpec other = spec;
  other.path = THICKET_SOURCE_DIR "/scripts/examples/flock/flock.yaml";
  CHECK(Simulation::mismatch(info, other, options(spec, 1, 20)).find("it was made from scenario") != std::string::npos);
}

namespace {

// CRC-32 (IEEE) by zlib's own crc32: the test forges checkpoints whose checksum is right. (A
// bit-at-a-time loop here took 7 of this test's 43 s in Release: ~100 KB a forgery.)
uint32_t crc32_of(std::string_view bytes) {
  REQUIRE(bytes.size() < (1u << 30));
  return static_cast<uint32_t>(
      crc32(crc32(0L, Z_NULL, 0), reinterpret_cast<const Bytef*>(bytes.data()), static_cast<uInt>(bytes.size())));
}

}  // namespace

TEST_CASE("checkpoint: bytes that pass the checksum but are damaged: refused or restored, never a crash") {
  const ScenarioSpec spec = skirmish();
  const std::string bytes = checkpoint_at(spec, 1, 20);
  const size_t body = 24;  // magic, format, length, CRC
  REQUIRE(crc32_of(std::string_view(bytes).substr(body)) ==
          (uint32_t(uint8_t(bytes[20])) | uint32_t(uint8_t(bytes[21])) << 8 | uint32_t(uint8_t(bytes[22])) << 16 |
           uint32_t(uint8_t(bytes[23])) << 24));
  int refused = 0, restored = 0;
  // Every 631st byte here (~500 damaged checkpoints, 11 s in Release; every 211th took 33 s, the
  // longest unit test); sweeps of every 211th and every 13th (25,000, minutes) passed too.
  // The sanitizer build (ten times slower) takes every 4,099th: fuzz/checkpoint_fuzz.cpp, run
  // under the same sanitizers by tools/fuzz.sh, damages checkpoints far more thoroughly.
#if defined(THICKET_UNDER_SANITIZER)
  constexpr size_t kStride = 4099;
#else
  constexpr size_t kStride = 631;
#endif
  for (size_t at = body; at < bytes.size(); at += kStride) {
    for (uint8_t flip : {uint8_t(0x01), uint8_t(0x80), uint8_t(0xFF)}) {
      std::string forged = bytes;
      forged[at] = static_cast<char>(forged[at] ^ flip);
      const uint32_t crc = crc32_of(std::string_view(forged).substr(body));
      for (int k = 0; k < 4; ++k) forged[20 + k] = static_cast<char>((crc >> (8 * k)) & 0xFF);
      auto sim = make(spec, options(spec, 2, 24), nullptr);
      std::vector<Diagnostic> diags;
      if (sim->restore(forged, "forged", diags)) {
        ++restored;
        sim->run();  // a value changed within its range (a position, a count): the run goes on
      } else {
        ++refused;
        CHECK(has_errors(diags));
      }
    }
  }
  MESSAGE("damaged checkpoints: " << refused << " refused, " << restored << " restored");
  CHECK(refused > 0);
}

TEST_CASE("checkpoint: damaged path searches in progress (bytes that pass the checksum): refused or restored, never a crash") {
  // The agents' records, searches included, are near the start of the file: a byte in
  // its first 1,500 (every 7th; every 37th in the sanitizer build), each damaged two ways.
  std::vector<Diagnostic> load_diags;
  auto loaded = load_scenario(THICKET_SOURCE_DIR "/tests/e2e/checkpoint/paths.yaml", load_diags);
  REQUIRE(loaded);
  const ScenarioSpec spec = *loaded;
  auto first = make(spec, options(spec, 1, 4), nullptr);
  first->run();
  REQUIRE(first->path_searches_held() > 0);
  std::string bytes;
  first->save(bytes);
  const size_t body = 24;
#if defined(THICKET_UNDER_SANITIZER)
  constexpr size_t kStride = 37;
#else
  constexpr size_t kStride = 7;
#endif
  int refused = 0, restored = 0;
  for (size_t at = body; at < std::min<size_t>(bytes.size(), 1500); at += kStride) {
    for (uint8_t flip : {uint8_t(0x01), uint8_t(0xC0)}) {
      std::string forged = bytes;
      forged[at] = static_cast<char>(forged[at] ^ flip);
      const uint32_t crc = crc32_of(std::string_view(forged).substr(body));
      for (int k = 0; k < 4; ++k) forged[20 + k] = static_cast<char>((crc >> (8 * k)) & 0xFF);
      auto sim = make(spec, options(spec, 2, 7), nullptr);
      std::vector<Diagnostic> diags;
      if (sim->restore(forged, "forged", diags)) {
        ++restored;
        sim->run();
      } else {
        ++refused;
        CHECK(has_errors(diags));
      }
    }
  }
  MESSAGE("damaged checkpoints with searches: " << refused << " refused, " << restored << " restored");
  CHECK(refused > 0);
}
