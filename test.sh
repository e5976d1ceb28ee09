#!/usr/bin/env bash
# Runs every test: the end-to-end CLI tests on a Release build and on an AddressSanitizer +
# UndefinedBehaviorSanitizer build, the unit tests (doctest) on the latter (and in Release those
# that the sanitizer build samples or skips, at full scale: the reference model on 7,000 random
# trees, every Moving AI scenario, the other random-case comparisons, the allocation count), the
# installed package
# and thicket-game built against it and played headless, the threaded tests under
# ThreadSanitizer and, beside them, each fuzz target (built in the ASan tree) for a bounded time
# (THICKET_FUZZ_SECONDS each, default 8; 0 skips fuzzing). Each sanitizer tree is built while
# the tests before it run, at the lowest priority (see below). ctest runs three
# tests at a time on the 2 cores, four in the Release tree: several wait on a browser, mpirun or
# a server much of their time, and at -j2 a core stood idle then (Release ctest 169 -> 142 s,
# ASan 263 -> 245 s on the 2-vCPU VM). The Release tests took 364 CPU-s in 226 s at -j3; at -j4,
# in two pairs of runs side by side, 213 s against 241 and 265 against 275 (the ASan tests keep
# -j3: they kept the cores ~1.8 busy, and at -j4 took 280 s against 248, side by side). No test
# reads the wall clock, and their time limits are far from it.
set -euo pipefail
cd "$(dirname "$0")"
tools/install_deps.sh
# MPI runs (issue 15) when Open MPI is installed (tools/install_deps.sh installs it): the Release
# build is made with -DTHICKET_MPI=ON, which adds the e2e_mpi test (mpirun -n 1, 2, 3 against one
# process). A thicket built so behaves as the default one unless mpirun starts it (MPI is
# initialised only then); the ASan build below stays without MPI and tests that build's refusal.
mpi=()
if command -v mpirun >/dev/null 2>&1 && dpkg-query -W -f='${Status}' libopenmpi-dev 2>/dev/null | grep -q "install ok installed"; then
  mpi=(-DTHICKET_MPI=ON)
fi
# -DTHICKET_PYTHON=ON: the Python module too (bindings/python; ctest runs its pytest suite).
# -DTHICKET_BENCH=OFF: no test runs the benchmarks, and building them takes a minute of the 2
# cores (./setup.sh builds them, with -DTHICKET_BENCH=ON). -DTHICKET_FUZZ_REPLAYS=OFF: the ASan
# tree below replays the fuzz corpus and regressions under the sanitizers (25 s of CPU less).
# -DTHICKET_UNIT_TESTS=scale: of the unit tests, only the files whose tests the ASan tree runs
# smaller or not at all (CMakeLists.txt finds them), at full scale here; the ASan tree runs every
# unit test (~100 s of CPU less: the whole suite compiled in ~130 s and ran in ~70 here, these
# twelve files in ~51 and ~48).
tools/build.sh build Release -DTHICKET_PYTHON=ON -DTHICKET_BENCH=OFF -DTHICKET_FUZZ_REPLAYS=OFF \
  -DTHICKET_UNIT_TESTS=scale "${mpi[@]}"

# Background jobs: each prints into a log of its own, shown (and its failure failing this script)
# when it is waited for. On an early exit (a failed test) the trap ends each job's whole process
# tree, children first listed, then signalled: a `timeout` runs its test in a process group of
# its own, so neither signalling the job's shell nor its process group reached the running test
# and its game.
declare -A job_pid=() job_log=()
tree_pids() { local c; echo "$1"; for c in $(pgrep -P "$1" 2>/dev/null); do tree_pids "$c"; done; }
stop_jobs() {
  local name pids
  for name in "${!job_pid[@]}"; do
    pids=$(tree_pids "${job_pid[$name]}")
    # shellcheck disable=SC2086
    kill -TERM $pids 2>/dev/null || true
    rm -f "${job_log[$name]}"
  done
}
trap stop_jobs EXIT
start_job() {  # start_job NAME COMMAND...: COMMAND in the background, its output in a log
  local name=$1
  shift
  job_log[$name]=$(mktemp)
  "$@" </dev/null >"${job_log[$name]}" 2>&1 &
  job_pid[$name]=$!
}
finish_job() {  # finish_job NAME: waits for the job, prints its output, fails as it failed
  local name=$1 rc=0
  wait "${job_pid[$name]}" || rc=$?
  cat "${job_log[$name]}"
  rm -f "${job_log[$name]}"
  unset "job_pid[$name]" "job_log[$name]"
  if [[ $rc != 0 ]]; then
    echo "test.sh: $name failed (exit status $rc)" >&2
    exit "$rc"
  fi
}

