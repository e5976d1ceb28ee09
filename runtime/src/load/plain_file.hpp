// Reading a file a user names (a brain, a leaf file, a scenario, a record, a checkpoint)
// without hanging or filling memory: what stands at the path, opened without waiting, read
// within a bound. A pipe nothing writes to would block for ever, /dev/zero never ends, and a
// file swapped for either between a look and an open (a hot reload watching a file a script
// replaces) must be told apart from what was opened, not from the path.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>

namespace thicket {

// Longest line a record reader (thicket view, Python's read_record) takes before it calls the
// file no record: the largest real one, a header holding an 8192 x 8192 grid map, is about 70
// MB. Without a bound a small gzip file holding one endless line (a "zip bomb") took all the
// memory it inflated to before the reader could say anything.
constexpr size_t kMaxRecordLine = 512u << 20;
inline constexpr const char* kRecordLineTooLong =
    "a line longer than 512 MB: no record has one (the longest, a header with an 8192 x 8192 map, is about 70 MB)";

// What stands at a path a file is read from: a regular file, nothing, a folder, a device (which
// would never end: /dev/zero), or something else (a socket, a pipe).
enum class PathKind { File, Missing, Folder, Device, Other, Loop };  // Loop: symbolic links that lead round
PathKind path_kind(const std::string& path);
// Why a path is no plain file to read ("no such file", "a folder, not a file", "a device, not
// a file", "not a plain file (a pipe or a socket)"), or "" when it is one: for every reader of
// a file named by a user (a pipe nothing writes to would block for ever, /dev/zero never ends).
// missing_ok: "" for a path where nothing is (the caller's own open says so, in its words).
const char* not_plain_file(const std::string& path, bool missing_ok = false);

// Opens a path to read without waiting (a pipe's open waits for a writer) and tells what was
// opened: the descriptor when it is a plain file (the caller closes it), else -1 with `kind`
// that of what stands there (Missing when nothing does; File for a file it may not read). The
// kind is asked of what was opened, not of the path before: a file swapped for /dev/zero or a
// pipe between the two (a hot reload watching a file a script replaces) was read for ever.
int open_plain(const std::string& path, PathKind& kind, uint64_t* size = nullptr, int64_t* mtime_ns = nullptr);

// Reads a whole plain file of at most max_bytes into text. False, with why (not_plain_file's,
// "not a readable file", "not a plain file (a pipe or a socket)",
// "larger than 16 MB; <kind> may be at most 16 MB ..."), when it cannot: a device such as
// /dev/zero would never end, a pipe nothing writes to would block for ever, and a huge file
// would take the memory of its document many times over.
bool read_limited(const std::string& path, size_t max_bytes, std::string& text, std::string& why,
                  const char* kind = "a brain, import or scenario file");

}  // namespace thicket
