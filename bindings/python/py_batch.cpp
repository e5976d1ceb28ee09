// Scenario batches from Python (issue 33): thicket.run and thicket.sweep's C++ half. The runs
// are those of `thicket run SCENARIO --runs N [--set KEY=V,...]`: the same plan (run i of base
// seed s has seed s + i, parameter sets major), the same Simulation, the same rows as --out
// CSV and the same series as --series CSV; the package turns those into DataFrames. The GIL is
// released while the runs go, so the simulation's worker threads and other Python threads run.
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <algorithm>
#include <atomic>
#include <optional>
#include <set>
#include <sstream>
#include <thread>
#include <vector>

#include "py_parts.hpp"
#include "json_text.hpp"  // valid_utf8, escaped_utf8
#include "py_record.hpp"
#include "record_file.hpp"
#include "run_plan.hpp"
#include "run_results.hpp"
#include "scenario.hpp"
#include "series.hpp"
#include "simulation.hpp"
#include "sweep.hpp"

namespace thicket_py {
namespace {

using namespace thicket;

// One batch: `axes` are (key, [values as text]) pairs, applied over the scenario's own sweep
// as --set does; `overrides` (key, value as text) are applied to the scenario first.
py::dict run_batch(const std::string& path, uint64_t runs, int64_t ticks, uint32_t threads, int64_t seed_arg,
                   const std::vector<std::pair<std::string, std::string>>& overrides,
                   const std::vector<std::pair<std::string, std::vector<std::string>>>& axes, bool use_file_sweep,
                   uint64_t series_every, bool record, uint32_t record_every, bool trusted, double dt,
                   double leaf_timeout, uint64_t lua_memory_mb, uint64_t budget,
                   const std::optional<std::vector<std::string>>& record_keys) {
  if (runs == 0) throw py::value_error("runs must be at least 1");
  if (record_keys && !record) throw py::value_error("record_keys chooses the keys of the record: give record=True too");
  // (as --record-every without --record: it would be ignored without a word)
  if (record_every != 0 && !record) throw py::value_error("record_every is how often the record is written: give record=True too");
  if (record_keys) {
    if (record_keys->empty()) throw py::value_error("record_keys needs at least one blackboard key (None: the scenario's)");
    std::set<std::string> seen;
    for (const std::string& key : *record_keys) {
      if (key.empty()) throw py::value_error("record_keys holds an empty key");
      if (!seen.insert(key).second) throw py::value_error("record_keys lists '" + escaped_utf8(key) + "' twice");
    }
  }
  std::vector<Diagnostic> diags;
  auto spec = load_scenario(path, diags);
  if (!spec) raise_load_error(path + ": the scenario did not load", diags);
  const uint64_t seed = seed_arg < 0 ? spec->seed : uint64_t(seed_arg);  // the scenario's `seed:`, as the CLI
  // Overrides are single-value --set's (KEY=V): the rows carry their column and a `seed`
  // override is the base seed, as on the command line (it was checked, then dropped: the seed
  // had been read). Then the grid's keys; a key in both is refused, as a --set given twice.
  std::vector<SweepAxis> command_line;
  std::set<std::string> given;
  for (const auto& [key, value] : overrides) {
    std::string why;
    auto axis = sweep_axis(key, {value}, *spec, "", why);
    if (!axis) {
      const std::string prefix = "sweep key '" + key + "': ";  // said as the override it is
      throw py::value_error("overrides['" + key + "']: " + (why.rfind(prefix, 0) == 0 ? why.substr(prefix.size()) : why));
    }
    given.insert(axis->key);
    command_line.push_back(*axis);
  }
  for (const auto& [key, values] : axes) {
    if (given.count(key))
      throw py::value_error("sweep key '" + key + "' is both in overrides and in the grid; give its values in one of them");
    if (values.empty()) throw py::value_error("sweep key '" + key + "' has no values");
    std::string why;  // each element one value, commas and all (not a --set text split again)
    auto axis = sweep_axis(key, values, *spec, "", why);
    if (!axis) throw py::value_error(why.rfind("sweep key '", 0) == 0 ? why : "sweep key '" + key + "': " + why);
    command_line.push_back(*axis);
  }
  std::vector<SweepAxis> merged = merge_axes(use_file_sweep ? spec->sweep : std::vector<SweepAxis>{}, command_line);
  std::vector<Diagnostic> bb_diags;
  std::vector<std::string> text_keys;
  check_sweep_blackboard(*spec, merged, trusted, bb_diags, &text_keys);
  if (has_errors(bb_diags)) raise_load_error(path + ": the sweep does not fit the brains", bb_diags);
  std::string why;
  auto sets = sweep_sets(*spec, merged, why);
  if (!sets) throw py::value_error(why);
  cli::ParamSets params;
  params.names = sets->names;
  params.values = sets->values.empty() ? std::vector<std::vector<std::string>>{{}} : sets->values;
  params.seeds = sets->seeds;
  params.text_keys = text_keys;
  if (cli::planned_runs(params, runs) > cli::kMaxBatchRuns)
    throw py::value_error(cli::too_many_runs(params, runs) + ": fewer runs or fewer values to sweep");
  if (std::string why = cli::seeds_past_max(params, seed, runs); !why.empty()) throw py::value_error(why);
  std::vector<cli::RunSpec> plan = cli::plan_runs(params, seed, runs);
  spec->sweep.clear();  // planned: a run's spec (a copy for each run of a sweep) needs it no more
  const bool sweeping = !params.names.empty() || !params.seeds.empty();

  std::vector<RunResult> results;
  std::string series_text, record_text, log_text;
  std::vector<Diagnostic> run_diags;
  std::atomic<bool> interrupt{false};  // the batch's runtimes' (SimOptions::interrupt), raised by a Ctrl-C
  CtrlC ctrl_c(interrupt);  // stops the run in progress at its next tick (its Lua calls at once)
  // Lua `print` lines go to Python's sys.stdout, as a Runtime's do (a notebook shows them,
  // contextlib's redirect_stdout takes them), not to the process's file descriptor 1: each
  // line with the GIL taken, on the thread the simulation writes it from (one at a time, in
  // the order a one-thread run prints). An exception of the write is raised after the batch;
  // the lines after it are dropped.
  std::optional<py::error_already_set> print_error;
  auto print_line = [&print_error](const std::string& line) {
    GilTaken gil;
    if (print_error) return;
    try {
      py::object out = py::module_::import("sys").attr("stdout");
      if (!out.is_none()) out.attr("write")(thicket::valid_utf8(line) + "\n");
    } catch (py::error_already_set& e) {
      print_error.emplace(std::move(e));
    }
  };
  // One run's options: --ticks, --dt, the guards, as the CLI gives them.
  auto options_of = [&](const cli::RunSpec& r, uint32_t run_threads) {
    SimOptions so;
    so.threads = run_threads;
    so.seed = r.seed;
    so.ticks = ticks < 0 ? spec->ticks : uint64_t(ticks);  // -1 (ticks=None): the scenario's own; 0: none, as --ticks 0
    so.dt = dt > 0 ? dt : spec->dt;  // dt=None (-1): the scenario's, as without --dt
    so.trusted = trusted;
    so.leaf_timeout = leaf_timeout;                                      // --leaf-timeout
    so.lua_memory_limit = static_cast<size_t>(lua_memory_mb) << 20;      // --lua-memory
    so.instruction_budget = budget;                                      // --budget
    if (record_keys) so.record_keys = *record_keys;                      // --record-keys
    so.record_keys_name = "record_keys";
    so.interrupt = &interrupt;
    so.record_every = record_every;
    return so;
  };
  auto spec_of = [&](const cli::RunSpec& r, std::string& why) {
    return sweeping ? apply_param_set(*spec, params.names, params.values[r.param_set], why) : std::optional<ScenarioSpec>(*spec);
  };
  uint64_t agents_per_run = 0;
  for (const auto& g : spec->groups) agents_per_run += g.count;
  const uint32_t workers = threads == 0 ? 1 : threads;
  if (cli::spread_runs(plan.size(), workers, agents_per_run)) {
    // Many small runs go to the threads whole, as `thicket run` gives them: each run on one
    // thread, several at once (one run at a time with its few agents over the threads was
    // slower on 2 threads than on 1). What the runs say is kept with each run and handed on in
    // run order, so the result is the same as one at a time.
    struct Done {
      bool done = false, failed = false;
      std::string log;
      std::vector<std::string> prints;
      std::vector<Diagnostic> diags;
      std::optional<SeriesBuffer> series;
      RunResult res;
    };
    std::vector<Done> runs(plan.size());
    std::atomic<uint64_t> next{0}, stop_at{UINT64_MAX};
    RecordString record_sink;
    {
      GilReleased release;
      auto work = [&] {
        for (;;) {
          const uint64_t k = next.fetch_add(1);
          if (k >= plan.size() || k > stop_at.load() || ctrl_c.interrupted()) return;
          const cli::RunSpec& r = plan[k];
          Done& d = runs[k];
          SimOptions so = options_of(r, 1);
          so.log = [&d](const std::string& line) { d.log += line + "\n"; };
          so.print = [&d](const std::string& line) { d.prints.push_back(line); };
          so.record = record && r.index == 0 ? &record_sink : nullptr;
          if (series_every) d.series.emplace(SeriesFormat::Csv, series_every, r.index + 1, r.seed);
          so.series = d.series ? &*d.series : nullptr;
          std::string set_why;
          auto run_spec = spec_of(r, set_why);
          if (!run_spec) d.diags.push_back({Severity::Error, path, 0, 0, set_why});
          auto sim = run_spec ? Simulation::create(*run_spec, so, d.diags) : nullptr;
          if (sim) d.res = sim->run({}, [&] { return ctrl_c.interrupted(); });
          d.failed = !sim;
          d.done = true;
          if (d.failed) {  // the batch ends before the runs after it, as it does one at a time
            uint64_t seen = stop_at.load();
            while (k < seen && !stop_at.compare_exchange_weak(seen, k)) {
            }
          }
        }
      };
      std::vector<std::thread> pool;
      for (uint64_t k = 0; k < std::min<uint64_t>(workers, plan.size()); ++k) pool.emplace_back(work);
      for (auto& t : pool) t.join();
    }
    for (uint64_t k = 0; k < plan.size() && k <= stop_at.load() && runs[k].done; ++k) {
      Done& d = runs[k];
      run_diags.insert(run_diags.end(), d.diags.begin(), d.diags.end());
      log_text += d.log;
      for (const std::string& line : d.prints) print_line(line);
      if (d.failed) break;
      results.push_back(std::move(d.res));
      if (d.series) series_text += (k == 0 ? d.series->header() : "") + d.series->text();
    }
    if (record) record_text = std::move(record_sink.text);
  } else {
    GilReleased release;
    for (const cli::RunSpec& r : plan) {
      if (ctrl_c.interrupted()) break;
      SimOptions so = options_of(r, workers);
      so.log = [&](const std::string& line) { log_text += line + "\n"; };
      so.print = print_line;
      RecordString record_sink;
      so.record = record && r.index == 0 ? &record_sink : nullptr;  // the first run's, as --record
      std::optional<SeriesBuffer> series;
      if (series_every) series.emplace(SeriesFormat::Csv, series_every, r.index + 1, r.seed);
      so.series = series ? &*series : nullptr;
      std::string set_why;
      auto run_spec = spec_of(r, set_why);
      if (!run_spec) {
        run_diags.push_back({Severity::Error, path, 0, 0, set_why});
        break;
      }
      auto sim = Simulation::create(*run_spec, so, run_diags);
      if (!sim) break;
      results.push_back(sim->run({}, [&] { return ctrl_c.interrupted(); }));
      if (series) series_text += (r.index == 0 ? series->header() : "") + series->text();
      if (so.record) record_text = std::move(record_sink.text);
    }
  }
  ctrl_c.finish();
  if (print_error) throw std::move(*print_error);
  if (results.size() != plan.size()) raise_load_error(path + ": a run did not start", run_diags);
  // The warnings the CLI prints (the scenario's, the sweep's, each run's brains'), each once, at
  // the caller of thicket.run / sweep (three frames up: _batch, run or sweep, the caller).
  std::vector<Diagnostic> warnings = diags;
  warnings.insert(warnings.end(), bb_diags.begin(), bb_diags.end());
  warnings.insert(warnings.end(), run_diags.begin(), run_diags.end());
  warn_diagnostics(warnings, 3);
  std::ostringstream rows;
  if (sweeping) cli::write_run_rows(rows, false, results, params, plan);
  else cli::write_run_rows(rows, false, results);
  py::dict out;
  out["rows_csv"] = rows.str();
  out["series_csv"] = series_text;
  out["log"] = log_text;
  out["params"] = params.names;
  out["text_params"] = text_keys;
  out["record"] = record_text.empty() ? py::object(py::none()) : py::object(parse_record(record_text, path + " (run 1's record)"));
  py::list statuses;
  for (const RunResult& res : results) statuses.append(res.statuses);
  out["statuses"] = statuses;
  return out;
}

}  // namespace

void register_batch(py::module_& m) {
  m.def("_run_batch", &run_batch, py::arg("path"), py::arg("runs"), py::arg("ticks"), py::arg("threads"),
        py::arg("seed"), py::arg("overrides"), py::arg("axes"), py::arg("use_file_sweep"), py::arg("series_every"),
        py::arg("record"), py::arg("record_every"), py::arg("trusted"), py::arg("dt"), py::arg("leaf_timeout"),
        py::arg("lua_memory"), py::arg("budget"), py::arg("record_keys"));
  m.def("_read_record", [](const std::string& path) {
    try {
      return read_record_file(path);
    } catch (const std::runtime_error& e) {  // a path that is no UTF-8 in the message: Python's str wants UTF-8
      throw std::runtime_error(valid_utf8(e.what()));
    }
  }, py::arg("path"));
  m.def("_parse_record", [](const std::string& text, const std::string& name) { return parse_record(text, name); },
        py::arg("text"), py::arg("name") = "<record>");
}

}  // namespace thicket_py
