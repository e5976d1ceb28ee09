#!/usr/bin/env bash
# End-to-end test of batches split over processes without MPI (issue 15): `--shard I/K` parts
# merged with `thicket merge` give the rows and the summary of a single process (CSV and JSONL,
# a sweep, more shards than runs, script errors, --strict, a run that fails to load), and bad
# merges are clear errors that write nothing. Wall time and throughput differ from run to run:
# they are left out of the comparisons, as in scenario_test.sh.
set -u
. "$(dirname "$0")/lib.sh"  # thicket, here, dir, ok, bad
arena_dir="$here/scripts/examples/arena"
arena="$arena_dir/arena.yaml"
# The arena's batches run THICKET_BATCH_TICKS ticks (40; the sanitizer build, ten times slower,
# takes 12: the splits and merges are the same, the runs shorter), the sweep's half as many.
ticks=${THICKET_BATCH_TICKS:-40}
sweep_ticks=$((ticks / 2))

# The summary (its "thicket:" lines; the shards printed their runs' script errors themselves)
# less its wall figures.
no_wall_summary() { grep '^thicket:' "$1" | sed -E 's/wall [0-9.]+ s, [0-9]+ agent-ticks\/s//'; }

# shards K of `run SCENARIO ARGS...`, then merge them into $dir/NAME.EXT beside a single run.
# Usage: split_and_merge NAME EXT K SCENARIO ARGS...
split_and_merge() {
  local name=$1 ext=$2 k=$3 scenario=$4
  shift 4
  "$thicket" run "$scenario" "$@" --quiet --out "$dir/$name-single.$ext" 2>"$dir/$name-single.err"
  echo $? > "$dir/$name-single.rc"
  local parts=()
  for ((i = k; i >= 1; i--)); do  # any order
    "$thicket" run "$scenario" "$@" --quiet --shard "$i/$k" --out "$dir/$name-part$i.jsonl" 2>"$dir/$name-part$i.err"
    parts+=("$dir/$name-part$i.jsonl")
  done
  "$thicket" merge "$dir/$name-merged.$ext" "${parts[@]}" 2>"$dir/$name-merged.err"
  echo $? > "$dir/$name-merged.rc"
}
same_as_single() {
  local name=$1 ext=$2
  cmp -s "$dir/$name-single.rc" "$dir/$name-merged.rc" && ok ||
    bad "$name: exit $(cat "$dir/$name-merged.rc") after merging, $(cat "$dir/$name-single.rc") on one process"
  "no_wall_$ext" "$dir/$name-single.$ext" > "$dir/a"
  "no_wall_$ext" "$dir/$name-merged.$ext" > "$dir/b"
  cmp -s "$dir/a" "$dir/b" && ok || bad "$name: merged rows differ from one process's: $(diff "$dir/a" "$dir/b" | head -5)"
  no_wall_summary "$dir/$name-single.err" > "$dir/a"
  no_wall_summary "$dir/$name-merged.err" > "$dir/b"
  cmp -s "$dir/a" "$dir/b" && ok || bad "$name: the merge's summary differs: $(diff "$dir/a" "$dir/b" | head -5)"
}

# ---- the arena, 7 runs over 3 shards (3 does not divide 7), CSV and JSONL
split_and_merge arena csv 3 "$arena" --ticks "$ticks" --runs 7 --threads 1
same_as_single arena csv
[[ $(($(wc -l < "$dir/arena-merged.csv") - 1)) == 7 ]] && ok || bad "7 rows expected: $(cat "$dir/arena-merged.csv")"
grep -q '^thicket: shard 2/3 of scenario arena: 2 of the batch.s 7 run(s) (run 2, 5)' "$dir/arena-part2.err" && ok ||
  bad "shard 2/3's line: $(cat "$dir/arena-part2.err")"
"$thicket" merge "$dir/arena-merged.jsonl" "$dir"/arena-part*.jsonl 2>/dev/null && ok || bad "merge into JSONL failed"
# Parts run on different thread counts: the summary gives the range (it gave the first part's).
"$thicket" run "$arena" --ticks 3 --runs 2 --threads 1 --quiet --shard 1/2 --out "$dir/thr-part1.jsonl" 2>/dev/null
"$thicket" run "$arena" --ticks 3 --runs 2 --threads 2 --quiet --shard 2/2 --out "$dir/thr-part2.jsonl" 2>/dev/null
for order in "1 2" "2 1"; do
  "$thicket" merge "$dir/thr.csv" "$dir/thr-part${order% *}.jsonl" "$dir/thr-part${order#* }.jsonl" 2>"$dir/thr.err" &&
    grep -q "^thicket: scenario arena: 2 run(s) of 3 tick(s) at dt [0-9.]* s on 1 to 2 thread(s); " "$dir/thr.err" &&
    ok || bad "merge of parts on 1 and 2 threads (parts $order): $(head -1 "$dir/thr.err")"
done
# A part that is no plain file is refused at once: a pipe would wait for ever, /dev/zero never
# ends, a folder is no "empty part".
mkfifo "$dir/pipe.jsonl"; mkdir -p "$dir/folder.jsonl"
for part in "$dir/pipe.jsonl" /dev/zero "$dir/folder.jsonl"; do
  timeout 20 "$thicket" merge "$dir/never.jsonl" "$dir/arena-part1.jsonl" "$part" 2>"$dir/merge.err"
  [[ $? == 2 ]] && grep -q "cannot read this part file: \(not a plain file\|a device, not a file\|a folder, not a file\)" "$dir/merge.err" &&
    ok || bad "merge of a part that is no plain file ($part): $(cat "$dir/merge.err")"
done
timeout 20 "$thicket" view "$dir/pipe.jsonl" -o "$dir/never.html" 2>"$dir/view.err"
[[ $? == 2 ]] && grep -q "pipe.jsonl: error: cannot open the record: not a plain file (a pipe or a socket)" "$dir/view.err" && ok ||
  bad "view of a pipe: $(cat "$dir/view.err")"
"$thicket" run "$arena" --ticks "$ticks" --runs 7 --threads 1 --quiet --out "$dir/arena-single.jsonl" 2>/dev/null
cmp -s <(no_wall_jsonl "$dir/arena-single.jsonl") <(no_wall_jsonl "$dir/arena-merged.jsonl") && ok ||
  bad "the merged JSONL differs from one process's"
# The wall times travel exactly: the merged rows carry the parts' figures.
grep -o '"wall_s":[^,]*' "$dir/arena-part3.jsonl" | sed 's/.*://' | head -1 > "$dir/w_part"
awk -F, 'NR == 4 { print $7 }' "$dir/arena-merged.csv" > "$dir/w_row"
awk '{ printf "%.6g\n", $1 }' "$dir/w_part" | cmp -s - "$dir/w_row" && ok || bad "run 3's wall_s: part $(cat "$dir/w_part"), row $(cat "$dir/w_row")"

