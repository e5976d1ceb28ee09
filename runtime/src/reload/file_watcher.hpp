// Watching loaded files for hot reload (SPEC 10).
#pragma once
#include <sys/inotify.h>
#include <sys/stat.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <map>
#include <set>
#include <string>
#include <vector>

namespace thicket {

// Which watched files changed. inotify (when the kernel gives it) says when to look; the
// look itself compares size, mtime and a content hash, so editors that save by rename or
// by truncate-and-write both work, and several quick saves make one reload.
class FileWatcher {
 public:
  FileWatcher() { inotify_ = inotify_init1(IN_NONBLOCK | IN_CLOEXEC); }
  ~FileWatcher() {
    if (inotify_ >= 0) close(inotify_);
  }

  void add(const std::string& path) {
    if (files_.count(path)) return;
    files_[path] = stamp(path, true);
    if (inotify_ < 0) return;
    const std::filesystem::path parent = std::filesystem::path(path).parent_path();
    // (Not `dir = "."` after the fact: GCC 12 warns of a -Wrestrict false positive there.)
    const std::string dir = parent.empty() ? std::string(".") : parent.string();
    if (dirs_.count(dir)) return;
    int wd = inotify_add_watch(inotify_, dir.c_str(), IN_CLOSE_WRITE | IN_MOVED_TO | IN_CREATE | IN_MODIFY | IN_DELETE);
    if (wd >= 0) dirs_.insert(dir);
    else polling_ = true;  // out of watches: fall back to looking every time
  }

  // Files whose content changed. `touched` (optional) gets those whose time or size changed
  // with the same content (`touch`): not a change, but a reason to retry a failed reload.
  std::vector<std::string> changed(std::vector<std::string>* touched = nullptr) {
    if (inotify_ >= 0 && !polling_) {
      alignas(inotify_event) char buf[8192];
      bool any = false;
      ssize_t n;
      while ((n = read(inotify_, buf, sizeof buf)) > 0) any = true;
      if (!any && !pending_) return {};
      pending_ = false;
    }
    std::vector<std::string> out;
    for (auto& [path, old] : files_) {
      Stamp now = stamp(path, false);
      if (now.exists && now.mtime_ns == old.mtime_ns && now.size == old.size) continue;
      if (!now.exists) {  // mid-save (rename) or deleted: look again next time
        pending_ = true;
        continue;
      }
      now.hash = hash_file(path);
      bool differs = now.hash != old.hash;
      old = now;
      if (differs) out.push_back(path);
      else if (touched) touched->push_back(path);
    }
    return out;
  }

 private:
  struct Stamp {
    bool exists = false;
    int64_t mtime_ns = 0;
    uint64_t size = 0;
    uint64_t hash = 0;
  };
  static Stamp stamp(const std::string& path, bool with_hash) {
    Stamp s;
    struct stat st;
    if (::stat(path.c_str(), &st) != 0) return s;
    s.exists = true;
    s.mtime_ns = static_cast<int64_t>(st.st_mtim.tv_sec) * 1000000000 + st.st_mtim.tv_nsec;
    s.size = static_cast<uint64_t>(st.st_size);
    if (with_hash) s.hash = hash_file(path);
    return s;
  }
  static uint64_t hash_file(const std::string& path) {  // FNV-1a
    std::ifstream in(path, std::ios::binary);
    uint64_t h = 1469598103934665603ULL;
    char buf[4096];
    while (in.read(buf, sizeof buf) || in.gcount() > 0) {
      for (std::streamsize i = 0; i < in.gcount(); ++i) h = (h ^ static_cast<unsigned char>(buf[i])) * 1099511628211ULL;
      if (!in) break;
    }
    return h;
  }
  int inotify_ = -1;
  bool polling_ = false, pending_ = false;
  std::map<std::string, Stamp> files_;
  std::set<std::string> dirs_;
};

}  // namespace thicket
