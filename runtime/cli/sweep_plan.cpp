// The batch's parameter sets from `sweep:` and --set: see sweep_plan.hpp.
#include "sweep_plan.hpp"

#include "sweep.hpp"

namespace thicket::cli {

std::optional<ParamSets> sweep_param_sets(const ScenarioSpec& spec, const std::vector<std::string>& set_args, bool trusted,
                                          std::string& why, bool& usage, std::vector<Diagnostic>& diags) {
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
  const std::vector<SweepAxis> axes = merge_axes(spec.sweep, command_line);
  auto sets = sweep_sets(spec, axes, why);
  if (!sets) {
    // The file's own sweep fails without the --set values too: its error, at its place in the
    // file (with any --set it was a usage error, with no file or line).
    std::string file_why;
    const bool file_fails = !set_args.empty() && !spec.sweep.empty() && !sweep_sets(spec, spec.sweep, file_why);
    usage = !set_args.empty() && !file_fails;
    if (!usage)
      diags.push_back({Severity::Error, spec.path, spec.sweep.empty() ? axes.front().line : spec.sweep.front().line,
                       spec.sweep.empty() ? axes.front().column : spec.sweep.front().column, file_fails ? file_why : why});
    return std::nullopt;
  }
  std::vector<Diagnostic> found;
  std::vector<std::string> text_keys;
  check_sweep_blackboard(spec, axes, trusted, found, &text_keys);
  for (const Diagnostic& d : found)
    if (d.line == 0) {  // from --set
      why = d.message;
      usage = true;
      return std::nullopt;
    }
  if (!found.empty()) {
    diags.insert(diags.end(), found.begin(), found.end());
    return std::nullopt;
  }
  ParamSets out;
  out.names = std::move(sets->names);
  out.values = std::move(sets->values);
  out.seeds = std::move(sets->seeds);
  out.text_keys = std::move(text_keys);
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