# ---- --series: the shards keep their runs' samples in their parts, merge --series writes them
for i in 1 2; do
  "$thicket" run "$arena" --ticks 30 --runs 5 --threads 1 --quiet --series "$dir/unused.csv" --series-every 10 \
    --shard $i/2 --out "$dir/series-part$i.jsonl" 2>/dev/null
done
[[ ! -e "$dir/unused.csv" ]] && ok || bad "a shard should not write --series itself"
"$thicket" merge "$dir/series-merged.csv" --series "$dir/series-merged-s.csv" "$dir/series-part2.jsonl" "$dir/series-part1.jsonl" 2>/dev/null &&
  ok || bad "merge --series failed"
"$thicket" run "$arena" --ticks 30 --runs 5 --threads 1 --quiet --series "$dir/series-single-s.csv" --series-every 10 2>/dev/null
cmp -s "$dir/series-single-s.csv" "$dir/series-merged-s.csv" && ok ||
  bad "the merged series differs from one process's: $(diff "$dir/series-single-s.csv" "$dir/series-merged-s.csv" | head -5)"
# --series=FILE, as run takes its options (it was an unknown option of merge).
"$thicket" merge "$dir/series-merged2.csv" --series="$dir/series-merged2-s.csv" "$dir/series-part1.jsonl" "$dir/series-part2.jsonl" 2>"$dir/err" &&
  cmp -s "$dir/series-single-s.csv" "$dir/series-merged2-s.csv" && ok || bad "merge --series=FILE: $(head -1 "$dir/err")"
"$thicket" merge "$dir/x.csv" --series "$dir/x.jsonl" "$dir/series-part1.jsonl" "$dir/series-part2.jsonl" 2>"$dir/err"
[[ $? == 2 ]] && grep -q 'wants jsonl lines, but the shards kept csv lines' "$dir/err" && ok || bad "a series format mismatch: $(cat "$dir/err")"

# ---- one run, three shards: two have nothing to run
split_and_merge one csv 3 "$arena" --ticks 20 --runs 1 --threads 2
same_as_single one csv
grep -q 'no run of the batch.s 1' "$dir/one-part3.err" && ok || bad "an idle shard: $(cat "$dir/one-part3.err")"

# ---- a sweep (rows carry their parameters, the summary groups by set), 2 shards
sed -e "s|brain: |brain: $arena_dir/|" "$arena" > "$dir/sweep.yaml"
printf 'sweep:\n  groups.west_post.count: [20, 60]\n' >> "$dir/sweep.yaml"
split_and_merge sweep csv 2 "$dir/sweep.yaml" --ticks "$sweep_ticks" --runs 3 --threads 1 --set groups.players.vehicle.max_speed=4,6
same_as_single sweep csv
grep -q '^thicket: set 4 ' "$dir/sweep-merged.err" && ok || bad "the merge's summary by set: $(cat "$dir/sweep-merged.err")"
# Swept numbers in JSONL rows are the numbers used (.5 as 0.5), merged or not.
split_and_merge typed jsonl 2 "$dir/sweep.yaml" --ticks 5 --runs 1 --threads 1 --set groups.east_post.blackboard.home_x=.5,007,5.
same_as_single typed jsonl
[[ $(grep -o '"groups.east_post.blackboard.home_x":[^,]*' "$dir/typed-merged.jsonl" | cut -d: -f2 | sort -u | tr '\n' ' ') == "0.5 5 7 " ]] &&
  ok || bad "merged JSONL swept numbers: $(grep -o '"groups.east_post.blackboard.home_x":[^,]*' "$dir/typed-merged.jsonl")"

# ---- script errors (exit 1), and --strict, which ends the batch at its first stopped run
mkdir "$dir/w"
cat > "$dir/w/count.lua" <<'LUA'
local thicket = require("thicket")
local L = {}
function L.Count(agent)
  agent.n = (agent.n or 0) + 1
  thicket.gauge("level", agent.n)
  if agent.id == 2 and agent.n == 3 then error("boom") end
  return thicket.RUNNING
end
return L
LUA
printf 'tree: count\nleaves: [count.lua]\nroot: {action: Count}\n' > "$dir/w/count.yaml"
printf 'scenario: w\nticks: 6\nworld: {size: [10, 10]}\nteams: [a]\ngroups:\n  - {name: g, team: a, count: 2, brain: count.yaml, spawn: {centre: [5, 5], radius: 1}}\nmetrics: [level]\n' > "$dir/w/s.yaml"
split_and_merge errors csv 2 "$dir/w/s.yaml" --runs 3 --threads 1
same_as_single errors csv
[[ $(cat "$dir/errors-merged.rc") == 1 ]] && ok || bad "script errors: the merge should exit 1"
split_and_merge strict jsonl 2 "$dir/w/s.yaml" --runs 3 --threads 1 --strict
same_as_single strict jsonl
[[ $(wc -l < "$dir/strict-merged.jsonl") == 1 ]] && ok || bad "--strict: one row expected: $(cat "$dir/strict-merged.jsonl")"

# ---- a run that fails to load ends the batch (exit 2) as on one process
printf 'local L = {}\nreturn L {\n' > "$dir/w/bad.lua"
printf 'tree: bad\nleaves: [bad.lua]\nroot: {action: Count}\n' > "$dir/w/bad.yaml"
sed 's/count.yaml/bad.yaml/' "$dir/w/s.yaml" > "$dir/w/bad_s.yaml"
split_and_merge load csv 2 "$dir/w/bad_s.yaml" --runs 3 --threads 1
[[ $(cat "$dir/load-merged.rc") == 2 ]] && ok || bad "a load failure: the merge should exit 2"
cmp -s "$dir/load-single.err" "$dir/load-merged.err" && ok || bad "a load failure's diagnostics: $(diff "$dir/load-single.err" "$dir/load-merged.err")"

