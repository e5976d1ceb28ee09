// thicket run SCENARIO (SPEC 9): the batch's plan, its runs spread over threads, shards or MPI
// ranks, and its outputs (--out, --series, --record, --trace, --log), checkpoints, live page and
// summary. The command line is parsed in main.cpp (run_command.hpp).
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <csignal>
#include <cstdio>
#include <fstream>
#include <iostream>
#include <iterator>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "batch_runs.hpp"
#include "batch_summary.hpp"
#include "checkpoint.hpp"
#include "live_run.hpp"
#include "mpi_runs.hpp"
#include "output_target.hpp"
#include "record_file.hpp"
#include "record_tee.hpp"
#include "run_command.hpp"
#include "run_results.hpp"
#include "simulation.hpp"
#include "sweep.hpp"
#include "sweep_plan.hpp"
#include "sweep_summary.hpp"
#include "thicket/runtime.hpp"
#include "wall_pacer.hpp"
#include "trace_format.hpp"

namespace thicket::run_command {

int cmd_scenario(const Options& o) {
  // Which runs this process runs (all of them, a --shard's, an MPI rank's): batch_runs.hpp.
  cli::BatchRuns batch(o.shard, o.shards, cli::mpi_world());
  if (o.shards) {
    if (!cli::named_with_extension(o.out, ".jsonl"))
      return usage_error("--shard writes its runs to a part file of JSON lines for thicket merge: it needs --out PART.jsonl");
    if (!o.record.empty() || !o.trace.empty() || o.explain || o.watch || o.live.serve)
      return usage_error("--record, --trace, --explain, --watch and --serve do not go with --shard (run them unsharded or under mpirun)");
  }
  std::ofstream log_file;  // opened (emptied) with the other outputs, once the batch can start
  if (o.agents_set) return usage_error("--agents is for brain files; a scenario's groups say how many agents there are");
  if (o.max_agents_set)
    return usage_error("--max-agents is for brain files; a scenario's leaves cannot spawn (its groups make its agents)");
  if (o.watch && o.runs > 1) return usage_error("--watch runs one run in real time; it cannot go with --runs " + std::to_string(o.runs));
  if ((o.live.speed_set || o.live.exit_when_done) && !o.live.serve) return usage_error("--speed and --serve-exit go with --serve");
  if (o.live.serve && o.runs > 1) return usage_error("--serve shows one run as it goes: it takes no --runs");
  std::vector<Diagnostic> diags;
  ScenarioSpec partial;
  auto spec = load_scenario(o.files[0], diags, &partial);
  if (!spec) check_groups_of_failed_load(partial, diags);  // all of the file's errors at once
  print_diagnostics(diags);
  if (!spec) return kExitLoad;
  // The batch: every parameter set x seed, in index order (run_plan.hpp); no sweep: --runs seeds.
  std::string sweep_why;
  bool sweep_usage = false;
  std::vector<Diagnostic> sweep_diags;
  auto sets = cli::sweep_param_sets(*spec, o.sets, o.trusted, sweep_why, sweep_usage, sweep_diags);
  if (!sets) {
    if (sweep_usage) {  // a bad --set: the message says what to write; the usage text would bury it
      std::cerr << "thicket: error: " << sweep_why << "\n";
      return kExitUsage;
    }
    print_diagnostics(sweep_diags);
    return kExitLoad;
  }
  spec->sweep.clear();  // planned: a run's spec (a copy for each run of a sweep) needs it no more
  // --watch and --serve show one run: a --set (or a file's `sweep:`) of one value each, and one
  // seed at most, is one run, with its values (it was refused as a sweep).
  const bool one_run = sets->values.size() == 1 && sets->seeds.size() <= 1;
  if (!one_run && (o.watch || o.live.serve))
    return usage_error("--watch and --serve show one run; a sweep (a scenario's 'sweep:', --set with several values) has many");
  if ((o.record_every || o.record_keys_set) && o.record.empty())
    return usage_error("--record-every and --record-keys say what --record FILE keeps; give --record too");
  if (o.series_every != 1 && o.series.empty())  // (it was ignored without a word)
    return usage_error("--series-every says how often --series FILE samples; give --series too");
  if (o.checkpoint.empty() != (o.checkpoint_every == 0))
    return usage_error("--checkpoint FILE and --every T go together: the file is replaced every T ticks");
  if ((!o.checkpoint.empty() || !o.resume.empty()) && (o.runs > 1 || o.watch))
    return usage_error("--checkpoint and --resume save and continue one run: they take no --runs and no --watch");
  std::optional<cli::ResumePoint> resume;  // read and checked before any output file is opened
  if (!o.resume.empty()) {
    SimOptions probe;
    probe.ticks = o.ticks_set ? o.ticks : spec->ticks;
    if (o.live.serve && probe.ticks == 0) probe.ticks = kTicksUntilStopped;  // served until Ctrl-C, as below
    probe.dt = o.dt_set ? o.dt : spec->dt;
    if (o.seed_set) probe.seed = o.seed;
    resume = cli::open_resume(o.resume, *spec, probe, o.seed_set);
    if (!resume) return kExitLoad;
  }
  if ((!o.checkpoint.empty() || !o.resume.empty()) && cli::is_sweep(*sets))
    return usage_error(one_run ? "--checkpoint and --resume take no --set (or 'sweep:') values, even one per key: a "
                                 "checkpoint knows the scenario file by its content, not the values given to it; write "
                                 "them into a copy of the scenario"
                               : "--checkpoint and --resume save and continue one run; a sweep (a scenario's 'sweep:', "
                                 "--set) has many");
  // A resumed run goes on with the seed it was saved with.
  const uint64_t first_seed = o.seed_set ? o.seed : resume ? resume->info.seed : spec->seed;
  if (cli::planned_runs(*sets, o.runs) > cli::kMaxBatchRuns) {  // (the usage text would bury it)
    std::cerr << "thicket: error: " << cli::too_many_runs(*sets, o.runs) << ": fewer runs or fewer values to sweep\n";
    return kExitUsage;
  }
  if (std::string why = cli::seeds_past_max(*sets, first_seed, o.runs); !why.empty()) {  // (the usage would bury it)
    std::cerr << "thicket: error: " << why << "\n";
    return kExitUsage;
  }
  const std::vector<cli::RunSpec> plan = cli::plan_runs(*sets, first_seed, o.runs);
  std::optional<cli::Checkpointer> checkpointer;
  if (!o.checkpoint.empty()) checkpointer.emplace(o.checkpoint, o.checkpoint_every);
  bool checkpoint_failed = false;
  SimOptions so;
  // Default: every core, shared by the MPI ranks on this machine.
  so.threads = static_cast<uint32_t>(o.threads ? o.threads
                                               : std::max(1u, std::thread::hardware_concurrency() / cli::mpi_world().local_size));
  so.ticks = o.ticks_set ? o.ticks : spec->ticks;
  so.dt = o.dt_set ? o.dt : spec->dt;
  so.trusted = o.trusted;
  so.instruction_budget = o.budget;
  so.budget_all_leaves = o.budget_all;
  so.leaf_timeout = o.leaf_timeout;
  so.lua_memory_limit = static_cast<size_t>(o.lua_memory_mb) << 20;
  so.journal_tasks = !o.checkpoint.empty() || !o.resume.empty();  // running tasks saved exactly (guide 11.6)
  so.log = [&](const std::string& line) {
    if (batch.capturing()) batch.log(line);  // under MPI: printed by rank 0 in run order
    else if (log_file.is_open()) log_file << line << "\n";
    else std::cerr << line + '\n';  // one write, not two (std::cerr is unbuffered)
  };
  so.strict = o.strict;
  so.watch = o.watch;
  // --watch and --serve show one run as it goes: --ticks 0 runs it until Ctrl-C, as for a brain.
  const bool until_stopped = (o.watch || o.live.serve) && so.ticks == 0;
  if (until_stopped) so.ticks = kTicksUntilStopped;
  so.record_keys = o.record_keys;
  // The first run is made once before any output file is opened, and dropped: a brain that
  // does not load (an unknown leaf, broken YAML, a Lua file with an error), a blackboard value
  // or a sense that does not fit it, --record-keys it lacks, or a --resume it cannot take stops
  // the batch here, with the run's diagnostics (exit 2), and --out, --series, --record and
  // --trace keep what they held. (A --shard goes on: its part file carries the failure to
  // thicket merge, which then writes nothing. Its outputs are still checked against the files
  // the run reads: `--log brain.lua` emptied the leaf file of a shard.)
  std::string files_fingerprint;  // under MPI: the bytes of the files the first run reads, hashed
  if (!plan.empty()) {
    SimOptions probe = so;
    probe.threads = 1;
    probe.seed = plan.front().seed;
    probe.log = [](const std::string&) {};    // the run says it again
    probe.print = [](const std::string&) {};  // (a leaf file's prints as it loads)
    probe.watch = false;
    std::vector<Diagnostic> probe_diags;
    std::string set_why;
    auto probe_spec = cli::is_sweep(*sets) ? apply_param_set(*spec, sets->names, sets->values[plan.front().param_set], set_why)
                                           : std::optional<ScenarioSpec>(*spec);
    if (!probe_spec) probe_diags.push_back({Severity::Error, o.files[0], 0, 0, set_why});
    auto sim = probe_spec ? Simulation::create(*probe_spec, probe, probe_diags) : nullptr;
    if (!sim && !batch.sharded()) {
      if (batch.prints()) print_diagnostics(probe_diags);
      return kExitLoad;
    }
    if (sim)
      if (std::string why = output_over_input(o, sim->files_read()); !why.empty()) return option_error(why);
    if (sim && !batch.sharded() && cli::mpi_world().size > 1) files_fingerprint = cli::batch_fingerprint(sim->files_read());
    if (sim && resume && !batch.sharded()) {
      std::vector<Diagnostic> resume_diags;
      if (!sim->restore(resume->bytes, o.resume, resume_diags)) {
        if (batch.prints())
          for (const Diagnostic& d : resume_diags) std::cerr << "thicket: " << format_diagnostic(d) << "\n";
        return kExitLoad;
      }
    }
  }
  std::unique_ptr<cli::LiveSession> live;
  if (o.live.serve) {
    std::string why;
    live = cli::LiveSession::start(o.live, why);
    if (!live) {
      std::cerr << "thicket: " << why << "\n";
      return kExitUsage;
    }
  }
  // Every output this process writes is checked before any is opened (which empties it), so
  // that one that cannot be written leaves the others as they were.
  const bool writes_series = !o.series.empty() && batch.prints() && !batch.sharded();  // a shard's go into its part
  {
    std::vector<std::string> paths, whats;
    auto add = [&](bool writes, const std::string& path, const std::string& what) {
      if (writes && !path.empty()) paths.push_back(path), whats.push_back(what);
    };
    add(batch.prints(), o.record, "record");
    add(batch.prints(), o.trace, "trace");
    add(writes_series, o.series, "series");
    add(batch.prints(), o.out, "output");
    add(batch.prints(), o.log, "log");
    add(batch.prints(), o.checkpoint, "checkpoint");  // (its folder: found at the first save, after the run, before)
    std::error_code ec;
    const bool checkpoint_was = !o.checkpoint.empty() && std::filesystem::exists(o.checkpoint, ec);
    if (size_t bad = cli::first_unwritable(paths); bad < paths.size()) return cli::cannot_write(whats[bad], paths[bad]);
    // The check made the checkpoint empty if it was not there: gone again, so that until the
    // first save there is no file (an empty one is no checkpoint: a `--resume` of it failed,
    // and "resume if the file exists" scripts broke on a run stopped before its first save).
    // (A link to a file not made yet: the file the check made at its target, not the link.)
    if (!o.checkpoint.empty() && !checkpoint_was && batch.prints())
      std::filesystem::remove(cli::output_target(o.checkpoint).path, ec);
  }
  // Under MPI every rank has now loaded the batch and checked its outputs: one that could not
  // (a scenario, brain or folder it cannot see) stops them all, before rank 0 opens (empties)
  // any output.
  if (int status = cli::mpi_agree_setup(0); status != 0) return status;
  // Ranks that read other bytes (a copy of the scenario, a brain or a map edited on one
  // machine) would merge runs of different batches without a word: stopped, as thicket merge
  // refuses the parts of edited files.
  if (!cli::mpi_same_on_every_rank(files_fingerprint)) {
    std::cerr << "thicket: error: the MPI ranks read different bytes for the batch's files (the scenario, its map, "
                 "brains or leaf files): every rank must see the same files\n";
    return kExitLoad;
  }
  std::ofstream out, series, trace;
  bool output_failed = false;  // an output not written in full (the run goes on; exit 2)
  std::unique_ptr<RecordFile> record;
  std::optional<SeriesFormat> series_fmt;
  if (!o.series.empty()) series_fmt = series_format(o.series);
  const int opened = [&]() -> int {
    if (!o.log.empty() && batch.prints()) {
      log_file.open(o.log, cli::output_mode(o.log));
      if (!log_file) return cli::cannot_write("log", o.log);
    }
    if (!o.record.empty() && batch.prints()) {  // run 1 is rank 0's
      std::string why;
      record = RecordFile::open(o.record, why);
      if (!record) {  // the file cannot be made: its reason, no usage text (as output_error)
        std::cerr << "thicket: " + why + "\n";
        return kExitUsage;
      }
    }
    if (!o.trace.empty() && batch.prints()) {
      trace.open(o.trace, cli::output_mode(o.trace));
      if (!trace) return cli::cannot_write("trace", o.trace);
    }
    if (writes_series) {
      series.open(o.series, cli::output_mode(o.series));
      if (!series) return cli::cannot_write("series", o.series);
    }
    if (!o.out.empty() && batch.prints()) {  // with --shard: the part file
      out.open(o.out, cli::output_mode(o.out));
      if (!out) return cli::cannot_write("output", o.out);
    }
    return 0;
  }();
  // (An output checked above that still cannot be opened stops every rank too.)
  if (int status = cli::mpi_agree_setup(opened); status != 0) return status;
  const bool jsonl = o.out.size() > 6 && o.out.compare(o.out.size() - 6, 6, ".jsonl") == 0;
  RecordTee record_tee(record.get(), live ? live->sink() : nullptr);
  const bool progress = !o.quiet && isatty(STDERR_FILENO) && !o.watch && batch.prints();
  std::vector<RunResult> results;
  // SIGTERM (how Slurm ends a job at its time limit, and `kill`'s default) as Ctrl-C: the runs
  // done are written (--out, a shard's part) rather than lost with the process.
  if (checkpointer) run_command::g_whole_ticks = 1;
  std::signal(SIGINT, on_sigint);
  std::signal(SIGTERM, on_sigint);
  // Many small runs (a sweep, --runs N) go to the threads whole: each run on one thread, with
  // one worker, several runs at once; big runs go one after another, their agents over the
  // threads. Either way every run is the same as on any thread count (SPEC 8.2), and what the
  // runs write (their log, Lua prints, diagnostics, series, rows) is written in run order.
  // Run 1 did not load, or was stopped as it loaded: no empty record left behind (a device
  // such as /dev/stdout is left as it is).
  auto drop_record = [&] {
    if (!record || o.record.rfind("/dev/", 0) == 0) return;
    record.reset();
    std::remove(o.record.c_str());
  };
  uint64_t agents_per_run = 0;
  for (const auto& g : spec->groups) agents_per_run += g.count;
  const bool spread = !o.watch && !live && !checkpointer && !resume && !batch.collects() &&
                      cli::spread_runs(plan.size(), so.threads, agents_per_run);
  double spread_wall = -1;  // the union of the spread runs' ticking spans (BatchFacts::wall)
  if (spread) {
    const auto batch_start = std::chrono::steady_clock::now();
    std::vector<std::pair<double, double>> ticking;  // under m: each run's ticking, since batch_start
    struct Done {
      bool done = false, failed = false, skipped = false;  // skipped: interrupted as it loaded
      std::string diags;
      // The run's log lines (false) and Lua prints (true) in the order it made them, so that
      // standard output and error sent to one file read as one run at a time would write them.
      std::vector<std::pair<bool, std::string>> said;
      std::optional<SeriesBuffer> series;
      RunResult res;
    };
    std::vector<Done> runs(plan.size());
    std::atomic<uint64_t> next{0}, stop_at{UINT64_MAX};
    std::mutex m;
    uint64_t written = 0, finished = 0;
    std::set<std::string> warned;  // each warning once (every run loads the same brains)
    auto write = [&](uint64_t r) {  // under m, in run order
      Done& d = runs[r];
      if (d.skipped) {
        if (r == 0) drop_record();
        return;
      }
      std::cerr << cli::unseen_warnings(d.diags, warned);
      for (const auto& [printed, text] : d.said) {
        if (printed) {
          std::fwrite(text.data(), 1, text.size(), stdout);
        } else if (log_file.is_open()) {
          log_file << text;
        } else {
          std::fflush(stdout);
          std::cerr << text;
        }
      }
      std::fflush(stdout);
      if (r == 0 && record && d.failed && o.record.rfind("/dev/", 0) != 0) {  // no empty record left behind
        record.reset();
        std::remove(o.record.c_str());
      } else if (r == 0 && record) {
        std::string why;
        if (!record->close(why)) {
          std::cerr << "thicket: " << why << " (" << o.record << " is cut short)\n";
          output_failed = true;
        }
      }
      if (d.failed) return;
      results.push_back(d.res);
      if (d.series) {
        if (r == 0) series << d.series->header();
        series << d.series->text();
      }
    };
    auto work = [&] {
      for (;;) {
        const uint64_t r = next.fetch_add(1);
        if (r >= plan.size() || r > stop_at.load() || g_interrupted) return;
        Done& d = runs[r];
        SimOptions sr = so;
        sr.threads = 1;
        sr.seed = plan[r].seed;
        sr.log = [&d](const std::string& line) { d.said.emplace_back(false, line + "\n"); };
        sr.print = [&d](const std::string& line) { d.said.emplace_back(true, line + "\n"); };
        sr.record = r == 0 && record ? &record_tee : nullptr;
        sr.record_every = static_cast<uint32_t>(o.record_every);
        sr.record_keys = o.record_keys;
        sr.trace = r == 0 && trace.is_open() ? &trace : nullptr;
        sr.explain = r == 0 && o.explain;
        sr.brain_events = nullptr;
        if (sr.trace || sr.explain)
          sr.brain_events = [&d, explain = sr.explain, to = sr.trace](const TraceEvent& e) {
            if (to) cli::write_trace_event(*to, e);
            if (explain && e.type != TraceEvent::Type::Tick) d.said.emplace_back(false, cli::explain_event(e) + "\n");
          };
        sr.brain_event_ticks = sr.trace != nullptr;
        if (series_fmt) d.series.emplace(*series_fmt, o.series_every, r + 1, sr.seed);
        sr.series = d.series ? &*d.series : nullptr;
        std::vector<Diagnostic> diags;
        std::string set_why;
        auto run_spec = cli::is_sweep(*sets) ? apply_param_set(*spec, sets->names, sets->values[plan[r].param_set], set_why)
                                             : std::optional<ScenarioSpec>(*spec);
        if (!run_spec) diags.push_back({Severity::Error, o.files[0], 0, 0, set_why});
        auto sim = run_spec ? Simulation::create(*run_spec, sr, diags) : nullptr;
        if (!sim && g_interrupted) {
          // Ctrl-C or SIGTERM while the run loaded stops its leaf files' compiling: the batch
          // ends before this run (no load failure; nothing of it, nor of the runs after it, written).
          std::lock_guard<std::mutex> lock(m);
          d.done = d.skipped = true;
          stop_at = std::min<uint64_t>(stop_at.load(), r);
          while (written < plan.size() && written <= stop_at.load() && runs[written].done) write(written++);
          return;
        }
        for (const auto& x : diags) d.diags += format_diagnostic(x) + "\n";
        double ended = 0;
        if (sim) {
          d.res = sim->run({}, [] { return g_interrupted != 0; });
          ended = std::chrono::duration<double>(std::chrono::steady_clock::now() - batch_start).count();
        } else {
          d.failed = true;
        }
        sim.reset();
        std::lock_guard<std::mutex> lock(m);
        if (!d.failed) ticking.emplace_back(ended - d.res.wall_seconds, ended);
        d.done = true;
        ++finished;
        if (d.failed || d.res.stopped_strict || d.res.stopped_reload) stop_at = std::min<uint64_t>(stop_at.load(), r);
        while (written < plan.size() && written <= stop_at.load() && runs[written].done) write(written++);
        if (progress)
          std::fprintf(stderr, "\r runs %llu/%llu done (%u at once)", static_cast<unsigned long long>(finished),
                       static_cast<unsigned long long>(plan.size()), static_cast<unsigned>(so.threads));
      }
    };
    std::vector<std::thread> pool;
    for (uint64_t k = 0; k < std::min<uint64_t>(so.threads, plan.size()); ++k) pool.emplace_back(work);
    for (auto& t : pool) t.join();
    spread_wall = cli::union_seconds(ticking);
    if (progress) std::fprintf(stderr, "\n");
    if (stop_at.load() < plan.size() && runs[stop_at.load()].failed) {  // a run that failed to load ends the batch
      if (out.is_open()) cli::write_run_rows(out, jsonl, results, *sets, plan);  // the runs before it
      return kExitLoad;
    }
  }
  std::vector<std::string> files_read;  // by the first run that loaded: the scenario, its map, brains, leaf files
  for (uint64_t r = 0; r < plan.size() && !g_interrupted && !spread; ++r) {
    if (!batch.mine(r)) continue;
    batch.begin(r);
    so.seed = plan[r].seed;
    so.record = r == 0 && (record || live) ? &record_tee : nullptr;  // the file and the live monitor
    if (live) so.on_reload = [&live](const std::vector<ReloadReport>& reports) { live->reloaded(reports); };
    so.record_every = static_cast<uint32_t>(o.record_every);
    so.record_keys = o.record_keys;
    so.trace = r == 0 && trace.is_open() ? &trace : nullptr;  // percept and brain events, first run
    so.explain = r == 0 && o.explain;
    so.brain_events = nullptr;
    if (so.trace || so.explain)
      so.brain_events = [&, explain = so.explain, to = so.trace](const TraceEvent& e) {
        if (to) cli::write_trace_event(*to, e);
        if (explain && e.type != TraceEvent::Type::Tick) so.log(cli::explain_event(e));
      };
    so.brain_event_ticks = so.trace != nullptr;
    std::optional<SeriesBuffer> run_series;  // this run's samples (runs are written in run order)
    if (series_fmt) run_series.emplace(*series_fmt, o.series_every, r + 1, so.seed);
    so.series = run_series ? &*run_series : nullptr;
    std::vector<Diagnostic> sim_diags;
    std::string set_why;  // the sets were checked when planned; a failure here is a bug, said as an error
    auto run_spec = cli::is_sweep(*sets) ? apply_param_set(*spec, sets->names, sets->values[plan[r].param_set], set_why)
                                         : std::optional<ScenarioSpec>(*spec);
    if (!run_spec) sim_diags.push_back({Severity::Error, o.files[0], 0, 0, set_why});
    auto sim = run_spec ? Simulation::create(*run_spec, so, sim_diags) : nullptr;
    if (sim && batch.collects() && files_read.empty()) files_read = sim->files_read();  // for the part's hash
    if (!sim && g_interrupted) sim_diags.clear();  // stopped as it loaded: not the brains' errors
    batch.diagnostics(sim_diags);  // printed (under MPI: kept for rank 0)
    if (sim && resume && !cli::resume(*sim, *resume, o.resume)) sim.reset();
    if (!sim && g_interrupted) {
      // Ctrl-C or SIGTERM while the run loaded stops its leaf files' compiling: the batch ends
      // before this run, as if the signal had come a moment earlier (not a load failure).
      if (r == 0) drop_record();
      batch.interrupted(0);
      break;
    }
    if (!sim) {
      if (r == 0) drop_record();
      if (batch.collects()) {  // the batch ends here, as on one process, once the others are in
        batch.load_failed();
        break;
      }
      if (out.is_open()) cli::write_run_rows(out, jsonl, results, *sets, plan);  // the runs done so far
      return kExitLoad;
    }
    if (live) live->attach(sim.get());  // the debug API (live_debug.hpp) serves this run
    RunResult res = sim->run(
        [&](uint64_t done, uint64_t total) {
          if (checkpointer)
            if (std::string why = checkpointer->after_tick(*sim, done); !why.empty()) {
              std::cerr << "thicket: " << o.checkpoint << ": error: " << why << " (the run goes on without checkpoints)\n";
              checkpoint_failed = true;
            }
          if (live) live->pace(done, so.dt, [] { return g_interrupted != 0; });
          // Every 16 ticks, or at most ~1,000 redraws a run (each writes to the terminal).
          if (!progress || (done % std::max<uint64_t>(16, total / 1000) != 0 && done != total)) return;
          int width = 30, filled = static_cast<int>(width * done / std::max<uint64_t>(total, 1));
          std::fprintf(stderr, "\r run %llu/%llu [%s%s] %llu/%llu ticks", static_cast<unsigned long long>(r + 1),
                       static_cast<unsigned long long>(plan.size()), std::string(filled, '#').c_str(),
                       std::string(width - filled, '.').c_str(), static_cast<unsigned long long>(done),
                       static_cast<unsigned long long>(total));
        },
        [&, pacer = cli::WallPacer(so.dt)]() mutable {
          // --watch paces the run at the sim clock, one tick per dt of wall time (as for a brain);
          // with --serve the live session paces it (at --speed).
          if (o.watch && !live) pacer.wait([] { return g_interrupted != 0; });
          return g_interrupted != 0;
        });
    if (progress) std::fprintf(stderr, "\n");
    if (checkpointer && g_interrupted)  // Ctrl-C: what ran is saved, for --resume
      if (std::string why = checkpointer->at_stop(*sim, res.ticks); !why.empty()) {
        std::cerr << "thicket: " << o.checkpoint << ": error: " << why << "\n";
        checkpoint_failed = true;
      }
    if (r == 0 && record) {  // complete before the summary: a viewer may open it right away
      std::string why;
      if (!record->close(why)) {
        std::cerr << "thicket: " << why << " (" << o.record << " is cut short)\n";
        output_failed = true;
      }
    }
    if (g_interrupted && batch.sharded() && res.ticks < so.ticks) {  // not a whole run: not in the part
      batch.interrupted(res.ticks);
      break;
    }
    results.push_back(res);
    batch.done(res);
    if (run_series && batch.collects()) batch.series((r == 0 ? run_series->header() : "") + run_series->text());
    else if (run_series) {
      if (r == 0) series << run_series->header();
      series << run_series->text();
    }
    if (live) live->run_over(std::move(sim));  // still read by the debug API until the end
    if (res.stopped_strict || res.stopped_reload) break;
  }
  if (batch.collects()) {  // a shard's part file; under MPI, every rank's runs to rank 0
    // The files the batch reads, hashed: the scenario, its map, its brains and their leaf files
    // (a part made from other bytes does not merge). A process none of whose runs loaded (it
    // had none, or they failed) loads the scenario once to know them.
    std::vector<std::string> files = files_read;
    if (files.empty() && batch.sharded()) {  // (MPI ranks send results, not a part)
      SimOptions probe;
      probe.seed = so.seed;
      probe.dt = so.dt;
      probe.trusted = so.trusted;
      probe.log = probe.print = [](const std::string&) {};
      std::vector<Diagnostic> ignored;
      if (auto sim = Simulation::create(*spec, probe, ignored)) files = sim->files_read();
    }
    if (files.empty()) {
      files.push_back(spec->path);
      for (const auto& g : spec->groups) files.push_back(g.brain);
    }
    const std::string series_kind = !series_fmt ? "" : *series_fmt == SeriesFormat::Jsonl ? "jsonl" : "csv";
    const std::string options = cli::batch_run_options(so, series_fmt ? o.series_every : 0, o.lua_memory_mb);
    const cli::BatchInfo info{spec->name, cli::batch_fingerprint(files), options, so.ticks, first_seed,
                              o.runs, plan.size(), so.dt, series_kind, so.threads, *sets,
                              o.shards ? o.shard : 1, o.shards ? o.shards : 1};
    std::ostream& log_to = log_file.is_open() ? static_cast<std::ostream&>(log_file) : std::cerr;
    auto end = batch.finish(info, out.is_open() ? &out : nullptr, std::cerr, log_to, series.is_open() ? &series : nullptr);
    if (!end.goes_on) return end.status;
    results = std::move(end.results);
    if (end.load_failed || results.empty()) {
      if (out.is_open()) cli::write_run_rows(out, jsonl, results, *sets, plan);  // the runs before it
      return kExitLoad;
    }
  }
  if (out.is_open()) cli::write_run_rows(out, jsonl, results, *sets, plan);  // at the end: gauge columns are the union over runs
  const uint64_t ticks = until_stopped && !results.empty() ? results.back().ticks : so.ticks;
  const cli::BatchFacts facts{.scenario = spec->name, .ticks = ticks, .dt = so.dt, .threads = so.threads,
                              .interrupted = g_interrupted != 0, .wall = spread_wall};
  std::cerr << cli::batch_summary(facts, results, *sets, plan) << "\n";
  // On disk before the page is served on (until Ctrl-C, maybe a closed terminal's SIGHUP):
  // the rows, the series and the trace were held in their buffers until the process ended.
  for (std::ofstream* f : {&out, &series, &trace, &log_file})
    if (live && f->is_open()) f->flush();
  if (live) live->finish([] { return g_interrupted != 0; });
  // Every output is checked and reported (a braced list is evaluated in order, all of it).
  const bool written[] = {written_in_full(out, o.out, "output"), written_in_full(series, o.series, "series"),
                          written_in_full(trace, o.trace, "trace"), written_in_full(log_file, o.log, "log")};
  if (std::find(std::begin(written), std::end(written), false) != std::end(written)) output_failed = true;
  if (checkpoint_failed || output_failed) return kExitLoad;
  return cli::batch_exit_status(results);
}

}  // namespace thicket::run_command
