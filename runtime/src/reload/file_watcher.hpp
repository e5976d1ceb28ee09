// Watching loaded files for hot reload (SPEC 10).
#pragma once
#include <errno.h>
#include <fcntl.h>
#include <sys/inotify.h>
#include <sys/stat.h>
#include <unistd.h>

#include <chrono>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "plain_file.hpp"

namespace thicket {

// Which watched files changed. inotify (when the kernel gives it) says when to look; the
// look itself compares size, times and a content hash, so editors that save by rename or
// by truncate-and-write both work, and several quick saves make one reload. A save written
// in place is waited for: from a write to a watched file's name that was opened since its last
// close after writing, until that close (IN_CLOSE_WRITE), for at most kSaveWait, no file is
// looked at, so a half-written file (a tick fell between two of its writes, or between
// `cat > f` emptying it and writing) is never loaded. A watched name that is open now (opened,
// not yet closed) is waited for the same way: a file created by `{ sleep 1; cat x; } > f` or
// opened with O_TRUNC has told its open but maybe not yet its first write (an empty file was
// loaded). Opens are remembered, not counted: the
// kernel merges identical events that follow one another (two processes' opens make one), so
// a count went wrong whenever another process read the file meanwhile. (A write with no open
// since the last close, such as a time set by `touch -m`, is not waited for.)
class FileWatcher {
 public:
  FileWatcher() { inotify_ = inotify_init1(IN_NONBLOCK | IN_CLOEXEC); }
  ~FileWatcher() {
    if (inotify_ >= 0) close(inotify_);
  }

  static constexpr std::chrono::milliseconds kSaveWait{1000};

  void add(const std::string& path) {
    if (files_.count(path)) return;
    files_[path] = stamp(path, true);
    names_.insert(std::filesystem::path(path).filename().string());
    if (inotify_ < 0) return;
    watch(folder_of(path));
    watch_target(path);
  }

  // Files whose content changed. `touched` (optional) gets those whose time or size changed
  // with the same content (`touch`): not a change, but a reason to retry a failed reload.
  std::vector<std::string> changed(std::vector<std::string>* touched = nullptr) {
    if (inotify_ >= 0 && !polling_) {
      alignas(inotify_event) char buf[8192];
      bool any = false;
      ssize_t n;
      while ((n = read(inotify_, buf, sizeof buf)) > 0) {
        for (char* at = buf; at < buf + n;) {
          const auto* ev = reinterpret_cast<const inotify_event*>(at);
          // (Opening and reading change nothing: the looks' own reads come back as such.)
          if (ev->mask & ~(IN_OPEN | IN_CLOSE_NOWRITE | IN_ISDIR)) any = true;
          if (ev->mask & IN_Q_OVERFLOW) {  // events were lost: what was remembered no longer holds
            opened_.clear();
            writing_.clear();
            open_now_.clear();
          }
          // A folder deleted (its watch is gone) or moved away (its watch follows it
          // elsewhere): watch its path again once something is there.
          if (ev->mask & IN_MOVE_SELF) inotify_rm_watch(inotify_, ev->wd);
          if (ev->mask & (IN_IGNORED | IN_MOVE_SELF)) lose(ev->wd);
          // A write to a watched file's name opens a save; its writer's close ends it.
          if (ev->len > 0 && names_.count(ev->name)) saving(*ev);
          at += sizeof(inotify_event) + ev->len;
        }
      }
      for (auto it = lost_.begin(); it != lost_.end();) {  // a deploy step's rm -rf + mkdir
        if (watch_now(*it)) {
          any = true;  // what it holds now may have come before the watch
          it = lost_.erase(it);
        } else {
          ++it;
        }
      }
      if (!any && !pending_) return {};
      pending_ = false;
      if (!writing_.empty() || !open_now_.empty()) {  // a save under way: look once it is closed
        const auto now = std::chrono::steady_clock::now();
        if (!waiting_) {
          waiting_ = true;
          waiting_since_ = now;
        }
        if (now - waiting_since_ < kSaveWait) {
          pending_ = true;
          return {};
        }
        writing_.clear();  // a writer that keeps the file open: what it wrote so far counts
        opened_.clear();
        open_now_.clear();
      }
      waiting_ = false;
    }
    std::vector<std::string> out;
    for (auto& [path, old] : files_) {
      Stamp now = stamp(path, false);
      if (now.exists) {
        if (auto m = missing_.find(path); m != missing_.end()) {
          if (m->second >= 2) back_.push_back(path);  // said gone: now said back
          missing_.erase(m);
        }
      }
      if (now.exists && now.mtime_ns == old.mtime_ns && now.ctime_ns == old.ctime_ns && now.size == old.size) continue;
      if (!now.exists) {  // mid-save (rename) or deleted: look again next time
        // (A file that was not there when it was first watched, a leaf file a failed version
        // names before it is written, is not "gone": it never was.)
        if (!old.exists) continue;
        pending_ = true;
        // Still missing at the next look: not a save that deletes and writes again.
        if (++missing_[path] == 2) gone_.push_back(path);
        continue;
      }
      now.hash = hash_file(path);
      bool differs = now.hash != old.hash;
      old = now;
      if (differs) out.push_back(path);
      else if (touched) touched->push_back(path);
      if (inotify_ >= 0) watch_target(path);  // a link may point elsewhere now
    }
    return out;
  }