# ---- bad merges: clear errors, exit 2 (64 for usage), OUT left as it was
p1="$dir/arena-part1.jsonl" p2="$dir/arena-part2.jsonl" p3="$dir/arena-part3.jsonl"
merge_fails() {  # merge_fails WHAT EXPECTED_RC EXPECTED_MESSAGE PARTS...
  local what=$1 want=$2 message=$3
  shift 3
  echo keep > "$dir/out.csv"
  "$thicket" merge "$dir/out.csv" "$@" 2>"$dir/merge_err"
  local rc=$?
  [[ $rc == "$want" ]] && ok || bad "$what: exit $rc, expected $want"
  grep -q -- "$message" "$dir/merge_err" && ok || bad "$what: expected '$message' in: $(cat "$dir/merge_err")"
  [[ $(cat "$dir/out.csv") == keep ]] && ok || bad "$what: OUT was overwritten"
}
merge_fails "a missing shard" 2 "the part of shard 2/3 is missing; nothing written" "$p1" "$p3"
merge_fails "a shard twice" 2 "arena-part1.jsonl:1:1: error: shard 1/3 again (also .*arena-part1.jsonl)" "$p1" "$p2" "$p3" "$p1"
# A part's header edited to claim a shard count --shard cannot give: refused, not a slot made for
# each of 4294967295 shards (std::bad_alloc); and a count it can give, with most parts missing:
# the first ten named, then how many.
sed 's/"shards":3/"shards":4294967295/' "$p1" > "$dir/huge_shards.jsonl"
merge_fails "a part claiming 4294967295 shards" 2 "huge_shards.jsonl:1:1: error: .*its shard 1/4294967295 is not I/K with 1 <= I <= K <= 1000000" "$dir/huge_shards.jsonl"
"$thicket" run "$arena" --ticks "$ticks" --runs 7 --threads 1 --quiet --shard 1/20 --out "$dir/one_of_20.jsonl" 2>/dev/null
merge_fails "one part of 20" 2 "the parts of shard 2/20, 3/20, .*, 11/20, ... (19 in all) are missing; nothing written" "$dir/one_of_20.jsonl"
"$thicket" run "$arena" --ticks "$((ticks + 1))" --runs 7 --threads 1 --quiet --shard 2/3 --out "$dir/other2.jsonl" 2>/dev/null
merge_fails "a part of another batch" 2 "other2.jsonl:1:1: error: not a part of the same batch as .*: --ticks $ticks against $((ticks + 1))" "$p1" "$dir/other2.jsonl" "$p3"
"$thicket" run "$arena" --ticks "$ticks" --runs 7 --threads 1 --quiet --shard 2/4 --out "$dir/four2.jsonl" 2>/dev/null
merge_fails "another shard count" 2 "shard count 3 against 4" "$p1" "$dir/four2.jsonl" "$p3"
# The same scenario edited (here: its brains named by full path) between two shards' starts.
sed -e "s|brain: |brain: $arena_dir/|" "$arena" > "$dir/edited.yaml"
"$thicket" run "$dir/edited.yaml" --ticks "$ticks" --runs 7 --threads 1 --quiet --shard 2/3 --out "$dir/edited2.jsonl" 2>/dev/null
merge_fails "a part from an edited scenario" 2 "edited2.jsonl:1:1: error: not a part of the same batch as .*: the scenario, its map, brain or leaf files were edited" "$p1" "$dir/edited2.jsonl" "$p3"
# A leaf file edited between two shards' starts (the hash had only the scenario and its brains,
# and such parts merged); the same bytes elsewhere are the same batch.
mkdir -p "$dir/arena_copy" && cp "$arena_dir"/* "$dir/arena_copy/"
"$thicket" run "$dir/arena_copy/arena.yaml" --ticks "$ticks" --runs 7 --threads 1 --quiet --shard 2/3 --out "$dir/copy2.jsonl" 2>/dev/null
"$thicket" merge "$dir/copy.csv" "$p1" "$dir/copy2.jsonl" "$p3" 2>/dev/null && ok || bad "a copy of the arena's files should merge with the original's parts"
echo "-- edited" >> "$dir/arena_copy/minion.lua"
"$thicket" run "$dir/arena_copy/arena.yaml" --ticks "$ticks" --runs 7 --threads 1 --quiet --shard 2/3 --out "$dir/leaf2.jsonl" 2>/dev/null
merge_fails "a part run with an edited leaf file" 2 "leaf2.jsonl:1:1: error: not a part of the same batch as .*: the scenario, its map, brain or leaf files were edited" "$p1" "$dir/leaf2.jsonl" "$p3"
# Another sweep, said as it would be given (it was the header's raw lists: "[][[]] against [][[]]").
"$thicket" run "$arena" --ticks "$ticks" --runs 7 --threads 1 --quiet --shard 2/3 --set seed=1,2 --set groups.players.count=3,4 \
  --out "$dir/swept2.jsonl" 2>/dev/null
merge_fails "a part of a sweep" 2 "swept2.jsonl:1:1: error: not a part of the same batch as .*: sweep (none) against groups.players.count=3,4 seed=1,2" "$p1" "$dir/swept2.jsonl" "$p3"
# Options that change the results: --strict, --series-every, the Lua limits (they merged).
"$thicket" run "$arena" --ticks "$ticks" --runs 7 --threads 1 --quiet --shard 2/3 --strict --out "$dir/strict2.jsonl" 2>/dev/null
merge_fails "a part run with --strict" 2 "strict2.jsonl:1:1: error: not a part of the same batch as .*: the run options 'no --series --budget 10000000 --leaf-timeout 0.05 --lua-memory 512' against 'no --series --strict --budget" "$p1" "$dir/strict2.jsonl" "$p3"
# A part of another scenario (whose runs have other metrics) is said by its header, before its
# runs' metrics are compared ("run 2 has a metric 'strikes' that run 1 lacks: an edited part?").
stealth="$here/scripts/examples/stealth/stealth.yaml"
"$thicket" run "$stealth" --ticks 5 --runs 7 --threads 1 --quiet --shard 2/3 --out "$dir/stealth2.jsonl" 2>/dev/null
merge_fails "a part of another scenario" 2 "stealth2.jsonl:1:1: error: not a part of the same batch as .*: scenario arena against stealth" "$p1" "$dir/stealth2.jsonl" "$p3"
# A header whose plan size alone was edited: said so (it said "sweep (none) against (none)").
sed '1s/"plan_size":7,/"plan_size":8,/' "$p2" > "$dir/plan2.jsonl"
merge_fails "a part with an edited plan size" 2 "plan2.jsonl:1:1: error: not a part of the same batch as .*: the batch's run count (plan_size: an edited part?) 7 against 8" "$p1" "$dir/plan2.jsonl" "$p3"
# Headers that all claim a batch bigger than any (runs edited to 10^12 in each): refused, where
# planning it aborted for want of memory.
for k in 1 2 3; do sed '1s/"runs":7,/"runs":1000000000000,/' "$dir/arena-part$k.jsonl" > "$dir/huge$k.jsonl"; done
merge_fails "parts claiming 10^12 runs" 2 "huge1.jsonl:1:1: error: the batch has 1000000000000 runs (1 parameter set(s) x 1 seed(s) x 1000000000000 run(s)); at most 1000000 in one batch" "$dir/huge1.jsonl" "$dir/huge2.jsonl" "$dir/huge3.jsonl"
head -n 2 "$p2" > "$dir/cut2.jsonl"
merge_fails "a part cut short" 2 "cut2.jsonl:2:1: error: the part is cut short (no end line)" "$p1" "$dir/cut2.jsonl" "$p3"
# Cut in the middle of a line (a shard killed while writing, a full disk): said so, not "not a
# JSON object"; in the header too. A part named '' says so.
head -c "$(( $(head -n 2 "$p2" | wc -c) - 9 ))" "$p2" > "$dir/midline2.jsonl"
merge_fails "a part cut mid-line" 2 "midline2.jsonl:2:1: error: the part is cut short (its last line stops mid-way)" "$p1" "$dir/midline2.jsonl" "$p3"
head -c 40 "$p2" > "$dir/midhead2.jsonl"
merge_fails "a part cut in its header" 2 "midhead2.jsonl:1:1: error: the part is cut short (its last line stops mid-way)" "$p1" "$dir/midhead2.jsonl" "$p3"
merge_fails "a part named ''" 2 "merge: a part file named '' (an empty path)" "$p1" "" "$p3"
# The end line is read as JSON: another spacing or CRLF line ends merge as the part itself does
# (it was compared as text); a count that is wrong, or an end line that is not one, is an error.
python3 -c 'import json,sys; [print(json.dumps(json.loads(l))) for l in open(sys.argv[1])]' "$p2" > "$dir/spaced2.jsonl"
sed 's/$/\r/' "$p3" > "$dir/crlf3.jsonl"
"$thicket" merge "$dir/respaced.jsonl" "$p1" "$dir/spaced2.jsonl" "$dir/crlf3.jsonl" 2>/dev/null
cmp -s <(no_wall_jsonl "$dir/arena-merged.jsonl") <(no_wall_jsonl "$dir/respaced.jsonl") && ok ||
  bad "parts respaced or with CRLF should merge as the parts themselves: $(head -c 300 "$dir/respaced.jsonl")"
sed '$s/"outcomes":[0-9]*/"outcomes":9/' "$p2" > "$dir/count2.jsonl"
merge_fails "an end line with a wrong count" 2 "count2.jsonl:4:1: error: the end line counts 9 run(s), not the 2 above it" "$p1" "$dir/count2.jsonl" "$p3"
sed '$s/"end":true/"end":"yes"/' "$p2" > "$dir/endyes2.jsonl"
merge_fails "a malformed end line" 2 'endyes2.jsonl:4:1: error: an end line is {"end":true,"outcomes":N}' "$p1" "$dir/endyes2.jsonl" "$p3"
merge_fails "--series without series in the parts" 2 "the shards ran without --series" --series "$dir/s.csv" "$p1" "$p2" "$p3"
merge_fails "a CSV given as a part" 2 "arena-single.csv:1:1: error: it does not start with a part header" "$p1" "$dir/arena-single.csv" "$p3"
sed '1s/"thicket_part":2/"thicket_part":99/' "$p2" > "$dir/v99.jsonl"
merge_fails "a part of another format" 2 "v99.jsonl:1:1: error: it is a part of format 99" "$p1" "$dir/v99.jsonl" "$p3"
sed '2s/"seed":[0-9]*/"seed":12345/' "$p2" > "$dir/seed2.jsonl"
merge_fails "a run with a wrong seed" 2 "seed2.jsonl:2:1: error: run 2 has seed 12345; the batch gives it seed 8" "$p1" "$dir/seed2.jsonl" "$p3"
sed '2s/"index":1,/"index":2,/' "$p2" > "$dir/index2.jsonl"
merge_fails "a run of another shard" 2 "index2.jsonl:2:1: error: run 3 is not one of shard 2/3's runs" "$p1" "$dir/index2.jsonl" "$p3"
sed '2s/"metrics":{/"metrics":[/' "$p2" > "$dir/json2.jsonl"
merge_fails "a malformed run line" 2 "json2.jsonl:2:1: error: not a run of a part" "$p1" "$dir/json2.jsonl" "$p3"
merge_fails "no parts" 64 "thicket merge needs OUT.csv or OUT.jsonl, then the part files"
merge_fails "a missing file" 2 "nowhere.jsonl: error: cannot read this part file: No such file or directory$" "$p1" "$dir/nowhere.jsonl"
"$thicket" merge "$dir/out.txt" "$p1" "$p2" "$p3" 2>/dev/null
[[ $? == 64 ]] && ok || bad "merge into OUT.txt should be a usage error"
# A run line with a metric the others lack, or lacking one, would shift the CSV's columns (or
# crash the summary): an error at that line, nothing written.
sed '2s/"metrics":{/"metrics":{"zzz":1,/' "$p1" > "$dir/extra1.jsonl"
merge_fails "a run with a metric the others lack" 2 "extra1.jsonl:3:1: error: run 4 lacks the metric 'zzz' of run 1 (.*extra1.jsonl:2)" \
  "$dir/extra1.jsonl" "$p2" "$p3"
