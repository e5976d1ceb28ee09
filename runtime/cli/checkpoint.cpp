// Checkpoint files: read whole and checked, written aside and renamed.
#include "checkpoint.hpp"
#include "output_target.hpp"
#include "plain_file.hpp"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <iostream>

namespace thicket::cli {

namespace {

std::string system_error(const std::string& what) { return what + ": " + std::strerror(errno); }

std::string directory_of(const std::string& file) {
  size_t slash = file.rfind('/');
  if (slash == std::string::npos) return ".";
  return slash == 0 ? "/" : file.substr(0, slash);
}

}  // namespace

std::optional<ResumePoint> read_checkpoint(const std::string& file, std::string& error) {
  ResumePoint point;
  std::string why;
  if (!read_limited(file, std::size_t(1) << 32, point.bytes, why, "a checkpoint")) {  // /dev/zero: no end
    error = "cannot read it: " + why;
    return std::nullopt;
  }
  std::optional<SnapshotInfo> info = Simulation::read_header(point.bytes, error);
  if (!info) return std::nullopt;
  point.info = std::move(*info);
  return point;
}

std::optional<ResumePoint> open_resume(const std::string& file, const ScenarioSpec& spec, SimOptions options, bool seed_given) {
  std::string why;
  std::optional<ResumePoint> point = read_checkpoint(file, why);
  if (point && !seed_given) options.seed = point->info.seed;
  if (point) why = Simulation::mismatch(point->info, spec, options);
  if (!why.empty()) {
    std::cerr << "thicket: " << file << ": error: " << why << "\n";
    return std::nullopt;
  }
  return point;
}

bool resume(Simulation& sim, const ResumePoint& point, const std::string& file) {
  std::vector<Diagnostic> diags;
  bool ok = sim.restore(point.bytes, file, diags);
  for (const Diagnostic& d : diags) std::cerr << "thicket: " << format_diagnostic(d) << "\n";
  return ok;
}

std::string write_checkpoint(const std::string& given, const std::string& bytes) {
  const OutputTarget target = output_target(given);
  if (target.folder) return "cannot write " + given + ": it is a folder";
  const std::string& file = target.path;
  // A device or pipe (/dev/null): written to as it is (a rename would replace it).
  const std::string tmp = target.in_place ? file : file + ".tmp";
  int fd = ::open(tmp.c_str(), target.in_place ? O_WRONLY | O_CLOEXEC : O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (fd < 0) return system_error("cannot write " + tmp);
  size_t done = 0;
  while (done < bytes.size()) {
    ssize_t n = ::write(fd, bytes.data() + done, bytes.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) {
      std::string why = system_error("cannot write " + tmp);
      ::close(fd);
      if (!target.in_place) std::remove(tmp.c_str());
      return why;
    }
    done += static_cast<size_t>(n);
  }
  if (target.in_place) {
    if (::close(fd) != 0) return system_error("cannot write " + file);
    return {};
  }
  // The data must be on disk before the rename makes it the checkpoint: otherwise a crash
  // can leave FILE renamed but empty.
  if (::fsync(fd) != 0 || ::close(fd) != 0) {
    std::string why = system_error("cannot write " + tmp);
    std::remove(tmp.c_str());
    return why;
  }
  if (std::rename(tmp.c_str(), file.c_str()) != 0) {
    std::string why = system_error("cannot rename " + tmp + " to " + file);
    std::remove(tmp.c_str());
    return why;
  }
  // The rename itself is durable once the directory is synced (best effort: some file
  // systems refuse to open a directory for this).
  int dir = ::open(directory_of(file).c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (dir >= 0) {
    ::fsync(dir);
    ::close(dir);
  }
  return {};
}

std::string Checkpointer::after_tick(const Simulation& sim, uint64_t done) {
  if (failed_ || every_ == 0 || done % every_ != 0) return {};
  return write(sim, done);
}

std::string Checkpointer::at_stop(const Simulation& sim, uint64_t done) {
  if (failed_ || done == 0 || done == last_tick_) return {};
  return write(sim, done);
}

std::string Checkpointer::write(const Simulation& sim, uint64_t done) {
  bytes_.clear();
  // A run that cannot be saved exactly (a running Lua task's journal) is refused, with why.
  std::string why = sim.save(bytes_);
  if (!why.empty()) why = "not saved at tick " + std::to_string(done) + ": " + why;
  else why = write_checkpoint(file_, bytes_);
  if (!why.empty()) {
    failed_ = true;
    return why;
  }
  ++written_;
  last_tick_ = done;
  return {};
}

}  // namespace thicket::cli
