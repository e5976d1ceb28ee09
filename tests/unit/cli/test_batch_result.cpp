// Tests for moving a batch's runs between processes (issue 15, runtime/cli/batch_result.cpp):
// an outcome read back from its line writes the same --out bytes (every double to the bit,
// infinities and NaN included), part headers compare batches, and keep_batch_prefix keeps
// what a single process would have run.
#include <doctest/doctest.h>

#include <unistd.h>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <sstream>

#include "../../../runtime/cli/batch_result.hpp"
#include "../../../runtime/cli/batch_summary.hpp"
#include "../../../runtime/cli/output_target.hpp"
#include "../../../runtime/cli/trace_format.hpp"
#include "../../../runtime/cli/run_results.hpp"

namespace {

using namespace thicket;
using namespace thicket::cli;

RunOutcome sample(uint64_t index) {
  RunOutcome o;
  o.index = index;
  RunResult& r = o.result;
  r.seed = 7 + index;
  r.ticks = 600;
  r.agent_ticks = 384'000;
  r.wall_seconds = 0.1 + 1e-17 * static_cast<double>(index) + 1.0 / 3.0;
  r.script_errors = index;
  r.agents_at_start = 640;
  r.agents_at_end = 551;
  r.metrics = {{"damage", 12000.5}, {"odd \"name\", too", 1.0 / 7.0}, {"big", 1e300}, {"inf", INFINITY},
               {"ninf", -INFINITY}, {"tiny", 5e-324}};
  r.statuses = {{"running", 550}, {"success", 1}};
  r.gauges["damage"] = GaugeStats{3.25, 2.0 / 3.0, -0.0, 1e-5, 599};
  o.diagnostics = "a.yaml:1:1: warning: x\n";
  o.log = "error: boom\n\ttab \xff byte\n";
  o.series = "run,seed,tick,damage\n1,7,5,3\n";
  return o;
}

std::string rows(const std::vector<RunResult>& results, bool jsonl) {
  std::ostringstream out;
  write_run_rows(out, jsonl, results);
  return out.str();
}

}  // namespace

TEST_CASE("batch result: an outcome read back writes the same rows") {
  std::vector<RunResult> before, after;
  for (uint64_t i = 0; i < 3; ++i) {
    RunOutcome o = sample(i), back;
    std::string why;
    const std::string line = encode_outcome(o);
    CHECK(line.find('\n') == std::string::npos);
    REQUIRE_MESSAGE(decode_outcome(line, back, why), why);
    CHECK(back.index == i);
    CHECK(back.diagnostics == o.diagnostics);
    CHECK(back.series == o.series);
    CHECK(back.log.find("boom") != std::string::npos);
    CHECK(back.result.wall_seconds == o.result.wall_seconds);  // to the bit
    CHECK(back.result.metrics.at("tiny") == 5e-324);
    CHECK(std::isinf(back.result.metrics.at("ninf")));
    CHECK(std::signbit(back.result.gauges.at("damage").min));  // -0.0 stays negative
    CHECK(back.result.gauges.at("damage").ticks == 599);
    CHECK(back.result.statuses == o.result.statuses);
    before.push_back(o.result);
    after.push_back(back.result);
  }
  CHECK(rows(before, false) == rows(after, false));
  CHECK(rows(before, true) == rows(after, true));
}

TEST_CASE("batch result: a load failure, and lines that are not outcomes") {
  RunOutcome failed, back;
  failed.index = 4;
  failed.load_failed = true;
  failed.diagnostics = "b.lua:4: error: unexpected symbol near <eof>\n";
  std::string why;
  REQUIRE(decode_outcome(encode_outcome(failed), back, why));
  CHECK(back.load_failed);
  CHECK(back.diagnostics == failed.diagnostics);
  for (const char* bad : {"", "[]", "{", "{\"index\":1}", "{\"index\":-1,\"load_failed\":true}",
                          "{\"index\":1,\"load_failed\":false,\"seed\":1}"}) {
    why.clear();
    CHECK_FALSE(decode_outcome(bad, back, why));
    CHECK_FALSE(why.empty());
  }
}

