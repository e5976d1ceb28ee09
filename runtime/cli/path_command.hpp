// thicket path: grid path finding on Moving AI maps (path_command.cpp).
#pragma once

namespace thicket::cli {

// argv[1] is "path". usage: the CLI's whole usage text, printed after a usage error.
// Returns the exit status: 0 every length matches (or one --from/--to search ran), 1 some
// length differs from the scenario file's, 2 a file failed to load (or a point is outside the
// map), 64 a usage error.
int path_command(int argc, char** argv, const char* usage);

}  // namespace thicket::cli
