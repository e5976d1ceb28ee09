// --watch for scenarios: hot reload of the groups' brain and leaf files in every worker.
//
// Each worker has its own Runtime, which watches and reads the files itself, so two things
// could leave workers running different versions, and a run that depends on how agents are
// split over workers would no longer be one run:
//   1. a file saved again while the workers reload it (worker 0 reads the old bytes, worker 1
//      the new). So the files are fingerprinted before and after a pass over the workers; if
//      they changed meanwhile, the pass is repeated: a worker whose watcher saw the old bytes
//      sees the new ones now and reloads again, one that already read them sees no change.
//      A pass in which nothing moved leaves every worker on the same bytes.
//   2. a reload that fails in some workers only: compile errors are the same everywhere, but
//      a leaf file's top-level code may hit a worker's time or memory limit. The failed
//      workers are rolled forward (the file is reloaded there again, twice at most); if they
//      still fail, nothing can roll the others back (the old text is gone from the disk), so
//      the run stops with an error rather than go on with two versions.
// A reload that fails in every worker leaves every worker on the old version, as for a brain.
#include <chrono>
#include <filesystem>
#include <fstream>
#include <map>
#include <set>
#include <thread>

#include "file_watcher.hpp"
#include "runtime_impl.hpp"
#include "sim_internal.hpp"