TEST_CASE("batch result: part headers say which batch they belong to") {
  BatchInfo a;
  a.scenario = "arena";
  a.fingerprint = "0123456789abcdef";
  a.ticks = 50;
  a.dt = 0.1;
  a.first_seed = 7;
  a.runs = 5;
  a.plan_size = 10;
  a.threads = 2;
  a.sets.names = {"groups.g.count"};
  a.sets.values = {{"20"}, {"60"}};
  a.shard = 2;
  a.shards = 3;
  BatchInfo b;
  std::string why;
  REQUIRE(decode_batch_info(encode_batch_info(a), b, why));
  CHECK(same_batch(a, b, why));
  CHECK(b.shard == 2);
  CHECK(b.sets.values == a.sets.values);
  b.threads = 1;  // results do not depend on it
  CHECK(same_batch(a, b, why));
  b.ticks = 51;
  CHECK_FALSE(same_batch(a, b, why));
  CHECK(why == "--ticks 50 against 51");
  b = a;
  b.fingerprint = "0123456789abcdee";
  CHECK_FALSE(same_batch(a, b, why));
  CHECK(why.find("edited between the shards") != std::string::npos);
  b = a;  // the options that change results (a part had none: --strict or --series-every merged)
  b.options = "--series-every 2 --strict";
  CHECK_FALSE(same_batch(a, b, why));
  CHECK(why == "the run options '' against '--series-every 2 --strict'");
  REQUIRE(decode_batch_info(encode_batch_info(b), b, why));
  CHECK(b.options == "--series-every 2 --strict");
  std::string line = encode_batch_info(a);
  line.replace(line.find("\"thicket_part\":2"), 16, "\"thicket_part\":3");
  CHECK_FALSE(decode_batch_info(line, b, why));
  CHECK(why.find("format 3") != std::string::npos);
  CHECK_FALSE(decode_batch_info("{\"run\":1}", b, why));
}

TEST_CASE("batch result: what one process would have kept") {
  auto outcomes = [](std::initializer_list<uint64_t> indices) {
    std::vector<RunOutcome> v;
    for (uint64_t i : indices) v.push_back(sample(i));
    return v;
  };
  auto indices = [](const std::vector<RunOutcome>& v) {
    std::vector<uint64_t> out;
    for (const auto& o : v) out.push_back(o.index);
    return out;
  };
  auto all = outcomes({3, 0, 2, 1, 4});
  keep_batch_prefix(all);
  CHECK(indices(all) == std::vector<uint64_t>{0, 1, 2, 3, 4});
  auto gap = outcomes({0, 2, 3});  // run 1 never came: nothing after it is kept
  keep_batch_prefix(gap);
  CHECK(indices(gap) == std::vector<uint64_t>{0});
  auto strict = outcomes({0, 1, 2, 3});
  strict[2].result.stopped_strict = true;  // run index 2
  keep_batch_prefix(strict);
  CHECK(indices(strict) == std::vector<uint64_t>{0, 1, 2});
  auto load = outcomes({2, 0, 1, 3});
  load[0].load_failed = true;  // run index 2
  keep_batch_prefix(load);
  CHECK(indices(load) == std::vector<uint64_t>{0, 1, 2});
  CHECK(load.back().load_failed);
}

TEST_CASE("run rows: metrics and gauge statistics are written to the last digit") {
  RunResult r;
  r.seed = 1;
  r.ticks = 10;
  r.metrics = {{"big", 1234567.0}, {"third", 1.0 / 3.0}, {"tenth", 0.1}};
  r.gauges["g"] = GaugeStats{0, 123456789.0 / 10.0, 2.0 / 3.0, 99999999.0, 10};  // last, mean, min, max
  const std::string csv = rows({r}, false), json = rows({r}, true);
  // A stream's default 6 digits would write 1.23457e+06, 0.333333 and 1.23457e+07.
  for (const std::string& text : {csv, json}) {
    CHECK(text.find("1234567") != std::string::npos);
    CHECK(text.find("0.3333333333333333") != std::string::npos);
    CHECK(text.find("0.1") != std::string::npos);
    CHECK(text.find("12345678.9") != std::string::npos);
    CHECK(text.find("99999999") != std::string::npos);
    CHECK(text.find("0.6666666666666666") != std::string::npos);
    CHECK(text.find("e+0") == std::string::npos);
  }
  CHECK(json.find("\"big\":1234567,") != std::string::npos);
  CHECK(json.find("\"third\":0.3333333333333333") != std::string::npos);
}

