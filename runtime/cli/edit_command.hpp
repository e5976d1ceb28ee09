// `thicket edit FILE.yaml [--port P] [--attach HOST:PORT]` (SPEC 14, issue 34): serves the
// browser editor of one brain file on localhost. The page (viewer/src/editor, embedded) edits
// the YAML text itself; this server reads and writes the file, checks text with the real
// loader and the schemas (the same messages as `thicket check`), and with --attach passes
// /attach/... on to the debug API of a `thicket run SCENARIO --serve` (live_server.cpp).
#pragma once

namespace thicket::cli {

// argv[1] is "edit". Returns the exit status: 0 after Ctrl-C, 2 the file cannot be read or is
// not a brain, 64 a usage error, 1 the port cannot be listened on.
int edit_command(int argc, char** argv, const char* usage);

}  // namespace thicket::cli
