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
# MPI runs (issue 15) when Open MPI is installed (tools/install_deps.sh installs it): a build of
# the CLI alone with -DTHICKET_MPI=ON, and its e2e_mpi test (mpirun -n 1, 2, 3 against one process).
if command -v mpirun >/dev/null 2>&1 && dpkg-query -W -f='${Status}' libopenmpi-dev 2>/dev/null | grep -q "install ok installed"; then
  cmake -S . -B build-mpi -G Ninja -DCMAKE_BUILD_TYPE=Release -DTHICKET_MPI=ON -DTHICKET_BENCH=OFF >/dev/null
  ninja -C build-mpi -j "$(nproc)" thicket | tail -n 1
  (cd build-mpi && ctest --output-on-failure -R '^e2e_mpi$')
fi
tools/build.sh build-asan Debug -DTHICKET_SANITIZE=ON -DTHICKET_BENCH=OFF
(cd build-asan && ASAN_OPTIONS=detect_leaks=1 ctest --output-on-failure -j2)
fuzz_seconds=${THICKET_FUZZ_SECONDS:-30}
if [[ $fuzz_seconds -gt 0 ]]; then THICKET_FUZZ_SECONDS=$fuzz_seconds tools/fuzz.sh; fi
