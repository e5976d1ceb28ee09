#!/usr/bin/env bash
# tools/build.sh DIR BUILD_TYPE [cmake options...]: configure (once) and build.
set -euo pipefail
cd "$(dirname "$0")/.."
dir=$1 type=$2
shift 2
cmake -S . -B "$dir" -G Ninja -DCMAKE_BUILD_TYPE="$type" "$@" >/dev/null
ninja -C "$dir" -j "$(nproc)" | tail -n 1
