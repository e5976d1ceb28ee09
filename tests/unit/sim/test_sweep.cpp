// Tests for parameter sweeps (issue 15): runtime/src/sim/sweep.cpp (`sweep:`, --set, applying a
// parameter set), runtime/cli/run_plan.hpp (the batch order) and sample_stats.cpp (the summary's
// interval).
#include <doctest/doctest.h>

#include <cmath>
#include <string>
#include <vector>

#include "../../../runtime/cli/run_plan.hpp"
#include "sample_stats.hpp"
#include "scenario_fixture.hpp"
#include "schema.hpp"
#include "sweep.hpp"

namespace {

using thicket::Diagnostic;
using thicket::ScenarioSpec;

const scenario_fixture::Dir& fixture() {
  static const scenario_fixture::Dir dir("thicket_test_sweep", {{"idle.yaml", scenario_fixture::kIdleBrain}}, "sweep.yaml");
  return dir;
}

const std::string kBase =
    "scenario: s\n"
    "world: {size: [100, 100]}\n"
    "teams: [a, b]\n"
    "groups:\n"
    "  - name: minions\n"
    "    team: a\n"
    "    count: 4\n"
    "    brain: idle.yaml\n"
    "    spawn: {centre: [50, 50], radius: 5}\n"
    "    vehicle: {mass: 1, max_speed: 5}\n"
    "    blackboard: {home_x: 40}\n"
    "    senses: {sight: {cones: [{range: 8, angle: 120}]}, hearing: true}\n"
    "  - name: players\n"
    "    team: b\n"
    "    brain: idle.yaml\n"
    "    spawn: {centre: [20, 20], radius: 5}\n";

std::optional<ScenarioSpec> load(const std::string& text, std::vector<Diagnostic>& diags) {
  return fixture().load(text, diags);
}

ScenarioSpec base() {
  std::vector<Diagnostic> diags;
  auto spec = load(kBase, diags);
  REQUIRE(spec.has_value());
  return *spec;
}

}  // namespace

TEST_CASE("sweep: plan_runs orders runs param set major, then base seed, then run") {
  thicket::cli::ParamSets none;
  auto plan = thicket::cli::plan_runs(none, 7, 3);
  REQUIRE(plan.size() == 3);
  for (uint64_t i = 0; i < 3; ++i) {
    CHECK(plan[i].index == i);
    CHECK(plan[i].seed == 7 + i);
    CHECK(plan[i].param_set == 0);
  }
  thicket::cli::ParamSets sets;
  sets.names = {"groups.minions.count"};
  sets.values = {{"1"}, {"2"}};
  sets.seeds = {100, 200};
  plan = thicket::cli::plan_runs(sets, 7, 2);
  REQUIRE(plan.size() == 8);
  const uint64_t seeds[] = {100, 101, 200, 201, 100, 101, 200, 201};
  for (uint64_t i = 0; i < 8; ++i) {
    CHECK(plan[i].index == i);
    CHECK(plan[i].seed == seeds[i]);
    CHECK(plan[i].param_set == (i < 4 ? 0u : 1u));
  }
}

TEST_CASE("sweep: a sweep block is read, and its sets are the product of the axes, the first slowest") {
  std::vector<Diagnostic> diags;
  auto spec = load(kBase + "sweep:\n  groups.minions.count: [2, 3]\n  seed: [5, 9]\n"
                           "  groups.minions.vehicle.max_speed: [1, 2.5, 4]\n", diags);
  REQUIRE(spec.has_value());
  REQUIRE(spec->sweep.size() == 3);
  CHECK(spec->sweep[0].line == 18);
  std::string why;
  auto sets = thicket::sweep_sets(*spec, spec->sweep, why);
  REQUIRE_MESSAGE(sets.has_value(), why);
  CHECK(sets->names == std::vector<std::string>{"groups.minions.count", "groups.minions.vehicle.max_speed"});
  CHECK(sets->seeds == std::vector<uint64_t>{5, 9});
  REQUIRE(sets->values.size() == 6);
  CHECK(sets->values[0] == std::vector<std::string>{"2", "1"});
  CHECK(sets->values[1] == std::vector<std::string>{"2", "2.5"});
  CHECK(sets->values[3] == std::vector<std::string>{"3", "1"});
  CHECK(sets->values[5] == std::vector<std::string>{"3", "4"});
  // No axes: one empty set.
  sets = thicket::sweep_sets(*spec, {}, why);
  REQUIRE(sets.has_value());
  CHECK(sets->names.empty());
  CHECK(sets->values.size() == 1);
  CHECK(sets->seeds.empty());
}

