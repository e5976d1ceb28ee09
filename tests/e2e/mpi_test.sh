#!/usr/bin/env bash
# End-to-end test of MPI runs (issue 15; a build with -DTHICKET_MPI=ON): `mpirun -n K thicket
# run SCENARIO` for K = 1, 2, 3 writes what one process writes: the --out rows (less wall time
# and throughput, which differ from run to run, as in scenario_test.sh), the --series and
# --record files byte for byte, the summary, the --log lines in run order, the exit status;
# with 5 runs (3 ranks do not divide them) and 1 run (idle ranks), script errors, --strict,
# a run that fails to load. Usage: mpi_test.sh path/to/thicket path/to/mpirun
set -u
. "$(dirname "$0")/lib.sh"  # thicket, here, dir, ok, bad
mpirun=${2:-mpirun}
arena="$here/scripts/examples/arena/arena.yaml"
# Root may run mpirun here (containers, CI); more ranks than cores are fine for a test.
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
mpi() { local n=$1; shift; "$mpirun" --oversubscribe -n "$n" "$thicket" "$@"; }

# What thicket printed (its summary less wall figures, diagnostics, log lines), without what
# mpirun itself says between lines of dashes (e.g. that a rank exited with a non-zero status).
messages() {
  awk '/^----------+$/ { inside = !inside; next } !inside' "$1" | sed -E 's/wall [0-9.]+ s, [0-9]+ agent-ticks\/s//'
}
# Usage: compare NAME EXT RANKS ARGS... : one process, then mpirun -n RANKS, same arguments.
compare() {
  local name=$1 ext=$2 n=$3
  shift 3
  "$thicket" "$@" --out "$dir/$name-1p.$ext" 2>"$dir/$name-1p.err"
  local want=$?
  mpi "$n" "$@" --out "$dir/$name-$n.$ext" 2>"$dir/$name-$n.err"
  local got=$?
  [[ $got == "$want" ]] && ok || bad "$name, $n rank(s): exit $got, one process $want: $(cat "$dir/$name-$n.err")"
  rows() { if [[ -e "$1" ]]; then "no_wall_$ext" "$1"; else echo "(no file: the first run failed to load)"; fi; }
  cmp -s <(rows "$dir/$name-1p.$ext") <(rows "$dir/$name-$n.$ext") && ok ||
    bad "$name, $n rank(s): the rows differ: $(diff <(rows "$dir/$name-1p.$ext") <(rows "$dir/$name-$n.$ext") | head -5)"
  cmp -s <(messages "$dir/$name-1p.err") <(messages "$dir/$name-$n.err") && ok ||
    bad "$name, $n rank(s): standard error differs: $(diff <(messages "$dir/$name-1p.err") <(messages "$dir/$name-$n.err") | head -8)"
}

for n in 1 2 3; do
  for runs in 5 1; do
    compare "arena$runs" csv "$n" run "$arena" --ticks 50 --runs "$runs" --threads 1 --quiet --series "$dir/s.csv"
    mv "$dir/s.csv" "$dir/series-$runs-$n.csv"
  done
done
"$thicket" run "$arena" --ticks 50 --runs 5 --threads 1 --quiet --series "$dir/series1p.csv" 2>/dev/null
for n in 1 2 3; do
  cmp -s "$dir/series1p.csv" "$dir/series-5-$n.csv" && ok || bad "--series differs on $n rank(s)"
done
# JSONL rows, each rank on 2 threads, with a record of run 1 (rank 0's) that is one process's.
compare arenaj jsonl 2 run "$arena" --ticks 40 --runs 3 --threads 2 --quiet --record "$dir/rec.jsonl"
mv "$dir/rec.jsonl" "$dir/rec2.jsonl"
"$thicket" run "$arena" --ticks 40 --threads 2 --quiet --record "$dir/rec.jsonl" 2>/dev/null
cmp -s "$dir/rec.jsonl" "$dir/rec2.jsonl" && ok || bad "the record of run 1 differs under mpirun"

