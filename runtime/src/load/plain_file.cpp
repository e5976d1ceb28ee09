// Reading files users name without hanging or filling memory (plain_file.hpp).
#include "plain_file.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>

namespace thicket {

namespace fs = std::filesystem;

PathKind path_kind(const std::string& path) {
  std::error_code ec;
  const fs::file_status st = fs::status(path, ec);
  if (ec == std::errc::too_many_symbolic_link_levels) return PathKind::Loop;  // (it was "no such file")
  if (ec || !fs::exists(st)) return PathKind::Missing;
  if (fs::is_directory(st)) return PathKind::Folder;
  if (fs::is_character_file(st) || fs::is_block_file(st)) return PathKind::Device;
  return fs::is_regular_file(st) ? PathKind::File : PathKind::Other;
}

const char* not_plain_file(const std::string& path, bool missing_ok) {
  switch (path_kind(path)) {
    case PathKind::Missing: return missing_ok ? "" : "no such file";
    case PathKind::Folder: return "a folder, not a file";
    case PathKind::Device: return "a device, not a file";  // /dev/zero would never end
    // A pipe nothing writes to would block for ever (a load, a hot reload of a file swapped for
    // one, the editor's check); and each file is read more than once (what kind of file, then
    // the load, then the schema), which a pipe cannot give.
    case PathKind::Other: return "not a plain file (a pipe or a socket)";
    case PathKind::Loop: return "a symbolic link that leads round in a loop (to itself, or through others back to itself)";
    case PathKind::File: break;
  }
  return "";
}

int open_plain(const std::string& path, PathKind& kind, uint64_t* size, int64_t* mtime_ns) {
  auto kind_of = [](const struct stat& st) {
    return S_ISREG(st.st_mode)                           ? PathKind::File
           : S_ISDIR(st.st_mode)                         ? PathKind::Folder
           : S_ISCHR(st.st_mode) || S_ISBLK(st.st_mode) ? PathKind::Device
                                                         : PathKind::Other;
  };
  const int fd = ::open(path.c_str(), O_RDONLY | O_NONBLOCK | O_CLOEXEC | O_NOCTTY);
  struct stat st {};
  if (fd < 0 || ::fstat(fd, &st) != 0) {  // not to be opened (no permission: a File then)
    if (fd >= 0) ::close(fd);
    kind = ::stat(path.c_str(), &st) != 0 ? PathKind::Missing : kind_of(st);
    return -1;
  }
  if (!S_ISREG(st.st_mode)) {
    ::close(fd);
    kind = kind_of(st);
    return -1;
  }
  kind = PathKind::File;
  if (size) *size = static_cast<uint64_t>(st.st_size);
  if (mtime_ns) *mtime_ns = static_cast<int64_t>(st.st_mtim.tv_sec) * 1000000000 + st.st_mtim.tv_nsec;
  return fd;
}

bool read_limited(const std::string& path, size_t max_bytes, std::string& text, std::string& why, const char* kind) {
  if (const char* problem = not_plain_file(path); *problem) {
    why = problem;
    return false;
  }
  PathKind opened = PathKind::Other;
  const int fd = open_plain(path, opened);
  if (fd < 0) {
    why = opened == PathKind::Folder    ? "a folder, not a file"
          : opened == PathKind::Device  ? "a device, not a file"
          : opened == PathKind::Missing ? "no such file"
          : opened == PathKind::Other   ? "not a plain file (a pipe or a socket)"
                                        : "not a readable file";
    return false;
  }
  // Read up to one byte past the limit (a file may grow while it is read).
  text.clear();
  char buffer[1 << 16];
  for (;;) {
    const ssize_t n = ::read(fd, buffer, sizeof buffer);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) {
      ::close(fd);
      text.clear();
      why = "not a readable file";
      return false;
    }
    if (n == 0) break;
    text.append(buffer, static_cast<size_t>(n));
    if (text.size() > max_bytes) {
      ::close(fd);
      text.clear();
      why = "larger than " + std::to_string(max_bytes >> 20) + " MB; " + kind + " may be at most " +
            std::to_string(max_bytes >> 20) + " MB (is it the right file?)";
      return false;
    }
  }
  ::close(fd);
  return true;
}

}  // namespace thicket
