#!/usr/bin/env bash
# Runs per second of a batch of the arena example (issue 15): one process on 1 and 2 threads
# (the baseline), MPI at 1, 2 and 4 ranks (4 oversubscribed on a 2-core machine), and two
# --shard processes side by side plus their merge. Every configuration runs the same batch and
# must write the same rows (less wall time): the script checks it, so a fast wrong answer
# cannot pass for a speed-up.
#
# Usage: bench/bench_batch.sh [THICKET] [RUNS] [TICKS]
#   THICKET  a thicket built with -DTHICKET_MPI=ON (default build-mpi/thicket; without mpirun or
#            an MPI build, the MPI lines are skipped)
#   RUNS     runs in the batch (default 8), TICKS ticks per run (default 300)
set -euo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
thicket=$(realpath "${1:-$here/build-mpi/thicket}")
runs=${2:-8}
ticks=${3:-300}
arena="$here/scripts/examples/arena/arena.yaml"
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
args=(run "$arena" --runs "$runs" --ticks "$ticks" --quiet)

now() { date +%s.%N; }
since() { awk -v a="$1" -v b="$2" 'BEGIN { print b - a }'; }
rows() { cut -d, -f1-6,9- "$1"; }
report() {  # report LABEL SECONDS OUT
  local label=$1 secs=$2 out=$3 same="same rows"
  if ! cmp -s <(rows "$dir/base.csv") <(rows "$out"); then same="ROWS DIFFER"; fi
  awk -v l="$label" -v s="$secs" -v r="$runs" -v b="$base_rate" -v same="$same" \
    'BEGIN { printf "%-34s %7.2f s  %6.2f runs/s  x%.2f  (%s)\n", l, s, r / s, (r / s) / b, same }'
}

echo "bench_batch: the arena, $runs runs of $ticks ticks ($(nproc) cores)"
t0=$(now); "$thicket" "${args[@]}" --threads 1 --out "$dir/base.csv" 2>/dev/null; t1=$(now)
base_secs=$(since "$t0" "$t1")
base_rate=$(awk -v r="$runs" -v s="$base_secs" 'BEGIN { print r / s }')
report "1 process, --threads 1 (baseline)" "$base_secs" "$dir/base.csv"
t0=$(now); "$thicket" "${args[@]}" --threads 2 --out "$dir/t2.csv" 2>/dev/null; t1=$(now)
report "1 process, --threads 2" "$(since "$t0" "$t1")" "$dir/t2.csv"

t0=$(now)
"$thicket" "${args[@]}" --threads 1 --shard 1/2 --out "$dir/p1.jsonl" 2>/dev/null &
"$thicket" "${args[@]}" --threads 1 --shard 2/2 --out "$dir/p2.jsonl" 2>/dev/null
wait
"$thicket" merge "$dir/shards.csv" "$dir/p1.jsonl" "$dir/p2.jsonl" 2>/dev/null
t1=$(now)
report "2 shards side by side + merge" "$(since "$t0" "$t1")" "$dir/shards.csv"

if ! command -v mpirun >/dev/null 2>&1; then
  echo "(no mpirun: the MPI lines are left out)"
  exit 0
fi
for config in "1 1" "2 1" "4 1" "2 2"; do
  read -r ranks threads <<< "$config"
  t0=$(now)
  if ! mpirun --oversubscribe -n "$ranks" "$thicket" "${args[@]}" --threads "$threads" --out "$dir/mpi.csv" 2>"$dir/err"; then
    echo "mpirun -n $ranks failed (is $thicket built with -DTHICKET_MPI=ON?): $(tail -3 "$dir/err")"
    exit 1
  fi
  t1=$(now)
  report "mpirun -n $ranks, --threads $threads" "$(since "$t0" "$t1")" "$dir/mpi.csv"
done
