#!/usr/bin/env bash
# tools/fuzz.sh [TARGET...]: builds the libFuzzer targets (fuzz/*_fuzz.cpp) with clang, ASan
# and UBSan in build-fuzz (or THICKET_FUZZ_TREE), and runs each for a bounded time on a working
# copy of its seed corpus and regressions. Fails on the first crash, leak or timeout, leaving the
# input in the tree's artifacts/TARGET/; copy it to fuzz/regressions/TARGET/ once fixed.
#   THICKET_FUZZ_SECONDS  time per target (default 60)
#   THICKET_FUZZ_TIMEOUT  seconds one input may take before it counts as a hang (default 5)
#   THICKET_FUZZ_JOBS     parallel fuzzing processes per target (default 1)
#   THICKET_FUZZ_ARGS     more libFuzzer flags, e.g. "-max_len=4096 -only_ascii=1"
#   THICKET_FUZZ_TREE     a build tree already configured with -DTHICKET_FUZZ=ON to build the
#                         targets in, instead of build-fuzz (test.sh: its ASan tree)
#   THICKET_FUZZ_PARALLEL targets fuzzed at once (default: the cores; test.sh: one, beside its
#                         ThreadSanitizer test)
#   THICKET_FUZZ_CLAIMS   a folder shared by several fuzz.sh at once (test.sh's two lanes): each
#                         target is fuzzed by the one that claims it first (makes CLAIMS/TARGET)
# Targets: brain, expr, scenario, map, checkpoint, import, reload (default: all).
set -euo pipefail
claims=${THICKET_FUZZ_CLAIMS:+$(realpath -m -- "$THICKET_FUZZ_CLAIMS")}  # (from where it was given)
cd "$(dirname "$0")/.."
root=$PWD
seconds=${THICKET_FUZZ_SECONDS:-60}
timeout=${THICKET_FUZZ_TIMEOUT:-5}
jobs=${THICKET_FUZZ_JOBS:-1}
targets=("$@")
if [[ ${#targets[@]} -eq 0 ]]; then
  for f in fuzz/*_fuzz.cpp; do t=$(basename "$f" _fuzz.cpp); targets+=("$t"); done
fi

# -O1 and line tables only, as libFuzzer's documentation builds its targets (a crash's stack
# still names file and line); asserts off, as before (NDEBUG). A unity build, as test.sh's
# sanitizer builds (142 -> 113 s on 2 cores), without precompiled headers and linked by lld as
# they are. (At -O0 it built in 80 s, not 150, but fuzzed ten times fewer inputs a second.)
tree=${THICKET_FUZZ_TREE:-build-fuzz}
if [[ -n $claims && ! -d $claims ]]; then  # else every claim would fail, and nothing be fuzzed
  echo "fuzz: THICKET_FUZZ_CLAIMS=$THICKET_FUZZ_CLAIMS is not a folder" >&2
  exit 2
fi
if [[ -z ${THICKET_FUZZ_TREE:-} ]]; then
  CC=clang CXX=clang++ cmake -S . -B build-fuzz -G Ninja -DCMAKE_BUILD_TYPE=None \
    "-DCMAKE_CXX_FLAGS=-O1 -gline-tables-only -DNDEBUG" -DTHICKET_FUZZ=ON -DTHICKET_TESTS=OFF -DTHICKET_BENCH=OFF \
    -DCMAKE_UNITY_BUILD=ON -DCMAKE_DISABLE_PRECOMPILE_HEADERS=ON -DCMAKE_EXE_LINKER_FLAGS=-fuse-ld=lld >/dev/null
elif ! grep -q '^THICKET_FUZZ:BOOL=ON' "$tree/CMakeCache.txt" 2>/dev/null; then
  echo "fuzz: $tree is not a build tree configured with -DTHICKET_FUZZ=ON" >&2
  exit 2
fi
ninja -C "$tree" -j "$(nproc)" "${targets[@]/%/_fuzz}" | tail -n 1

export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1:allocator_may_return_null=1}
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}
cd "$tree"  # with -jobs, libFuzzer writes fuzz-N.log files here
# One target in a folder of its own (its -jobs logs stay apart from the others').
fuzz_one() {
  local t=$1 work=corpus/$1 artifacts=artifacts/$1
  mkdir -p "$work" "$artifacts" "run-$t"
  local flags=(-max_total_time="$seconds" -timeout="$timeout" -rss_limit_mb=2048 -malloc_limit_mb=1024
         -max_len=8192 -print_final_stats=1 -artifact_prefix="$PWD/$artifacts/")
  flags+=(-close_fd_mask=1)  # the example leaves print; their output is not what is tested
  [[ -f $root/fuzz/$t.dict ]] && flags+=(-dict="$root/fuzz/$t.dict")
  [[ $jobs -gt 1 ]] && flags+=(-jobs="$jobs" -workers="$jobs")
  rm -f "run-$t"/fuzz-*.log
  # shellcheck disable=SC2086
  if ! (cd "run-$t" && ../"${t}"_fuzz "../$work" "$root/fuzz/corpus/$t" "$root/fuzz/regressions/$t" "${flags[@]}" \
      ${THICKET_FUZZ_ARGS:-} >"../$t.log" 2>&1); then
    tail -n 60 "$t.log" "run-$t"/fuzz-*.log 2>/dev/null || true
    echo "fuzz: $t FAILED: the input is in $tree/$artifacts/ (log: $tree/$t.log)" >&2
    return 1
  fi
  echo "fuzz: $t for ${seconds}s: $(grep -E "stat::number_of_executed_units|stat::average_exec_per_sec" "$t.log" | tr -s ' ' | tr '\n' ' ')"
}
# As many targets at once as there are cores (or THICKET_FUZZ_PARALLEL) when each fuzzes in one
# process (THICKET_FUZZ_JOBS=1).
parallel=$(( jobs > 1 ? 1 : ${THICKET_FUZZ_PARALLEL:-$(nproc)} ))
[[ $parallel -ge 1 ]] || parallel=1
failed=0 running=0
for t in "${targets[@]}"; do
  if [[ $running -ge $parallel ]]; then
    wait -n || failed=1
    running=$((running - 1))
  fi
  # claimed when a slot is free, not before: a target waiting here is another lane's to take
  [[ -z $claims ]] || mkdir "$claims/$t" 2>/dev/null || continue
  fuzz_one "$t" &
  running=$((running + 1))
done
while [[ $running -gt 0 ]]; do
  wait -n || failed=1
  running=$((running - 1))
done
exit $failed