TEST_CASE("sweep: applying a parameter set changes a copy of the spec") {
  const ScenarioSpec spec = base();
  std::string why;
  auto applied = thicket::apply_param_set(
      spec,
      {"groups.minions.count", "groups.minions.vehicle.mass", "groups.minions.blackboard.home_x",
       "groups.minions.blackboard.angry", "groups.minions.senses.sight.cones.0.range", "groups.minions.senses.sight.cones.0.angle",
       "groups.minions.senses.hearing.threshold", "groups.minions.senses.memory", "groups.players.blackboard.name"},
      {"9", "2.5", "55", "true", "12", "90", "0.5", "2", "Bob"}, why);
  REQUIRE_MESSAGE(applied.has_value(), why);
  const thicket::AgentGroup& g = applied->groups[0];
  CHECK(g.count == 9);
  CHECK(g.vehicle.mass == 2.5);
  CHECK(g.vehicle.max_speed == 5);  // untouched
  REQUIRE(g.blackboard.size() == 2);
  CHECK(std::get<int64_t>(g.blackboard[0].second) == 55);  // replaced in place
  CHECK(g.blackboard[1].first == "angry");
  CHECK(std::get<bool>(g.blackboard[1].second) == true);
  CHECK(g.senses.sight.cones[0].range == 12);
  CHECK(std::abs(g.senses.sight.cones[0].half_angle - 45 * 3.14159265358979 / 180) < 1e-9);
  CHECK(g.senses.hearing.threshold == 0.5);
  CHECK(g.senses.memory == 2);
  CHECK(std::get<std::string>(applied->groups[1].blackboard[0].second) == "Bob");
  CHECK(spec.groups[0].count == 4);  // the original is left alone
  // More agents than a scenario may have.
  CHECK_FALSE(thicket::apply_param_set(spec, {"groups.minions.count", "groups.players.count"}, {"60000", "60000"}, why));
  CHECK(why == "it gives 120000 agents; a scenario may have at most 100000 agents in all");
  std::vector<thicket::SweepAxis> axes = {{"groups.minions.count", {"10", "60000"}, 1, 1, {}}, {"groups.players.count", {"60000"}, 2, 1, {}}};
  CHECK_FALSE(thicket::sweep_sets(spec, axes, why));
  CHECK(why == "parameter set 2 (groups.minions.count=60000 groups.players.count=60000): it gives 120000 agents; a scenario "
               "may have at most 100000 agents in all");
  // Values as YAML's core schema writes them, as a group's own keys take them (a sweep refused
  // `+3`, `0x10` and `True`).
  auto yaml_forms = thicket::apply_param_set(
      spec, {"groups.minions.count", "groups.minions.vehicle.mass", "groups.minions.blackboard.home_x", "groups.minions.blackboard.angry"},
      {"0x10", "+2.5", "0o17", "True"}, why);
  REQUIRE_MESSAGE(yaml_forms.has_value(), why);
  CHECK(yaml_forms->groups[0].count == 16);
  CHECK(yaml_forms->groups[0].vehicle.mass == 2.5);
  CHECK(std::get<int64_t>(yaml_forms->groups[0].blackboard[0].second) == 15);
  CHECK(std::get<bool>(yaml_forms->groups[0].blackboard[1].second) == true);
}