TEST_CASE("run rows: swept values are the numbers the runs used in JSON lines, as written in CSV") {
  ParamSets sets;
  sets.names = {"k"};
  sets.values = {{".5"}, {"007"}, {"5."}, {"1e2"}, {"1.50"}, {"-0"}, {"true"}, {"abc"}, {"1e400"}, {"0x10"}};
  const std::vector<RunSpec> plan = plan_runs(sets, 1, 1);
  const std::vector<RunResult> results(plan.size());
  std::ostringstream json, csv;
  write_run_rows(json, true, results, sets, plan);
  write_run_rows(csv, false, results, sets, plan);
  std::string fields, columns;
  std::istringstream jl(json.str()), cl(csv.str());
  for (std::string line; std::getline(jl, line);) {
    const size_t at = line.find("\"k\":") + 4;
    fields += line.substr(at, line.find(",\"ticks\"") - at) + " ";
  }
  std::getline(cl, columns);  // the header
  columns.clear();
  for (std::string line; std::getline(cl, line);) {  // run,seed,k,...
    const size_t at = line.find(',', line.find(',') + 1) + 1;
    columns += line.substr(at, line.find(',', at) - at) + " ";
  }
  // (0x10 is the number 16, as YAML reads it and the run used it: it was the text "0x10".)
  CHECK(fields == "0.5 7 5 100 1.5 0 true \"abc\" \"1e400\" 16 ");
  CHECK(columns == ".5 007 5. 1e2 1.50 -0 true abc 1e400 0x10 ");
}

TEST_CASE("output files: the same file in any spelling, but not a device") {
  namespace fs = std::filesystem;
  const fs::path dir = fs::temp_directory_path() / ("thicket_same_" + std::to_string(::getpid()));
  auto at = [&](const char* name) { return (dir / name).string(); };
  fs::remove_all(dir);
  fs::create_directories(dir / "sub");
  std::ofstream(at("a.csv")) << "x";
  fs::create_symlink(at("a.csv"), at("link.csv"));
  CHECK(same_file(at("a.csv"), at("a.csv")));
  CHECK(same_file(at("a.csv"), at("sub/../a.csv")));
  CHECK(same_file(at("a.csv"), at("link.csv")));
  CHECK(same_file(at("new.csv"), at("./new.csv")));  // neither there yet
  CHECK_FALSE(same_file(at("a.csv"), at("b.csv")));
  CHECK_FALSE(same_file(at("new.csv"), at("sub/new.csv")));
  CHECK_FALSE(same_file("/dev/null", "/dev/null"));
  // Checked before anything is written: what a file holds stays; a file made for the check is
  // removed again when another cannot be written.
  CHECK(first_unwritable({at("a.csv"), at("made.csv")}) == 2);
  std::ifstream in(at("a.csv"));
  CHECK(std::string(std::istreambuf_iterator<char>(in), {}) == "x");
  CHECK(first_unwritable({at("fresh.csv"), at("nowhere/b.csv")}) == 1);
  CHECK_FALSE(fs::exists(at("fresh.csv")));
  CHECK(first_unwritable({at("sub")}) == 0);
  fs::remove_all(dir);
}

TEST_CASE("run rows: a metric that is not a number is null in JSON lines, as in --series") {
  RunResult r;
  r.metrics = {{"a_nan", std::nan("")}, {"b_inf", INFINITY}, {"c_zero", -0.0}};
  const std::string csv = rows({r}, false), json = rows({r}, true);
  CHECK(json.find("\"metrics\":{\"a_nan\":null,\"b_inf\":null,\"c_zero\":0}") != std::string::npos);
  CHECK(csv.find(",nan,inf,0\n") != std::string::npos);
}

