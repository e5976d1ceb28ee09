// Parameter sweeps (issue 15): `sweep:` in a scenario and `--set KEY=V1,V2,...` on the command
// line. A key is the dotted path of a scenario value, mirroring the YAML it changes:
//   seed                                        the base seeds (a seed list, not a parameter)
//   groups.NAME.count                           a group's agent count
//   groups.NAME.vehicle.{mass,max_speed,max_force,radius}
//   groups.NAME.blackboard.KEY                  an initial blackboard value (number, true/false, text)
//   groups.NAME.senses.sight.cones.I.{range,angle}   cone I (from 0) of the group's sight
//   groups.NAME.senses.sight.lod.distance
//   groups.NAME.senses.hearing.{threshold,walls}
//   groups.NAME.senses.touch.reach
//   groups.NAME.senses.memory
// A parameter set gives each swept key (but seed) one value; applying it is a modified copy of
// the ScenarioSpec, made before Simulation::create.
#pragma once
#include <yaml-cpp/yaml.h>

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "scenario.hpp"
#include "thicket/diagnostic.hpp"

namespace thicket {

// Every key form, for "allowed:" lists in messages.
extern const char* const kSweepKeyForms;

// Reads `sweep: {KEY: [V1, V2, ...], KEY: V, ...}` into spec.sweep (the scenario reader calls it
// once the groups are read); errors at the key or value, with "did you mean".
void read_sweep(const YAML::Node& key, const YAML::Node& value, ScenarioSpec& spec, const std::string& path,
                std::vector<Diagnostic>& diags);

// Sets `key` to `value` (as text) in spec; false with why ("unknown group 'minons'; did you
// mean 'minions'? ..." / "'count' must be a whole number from 1 to 100000, got 'x'").
bool apply_param(ScenarioSpec& spec, const std::string& key, const std::string& value, std::string& why);

// `--set KEY=V1,V2,...`: the axis (line 0), or nullopt with why. The key and every value are
// checked against spec.
std::optional<SweepAxis> parse_set_option(const std::string& arg, const ScenarioSpec& spec, std::string& why);
// An axis from its key and values, each value whole (a grid from Python: commas are part of a
// value); messages start with `origin` ("--set"), or, without one, with what is wrong.
std::optional<SweepAxis> sweep_axis(const std::string& key, const std::vector<std::string>& values, const ScenarioSpec& spec,
                                    const std::string& origin, std::string& why);

// The scenario's axes with the command line's: a --set key replaces the file's axis of that key,
// others are appended in command-line order.
std::vector<SweepAxis> merge_axes(const std::vector<SweepAxis>& file, const std::vector<SweepAxis>& command_line);

// The parameter sets of a sweep: the non-seed keys in axis order, every combination of their
// values (the first axis varies slowest, as nested loops), and the seed axis's values as base
// seeds (empty without one). No axes: no names, one empty set.
struct SweepSets {
  std::vector<std::string> names;
  std::vector<std::vector<std::string>> values;
  std::vector<uint64_t> seeds;
};
// nullopt with why when a set is impossible (more than 100000 agents in all, more than
// kMaxParamSets sets).
inline constexpr size_t kMaxParamSets = 100000;
std::optional<SweepSets> sweep_sets(const ScenarioSpec& spec, const std::vector<SweepAxis>& axes, std::string& why);

// The spec with one parameter set applied (the keys were checked when read), or nullopt with why.
std::optional<ScenarioSpec> apply_param_set(const ScenarioSpec& spec, const std::vector<std::string>& names,
                                            const std::vector<std::string>& values, std::string& why);

// A swept blackboard value's type comes from its text: a whole number, a number, true/false,
// else text (as a plain YAML scalar reads; quotes in the file do not make "5" text).
Value sweep_value(const std::string& text);
// A swept value for a blackboard key the brain declares as `type`: a string key takes the text
// as it is; any other key sweep_value's reading (which the blackboard's set then checks).
Value swept_blackboard_value(const std::string& text, ValueType type);
// What makes two swept values of a blackboard key of that type one value (a parameter set
// repeated): 3, 3.0 and 3e0 of a number key, 1 and 1.0 of an any key; a string key's texts
// only when they are the same text ("007" and "7" are two).
std::string blackboard_value_identity(const std::string& text, ValueType type);

// For a key groups.NAME.blackboard.KEY: the group's index and KEY; nullopt for other keys.
std::optional<std::pair<size_t, std::string>> blackboard_target(const ScenarioSpec& spec, const std::string& key);

// Every swept blackboard value against its group's brain (sweep_brains.cpp): the brain must
// declare the key ("did you mean") and the value must fit its type. An axis from the file is
// reported at its key; one from --set (line 0) with "--set: " before the message. Brains that
// fail to load are left to the run, which reports them. text_keys (when given) gets the swept
// keys whose brain declares them as strings: their values are text as written.
void check_sweep_blackboard(const ScenarioSpec& spec, const std::vector<SweepAxis>& axes, bool trusted,
                            std::vector<Diagnostic>& diags, std::vector<std::string>* text_keys = nullptr);

}  // namespace thicket