sed '2s/"metrics":{/"metrics":{"zzz":1,/' "$p2" > "$dir/extra2.jsonl"
merge_fails "a later part with an extra metric" 2 "extra2.jsonl:2:1: error: run 2 has a metric 'zzz' that run 1 (.*arena-part1.jsonl:2) lacks" \
  "$p1" "$dir/extra2.jsonl" "$p3"
sed -E '2s/"metrics":\{"([a-z_]+)":[^,]*,/"metrics":{/' "$p3" > "$dir/less3.jsonl"
merge_fails "a part with a metric missing" 2 "less3.jsonl:2:1: error: run 3 lacks the metric 'chases' of run 1" "$p1" "$p2" "$dir/less3.jsonl"
# OUT and --series: one file for both, a part as either, one that cannot be written: nothing written.
s1="$dir/series-part1.jsonl" s2="$dir/series-part2.jsonl"
merge_fails "--series as OUT" 64 "OUT and --series are given the same file" --series "$dir/out.csv" "$s1" "$s2"
merge_fails "--series as OUT, spelt otherwise" 64 "OUT and --series are given the same file .* (as '.*/\./out.csv')" \
  --series "$dir/./out.csv" "$s1" "$s2"
merge_fails "a part as --series" 64 "is given as a part and as an output" --series "$s1" "$s1" "$s2"
merge_fails "a part as OUT, spelt otherwise" 64 "is given as a part and as an output" "$dir/../$(basename "$dir")/out.csv" "$s1" "$s2"
merge_fails "--series that cannot be written" 64 "cannot write the series file '.*/nowhere/s.csv': No such file or directory" --series "$dir/nowhere/s.csv" "$s1" "$s2"
echo keep > "$dir/s_keep.csv"
chmod a-w "$dir/s_keep.csv"
if [[ -w "$dir/s_keep.csv" ]]; then ok; ok; ok  # (root writes anyway)
else
  merge_fails "a read-only --series" 64 "cannot write the series file" --series "$dir/s_keep.csv" "$s1" "$s2"