  // The files found missing at two looks in a row since the last call (deleted or moved away,
  // not mid-save): each said once until it is back.
  std::vector<std::string> take_gone() {
    std::vector<std::string> out;
    out.swap(gone_);
    return out;
  }
  // The files said gone that are there again (each once; changed() lists them too when
  // their content is not what it was).
  std::vector<std::string> take_back() {
    std::vector<std::string> out;
    out.swap(back_);
    return out;
  }

 private:
  static std::string folder_of(const std::string& path) {
    const std::filesystem::path parent = std::filesystem::path(path).parent_path();
    // (Not `dir = "."` after the fact: GCC 12 warns of a -Wrestrict false positive there.)
    return parent.empty() ? std::string(".") : parent.string();
  }
  // A file reached through a symbolic link changes where the link's target is: that folder
  // is watched too (folders on the way are followed by inotify itself).
  void watch_target(const std::string& path) {
    std::error_code ec;
    if (!std::filesystem::is_symlink(path, ec)) return;
    const std::filesystem::path target = std::filesystem::canonical(path, ec);
    if (ec) return;
    watch(folder_of(target.string()));
    names_.insert(target.filename().string());
  }
  void watch(const std::string& dir) {
    if (dirs_.count(dir) || lost_.count(dir)) return;
    if (!watch_now(dir) && !polling_) lost_.insert(dir);  // not there (yet): tried at each look
  }
  bool watch_now(const std::string& dir) {
    const int wd = inotify_add_watch(inotify_, dir.c_str(),
                                     IN_CLOSE_WRITE | IN_MOVED_TO | IN_MOVED_FROM | IN_CREATE | IN_MODIFY | IN_DELETE |
                                         IN_MOVE_SELF |  // (IN_MOVED_FROM: a file moved away is said gone)
                                         IN_ATTRIB |  // (a chmod that makes a file readable again)
                                         IN_OPEN | IN_CLOSE_NOWRITE);  // (saves under way: opens seen)
    if (wd >= 0) {
      dirs_[dir] = wd;
      return true;
    }
    if (errno != ENOENT && errno != ENOTDIR) polling_ = true;  // out of watches: look every time
    return false;
  }
  void lose(int wd) {
    for (auto it = dirs_.begin(); it != dirs_.end();) {
      if (it->second == wd) {
        lost_.insert(it->first);
        it = dirs_.erase(it);
      } else {
        ++it;
      }
    }
  }
  // A save under way: a write to a watched name opened since its last close after writing
  // marks it; that close (or the name deleted, or saved over by a rename) ends it.
  void saving(const inotify_event& ev) {
    const std::pair<int, std::string> key{ev.wd, ev.name};
    // (open(O_TRUNC) tells its open before its emptying write.)
    if (ev.mask & IN_OPEN) {
      opened_.insert(key);
      open_now_.insert(key);
    }
    if ((ev.mask & IN_MODIFY) && opened_.count(key)) writing_.insert(key);
    if (ev.mask & (IN_CLOSE_WRITE | IN_CLOSE_NOWRITE | IN_DELETE | IN_MOVED_TO | IN_MOVED_FROM)) open_now_.erase(key);
    if (ev.mask & (IN_CLOSE_WRITE | IN_DELETE | IN_MOVED_TO | IN_MOVED_FROM)) {
      opened_.erase(key);
      writing_.erase(key);
    }
  }
  std::map<std::string, int> missing_;  // path -> looks in a row it was missing at
  std::vector<std::string> gone_;
  std::vector<std::string> back_;
  struct Stamp {
    bool exists = false;
    int64_t mtime_ns = 0;
    int64_t ctime_ns = 0;  // changes with the mode too: a file made readable again is looked at
    uint64_t size = 0;
    uint64_t hash = 0;
  };
  static Stamp stamp(const std::string& path, bool with_hash) {
    Stamp s;
    struct stat st;
    if (::stat(path.c_str(), &st) != 0) return s;
    s.exists = true;
    s.mtime_ns = static_cast<int64_t>(st.st_mtim.tv_sec) * 1000000000 + st.st_mtim.tv_nsec;
    s.ctime_ns = static_cast<int64_t>(st.st_ctim.tv_sec) * 1000000000 + st.st_ctim.tv_nsec;
    s.size = static_cast<uint64_t>(st.st_size);
    if (with_hash) s.hash = hash_file(path);
    return s;
  }
 public:
  // FNV-1a of a plain file's bytes. Only a plain file is read: a pipe nothing writes to would
  // block the game here for ever, and a device never ends. Another kind hashes as its kind: it
  // differs from the file it replaced, and the reload then says why it cannot be loaded. The
  // kind is that of what was opened (opened without blocking, then asked): asked first by
  // path, a file swapped for /dev/zero or a pipe between the question and the opening was read
  // for ever. Past `max_bytes`, its size and time stand for its bytes. `exists`: whether the
  // path names anything.
  static uint64_t hash_file(const std::string& path, bool* exists = nullptr, uint64_t max_bytes = UINT64_MAX) {
    PathKind kind = PathKind::Missing;
    uint64_t size = 0;
    int64_t mtime_ns = 0;
    const int fd = open_plain(path, kind, &size, &mtime_ns);
    if (exists) *exists = kind != PathKind::Missing;
    if (fd < 0) return kind == PathKind::Missing ? 0 : 0x9e3779b97f4a7c15ULL ^ static_cast<uint64_t>(kind);
    if (size > max_bytes) {
      ::close(fd);
      return (size * 1099511628211ULL) ^ static_cast<uint64_t>(mtime_ns);
    }
    uint64_t h = 1469598103934665603ULL;
    unsigned char buf[4096];
    uint64_t total = 0;
    for (;;) {
      const ssize_t n = ::read(fd, buf, sizeof buf);
      if (n < 0 && errno == EINTR) continue;
      if (n <= 0) break;
      for (ssize_t i = 0; i < n; ++i) h = (h ^ buf[i]) * 1099511628211ULL;
      total += static_cast<uint64_t>(n);
      if (total > max_bytes) break;  // (grown since it was asked: enough to see it changed)
    }
    ::close(fd);
    return h;
  }

 private:
  int inotify_ = -1;
  bool polling_ = false, pending_ = false;
  std::set<std::string> names_;                     // watched files' names (and their links' targets')
  std::set<std::pair<int, std::string>> opened_;     // (folder's watch, name): opened since its last write-close
  std::set<std::pair<int, std::string>> writing_;    // of those, the ones written to: saves under way
  std::set<std::pair<int, std::string>> open_now_;   // opened and not closed since (by anyone): maybe a save
  bool waiting_ = false;                            // on writing_, since waiting_since_
  std::chrono::steady_clock::time_point waiting_since_;
  std::map<std::string, Stamp> files_;
  std::map<std::string, int> dirs_;  // watched folders (as named) and their watches
  std::set<std::string> lost_;       // folders to watch that are not there now
};

}  // namespace thicket