TEST_CASE("batch summary: runs that ran at once count their real time once") {
  // The union of ticking spans: overlaps once, gaps not at all, any order.
  CHECK(union_seconds({}) == 0);
  CHECK(union_seconds({{3, 4}, {0, 1}, {0.5, 2}}) == doctest::Approx(3.0));
  CHECK(union_seconds({{0, 2}, {0.5, 1}}) == doctest::Approx(2.0));
  CHECK(union_seconds({{0, 1}, {1, 2}}) == doctest::Approx(2.0));
  // Two runs of 1 s each: one after another the wall is their sum; at once (spread over
  // threads) it is what the batch says it took, and the rate follows it.
  std::vector<RunResult> results(2);
  for (auto& r : results) {
    r.ticks = 10;
    r.agent_ticks = 1000;
    r.wall_seconds = 1.0;
    r.agents_at_start = r.agents_at_end = 100;
  }
  ParamSets sets;
  const std::vector<RunSpec> plan{{0, 1, 0}, {1, 2, 0}};
  BatchFacts facts{.scenario = "s", .ticks = 10, .dt = 0.1, .threads = 2};
  const std::string one_by_one = batch_summary(facts, results, sets, plan);
  CHECK(one_by_one.find("wall 2.000 s, 1000 agent-ticks/s") != std::string::npos);
  facts.wall = 1.25;
  const std::string at_once = batch_summary(facts, results, sets, plan);
  CHECK(at_once.find("wall 1.250 s, 1600 agent-ticks/s") != std::string::npos);
  CHECK(at_once.find("2 run(s) of 10 tick(s) at dt") != std::string::npos);
  // Runs cut short (Ctrl-C, --strict) say so: "of 10 tick(s)" alone read as 10 ticks run.
  results[1].ticks = 4;
  CHECK(batch_summary(facts, results, sets, plan).find("2 run(s) of 10 tick(s) (1 cut short, the shortest after 4) at dt") !=
        std::string::npos);
  results.pop_back();
  results[0].ticks = 3;
  CHECK(batch_summary(facts, results, sets, {{0, 1, 0}}).find("1 run(s) of 10 tick(s) (stopped after 3) at dt") !=
        std::string::npos);
}

TEST_CASE("trace: a reload's re-entered descent is said as removed or moved, not removed alone") {
  // A hot reload that moved the active state under another parent was told as a removal.
  thicket::TraceEvent e;
  e.type = thicket::TraceEvent::Type::Transition;
  e.reload = true;
  e.tick = 4;
  e.agent = 1;
  e.brain = "g";
  e.from_name = "calm";
  e.to_name = "calm";
  CHECK(thicket::cli::explain_event(e) ==
        "tick 4 agent 1: fsm g enters calm's descent again (a hot reload removed its active child state, moved it "
        "under another parent, or gave a leaf state children)");
}

TEST_CASE("trace: an event a reload dropped (its sending state removed) says so, in --explain and --trace") {
  thicket::TraceEvent e;
  e.type = thicket::TraceEvent::Type::Event;
  e.tick = 2;
  e.agent = 1;
  e.brain = "f";
  e.event = "success";
  e.stale = true;
  e.reload = true;
  e.from_name = "work";
  CHECK(thicket::cli::explain_event(e) == "tick 2 agent 1: event success dropped (a reload removed work, the state that sent it)");
  std::ostringstream line;
  thicket::cli::write_trace_event(line, e);
  CHECK(line.str() == "{\"tick\":2,\"agent\":1,\"event\":{\"name\":\"success\",\"taken_by\":null,\"reload\":true}}\n");
  e.reload = false;  // left by a transition: as before
  CHECK(thicket::cli::explain_event(e) ==
        "tick 2 agent 1: event success dropped (the state that sent it was left before it was taken)");
}