fi
chmod u+w "$dir/s_keep.csv"
"$thicket" merge "$dir/nowhere/o.csv" "$s1" "$s2" --series "$dir/s_keep.csv" 2>/dev/null
[[ $? == 64 && $(cat "$dir/s_keep.csv") == keep ]] && ok || bad "an OUT that cannot be written emptied --series"
# The batch's first run failed to load: the merge says why (as one process) and writes nothing.
merge_fails "parts whose first run failed to load" 2 "its brain .*bad.yaml failed to load" "$dir/load-part1.jsonl" "$dir/load-part2.jsonl"

# ---- --shard's usage errors
for args in "--shard 0/3" "--shard 4/3" "--shard 1/0" "--shard a/b" "--shard 3" \
            "--shard 1/2 --out $dir/x.csv" "--shard 1/2" "--shard 1/2 --out $dir/x.jsonl --explain" \
            "--shard 1/2 --out $dir/x.jsonl --record $dir/r.jsonl"; do
  # shellcheck disable=SC2086
  "$thicket" run "$arena" --ticks 1 $args >/dev/null 2>&1
  [[ $? == 64 ]] && ok || bad "'run arena $args' should be a usage error (64)"
done
printf 'tree: t\nroot: {wait: {seconds: 1}}\n' > "$dir/brain.yaml"
"$thicket" run "$dir/brain.yaml" --shard 1/2 >/dev/null 2>&1
[[ $? == 64 ]] && ok || bad "--shard on a brain file should be a usage error (64)"

# ---- a thicket built without MPI, started by mpirun -n 2: refused once, not run twice
if command -v mpirun >/dev/null 2>&1 && ! grep -q 'THICKET_MPI:BOOL=ON' "$(dirname "$thicket")/CMakeCache.txt" 2>/dev/null; then
  OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 timeout 60 mpirun --oversubscribe -n 2 "$thicket" run "$arena" \
    --ticks 1 --out "$dir/twice.csv" >/dev/null 2>"$dir/mpi_err"
  [[ $? == 64 ]] && ok || bad "mpirun of a thicket without MPI should exit 64: $(cat "$dir/mpi_err")"
  [[ $(grep -c '^thicket: this thicket is built without MPI' "$dir/mpi_err") == 1 ]] && ok || bad "said once: $(cat "$dir/mpi_err")"
  [[ ! -e "$dir/twice.csv" ]] && ok || bad "nothing should be written"
fi

# ---- small runs go to the threads whole (issue 32): --threads 2 runs two runs at once and
# writes what --threads 1 writes — rows, series, Lua prints, the log, diagnostics, the summary
# — in run order; --strict and a load failure end the batch at the same run.
cat > "$dir/w/talk.lua" <<'LUA'
local thicket = require("thicket")
local L = {}
function L.Talk(agent)
  agent.n = (agent.n or 0) + 1
  print(string.format("seed-run agent %d tick %d r=%.6f", agent.id, thicket.tick(), thicket.random()))
  thicket.log("log line of agent " .. agent.id)
  thicket.gauge("level", agent.n + thicket.random())
  if agent.id == 2 and agent.n == 4 then error("boom") end
  return thicket.RUNNING
end
return L
LUA
printf 'tree: talk\nleaves: [talk.lua]\nroot: {action: Talk}\n' > "$dir/w/talk.yaml"
sed 's/count.yaml/talk.yaml/' "$dir/w/s.yaml" > "$dir/w/talk_s.yaml"
spread_same() {
  local name=$1
  shift
  for k in 1 2; do
    "$thicket" run "$@" --threads $k --quiet --out "$dir/$name$k.csv" --series "$dir/$name$k-s.csv" \
      >"$dir/$name$k.out" 2>"$dir/$name$k.err"
    echo $? > "$dir/$name$k.rc"
    if [[ -e "$dir/$name$k.csv" ]]; then no_wall_csv "$dir/$name$k.csv"; fi > "$dir/$name$k.rows"  # (none if run 1 fails to load)
    sed -E 's/wall [0-9.]+ s, [0-9]+ agent-ticks\/s//; s/[0-9]+ thread\(s\)/K threads/' "$dir/$name$k.err" > "$dir/$name$k.errs"
  done
  for f in .rc .rows .out .errs -s.csv; do
    cmp -s "$dir/${name}1$f" "$dir/${name}2$f" 2>/dev/null || [[ $f == -s.csv && ! -e "$dir/${name}1$f" ]] && ok ||
      bad "$name: --threads 2 (runs at once) wrote another $f than --threads 1: $(diff "$dir/${name}1$f" "$dir/${name}2$f" | head -5)"
  done
}
spread_same talk "$dir/w/talk_s.yaml" --runs 5
grep -q "seed-run agent 1 tick 6" "$dir/talk2.out" && ok || bad "the runs' prints are missing"
spread_same talk_strict "$dir/w/talk_s.yaml" --runs 5 --strict
spread_same talk_load "$dir/w/bad_s.yaml" --runs 4
spread_same sweep "$dir/sweep.yaml" --ticks "$sweep_ticks" --runs 3 --set groups.players.vehicle.max_speed=4,6

# ---- outputs: checked before any is opened, never two for one file
# A brain that does not load stops the batch before any output is opened: what they held stays.
for f in out.csv series.csv rec.jsonl trace.jsonl; do echo keep > "$dir/keep-$f"; done
for threads in 1 2; do
  "$thicket" run "$dir/w/bad_s.yaml" --runs 3 --threads $threads --quiet --out "$dir/keep-out.csv" --series "$dir/keep-series.csv" \
    --record "$dir/keep-rec.jsonl" --trace "$dir/keep-trace.jsonl" --series-every 1 2>"$dir/keep.err"
  [[ $? == 2 ]] && ok || bad "a brain that does not load: exit 2 expected ($threads thread(s))"
  grep -q "bad.lua" "$dir/keep.err" && grep -q "its brain .*bad.yaml failed to load" "$dir/keep.err" && ok ||
    bad "a brain that does not load: its diagnostics: $(cat "$dir/keep.err")"
  for f in out.csv series.csv rec.jsonl trace.jsonl; do
    [[ $(cat "$dir/keep-$f" 2>/dev/null) == keep ]] && ok || bad "a brain that does not load emptied $f ($threads thread(s))"
  done
  "$thicket" run "$dir/w/bad_s.yaml" --quiet --out "$dir/new-out.csv" --series "$dir/new-series.csv" 2>/dev/null
  [[ ! -e "$dir/new-out.csv" && ! -e "$dir/new-series.csv" ]] && ok || bad "a brain that does not load made empty outputs"
