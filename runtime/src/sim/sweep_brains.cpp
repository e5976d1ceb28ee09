// Swept blackboard values checked against the groups' brains before any run (see sweep.hpp):
// the same checks Simulation::create makes of a group's `blackboard:`, but for every value of
// every parameter set at once, at the sweep's place, with the brain's keys to suggest from.
#include <algorithm>
#include <map>
#include <unordered_map>

#include "runtime_impl.hpp"
#include "suggest.hpp"
#include "sweep.hpp"
#include "thicket/value.hpp"

namespace thicket {

void check_sweep_blackboard(const ScenarioSpec& spec, const std::vector<SweepAxis>& axes, bool trusted,
                            std::vector<Diagnostic>& diags, std::vector<std::string>* text_keys) {
  RuntimeOptions ro;
  ro.trusted = trusted;
  ro.log = [](const std::string&) {};  // a leaf file's load-time prints belong to the run
  std::optional<Runtime> rt;
  struct Probe {
    BrainHandle brain;
    AgentHandle agent;
  };
  std::map<std::string, std::optional<Probe>> agents;  // one agent per brain file
  for (const SweepAxis& axis : axes) {
    auto target = blackboard_target(spec, axis.key);
    if (!target) continue;
    const AgentGroup& group = spec.groups[target->first];
    const std::string& key = target->second;
    if (!rt) rt.emplace(ro);
    auto [at, fresh] = agents.try_emplace(group.brain);
    if (fresh) {
      std::vector<Diagnostic> brain_diags;  // the run reports a brain that does not load
      if (auto brain = rt->load_file(group.brain, brain_diags)) at->second = Probe{*brain, rt->spawn(*brain)};
    }
    if (!at->second) continue;
    const AgentHandle agent = at->second->agent;
    const Program& program = *rt->impl().brains[at->second->brain.index]->program;
    auto report = [&](const std::string& message, size_t value = SIZE_MAX) {
      Diagnostic d;
      d.file = spec.path;
      d.line = axis.line;
      d.column = axis.column;
      if (value < axis.value_at.size()) {  // at the value itself, when the file gave it
        d.line = axis.value_at[value].first;
        d.column = axis.value_at[value].second;
      }
      d.message = (axis.line == 0 ? "--set: " : "") + message;
      diags.push_back(std::move(d));
    };
    const std::string where = "sweep key '" + axis.key + "': ";
    if (!rt->get(agent, key)) {
      std::vector<std::string> declared;
      for (const BlackboardKey& k : program.blackboard) declared.push_back(k.name);
      report(where + "blackboard key '" + key + "' is not declared by the brain " + group.brain + " of group '" +
             group.name + "'" + did_you_mean(key, declared) +
             (declared.empty() ? std::string(" (it declares no keys)") : " (keys: " + join_names(declared) + ")"));
      continue;
    }
    auto declared = std::find_if(program.blackboard.begin(), program.blackboard.end(),
                                 [&](const BlackboardKey& k) { return k.name == key; });
    if (text_keys && declared != program.blackboard.end() && declared->type == ValueType::String)
      text_keys->push_back(axis.key);
    const ValueType type = declared == program.blackboard.end() ? ValueType::Any : declared->type;
    std::unordered_map<std::string, size_t> identities;  // of the values that fit: the index of each
    for (size_t v = 0; v < axis.values.size(); ++v) {  // every value that does not fit, each at its place
      const std::string& text = axis.values[v];
      const std::string shown = text.empty() ? "\"\"" : text;
      if (!rt->set(agent, key, declared == program.blackboard.end() ? sweep_value(text) : swept_blackboard_value(text, type))) {
        report(where + "the value " + shown + " does not fit '" + key + "', which the brain " + group.brain + " declares as " +
                   (declared == program.blackboard.end() ? std::string("another type") : std::string(value_type_name(type))),
               v);
        continue;
      }
      // One value twice repeats a parameter set: 3 and 3.0 of a number key (the texts differ;
      // the same text twice was said when the sweep was read). A string key's "007" and "7" are two.
      const std::string identity = blackboard_value_identity(text, type);
      if (auto [seen, fresh] = identities.emplace(identity, v); !fresh)
        report(where + "the value " + shown + " is listed twice (as " + axis.values[seen->second] + " and " + shown +
                   ", the same value for this key)",
               v);
    }
  }
}

}  // namespace thicket