TEST_CASE("sweep: --set parses KEY=V1,V2 and checks keys and values, with did you mean") {
  const ScenarioSpec spec = base();
  std::string why;
  auto axis = thicket::parse_set_option("groups.minions.count=1,2,3", spec, why);
  REQUIRE_MESSAGE(axis.has_value(), why);
  CHECK(axis->key == "groups.minions.count");
  CHECK(axis->values == std::vector<std::string>{"1", "2", "3"});
  CHECK(axis->line == 0);

  auto fails = [&](const std::string& arg) {
    why.clear();
    CHECK_FALSE(thicket::parse_set_option(arg, spec, why).has_value());
    return why;
  };
  CHECK(fails("groups.minons.count=1").find("unknown group 'minons'; did you mean 'minions'?") != std::string::npos);
  CHECK(fails("groups.minions.cont=1").find("did you mean 'count'?") != std::string::npos);
  CHECK(fails("sed=1").find("did you mean 'seed'?") != std::string::npos);
  CHECK(fails("groups.minions.vehicle.max_sped=1").find("did you mean 'vehicle.max_speed'?") != std::string::npos);
  // A part with fields, given without one: its fields (it said the group had no 'vehicle').
  CHECK(fails("groups.minions.vehicle=1").find("names 'vehicle' of group 'minions' but none of its fields: one of vehicle.mass, "
                                               "vehicle.max_speed") != std::string::npos);
  CHECK(fails("groups.minions.count=0").find("must be a whole number from 1 to 100000, got '0'") != std::string::npos);
  CHECK(fails("groups.minions.count=2,x").find("got 'x'") != std::string::npos);
  CHECK(fails("groups.minions.count=2,2").find("listed twice") != std::string::npos);
  // The same value in another spelling, as the key reads it, is listed twice too.
  CHECK(fails("groups.minions.count=1,01").find("the value 1 is listed twice (as 1 and 01") != std::string::npos);
  CHECK(fails("seed=1,01").find("listed twice") != std::string::npos);
  CHECK(fails("groups.minions.vehicle.max_speed=3,3.0").find("listed twice (as 3 and 3.0") != std::string::npos);
  CHECK(fails("groups.minions.vehicle.max_speed=3,3e0").find("listed twice") != std::string::npos);
  CHECK(fails("groups.minions.senses.sight.cones.0.range=8,8.00").find("listed twice") != std::string::npos);
  // A blackboard value is one value twice by the key's declared type, which the brain gives:
  // checked with the brains (check_sweep_blackboard: 1 and 1.0 of a number key are one, "007"
  // and "7" of a string key two); here only the same text twice.
  CHECK(fails("groups.minions.blackboard.home_x=1,1").find("the value 1 is listed twice") != std::string::npos);
  CHECK(thicket::parse_set_option("groups.minions.blackboard.home_x=1,1.0", spec, why).has_value());
  CHECK(thicket::parse_set_option("groups.minions.blackboard.home_x=1,1.5,x,true", spec, why).has_value());
  // Text that is not UTF-8 could not come out of --out or a merge as it went in.
  CHECK(fails("groups.minions.blackboard.home_x=a\xff").find("is not UTF-8 text (byte 0xff at 2)") != std::string::npos);
  CHECK(fails("groups.minions.count=2,,3").find("empty value") != std::string::npos);
  CHECK(fails("seed=") == "--set seed needs a value after '=' (--set KEY=V1,V2,...), got 'seed='");
  CHECK(fails("groups.minions.count").find("KEY=V1,V2") != std::string::npos);
  CHECK(fails("groups.minions.spawn=1").find("cannot be swept") != std::string::npos);
  CHECK(fails("groups.players.senses.hearing.threshold=1").find("it has no hearing") != std::string::npos);
  // A sight without lod: sweeping its distance changed nothing (every point ran alike); with one, it is a key.
  CHECK(fails("groups.minions.senses.sight.lod.distance=3").find("its sight has no lod") != std::string::npos);
  {
    std::string with_lod = kBase;
    const std::string sight = "{sight: {cones: [{range: 8, angle: 120}]}";
    with_lod.replace(with_lod.find(sight), sight.size(), "{sight: {cones: [{range: 8, angle: 120}], lod: {distance: 5, every: 4}}");
    std::vector<Diagnostic> d;
    auto lod_spec = load(with_lod, d);
    REQUIRE(lod_spec.has_value());
    CHECK(thicket::parse_set_option("groups.minions.senses.sight.lod.distance=3,9", *lod_spec, why).has_value());
  }
  CHECK(fails("groups.minions.senses.sight.cones.1.range=4").find("1 cone(s)") != std::string::npos);
  CHECK(fails("groups.minions.senses.sight.range=4").find("cones.0.range") != std::string::npos);
  // A seed past the scenario's own limit: run k's seed (base + k - 1) wrapped past 2^64.
  CHECK(fails("seed=18446744073709551615").find("a whole number from 0 to 9223372036854775807") != std::string::npos);
  // One spelling per cone: cones.00 was a second key for cone 0 (two --set of one value).
  CHECK(fails("groups.minions.senses.sight.cones.00.range=4").find("a cone's number is written as 0") != std::string::npos);
  CHECK(fails("groups.minions.senses.sight.cones.+0.range=4").find("has no") != std::string::npos);
  CHECK(fails("groups.minions.vehicle.mass=0").find("a number from 0.000001 to 1e12 (kg)") != std::string::npos);
  // Values that would make a tick's motion overflow (force / mass, speed * dt) are refused.
  CHECK(fails("groups.minions.vehicle.mass=1e-310").find("from 0.000001 to 1e12") != std::string::npos);
  CHECK(fails("groups.minions.vehicle.max_speed=1e308").find("from 0 to 1e6 (m/s)") != std::string::npos);
  CHECK(fails("groups.minions.vehicle.max_force=1e300").find("from 0 to 1e15 (N)") != std::string::npos);
  CHECK(fails("groups.minions.vehicle.radius=2e6").find("from 0 to 1e6 (m)") != std::string::npos);
  CHECK(fails("seed=-1").find("a whole number from 0 to ") != std::string::npos);

  // --set replaces the file's axis of the same key, others are appended.
  std::vector<thicket::SweepAxis> file = {{"seed", {"1"}, 3, 3, {}}, {"groups.minions.count", {"1", "2"}, 4, 3, {}}};
  auto merged = thicket::merge_axes(file, {{"groups.minions.count", {"7"}, 0, 0, {}}, {"groups.players.count", {"2"}, 0, 0, {}}});
  REQUIRE(merged.size() == 3);
  CHECK(merged[1].values == std::vector<std::string>{"7"});
  CHECK(merged[2].key == "groups.players.count");
}