namespace thicket {

namespace {

constexpr int kMaxPasses = 50;          // ~0.5 s of an editor writing before we give up for this tick
constexpr int kRollForwardTries = 2;

using Fingerprint = std::map<std::string, std::pair<bool, uint64_t>>;  // file -> exists, FNV-1a of its bytes

// What a file is, for the watch's fingerprint. Only a plain file is read, and one past the
// loaders' limits by its size and time alone: a watched file swapped for a pipe blocked the
// workers for ever (and /dev/urandom read for ever), a 3 GB one stalled them for 22 s. Such a
// file still changes the fingerprint, so the reload is tried and its loader says what is wrong.
constexpr uintmax_t kMaxHashedBytes = 64u << 20;

uint64_t hash_bytes(const std::string& path, bool& exists) {
  return FileWatcher::hash_file(path, &exists, kMaxHashedBytes);
}

// Every file a worker's brains read: the same in every worker once they agree, so worker 0's
// list serves.
std::vector<std::string> brain_files(const Simulation::Impl& sim) {
  return sim.workers.empty() ? std::vector<std::string>{} : sim.workers[0]->rt->impl().files_read();
}

Fingerprint fingerprint(const Simulation::Impl& sim) {
  const std::vector<std::string> files = brain_files(sim);
  Fingerprint f;
  for (const auto& path : files) {
    bool exists = false;
    uint64_t h = hash_bytes(path, exists);
    f[path] = {exists, h};
  }
  return f;
}

}  // namespace

void rebind_senses(Simulation::Impl& sim) {
  for (auto& worker : sim.workers) {
    for (uint32_t g = 0; g < sim.spec.groups.size() && g < worker->sense_keys.size(); ++g) {
      const AgentGroup& group = sim.spec.groups[g];
      const Program& program = *worker->rt->impl().brains[worker->brains[g].index]->program;
      auto& keys = worker->sense_keys[g];
      std::vector<SimWorker::SenseKey> fresh;
      for (const SenseBinding& b : group.sense_keys) {
        // Bound before this reload (or dropped by an earlier one, which this one may mend: a key
        // removed by a mistaken save and put back a moment later left the sense dead until the
        // run restarted).
        bool was = false;
        for (const auto& k : keys) was = was || k.slot == b.slot;
        std::optional<uint32_t> bb = worker->rt->blackboard_slot(worker->brains[g], b.key);
        const ValueType type = bb ? program.blackboard[*bb].type : ValueType::Any;
        const bool boolean = slot_is_boolean(b.slot);
        const bool good = bb && (boolean ? type == ValueType::Boolean : type == ValueType::Number || type == ValueType::Integer);
        if (good) {
          fresh.push_back({b.slot, *bb, type});
          if (!was && worker->index == 0)
            sim.log("thicket: after the reload of " + group.brain + ", senses of group '" + group.name + "' write '" +
                    kSenseSlotNames[static_cast<int>(b.slot)] + "' into blackboard key '" + b.key + "' again");
        } else if (was && worker->index == 0)
          sim.log("error: after the reload of " + group.brain + ", senses of group '" + group.name + "' can no longer write '" +
                  kSenseSlotNames[static_cast<int>(b.slot)] + "' into blackboard key '" + b.key +
                  "' (the new version does not declare it as " + (boolean ? "a boolean" : "a number or an integer") +
                  "); it is not written until a reload declares it so again, or the run restarts");
      }
      keys = std::move(fresh);
    }
  }
}

std::vector<ReloadReport> Simulation::reload_changed() {
  Impl& s = *impl_;
  std::vector<ReloadReport> reports;  // worker 0's, in order
  // The latest outcome of each file in each worker during this call (absent: not reloaded).
  std::map<std::string, std::map<uint32_t, ReloadReport>> latest;
  // What the workers say while they reload waits, and is written as one thread would: the stop
  // hooks' lines in agent order, the notices once (worker 0's; a worker that differs is
  // reported below). On every way out.
  struct Hold {
    Impl& s;
    explicit Hold(Impl& sim) : s(sim) {
      s.reload_hold = true;
      for (auto& w : s.workers) w->reload_segment = 0;
    }
    void release() {
      if (!s.reload_hold) return;
      s.reload_hold = false;
      write_held_logs(s);
    }
    ~Hold() { release(); }
    Hold(const Hold&) = delete;
    Hold& operator=(const Hold&) = delete;
  } hold(s);
  auto reload_in = [&](SimWorker& w, const std::vector<std::string>* only) {
    std::vector<ReloadReport> got;
    if (only) w.rt->reload_files(*only, &got);
    else w.rt->reload_changed(&got);
    for (const auto& r : got) {
      latest[r.file][w.index] = r;
      if (w.index == 0) reports.push_back(r);
    }
    return !got.empty();
  };
  for (int pass = 0;; ++pass) {
    Fingerprint before = fingerprint(s);
    bool any = false;
    // Workers 1.. first (quietly), then worker 0, whose notice says it for the run: with the
    // running nodes the others aborted added ("2 running node(s) aborted" of 4, at 2 threads).
    for (size_t k = 1; k <= s.workers.size(); ++k) {
      SimWorker& w = *s.workers[k % s.workers.size()];
      RuntimeImpl& impl = w.rt->impl();
      impl.reload_aborted.clear();
      if (w.index == 0) {
        impl.reload_aborted_elsewhere.clear();
        for (size_t o = 1; o < s.workers.size(); ++o)
          for (const auto& [brain, n] : s.workers[o]->rt->impl().reload_aborted) impl.reload_aborted_elsewhere[brain] += n;
      }
      any = reload_in(w, nullptr) || any;
      impl.reload_aborted_elsewhere.clear();
    }
    if (!any && pass == 0) return {};  // the common case: nothing changed
    if (fingerprint(s) == before) break;
    if (pass + 1 == kMaxPasses) {
      s.log("thicket: --watch: files keep changing during the reload; the workers are compared again before the next tick");
      break;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(10));  // let the editor finish its save
  }
  // Same bytes everywhere now; bring the workers whose reload failed level with those where
  // it worked.
  for (auto& [file, by_worker] : latest) {
    for (int attempt = 0;; ++attempt) {
      bool some_ok = false, some_failed = false;
      for (const auto& [w, r] : by_worker) (r.ok ? some_ok : some_failed) = true;
      if (!(some_ok && some_failed)) break;
      if (attempt == kRollForwardTries) {
        hold.release();
        std::string why;
        for (const auto& [w, r] : by_worker)
          if (!r.ok) {
            why = "worker " + std::to_string(w + 1) + ": " + r.first_error;
            break;
          }
        s.log("error: --watch: the reload of " + file + " worked in some workers and failed in others (" + why +
              "); the run stops rather than run two versions");
        reports.push_back({file, false, "the workers could not agree on a version (" + why + ")", {}});
        s.workers_disagree = true;
        return reports;
      }
      const std::vector<std::string> only{file};
      for (auto& [w, r] : by_worker) {
        if (r.ok) continue;
        if (!reload_in(*s.workers[w], &only)) r.first_error = "it was not reloaded on retry";
      }
    }
  }
  hold.release();
  rebind_senses(s);
  return reports;
}

std::vector<std::string> Simulation::files_read() const {
  std::vector<std::string> files = brain_files(*impl_);
  files.push_back(impl_->spec.path);
  if (!impl_->spec.nav.map_path.empty()) files.push_back(impl_->spec.nav.map_path);
  return files;
}

std::vector<ReloadReport> Simulation::reload_and_report() {
  Impl& s = *impl_;
  // The scenario file and its map are not reloaded (a world and its agents made again would
  // not be the run that was going on): an edit is said, so it is not taken for one that
  // worked. (It was silent.)
  if (!s.scenario_watch) {
    s.scenario_watch = std::make_shared<FileWatcher>();
    s.scenario_watch->add(s.spec.path);
    if (!s.spec.nav.map_path.empty()) s.scenario_watch->add(s.spec.nav.map_path);
  } else if (!s.workers.empty()) {
    for (const std::string& path : s.scenario_watch->changed())
      s.log(s.workers[0]->rt->impl().reload_clock() + ": " + path +
            " changed: a scenario and its map are read once, when the run starts; restart the run to use the edit "
            "(brain and leaf files reload live)");
  }
  std::vector<ReloadReport> reloads = reload_changed();
  if (!reloads.empty() && s.recorder) s.recorder->reloads(reloads);
  if (!reloads.empty() && s.options.on_reload) s.options.on_reload(reloads);
  return reloads;
}

}  // namespace thicket
