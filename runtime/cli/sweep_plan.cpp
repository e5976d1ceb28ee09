// The batch's parameter sets from `sweep:` and --set: see sweep_plan.hpp.
#include "sweep_plan.hpp"

#include "sweep.hpp"

namespace thicket::cli {

std::optional<ParamSets> sweep_param_sets(const ScenarioSpec& spec, const std::vector<std::string>& set_args,
                                          std::string& why, bool& usage) {
  std::vector<SweepAxis> command_line;
  for (const std::string& arg : set_args) {
    auto axis = parse_set_option(arg, spec, why);
    if (!axis) {
      usage = true;
      return std::nullopt;
    }
    for (const SweepAxis& earlier : command_line)
      if (earlier.key == axis->key) {
        why = "--set " + axis->key + " is given twice; list all its values in one --set (V1,V2,...)";
        usage = true;
        return std::nullopt;
      }
    command_line.push_back(std::move(*axis));
  }
  usage = false;
  auto sets = sweep_sets(spec, merge_axes(spec.sweep, command_line), why);
  if (!sets) {
    usage = !set_args.empty();
    return std::nullopt;
  }
  ParamSets out;
  out.names = std::move(sets->names);
  out.values = std::move(sets->values);
  out.seeds = std::move(sets->seeds);
  return out;
}

std::string param_set_text(const ParamSets& sets, uint32_t set) {
  std::string text;
  if (set >= sets.values.size()) return text;
  for (size_t k = 0; k < sets.names.size() && k < sets.values[set].size(); ++k)
    text += (k ? " " : "") + sets.names[k] + "=" + sets.values[set][k];
  return text;
}

}  // namespace thicket::cli