done
# An output that cannot be written leaves the others as they were (and makes no new file).
"$thicket" run "$dir/w/s.yaml" --quiet --record "$dir/keep-rec.jsonl" --trace "$dir/keep-trace.jsonl" --out "$dir/fresh.csv" \
  --series "$dir/nowhere/s.csv" 2>"$dir/keep.err"
[[ $? == 64 ]] && grep -q "cannot write the series file" "$dir/keep.err" && ok || bad "an unwritable --series: $(head -2 "$dir/keep.err")"
[[ $(cat "$dir/keep-rec.jsonl") == keep && $(cat "$dir/keep-trace.jsonl") == keep && ! -e "$dir/fresh.csv" ]] && ok ||
  bad "an unwritable --series emptied --record or --trace, or made --out"
"$thicket" run "$dir/w/s.yaml" --quiet --out "$dir/keep-out.csv" --record "$dir/nowhere/r.jsonl" 2>"$dir/keep.err"
[[ $? == 64 ]] && grep -q "cannot write the record file '.*nowhere/r.jsonl': No such file or directory" "$dir/keep.err" &&
  [[ $(cat "$dir/keep-out.csv") == keep ]] && ok || bad "an unwritable --record: $(head -1 "$dir/keep.err")"
# Two outputs for one file (or an input as an output): a usage error, nothing touched.
cd "$dir" || exit 1
for args in "--out same.jsonl --series same.jsonl" "--out same.jsonl --record ./same.jsonl" \
            "--trace same.jsonl --record same.jsonl" "--checkpoint same.jsonl --every 2 --out same.jsonl" \
            "--log same.jsonl --series $dir/same.jsonl" "--out same.jsonl --trace w/../same.jsonl" \
            "--out same.jsonl --series link.jsonl" "--log w/s.yaml" "--resume same.jsonl --out same.jsonl"; do
  echo keep > same.jsonl
  ln -sf same.jsonl link.jsonl
  cp w/s.yaml s_copy.yaml
  # shellcheck disable=SC2086
  "$thicket" run w/s.yaml --quiet $args 2>"$dir/same.err"
  [[ $? == 64 ]] && ok || bad "run $args: exit 64 expected: $(head -1 "$dir/same.err")"
  grep -Eq "are given the same file|is given as the file to run|is given as --resume" "$dir/same.err" && ok ||
    bad "run $args: the message: $(head -1 "$dir/same.err")"
  [[ $(cat same.jsonl) == keep ]] && cmp -s w/s.yaml s_copy.yaml && ok || bad "run $args: a file was changed"
done
# A link to a file not made yet is that file too (weakly_canonical left the dangling link as it
# was: the two outputs were written into one file).
rm -f fresh.jsonl dangling.jsonl
ln -s fresh.jsonl dangling.jsonl
"$thicket" run w/s.yaml --quiet --out fresh.jsonl --series dangling.jsonl 2>"$dir/same.err"
[[ $? == 64 ]] && grep -q "are given the same file 'fresh.jsonl' (as 'dangling.jsonl')" "$dir/same.err" && [[ ! -e fresh.jsonl ]] && ok ||
  bad "a dangling link to another output: $(head -1 "$dir/same.err")"
# A device may take several outputs; --resume and --checkpoint may be one file. (w/s.yaml's
# script error makes these exit 1.)
"$thicket" run w/s.yaml --quiet --out /dev/null --series /dev/null --trace /dev/null 2>/dev/null
[[ $? == 1 ]] && ok || bad "/dev/null for several outputs should do"
"$thicket" run w/s.yaml --ticks 4 --quiet --checkpoint ck.snap --every 2 2>/dev/null
"$thicket" run w/s.yaml --ticks 6 --quiet --resume ck.snap --checkpoint ck.snap --every 2 2>"$dir/same.err"
[[ $? == 1 ]] && ok || bad "--resume F --checkpoint F: $(cat "$dir/same.err")"
cd - >/dev/null || exit 1

# Every run of a batch loads the same brains: a brain's warning is said once, not once per run
# (the runs in parallel, and one after another with --threads 1).
sliced="$here/tests/e2e/cases/scenario_tick_every_warns/s.yaml"
for args in "--runs 3 --threads 2" "--set seed=1,2,3 --threads 1"; do
  # shellcheck disable=SC2086
  n=$("$thicket" run "$sliced" $args --quiet 2>&1 >/dev/null | grep -c "warning: tick_every: 3 has no effect")
  [[ $n == 1 ]] && ok || bad "run $args: the brain's warning is said $n times, not once"
done

# ---- runs at once (--threads 2) write their prints and errors in the order each run made them:
# standard output and error in one file read as on one thread (the errors came before the prints)
mkdir -p "$dir/order"
cat > "$dir/order/t.lua" <<'LUA'
local thicket = require("thicket")
local leaves = {}
function leaves.Talk(agent)
  print("before the error, tick " .. thicket.tick())
  if thicket.tick() == 2 then error("boom") end
  print("after, tick " .. thicket.tick())
  return "running"
end
return leaves
LUA
printf 'tree: t\nleaves: [t.lua]\nroot: {action: Talk}\n' > "$dir/order/t.yaml"
printf 'scenario: order\nworld: {size: [10, 10]}\nteams: [a]\ngroups: [{name: g, team: a, count: 1, brain: t.yaml, spawn: {box: [[1, 1], [2, 2]]}}]\n' \
  > "$dir/order/s.yaml"
for k in 1 2; do
  "$thicket" run "$dir/order/s.yaml" --ticks 3 --runs 3 --threads $k --quiet 2>&1 | grep -v '^thicket: scenario order' > "$dir/order/all$k"
done
grep -q "boom" "$dir/order/all1" && cmp -s "$dir/order/all1" "$dir/order/all2" && ok ||
  bad "prints and errors of runs at once, in one file: $(diff "$dir/order/all1" "$dir/order/all2" | head -10)"

