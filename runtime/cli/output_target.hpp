// Where an output that is written aside and renamed into place really goes (thicket import
// and export -o, checkpoints). A rename replaces whatever has the name: a symbolic link would
// become a plain file (the file it pointed to left unchanged), and a device or pipe would be
// replaced by a plain file (`-o /dev/null` once replaced the system's /dev/null).
#pragma once
#include <filesystem>
#include <string>
#include <system_error>

namespace thicket::cli {

struct OutputTarget {
  std::string path;       // a link's target, else the path as given
  bool in_place = false;  // an existing device, pipe or socket: written to as it is, no rename
  bool folder = false;    // an existing folder: nothing can be written there
};

inline OutputTarget output_target(const std::string& path) {
  namespace fs = std::filesystem;
  OutputTarget t{path};
  std::error_code ec;
  if (fs::is_symlink(fs::symlink_status(path, ec))) {
    const fs::path real = fs::weakly_canonical(path, ec);
    if (!ec) t.path = real.string();
  }
  const fs::file_status status = fs::status(t.path, ec);
  if (ec || !fs::exists(status)) return t;
  t.folder = fs::is_directory(status);
  t.in_place = !t.folder && !fs::is_regular_file(status);
  return t;
}

}  // namespace thicket::cli