TEST_CASE("sweep: errors in a sweep block are at the key or value, with did you mean") {
  auto errors = [&](const std::string& sweep) { return fixture().errors_of(kBase + sweep); };
  CHECK(errors("sweep:\n  groups.minion.count: [1, 2]\n") ==
        "sweep.yaml:18:3: error: sweep key 'groups.minion.count': unknown group 'minion'; did you mean 'minions'? "
        "(groups: minions, players)\n");
  CHECK(errors("sweep:\n  groups.minions.count: [1, zero]\n") ==
        "sweep.yaml:18:29: error: sweep key 'groups.minions.count': the value must be a whole number from 1 to 100000, got "
        "'zero'\n");
  CHECK(errors("sweep:\n  groups.minions.count: []\n").find("18:25: error: sweep key 'groups.minions.count' needs at least one value") !=
        std::string::npos);
  CHECK(errors("sweep: 3\n").find("17:8: error: 'sweep' must be a mapping") != std::string::npos);
  CHECK(errors("sweep:\n  groups.minions.count: [1, 1]\n").find("lists the value 1 twice") != std::string::npos);
  CHECK(errors("sweep:\n  groups.minions.vehicle.max_speed: [3, 3.0, 3e0]\n") ==
        "sweep.yaml:18:41: error: sweep key 'groups.minions.vehicle.max_speed' lists the value 3 twice (as 3 and 3.0, the "
        "same value for this key)\n"
        "sweep.yaml:18:46: error: sweep key 'groups.minions.vehicle.max_speed' lists the value 3 twice (as 3 and 3e0, the "
        "same value for this key)\n");
  CHECK(errors("sweep:\n  seed: [1, 01]\n").find("sweep key 'seed' lists the value 1 twice (as 1 and 01") != std::string::npos);
  CHECK(errors("sweep:\n  groups.minions.count: [{a: 1}]\n").find("must be a number, true/false or text") != std::string::npos);
  CHECK(errors("sweep:\n  groups.minions.senses.memory: [1e300]\n").find("a number >= 0 and at most 1000000000 (seconds)") !=
        std::string::npos);  // as the scenario's own memory
  CHECK(errors("swep:\n  seed: [1]\n").find("did you mean 'sweep'?") != std::string::npos);
  // A single value is a one-value axis.
  std::vector<Diagnostic> diags;
  auto spec = load(kBase + "sweep: {groups.minions.blackboard.home_x: 12}\n", diags);
  REQUIRE(spec.has_value());
  REQUIRE(spec->sweep.size() == 1);
  CHECK(spec->sweep[0].values == std::vector<std::string>{"12"});
}