# The sanitizer builds are at -O1 (TSan's THICKET_TSAN adds it) with line tables only (-g1: a
# report still names file and line), which builds them about a sixth (ASan) and a third (TSan)
# faster than full debug information on 2 cores; and as unity builds (several
# files compiled as one: ASan 286 -> 222 s, TSan 87 -> 60 s on 2 cores), as the Release build
# above is (CMakeLists.txt makes it the default: 386 -> 288 s, the code as fast). The sanitizer trees
# are built with clang (the fuzzers' compiler, installed anyway), the Release build with gcc:
# clang compiled the ASan tree in 127 s against gcc's 291 s on 2 cores (252 s of CPU against
# 595 s; TSan build and run 72 s against 93 s), and the tests ran no slower under its ASan
# (ctest 308 s against 354-383 s): the CI's budget is 20 minutes. gcc's sanitizers remain
# a configure away (drop CC and CXX).
# -DTHICKET_WERROR=ON: clang's -Wall -Wextra warnings fail this build (the tree has none).
# Unity builds need no precompiled headers (with them the ASan tree built no faster), and clang
# links with lld (3.5 s -> 0.8 s for the ASan thicket_tests; ~40 s of the tree's linking).
clang_tree=(-DCMAKE_DISABLE_PRECOMPILE_HEADERS=ON)
clang_link=-fuse-ld=lld
# The ASan tree's programs are linked as position-dependent (-no-pie): as PIEs the loader applied
# ~750k relocations (17.9 MB, ASan's metadata of globals) at every start, a page fault each
# (thicket --version 125 -> 93 ms, ASan ctest 365 -> 343 s on the 2-vCPU AMD EPYC VM; the CLI
# suites start hundreds of processes). The TSan tree stays a PIE (untried without).
# The ASan tree is also the fuzz targets' tree (-DTHICKET_FUZZ=ON: coverage instrumentation,
# libFuzzer linked into the *_fuzz programs only; tools/fuzz.sh builds them there), at -O1 as
# libFuzzer wants: one tree instead of two. On the AMD EPYC VM: build 180 -> 352 s, ctest
# 343 -> 236 s (a `thicket check` starts in 140 ms, not 370), and no 153 s build of build-fuzz;
# the fuzzers ran as many inputs a second (asserts stay on here; build-fuzz had NDEBUG).
# The ASan tree is built while the Release tests run, at the lowest priority (nice 19): the
# tests keep the cores first, and the compilers take what they leave (the tests, at -j4, kept
# the 2 cores only ~1.6 busy: they wait on browsers, servers and mpirun, and the last ones run
# alone).
asan_build() {
  CC=clang CXX=clang++ nice -n 19 tools/build.sh build-asan None "-DCMAKE_CXX_FLAGS=-O1 -g1" "-DCMAKE_C_FLAGS=-O1 -g1" \
    -DTHICKET_SANITIZE=ON -DTHICKET_FUZZ=ON -DTHICKET_BENCH=OFF \
    "${clang_tree[@]}" "-DCMAKE_EXE_LINKER_FLAGS=$clang_link -no-pie" -DTHICKET_WERROR=ON
}
start_job "the ASan build" asan_build
(cd build && ctest --output-on-failure -j4)
# The library as a package (SPEC 8.1): build/ installed into a temporary prefix, and a CMake and
# a pkg-config (C) consumer built and run against it (tests/consumer; about 10 s).
# THICKET_SHARED_CHECK=1 also builds libthicket.so alone, unoptimised, in build-shared/ (about
# 2 min of CPU, so off by default) and checks it the same way.
shared=()
if [[ ${THICKET_SHARED_CHECK:-0} == 1 ]]; then
  cmake -S . -B build-shared -G Ninja -DCMAKE_BUILD_TYPE=None -DBUILD_SHARED_LIBS=ON -DTHICKET_TESTS=OFF \
    -DTHICKET_BENCH=OFF >/dev/null
  ninja -C build-shared -j "$(nproc)" thicket_lib | tail -n 1
  shared=(build-shared)
