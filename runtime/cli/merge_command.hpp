// thicket merge OUT PART...: the part files of `thicket run SCENARIO --shard I/K --out PART.jsonl`
// (one per shard, any order) as the --out file a single process would have written, and its
// summary on standard error (merge_command.cpp).
#pragma once

namespace thicket::cli {

// argv[1] is "merge". Returns what the single process would have: 0, 1 (script errors), 2 (a
// run failed to load; the rows before it are written), or 2 for bad parts (PART:LINE: error:
// ..., nothing written), 64 a usage error.
int merge_command(int argc, char** argv, const char* usage);

}  // namespace thicket::cli
