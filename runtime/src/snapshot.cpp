// Runtime::save / restore (issue 15): snapshots of a runtime's agents. Not built yet.
#include <istream>
#include <iterator>
#include <ostream>

#include "runtime_impl.hpp"

namespace thicket {

namespace {
Diagnostic not_built() {
  Diagnostic d;
  d.message = "snapshots are not built yet";
  return d;
}
}  // namespace

void Runtime::save(SnapshotWriter& out) const {}
void Runtime::save(AgentHandle agent, SnapshotWriter& out) const {}
bool Runtime::restore(SnapshotReader& in, std::vector<Diagnostic>& diagnostics) {
  diagnostics.push_back(not_built());
  return false;
}
std::optional<AgentHandle> Runtime::restore_agent(SnapshotReader& in, std::vector<Diagnostic>& diagnostics) {
  diagnostics.push_back(not_built());
  return std::nullopt;
}
bool Runtime::save(std::ostream& out) const {
  SnapshotWriter w;
  save(w);
  out.write(w.bytes().data(), static_cast<std::streamsize>(w.bytes().size()));
  return static_cast<bool>(out);
}
bool Runtime::restore(std::istream& in, std::vector<Diagnostic>& diagnostics) {
  std::string bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  SnapshotReader r(bytes);
  return restore(r, diagnostics);
}

}  // namespace thicket