fi
# thicket-game (examples/game, issue 29) built against build/ installed into a fresh prefix and
# played headless under SDL's offscreen driver: outcomes, screenshots (pixel checks), the
# debugger, pause/step, hot reload of its mod files during play, broken files (about 35 s).
# Both run beside the rest of the ASan build and then the ASan tests (they only read build/):
# half their time is spent waiting on a game's frames or a consumer's configure, which the
# compilers fill. (Waited for before the ASan tests, they ran alone for the last ~55 s of
# be63cc25's clean run, one core idle.)
package_and_game() { timeout 300 tests/package_test.sh build "${shared[@]}" && timeout 300 tests/game_test.sh build; }
start_job "the package or game test" package_and_game
finish_job "the ASan build"
# tick_all on the game's threads under ThreadSanitizer: only the threaded tests' target
# (tests/unit/engine/test_tick_all.cpp: native and Lua brains on 1-16 threads, deferred calls, slicing;
# tests/unit/sim/test_spin_barrier.cpp: the scenario workers' barrier orders their plain writes),
# built at the lowest priority while the ASan tests run (it takes what they leave idle, ~30 of its
# ~100 s of CPU in two clean runs; the rest after them).
tsan_build() {
  CC=clang CXX=clang++ nice -n 19 cmake -S . -B build-tsan -G Ninja -DCMAKE_BUILD_TYPE=None -DCMAKE_CXX_FLAGS=-g1 \
    -DTHICKET_TSAN=ON -DTHICKET_BENCH=OFF "${clang_tree[@]}" "-DCMAKE_EXE_LINKER_FLAGS=$clang_link" >/dev/null &&
    nice -n 19 ninja -C build-tsan -j "$(nproc)" thicket_threads_test | tail -n 1
}
start_job "the TSan build" tsan_build
# The sanitizer build runs ~10x slower: the reference-model comparison takes the first 300
# random trees of each batch there (all 7,000 in the Release build above).
(cd build-asan && ASAN_OPTIONS=detect_leaks=1 THICKET_REFERENCE_TREES=300 ctest --output-on-failure -j3)
finish_job "the package or game test"
tsan_test() { TSAN_OPTIONS="halt_on_error=1 second_deadlock_stack=1" build-tsan/thicket_threads_test; }
# Each fuzz target (built in the ASan tree) for a bounded time: seven targets of 8 s each, in
# lanes that take the next target not yet taken (THICKET_FUZZ_CLAIMS). The cores but one fuzz
# beside the TSan test (one core's work, ~32 s alone), and once it has ended that core fuzzes too:
# 57 s for both in 1667d17's clean run, against 65 s with one lane and 113 s for the TSan test
# and then the fuzzers two at a time. Not two lanes beside the TSan test: the fuzzers would fuzz
# a third less in their 8 s.
# (The targets are built with the ASan tree above: each lane's fuzz.sh finds nothing to build,
# so two ninjas never build in that tree at once.)
fuzz_seconds=${THICKET_FUZZ_SECONDS:-8}
if [[ $fuzz_seconds -gt 0 ]]; then
  fuzz_claims=$PWD/build-asan/fuzz-claims
  rm -rf "$fuzz_claims" && mkdir "$fuzz_claims"
  fuzz_lanes() {  # fuzz_lanes N: fuzz.sh fuzzing N targets at a time, beside the other lanes
    THICKET_FUZZ_SECONDS=$fuzz_seconds THICKET_FUZZ_TREE=build-asan THICKET_FUZZ_PARALLEL=$1 \
      THICKET_FUZZ_CLAIMS=$fuzz_claims tools/fuzz.sh
  }
  # The lanes start with the ASan tests' end, beside the end of the TSan build (its last
  # objects compile one at a time: be63cc25's clean run waited 56 s for it, a core idle) and then
  # the TSan test; the TSan test's core fuzzes what is left when it ends.
  start_job "the fuzz lanes" fuzz_lanes $(( $(nproc) > 1 ? $(nproc) - 1 : 1 ))
  finish_job "the TSan build"
  tsan_test
  fuzz_lanes 1
  finish_job "the fuzz lanes"
else
  finish_job "the TSan build"
  tsan_test
fi