# --ticks 0 on a batch: each run is made and ended at once, a row each with ticks 0 (as the guide says).
"$thicket" run "$dir/order/s.yaml" --runs 2 --ticks 0 --quiet --out "$dir/order/t0.csv" --series "$dir/order/t0s.csv" 2>/dev/null
[[ $(cut -d, -f1-3 "$dir/order/t0.csv" | tr '\n' ' ') == "run,seed,ticks 1,1,0 2,2,0 " && $(wc -l < "$dir/order/t0s.csv") == 1 ]] && ok ||
  bad "--ticks 0 on a batch: $(cat "$dir/order/t0.csv" "$dir/order/t0s.csv")"

# A huge metric in the summary: the shortest exact form, not 309 digits and two decimals.
printf 'local thicket = require("thicket")\nlocal L = {}\nfunction L.M() thicket.metric("m1", 1e308) thicket.metric("m2", 12.5) return "running" end\nreturn L\n' \
  > "$dir/order/big.lua"
printf 'tree: t\nleaves: [big.lua]\nroot: {action: M}\n' > "$dir/order/big.yaml"
sed -e 's/brain: t.yaml/brain: big.yaml/' "$dir/order/s.yaml" > "$dir/order/big_s.yaml" && echo 'metrics: [m1, m2]' >> "$dir/order/big_s.yaml"
"$thicket" run "$dir/order/big_s.yaml" --ticks 1 --runs 2 --quiet 2>"$dir/order/big.err" >/dev/null
grep -q "^thicket: metric m1: mean 1e+308, min 1e+308, max 1e+308$" "$dir/order/big.err" &&
  grep -q "^thicket: metric m2: mean 12.50, min 12.50, max 12.50$" "$dir/order/big.err" && ok ||
  bad "a huge metric in the summary: $(grep metric "$dir/order/big.err")"

# ---- stopped: Ctrl-C or SIGTERM (Slurm at a job's time limit) in the middle of a run
# A shard leaves the run it was in out of its part (the merge then says which run is missing),
# and says so, exiting as an interrupted run does (0: SPEC 9 has no status for it); it wrote the
# cut-short run as a whole one, and the merge took it.
mkdir -p "$dir/stop"
cat > "$dir/stop/talk.lua" <<'LUA'
local thicket = require("thicket")
local leaves = {}
function leaves.Talk(agent)
  if thicket.tick() == 3 then print("ticking " .. agent.id) end
  return thicket.RUNNING
end
return leaves
LUA
printf 'tree: talk\nleaves: [talk.lua]\nroot: {action: Talk}\n' > "$dir/stop/talk.yaml"
printf 'scenario: stop\nworld: {size: [10, 10]}\nteams: [a]\ngroups: [{name: g, team: a, count: 1, brain: talk.yaml, spawn: {box: [[1, 1], [2, 2]]}}]\n' \
  > "$dir/stop/stop.yaml"
stop_after_print() {  # stop_after_print SIGNAL OUT_PREFIX ARGS...: waits for "ticking" in stdout
  local sig=$1 pre=$2
  shift 2
  "$thicket" run "$dir/stop/stop.yaml" "$@" --quiet >"$pre.out" 2>"$pre.err" &
  local pid=$!
  for _ in $(seq 1 400); do grep -q ticking "$pre.out" 2>/dev/null && break; sleep 0.05; done
  kill -"$sig" $pid 2>/dev/null
  wait $pid
  echo $? > "$pre.rc"
}
stop_after_print INT "$dir/stop/shard" --ticks 100000000 --runs 2 --threads 1 --shard 1/2 --out "$dir/stop/p1.jsonl"
[[ $(cat "$dir/stop/shard.rc") == 0 ]] && ok || bad "an interrupted shard: exit $(cat "$dir/stop/shard.rc"), expected 0"
grep -q "interrupted: run 1 was stopped at tick [0-9]* and is not in the part (nor the runs after it): run this shard again" \
  "$dir/stop/shard.err" && ok || bad "an interrupted shard should say so: $(cat "$dir/stop/shard.err")"
stop_after_print INT "$dir/stop/shard2" --ticks 100000000 --runs 2 --threads 1 --shard 2/2 --out "$dir/stop/p2.jsonl"
grep -c '"index"' "$dir/stop/p1.jsonl" | grep -qx 0 && ok || bad "the cut-short run is in the part: $(cat "$dir/stop/p1.jsonl")"
echo keep > "$dir/stop/m.csv"
"$thicket" merge "$dir/stop/m.csv" "$dir/stop/p1.jsonl" "$dir/stop/p2.jsonl" 2>"$dir/stop/merge.err"
[[ $? == 2 && $(cat "$dir/stop/m.csv") == keep ]] && grep -q "run 1 is in no part (shard 1/2's part .*p1.jsonl lacks it: was that shard interrupted?)" \
  "$dir/stop/merge.err" && ok || bad "merging interrupted shards: $(cat "$dir/stop/merge.err")"
# SIGTERM, one process: the runs finished are written (it was killed: an empty --out).
echo old > "$dir/stop/term.csv"
stop_after_print TERM "$dir/stop/term" --ticks 100000000 --runs 3 --threads 1 --out "$dir/stop/term.csv"
[[ $(cat "$dir/stop/term.rc") == 0 ]] && grep -q "(interrupted)" "$dir/stop/term.err" && ok ||
  bad "SIGTERM should stop the batch as Ctrl-C does: exit $(cat "$dir/stop/term.rc"), $(tail -1 "$dir/stop/term.err")"
[[ $(head -c 4 "$dir/stop/term.csv") == run, && $(wc -l < "$dir/stop/term.csv") == 2 ]] && ok ||
  bad "SIGTERM: --out should hold the header and the run stopped: $(cat "$dir/stop/term.csv")"

# Stopped while a run loads (the signal stops its leaf file's compiling or top-level code): the
# batch ends before that run, as if the signal had come a moment earlier, not with a load
# failure and the brain's "errors" (a shard's part then says the run is missing). The leaf file
# loops at its top level for every run but the first (math.random is seeded by the run's seed:
# run 1 draws 495; its load is also the one made before any output is opened).
cat > "$dir/stop/late.lua" <<'LUA'
if math.random(1000) ~= 495 then
  print("loading")
  while true do end
