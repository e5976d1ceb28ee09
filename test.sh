#!/usr/bin/env bash
# Runs every test: the unit tests (doctest) and the end-to-end CLI tests, on a Release
# build and on an AddressSanitizer + UndefinedBehaviorSanitizer build; then each fuzz target
# for a bounded time (THICKET_FUZZ_SECONDS each, default 30; 0 skips fuzzing). ctest runs two
# tests at a time (the machines have 2 cores; no test reads the wall clock).
set -euo pipefail
cd "$(dirname "$0")"
tools/install_deps.sh
tools/build.sh build Release
(cd build && ctest --output-on-failure -j2)
tools/build.sh build-asan Debug -DTHICKET_SANITIZE=ON -DTHICKET_BENCH=OFF
(cd build-asan && ASAN_OPTIONS=detect_leaks=1 ctest --output-on-failure -j2)
fuzz_seconds=${THICKET_FUZZ_SECONDS:-30}
if [[ $fuzz_seconds -gt 0 ]]; then THICKET_FUZZ_SECONDS=$fuzz_seconds tools/fuzz.sh; fi