# A sweep (rows carry their parameters, the summary groups by set), 3 ranks, 2 runs a set.
sed -e "s|brain: |brain: $here/scripts/examples/arena/|" "$arena" > "$dir/sweep.yaml"
printf 'sweep:\n  groups.west_post.count: [20, 60]\n' >> "$dir/sweep.yaml"
compare sweep jsonl 3 run "$dir/sweep.yaml" --ticks 20 --runs 2 --threads 1 --set groups.players.vehicle.max_speed=4,6
grep -q '^thicket: set 4 ' "$dir/sweep-3.err" && ok || bad "the sweep's summary by set under mpirun: $(cat "$dir/sweep-3.err")"

# Script errors on every run (exit 1), their log lines in run order in --log; --strict ends the
# batch at the first run it stops; a run that fails to load ends it with exit 2.
mkdir "$dir/w"
cat > "$dir/w/count.lua" <<'LUA'
local thicket = require("thicket")
local L = {}
function L.Count(agent)
  agent.n = (agent.n or 0) + 1
  thicket.gauge("level", agent.n)
  if agent.id == 2 and agent.n == 3 then error("boom " .. thicket.random(1000000)) end
  return thicket.RUNNING
end
return L
LUA
printf 'tree: count\nleaves: [count.lua]\nroot: {action: Count}\n' > "$dir/w/count.yaml"
printf 'scenario: w\nticks: 6\nworld: {size: [10, 10]}\nteams: [a]\ngroups:\n  - {name: g, team: a, count: 2, brain: count.yaml, spawn: {centre: [5, 5], radius: 1}}\nmetrics: [level]\n' > "$dir/w/s.yaml"
compare errors csv 3 run "$dir/w/s.yaml" --runs 4 --threads 1
[[ $(grep -c 'boom' "$dir/errors-3.err") == 4 ]] && ok || bad "4 script errors expected on rank 0's stderr: $(cat "$dir/errors-3.err")"
compare errlog csv 2 run "$dir/w/s.yaml" --runs 4 --threads 1 --log "$dir/log.txt"
mv "$dir/log.txt" "$dir/log2.txt"
"$thicket" run "$dir/w/s.yaml" --runs 4 --threads 1 --log "$dir/log.txt" 2>/dev/null
cmp -s "$dir/log.txt" "$dir/log2.txt" && ok || bad "--log differs under mpirun: $(diff "$dir/log.txt" "$dir/log2.txt" | head -5)"
compare strict csv 3 run "$dir/w/s.yaml" --runs 4 --threads 1 --strict
printf 'local L = {}\nreturn L {\n' > "$dir/w/bad.lua"
printf 'tree: bad\nleaves: [bad.lua]\nroot: {action: Count}\n' > "$dir/w/bad.yaml"
sed 's/count.yaml/bad.yaml/' "$dir/w/s.yaml" > "$dir/w/bad_s.yaml"
compare load csv 3 run "$dir/w/bad_s.yaml" --runs 4 --threads 1

# Usage errors, said once (by rank 0), exit 64 from mpirun.
for args in "--shard 1/2 --out $dir/p.jsonl" "--watch"; do
  # shellcheck disable=SC2086
  mpi 2 run "$arena" --ticks 1 $args >/dev/null 2>"$dir/usage_err"
  [[ $? == 64 ]] && ok || bad "mpirun -n 2 run arena $args should exit 64"
  [[ $(grep -c '^thicket: ' "$dir/usage_err") == 1 ]] && ok || bad "the usage error should be said once: $(cat "$dir/usage_err")"
done

# Other commands than run are refused under mpirun (each rank would run them), said once.
mpi 2 dump "$dir/w/count.yaml" >"$dir/dump_out" 2>"$dir/dump_err"
[[ $? == 64 ]] && ok || bad "mpirun -n 2 dump should exit 64: $(cat "$dir/dump_err")"
[[ $(grep -c "^thicket: under mpirun only 'thicket run SCENARIO'" "$dir/dump_err") == 1 && ! -s "$dir/dump_out" ]] && ok ||
  bad "dump under mpirun: $(cat "$dir/dump_out" "$dir/dump_err")"