end
local leaves = {}
function leaves.Talk() return "running" end
return leaves
LUA
printf 'tree: late\nleaves: [late.lua]\nroot: {action: Talk}\n' > "$dir/stop/late.yaml"
sed 's/talk.yaml/late.yaml/' "$dir/stop/stop.yaml" > "$dir/stop/late_s.yaml"
stop_at_load() {  # stop_at_load OUT_PREFIX ARGS...: SIGTERM once a run loops as it loads
  local pre=$1 cpu
  shift
  "$thicket" run "$dir/stop/late_s.yaml" --leaf-timeout 0 --budget 0 "$@" --quiet >"$pre.out" 2>"$pre.err" &
  local pid=$!
  # Its print (said at once by a run on the main thread; runs spread over the threads say theirs
  # in run order, so not yet), or a second of CPU spent (the first run takes a fraction of it).
  for _ in $(seq 1 400); do
    grep -q loading "$pre.out" 2>/dev/null && break
    cpu=$(awk '{print $14 + $15}' "/proc/$pid/stat" 2>/dev/null || echo 0)
    [[ ${cpu:-0} -gt $(getconf CLK_TCK) ]] && break
    sleep 0.05
  done
  kill -TERM $pid 2>/dev/null
  wait $pid
  echo $? > "$pre.rc"
}
for how in "serial --threads 1" "spread --threads 2"; do
  read -r name args <<< "$how"
  # shellcheck disable=SC2086
  stop_at_load "$dir/stop/load_$name" --runs 4 $args --ticks 5 --out "$dir/stop/load_$name.csv"
  [[ $(cat "$dir/stop/load_$name.rc") == 0 ]] && grep -q "^thicket: scenario stop: 1 run(s) of 5 tick(s)" "$dir/stop/load_$name.err" &&
    grep -q "(interrupted)$" "$dir/stop/load_$name.err" && ! grep -q ": error:" "$dir/stop/load_$name.err" && ok ||
    bad "$name: a batch stopped as a run loads: exit $(cat "$dir/stop/load_$name.rc"), $(cat "$dir/stop/load_$name.err")"
  [[ $(wc -l < "$dir/stop/load_$name.csv") == 2 ]] && ok || bad "$name: --out should hold run 1: $(cat "$dir/stop/load_$name.csv")"
done
stop_at_load "$dir/stop/load_shard" --runs 4 --threads 1 --ticks 5 --shard 1/1 --out "$dir/stop/load_shard.jsonl"
[[ $(cat "$dir/stop/load_shard.rc") == 0 ]] && ! grep -q ": error:\|\"load_failed\":true" "$dir/stop/load_shard.err" "$dir/stop/load_shard.jsonl" &&
  grep -q "1 of the batch's 4 run(s) (run 1).*interrupted: run 2 was stopped at tick 0 and is not in the part" "$dir/stop/load_shard.err" && ok ||
  bad "a shard stopped as a run loads: exit $(cat "$dir/stop/load_shard.rc"), $(cat "$dir/stop/load_shard.err")"

# ---- a shard's outputs are checked against the files its runs read, as one process's are:
# `--log` or `--checkpoint` naming a leaf file was refused unsharded but emptied it in a shard
mkdir -p "$dir/clash" && cp "$arena_dir"/* "$dir/clash/"
cp "$dir/clash/minion.lua" "$dir/clash/minion.lua.orig"
for opt in "--log" "--checkpoint"; do
  extra=()
  [[ $opt == --checkpoint ]] && extra=(--every 2 --runs 1)
  "$thicket" run "$dir/clash/arena.yaml" --ticks 3 --quiet --shard 1/1 --out "$dir/clash/p.jsonl" "$opt" "$dir/clash/minion.lua" \
    "${extra[@]}" >/dev/null 2>"$dir/clash/err"
  [[ $? == 64 ]] && grep -q "minion.lua' is given as $opt but the run reads it: it would be overwritten" "$dir/clash/err" &&
    cmp -s "$dir/clash/minion.lua" "$dir/clash/minion.lua.orig" && ok ||
    bad "a shard's $opt naming a leaf file should be refused, the file untouched: $(cat "$dir/clash/err")"
done

# ---- a shard of many runs lists the first ten and the last, not every one
"$thicket" run "$arena" --ticks 0 --runs 200 --quiet --shard 1/2 --out "$dir/many.jsonl" 2>"$dir/many.err" >/dev/null
grep -q "100 of the batch's 200 run(s) (run 1, 3, 5, 7, 9, 11, 13, 15, 17, 19, ... (89 more), 199)" "$dir/many.err" && ok ||
  bad "a shard's run list should be cut short: $(cut -c1-300 "$dir/many.err")"

# ---- --out /dev/stdout into a file the shell opened (`>>`): appended, what it held kept
echo "EARLIER LINE" > "$dir/stdout.txt"
"$thicket" run "$arena" --ticks 2 --runs 2 --quiet --out /dev/stdout >> "$dir/stdout.txt" 2>/dev/null
[[ $(head -1 "$dir/stdout.txt") == "EARLIER LINE" ]] && grep -q "^run,seed," "$dir/stdout.txt" &&
  [[ $(grep -c '^[12],[0-9]*,2,' "$dir/stdout.txt") == 2 ]] && ok ||
  bad "--out /dev/stdout >> FILE should append the rows: $(head -5 "$dir/stdout.txt")"
"$thicket" run "$arena" --ticks 2 --runs 2 --quiet --out /dev/stdout > "$dir/stdout2.txt" 2>/dev/null
[[ $(head -1 "$dir/stdout2.txt") == run,seed,* && $(wc -l < "$dir/stdout2.txt") == 3 ]] && ok ||
  bad "--out /dev/stdout > FILE should hold the header and two rows: $(head -5 "$dir/stdout2.txt")"

# ---- a usage error of thicket merge: the message, merge's usage line and the --help pointer
# (it printed every command's usage, 37 lines, under the message)
"$thicket" merge "$dir/m.txt" "$dir/a.jsonl" 2>"$dir/err"
[[ $? == 64 && $(wc -l < "$dir/err") == 3 ]] && grep -q "^usage: thicket merge OUT.csv|OUT.jsonl PART.jsonl" "$dir/err" && ok ||
  bad "thicket merge's usage error: $(head -3 "$dir/err")"

# ---- a swept text with a line break: the summary's "set" line shows it as \n, one line
mkdir -p "$dir/nl" && cp "$here/tests/e2e/cases/sweep_string_key_text/"* "$dir/nl/"
sed -i 's/\["007", "true", "x"\]/["l1\\nl2"]/' "$dir/nl/labels.yaml"
"$thicket" run "$dir/nl/labels.yaml" --threads 1 --quiet >/dev/null 2>"$dir/nl/err"
grep -q '^thicket: set 1 (groups.g.blackboard.label=l1\\nl2 groups.g.blackboard.size=2): 1 run(s)' "$dir/nl/err" && ok ||
  bad "a swept text's line break in the summary: $(grep -A1 'set 1' "$dir/nl/err")"

echo "batch: $pass passed, $fail failed"
[[ $fail == 0 ]]
