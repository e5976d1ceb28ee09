#!/usr/bin/env bash
# tools/build.sh DIR BUILD_TYPE [cmake options...]: configure (once) and build. Prints ninja's
# last line and the compiler's warnings of what it compiled (the whole log, less the progress
# lines, when the build fails); the log is DIR/build.log.
set -euo pipefail
cd "$(dirname "$0")/.."
dir=$1 type=$2
shift 2
cmake -S . -B "$dir" -G Ninja -DCMAKE_BUILD_TYPE="$type" "$@" >/dev/null
log="$dir/build.log"
if ! ninja -C "$dir" -j "$(nproc)" >"$log" 2>&1; then
  grep -v '^\[[0-9]*/[0-9]*\] ' "$log" | tail -n 200
  exit 1
fi
tail -n 1 "$log"
warnings=$(grep -c 'warning: ' "$log" || true)
if [[ $warnings -gt 0 ]]; then
  echo "build: $warnings compiler warning(s) in $dir (where, and what; the whole log: $log):"
  grep -E 'warning: |inlined from .*(runtime|bindings|bench|tests|examples|fuzz)/' "$log" | sort | uniq -c | sort -rn | head -n 40
fi