# Rank 0 cannot write --out: every rank stops (64), none waits for it.
timeout 60 "$mpirun" --oversubscribe -n 2 "$thicket" run "$arena" --ticks 1 --out "$dir/nowhere/o.csv" >/dev/null 2>"$dir/setup_err"
[[ $? == 64 ]] && ok || bad "an output file rank 0 cannot write: exit 64 expected: $(cat "$dir/setup_err")"
grep -q "cannot write the output file" "$dir/setup_err" && ok || bad "the setup error: $(cat "$dir/setup_err")"

# A rank that cannot see the scenario (each rank runs in a folder of its own; rank 1's is
# empty) or its brains: every rank stops (2), none waits for it, and rank 0 has emptied no
# output (--out and --log hold what they held: as on one process, nothing is opened before
# every rank has set up). Each rank starts in "$dir/rank<N>" (OMPI_COMM_WORLD_RANK).
mkdir -p "$dir/rank0/w" "$dir/rank1/w" "$dir/rank2"
cp "$dir/w/count.lua" "$dir/w/count.yaml" "$dir/w/s.yaml" "$dir/rank0/w/"
cp "$dir/w/s.yaml" "$dir/rank1/w/"  # the scenario, not its brain
printf '#!/bin/sh\ncd "%s/rank$OMPI_COMM_WORLD_RANK" && exec "%s" "$@"\n' "$dir" "$thicket" > "$dir/in_rank_dir"
chmod +x "$dir/in_rank_dir"
for n in 2 3; do
  echo old > "$dir/kept.csv"
  echo old > "$dir/kept.log"
  timeout 60 "$mpirun" --oversubscribe -n "$n" "$dir/in_rank_dir" run w/s.yaml --runs 3 --threads 1 --quiet \
    --out "$dir/kept.csv" --log "$dir/kept.log" >/dev/null 2>"$dir/unseen_err"
  [[ $? == 2 ]] && ok || bad "a rank that cannot see the files, $n ranks: exit 2 expected: $(cat "$dir/unseen_err")"
  grep -q "another MPI rank could not set up the batch" "$dir/unseen_err" && ok || bad "rank 0's word: $(cat "$dir/unseen_err")"
  [[ $(cat "$dir/kept.csv" "$dir/kept.log") == $'old\nold' ]] && ok || bad "$n ranks: outputs emptied by a batch that never ran"
done
# Ranks whose copies differ (rank 1's brain edited): refused, not merged into one batch.
cp "$dir/w/count.lua" "$dir/rank1/w/"
sed 's/root: {action: Count}/root: {sequence: [{action: Count}]}/' "$dir/w/count.yaml" > "$dir/rank1/w/count.yaml"
timeout 60 "$mpirun" --oversubscribe -n 2 "$dir/in_rank_dir" run w/s.yaml --runs 2 --threads 1 --quiet >/dev/null 2>"$dir/differ_err"
[[ $? == 2 ]] && ok || bad "ranks with other copies of a brain: exit 2 expected: $(cat "$dir/differ_err")"
grep -q "the MPI ranks read different bytes" "$dir/differ_err" && ok || bad "other copies: $(cat "$dir/differ_err")"
# Rank 0 cannot see the scenario: it says so (no such file), and no rank waits.
timeout 60 "$mpirun" --oversubscribe -n 2 "$thicket" run "$dir/none.yaml" >/dev/null 2>"$dir/none_err"
[[ $? == 2 ]] && ok || bad "a missing scenario under mpirun: exit 2 expected: $(cat "$dir/none_err")"
grep -q "none.yaml: error: cannot open file: no such file" "$dir/none_err" && ok || bad "a missing scenario: $(cat "$dir/none_err")"

echo "mpi: $pass passed, $fail failed"
[[ $fail == 0 ]]
