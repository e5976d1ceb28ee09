// thicket view RECORD [-o replay.html]: a record as one self-contained HTML replay (view_command.cpp).
#pragma once

namespace thicket::cli {

// argv[1] is "view". usage: the CLI's whole usage text, printed after a usage error.
// Returns the exit status: 0 written, 2 the record is unreadable or malformed
// (RECORD:LINE: error: ...), 64 a usage error.
int view_command(int argc, char** argv, const char* usage);

}  // namespace thicket::cli