TEST_CASE("sweep: Student's t quantiles and the interval of the mean") {
  CHECK(thicket::t_quantile_975(0) == 0);
  CHECK(thicket::t_quantile_975(1) == doctest::Approx(12.7062));
  CHECK(thicket::t_quantile_975(10) == doctest::Approx(2.2281));
  CHECK(thicket::t_quantile_975(30) == doctest::Approx(2.0423));
  // Beyond the table: the expansion meets the table's end and the standard values.
  CHECK(std::abs(thicket::t_quantile_975(31) - 2.0395) < 2e-4);
  CHECK(std::abs(thicket::t_quantile_975(40) - 2.0211) < 2e-4);
  CHECK(std::abs(thicket::t_quantile_975(60) - 2.0003) < 2e-4);
  CHECK(std::abs(thicket::t_quantile_975(120) - 1.9799) < 2e-4);
  CHECK(std::abs(thicket::t_quantile_975(1000000) - 1.95996) < 1e-4);
  for (uint64_t df = 1; df < 200; ++df) CHECK(thicket::t_quantile_975(df + 1) < thicket::t_quantile_975(df));

  auto s = thicket::sample_stats({2, 4, 6});
  CHECK(s.n == 3);
  CHECK(s.mean == 4);
  CHECK(s.min == 2);
  CHECK(s.max == 6);
  CHECK(s.half_width == doctest::Approx(4.3027 * 2 / std::sqrt(3.0)));  // s = 2
  auto one = thicket::sample_stats({5});
  CHECK(one.n == 1);
  CHECK(one.half_width == 0);
  CHECK(thicket::sample_stats({}).n == 0);
  // Values near a double's largest: their mean and spread, not inf and a NaN interval (the sum
  // of three 1e308s overflowed, as the plain summary's once did).
  auto huge = thicket::sample_stats({1e308, 1e308, 1e308});
  CHECK(huge.mean == 1e308);
  CHECK(huge.half_width == 0);
  auto spread = thicket::sample_stats({1.2e308, 1.4e308, 1.6e308});
  CHECK(spread.mean == doctest::Approx(1.4e308));
  CHECK(std::isfinite(spread.half_width));
  CHECK(spread.half_width == doctest::Approx(4.3027 * 0.2e308 / std::sqrt(3.0)));
}

TEST_CASE("sweep: the schema takes the key forms and refuses others") {
  std::string why;
  auto set = thicket::SchemaSet::load(THICKET_SOURCE_DIR "/schemas", why);
  REQUIRE_MESSAGE(set.has_value(), why);
  auto schema_errors = [&](const std::string& sweep) {
    std::vector<thicket::SchemaError> errors;
    set->validate(YAML::Load(kBase + sweep), "scenario.schema.json", errors);
    return errors.size();
  };
  CHECK(schema_errors("") == 0);
  CHECK(schema_errors("sweep:\n  seed: [1, 2]\n  groups.minions.count: [1, 2]\n  groups.minions.vehicle.max_speed: 3\n"
                      "  groups.minions.blackboard.home_x: [1, true, text]\n  groups.minions.senses.sight.cones.0.range: [4]\n"
                      "  groups.minions.senses.hearing.threshold: [0.5]\n  groups.minions.senses.memory: [1]\n") == 0);
  CHECK(schema_errors("sweep: {}\n") > 0);
  CHECK(schema_errors("sweep: {sed: [1]}\n") > 0);
  CHECK(schema_errors("sweep: {groups.minions.spawn: [1]}\n") > 0);
  CHECK(schema_errors("sweep: {groups.minions.count: []}\n") > 0);
  // A value listed twice is the loader's to say, as the key reads it (3 and 3.0 of a number key are one,
  // "007" and "7" of a string key two); the schema's uniqueItems checked every pair (25 s for 32,000).
  CHECK(schema_errors("sweep: {groups.minions.count: [1, 1]}\n") == 0);
  CHECK(schema_errors("sweep: {groups.minions.count: [[1]]}\n") > 0);
}
