// Where an output that is written aside and renamed into place really goes (thicket import
// and export -o, checkpoints). A rename replaces whatever has the name: a symbolic link would
// become a plain file (the file it pointed to left unchanged), and a device or pipe would be
// replaced by a plain file (`-o /dev/null` once replaced the system's /dev/null).
#pragma once
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <fcntl.h>
#include <sys/stat.h>

#include <filesystem>
#include <ios>
#include <string>
#include <system_error>
#include <vector>

namespace thicket::cli {

// Whether a file name is a name and then `ext` (".jsonl"): ".jsonl" alone is no record's name.
inline bool named_with_extension(const std::string& name, const std::string& ext) {
  return name.size() > ext.size() && name.ends_with(ext);
}

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
    // Followed link by link: weakly_canonical leaves a link to a file not made yet as it is
    // (a checkpoint's first save replaced the link with a plain file).
    fs::path target = path;
    for (int hops = 0; hops < 40 && fs::is_symlink(fs::symlink_status(target, ec)); ++hops) {
      const fs::path next = fs::read_symlink(target, ec);
      if (ec) break;
      target = next.is_absolute() ? next : target.parent_path() / next;
    }
    const fs::path real = fs::weakly_canonical(target, ec);
    t.path = ec ? target.string() : real.string();
  }
  const fs::file_status status = fs::status(t.path, ec);
  if (ec || !fs::exists(status)) return t;
  t.folder = fs::is_directory(status);
  t.in_place = !t.folder && !fs::is_regular_file(status);
  return t;
}

// Whether two outputs (or an input and an output) name the same file, so that writing one
// would destroy the other: the same existing file (std::filesystem::equivalent: another
// spelling, a link, /dev/stdout redirected to it), or for files not made yet the same path
// once normalised (weakly_canonical: `./a.csv`, `d/../a.csv`). An existing device, pipe or
// socket is never "the same": /dev/null or /dev/stdout on a terminal or a pipe may take
// several outputs, whose writes go there in turn and truncate nothing.
inline bool same_file(const std::string& a, const std::string& b) {
  namespace fs = std::filesystem;
  std::error_code ea, eb;
  const fs::file_status sa = fs::status(a, ea), sb = fs::status(b, eb);
  const bool has_a = !ea && fs::exists(sa), has_b = !eb && fs::exists(sb);
  if ((has_a && !fs::is_regular_file(sa)) || (has_b && !fs::is_regular_file(sb))) return false;
  if (has_a != has_b) return false;
  std::error_code ec;
  if (has_a) return fs::equivalent(a, b, ec) && !ec;
  // A link to a file not made yet is that file (weakly_canonical leaves a dangling link as it
  // is: `--log l.jsonl --trace t.jsonl`, l a link to t, wrote both into t).
  auto followed = [](const std::string& path) {
    std::error_code e;
    fs::path p = fs::absolute(path, e);
    for (int hops = 0; hops < 40 && fs::is_symlink(fs::symlink_status(p, e)); ++hops) {
      const fs::path to = fs::read_symlink(p, e);
      if (e) break;
      p = to.is_absolute() ? to : p.parent_path() / to;
    }
    return p;
  };
  const fs::path ca = fs::weakly_canonical(followed(a), ec);
  if (ec) return fs::absolute(a, ec).lexically_normal() == fs::absolute(b, ec).lexically_normal();
  const fs::path cb = fs::weakly_canonical(followed(b), ec);
  return !ec && ca == cb;
}

// The stream an output path names when it is one of the process's own (/dev/stdout,
// /dev/stderr, /dev/fd/N, /proc/self/fd/N): its file descriptor, else -1.
inline int own_stream(const std::string& path) {
  if (path == "/dev/stdout") return 1;
  if (path == "/dev/stderr") return 2;
  for (const char* prefix : {"/dev/fd/", "/proc/self/fd/"}) {
    const std::string p(prefix);
    if (path.size() > p.size() && path.compare(0, p.size(), p) == 0 &&
        path.find_first_not_of("0123456789", p.size()) == std::string::npos && path.size() - p.size() <= 6)
      return std::stoi(path.substr(p.size()));
  }
  return -1;
}

// How an output is opened. Truncated, as a rule; but `--out /dev/stdout > rows.csv` (or
// `>>`) names the file the shell opened: truncating it emptied what it held, and the output's
// own offset wrote over the stream's (Lua's prints). Such a file is appended to, and so is the
// stream from then on (O_APPEND on it), so both write at its end in turn.
inline std::ios::openmode output_mode(const std::string& path) {
  const int fd = own_stream(path);
  struct stat st;
  if (fd < 0 || ::fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) return std::ios::out | std::ios::trunc;
  const int flags = ::fcntl(fd, F_GETFL);
  if (flags >= 0 && !(flags & O_APPEND)) ::fcntl(fd, F_SETFL, flags | O_APPEND);
  return std::ios::out | std::ios::app;
}

// Whether every output can be written, found before any of them is opened for writing (which
// empties it): each is opened to append, which leaves what it holds as it is (or makes it,
// empty), and closed. An existing device, pipe or socket is left alone (a pipe's reader would
// see a writer come and go). The index of the first that cannot be written, with errno saying
// why, or paths.size(); then the files it made are removed again, so a refused command leaves
// no empty file behind.
// An output file that cannot be opened, said with the system's reason (errno, so call it right
// after the failed open) and no usage text: the command line was right. Exit 64 (as before).
inline int cannot_write(const std::string& what, const std::string& path) {
  const int err = errno;
  std::fprintf(stderr, "thicket: cannot write the %s file '%s': %s\n", what.c_str(), path.c_str(), std::strerror(err));
  return 64;
}

inline size_t first_unwritable(const std::vector<std::string>& paths) {
  namespace fs = std::filesystem;
  std::vector<std::string> made;
  for (size_t k = 0; k < paths.size(); ++k) {
    std::error_code ec;
    const fs::file_status status = fs::status(paths[k], ec);
    const bool exists = !ec && fs::exists(status);
    if (exists && !fs::is_regular_file(status) && !fs::is_directory(status)) continue;
    std::FILE* f = exists && fs::is_directory(status) ? nullptr : std::fopen(paths[k].c_str(), "ab");
    if (!f) {
      const int why = exists && fs::is_directory(status) ? EISDIR : errno;
      for (const std::string& m : made) std::remove(m.c_str());
      errno = why;
      return k;
    }
    std::fclose(f);
    if (!exists) made.push_back(paths[k]);
  }
  return paths.size();
}

}  // namespace thicket::cli
