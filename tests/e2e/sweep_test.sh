#!/usr/bin/env bash
# End-to-end test of parameter sweeps (issue 15): a scenario's `sweep:` over the arena's minion
# counts and a seed list, and --set; rows carry their parameters, the summary groups by set,
# 1 and 2 threads give the same rows, bad keys are clear errors (exit 2 in a file, 64 on the
# command line), and a batch without a sweep writes what it always did.
set -u
. "$(dirname "$0")/lib.sh"  # thicket, here, dir, ok, bad
arena_dir="$here/scripts/examples/arena"
# The arena with a sweep, beside its brains (they are named relative to the scenario).
sed -e "s|brain: |brain: $arena_dir/|" "$arena_dir/arena.yaml" > "$dir/sweep.yaml"
printf 'sweep:\n  groups.west_post.count: [20, 60]\n  seed: [3, 50]\n' >> "$dir/sweep.yaml"

for k in 1 2; do
  "$thicket" run "$dir/sweep.yaml" --ticks 50 --runs 2 --threads $k --out "$dir/out$k.csv" --quiet 2>"$dir/err$k"
  [[ $? == 0 ]] && ok || bad "the sweep on $k thread(s) exited non-zero: $(cat "$dir/err$k")"
done
# 2 counts x 2 base seeds x 2 runs, in the plan's order: set major, then base seed, then run.
[[ $(($(wc -l < "$dir/out1.csv") - 1)) == 8 ]] && ok || bad "8 rows expected: $(cat "$dir/out1.csv")"
head -1 "$dir/out1.csv" | grep -q '^run,seed,groups.west_post.count,ticks,agents_start,' && ok || bad "the parameter column follows run,seed: $(head -1 "$dir/out1.csv")"
[[ $(cut -d, -f1-3 "$dir/out1.csv" | tail -n +2 | tr '\n' ' ') == "1,3,20 2,4,20 3,50,20 4,51,20 5,3,60 6,4,60 7,50,60 8,51,60 " ]] && ok ||
  bad "runs, seeds and counts: $(cut -d, -f1-3 "$dir/out1.csv" | tr '\n' ' ')"
[[ $(cut -d, -f5 "$dir/out1.csv" | tail -n +2 | sort -u | tr '\n' ' ') == "540 580 " ]] && ok || bad "the count changes the agents: $(cut -d, -f5 "$dir/out1.csv")"
# Every column but wall time and throughput (8 and 9 here) is the same for any --threads.
cut -d, -f1-7,10- "$dir/out1.csv" > "$dir/m1"; cut -d, -f1-7,10- "$dir/out2.csv" > "$dir/m2"
cmp -s "$dir/m1" "$dir/m2" && ok || bad "the rows differ between 1 and 2 threads: $(diff "$dir/m1" "$dir/m2")"
# The summary: one group per parameter set, each over its 4 runs, with an interval.
grep -q '^thicket: sweep of 2 parameter set(s) x 2 base seed(s) x 2 run(s) = 8 run(s)' "$dir/err1" && ok || bad "sweep line: $(cat "$dir/err1")"
grep -q '^thicket: set 1 (groups.west_post.count=20): 4 run(s)$' "$dir/err1" && ok || bad "set 1 line: $(cat "$dir/err1")"
grep -q '^thicket: set 2 (groups.west_post.count=60): 4 run(s)$' "$dir/err1" && ok || bad "set 2 line: $(cat "$dir/err1")"
[[ $(grep -c '^thicket:   metric strikes: mean .*, min .*, max .*, 95% CI \[' "$dir/err1") == 2 ]] && ok || bad "a strikes line per set: $(cat "$dir/err1")"
grep -q '540 to 580 agents' "$dir/err1" && ok || bad "the agents as a range: $(head -1 "$dir/err1")"
if grep -q '^thicket: metric ' "$dir/err1"; then bad "a sweep has no ungrouped metric lines"; else ok; fi

# --set replaces the file's axis of the same key and adds others; JSONL rows carry them typed.
"$thicket" run "$dir/sweep.yaml" --ticks 20 --set groups.west_post.count=10 --set groups.players.vehicle.max_speed=2,3.5 \
  --set groups.east_post.blackboard.home_x=110 --out "$dir/set.jsonl" --quiet 2>"$dir/set_err"
[[ $? == 0 ]] && ok || bad "--set run failed: $(cat "$dir/set_err")"
[[ $(wc -l < "$dir/set.jsonl") == 4 ]] && ok || bad "1 x 2 sets x 2 seeds = 4 rows: $(cat "$dir/set.jsonl")"
head -1 "$dir/set.jsonl" | grep -q '^{"run":1,"seed":3,"groups.west_post.count":10,"groups.players.vehicle.max_speed":2,"groups.east_post.blackboard.home_x":110,"ticks":20,' &&
  ok || bad "JSONL row 1: $(head -1 "$dir/set.jsonl")"
sed -n 3p "$dir/set.jsonl" | grep -q '"groups.players.vehicle.max_speed":3.5,' && ok || bad "JSONL row 3: $(sed -n 3p "$dir/set.jsonl")"
"$thicket" run "$arena_dir/arena.yaml" --ticks 5 --set groups.west_post.blackboard.invincible=false,true --out "$dir/bool.jsonl" --quiet 2>/dev/null
[[ $(grep -o '"groups.west_post.blackboard.invincible":[a-z]*' "$dir/bool.jsonl" | tr '\n' ' ') == '"groups.west_post.blackboard.invincible":false "groups.west_post.blackboard.invincible":true ' ]] &&
  ok || bad "JSONL booleans: $(cat "$dir/bool.jsonl")"
# A seed list alone groups all runs in one set.
"$thicket" run "$arena_dir/arena.yaml" --ticks 10 --set seed=1,2,3 --out "$dir/seeds.csv" --quiet 2>"$dir/seeds_err"
[[ $(cut -d, -f1-3 "$dir/seeds.csv" | tr '\n' ' ') == "run,seed,ticks 1,1,10 2,2,10 3,3,10 " ]] && ok || bad "seed list rows: $(cut -d, -f1-3 "$dir/seeds.csv")"
grep -q '^thicket: set 1 (all runs): 3 run(s)$' "$dir/seeds_err" && ok || bad "seed list summary: $(cat "$dir/seeds_err")"

# --series covers every run, --record the first.
"$thicket" run "$dir/sweep.yaml" --ticks 10 --series "$dir/series.csv" --series-every 5 --record "$dir/rec.jsonl" --quiet 2>"$dir/sr_err"
[[ $? == 0 ]] && ok || bad "--series/--record with a sweep failed: $(cat "$dir/sr_err")"
[[ $(tail -n +2 "$dir/series.csv" | cut -d, -f1 | sort -un | tr '\n' ' ') == "1 2 3 4 " ]] && ok || bad "series runs: $(cut -d, -f1-3 "$dir/series.csv")"
grep -q '"tick":10' "$dir/rec.jsonl" && grep -q '^{"end"' "$dir/rec.jsonl" && ok || bad "the record of the first run: $(tail -c 300 "$dir/rec.jsonl")"

# Without a sweep: exactly the columns and summary of before.
"$thicket" run "$arena_dir/arena.yaml" --ticks 10 --runs 2 --out "$dir/plain.csv" --quiet 2>"$dir/plain_err"
head -1 "$dir/plain.csv" | grep -q '^run,seed,ticks,agents_start,agents_end,agent_ticks,wall_s,agent_ticks_per_s,script_errors,chases,' && ok || bad "plain header: $(head -1 "$dir/plain.csv")"
grep -q '^thicket: metric strikes: mean ' "$dir/plain_err" && ! grep -q 'thicket: set ' "$dir/plain_err" && ok || bad "plain summary: $(cat "$dir/plain_err")"

# Bad keys and values: in the file at their place (exit 2), on the command line (exit 64).
cp "$dir/sweep.yaml" "$dir/bad.yaml"
sed -i 's/groups.west_post.count: \[20, 60\]/groups.west_pots.count: [20, 60]/' "$dir/bad.yaml"
line=$(grep -n 'west_pots' "$dir/bad.yaml" | cut -d: -f1)
"$thicket" run "$dir/bad.yaml" --ticks 5 2>"$dir/bad_err"
[[ $? == 2 ]] && ok || bad "a bad sweep key in the file should exit 2"
grep -q "bad.yaml:$line:3: error: sweep key 'groups.west_pots.count': unknown group 'west_pots'; did you mean 'west_post'?" "$dir/bad_err" && ok || bad "bad file key: $(cat "$dir/bad_err")"
"$thicket" check "$dir/bad.yaml" >/dev/null 2>&1
[[ $? != 0 ]] && ok || bad "check should refuse a bad sweep"
sed -i 's/seed: \[3, 50\]/seed: [3, -1]/' "$dir/bad.yaml"
"$thicket" run "$dir/bad.yaml" --ticks 5 2>"$dir/bad_err2"
grep -q "bad.yaml:$((line + 1)):13: error: sweep key 'seed': the value must be a whole number from 0 to 9223372036854775807, got '-1'" "$dir/bad_err2" && ok || bad "bad file value: $(cat "$dir/bad_err2")"
"$thicket" run "$dir/sweep.yaml" --ticks 5 --set groups.west_post.vehicle.max_sped=1 2>"$dir/set_bad"
[[ $? == 64 ]] && ok || bad "a bad --set key should exit 64"
grep -q "^thicket: error: --set: sweep key 'groups.west_post.vehicle.max_sped': group 'west_post' has no 'vehicle.max_sped'; did you mean 'vehicle.max_speed'?" "$dir/set_bad" && ok || bad "bad --set key: $(cat "$dir/set_bad")"
# A key that stops at the group names the group, not an unknown one.
for key in groups.west_post groups.west_post.; do
  "$thicket" run "$dir/sweep.yaml" --ticks 5 --set "$key=5" 2>"$dir/set_short"
  [[ $? == 64 ]] && grep -q "^thicket: error: --set: sweep key '$key' names group 'west_post' but no field of it; did you mean 'groups.west_post.count'?" "$dir/set_short" \
    && ok || bad "--set $key=5: $(cat "$dir/set_short")"
done
"$thicket" run "$dir/sweep.yaml" --ticks 5 --set groups.west_post.count=5,0 2>"$dir/set_bad2"
[[ $? == 64 ]] && grep -q "must be a whole number from 1 to 100000, got '0'" "$dir/set_bad2" && ok || bad "bad --set value: $(cat "$dir/set_bad2")"
"$thicket" run "$dir/sweep.yaml" --ticks 5 --set groups.west_post.blackboard.hom_x=1 2>"$dir/set_bad3"
[[ $? == 64 ]] && grep -q "blackboard key 'hom_x' is not declared by the brain .*minion.yaml of group 'west_post'; did you mean 'home_x'?" "$dir/set_bad3" && ok || bad "bad --set blackboard key: $(cat "$dir/set_bad3")"
"$thicket" run "$dir/sweep.yaml" --ticks 5 --set groups.west_post.blackboard.invincible=true,7 2>"$dir/set_bad4"
[[ $? == 64 ]] && grep -q "the value 7 does not fit 'invincible', which the brain .* declares as boolean" "$dir/set_bad4" && ok || bad "bad --set blackboard type: $(cat "$dir/set_bad4")"
{ cat "$dir/sweep.yaml"; printf '  groups.players.blackboard.helth: [1, 2]\n'; } > "$dir/bb.yaml"
"$thicket" check "$dir/bb.yaml" 2>"$dir/check_bb"
[[ $? == 2 ]] && grep -q "bb.yaml:$((line + 2)):3: error: sweep key 'groups.players.blackboard.helth': .*did you mean 'health'?" "$dir/check_bb" && ok || bad "bad file blackboard key: $(cat "$dir/check_bb")"
# Every value of a blackboard sweep that does not fit is reported, each at its place.
{ cat "$dir/sweep.yaml"; printf '  groups.west_post.blackboard.invincible: [7, true, "x"]\n'; } > "$dir/bb2.yaml"
"$thicket" check "$dir/bb2.yaml" 2>"$dir/check_bb2"
[[ $? == 2 ]] && grep -q "bb2.yaml:$((line + 2)):44: error: .*the value 7 does not fit 'invincible'" "$dir/check_bb2" &&
  grep -q "bb2.yaml:$((line + 2)):53: error: .*the value x does not fit 'invincible'" "$dir/check_bb2" && ok ||
  bad "each bad sweep value at its place: $(cat "$dir/check_bb2")"
# A value listed twice in another spelling (the same value as its key reads it) would repeat a
# parameter set: refused in the file (exit 2, at the value) and on the command line (exit 64).
{ cat "$dir/sweep.yaml"; printf '  groups.players.vehicle.max_speed: [3, 3.0, 3e0]\n'; } > "$dir/dup.yaml"
sed -i 's/seed: \[3, 50\]/seed: [1, 01]/' "$dir/dup.yaml"
"$thicket" run "$dir/dup.yaml" --ticks 1 --quiet --out "$dir/dup.csv" 2>"$dir/dup_err"
[[ $? == 2 ]] && ok || bad "duplicate sweep values in the file should exit 2: $(cat "$dir/dup_err")"
grep -q "dup.yaml:$((line + 2)):41: error: sweep key 'groups.players.vehicle.max_speed' lists the value 3 twice (as 3 and 3.0, the same value for this key)" "$dir/dup_err" &&
  grep -q "dup.yaml:$((line + 2)):46: error: sweep key 'groups.players.vehicle.max_speed' lists the value 3 twice (as 3 and 3e0," "$dir/dup_err" &&
  grep -q "dup.yaml:$((line + 1)):13: error: sweep key 'seed' lists the value 1 twice (as 1 and 01," "$dir/dup_err" && ok ||
  bad "duplicate sweep values in the file: $(cat "$dir/dup_err")"
[[ ! -e "$dir/dup.csv" ]] && ok || bad "a refused sweep wrote --out"
for set in groups.west_post.count=1,01 groups.players.vehicle.max_speed=3,3.0 groups.east_post.blackboard.home_x=1,1.0 \
           groups.east_post.blackboard.home_x=100,1e2 seed=1,01 groups.west_post.blackboard.invincible=true,true; do
  "$thicket" run "$arena_dir/arena.yaml" --ticks 1 --quiet --set "$set" 2>"$dir/dup_set"
  [[ $? == 64 ]] && grep -Eq "^thicket: error: --set(: sweep key '${set%%=*}':| ${set%%=*}:) the value [0-9a-z.]* is listed twice" "$dir/dup_set" && ok ||
    bad "--set $set: a value listed twice should exit 64: $(cat "$dir/dup_set")"
done
"$thicket" run "$arena_dir/arena.yaml" --ticks 1 --quiet --set groups.east_post.blackboard.home_x=1,1.5 2>/dev/null
[[ $? == 0 ]] && ok || bad "1 and 1.5 are two values"
# A string key's values are texts: "007" and "7" are two (they were refused as one number), and
# "" is a text (it was refused as no value).
mkdir -p "$dir/text"
printf 'local L = {}\nfunction L.Idle() return "running" end\nreturn L\n' > "$dir/text/idle.lua"
printf 'tree: t\nleaves: [idle.lua]\nblackboard:\n  tag: ""\n  n: 0.0\nroot: {action: Idle}\n' > "$dir/text/t.yaml"
printf 'scenario: text\nworld: {size: [10, 10]}\nteams: [a]\ngroups: [{name: g, team: a, count: 1, brain: t.yaml, spawn: {box: [[1, 1], [2, 2]]}}]\nsweep:\n  groups.g.blackboard.tag: ["007", "7", ""]\n' \
  > "$dir/text/s.yaml"
"$thicket" run "$dir/text/s.yaml" --ticks 1 --quiet --out "$dir/text/out.csv" 2>"$dir/text/err"
[[ $? == 0 && $(cut -d, -f3 "$dir/text/out.csv" | tr '\n' ' ') == 'groups.g.blackboard.tag 007 7  ' ]] && ok ||
  bad "a string key's \"007\", \"7\" and \"\" are three values: $(cat "$dir/text/err" "$dir/text/out.csv")"
"$thicket" run "$dir/text/s.yaml" --ticks 1 --quiet --set groups.g.blackboard.tag=007,7 --out /dev/null 2>"$dir/text/err"
[[ $? == 0 ]] && ok || bad "--set of a string key: 007 and 7 are two values: $(cat "$dir/text/err")"
"$thicket" run "$dir/text/s.yaml" --ticks 1 --quiet --set groups.g.blackboard.n=3,3.0 2>"$dir/text/err"
[[ $? == 64 ]] && grep -q "the value 3.0 is listed twice (as 3 and 3.0, the same value for this key)" "$dir/text/err" && ok ||
  bad "a number key's 3 and 3.0 are one value: $(cat "$dir/text/err")"
# More than 100,000 parameter sets: refused with the sizes that make them (it gave no numbers).
"$thicket" run "$dir/text/s.yaml" --ticks 1 --quiet --set "groups.g.blackboard.n=$(seq -s, 1 400)" \
  --set "groups.g.blackboard.tag=$(seq -s, 1 400)" 2>"$dir/text/err"
[[ $? == 64 ]] && grep -q "the sweep has more than 100000 parameter sets (400 x 400 values of its keys); at most 100000" "$dir/text/err" &&
  ok || bad "too many parameter sets: $(cat "$dir/text/err")"
# YAML's .inf is a number, as in a group's blackboard: (it was refused as text); JSONL rows
# write it as its text (JSON has no infinity).
"$thicket" run "$dir/text/s.yaml" --ticks 1 --quiet --set groups.g.blackboard.n=.inf,-.inf,1 --out "$dir/text/inf.jsonl" 2>"$dir/text/err"
[[ $? == 0 ]] && grep -q '"groups.g.blackboard.n":".inf"' "$dir/text/inf.jsonl" && grep -q '"groups.g.blackboard.n":"-.inf"' "$dir/text/inf.jsonl" &&
  grep -q '"groups.g.blackboard.n":1,' "$dir/text/inf.jsonl" && ok || bad ".inf swept for a number key: $(cat "$dir/text/err" "$dir/text/inf.jsonl")"
# Text that is not UTF-8 is refused (the part files of thicket merge carry UTF-8 only).
"$thicket" run "$arena_dir/arena.yaml" --ticks 1 --quiet --set $'groups.west_post.blackboard.name=a\xffb' 2>"$dir/utf8_err"
[[ $? == 64 ]] && LC_ALL=C grep -qF "thicket: error: --set: sweep key 'groups.west_post.blackboard.name': the value 'a\xFFb' is not UTF-8 text (byte 0xff at 2)" "$dir/utf8_err" &&
  ! LC_ALL=C grep -q $'\xff' "$dir/utf8_err" && ok || bad "a --set value that is not UTF-8, echoed with the byte escaped: $(cat "$dir/utf8_err")"
# A key that is not UTF-8: said so (it was an unknown group), the byte escaped (echoed raw).
"$thicket" run "$arena_dir/arena.yaml" --ticks 1 --quiet --set $'groups.west\xffpost.count=2' 2>"$dir/utf8_key"
[[ $? == 64 ]] && LC_ALL=C grep -qF "thicket: error: --set: sweep key 'groups.west\xFFpost.count': the key is not UTF-8 text (byte 0xff at 12)" "$dir/utf8_key" &&
  ! LC_ALL=C grep -q $'\xff' "$dir/utf8_key" && ok || bad "a --set key that is not UTF-8: $(cat "$dir/utf8_key")"
{ cat "$dir/sweep.yaml"; printf '  groups.players.blackboard.name: [x, "a\xffb"]\n'; } > "$dir/utf8.yaml"
"$thicket" run "$dir/utf8.yaml" --ticks 1 --quiet 2>"$dir/utf8_err2"
# (The file itself is refused now: a scenario file holds UTF-8 only, so the byte is named where it is.)
[[ $? == 2 ]] && LC_ALL=C grep -q "utf8.yaml:$((line + 2)):41: error: the file is not UTF-8 (byte 0xff here)" "$dir/utf8_err2" &&
  ok || bad "a sweep value in the file that is not UTF-8: $(cat "$dir/utf8_err2")"

# JSONL rows carry each swept number as the number the runs used; CSV keeps the text.
"$thicket" run "$arena_dir/arena.yaml" --ticks 1 --threads 1 --quiet --set groups.east_post.blackboard.home_x=.5,007,5.,1e2,1.50 \
  --out "$dir/typed.jsonl" 2>/dev/null
[[ $(grep -o '"groups.east_post.blackboard.home_x":[^,]*' "$dir/typed.jsonl" | cut -d: -f2 | tr '\n' ' ') == "0.5 7 5 100 1.5 " ]] &&
  ok || bad "JSONL swept numbers: $(grep -o '"groups.east_post.blackboard.home_x":[^,]*' "$dir/typed.jsonl")"
"$thicket" run "$arena_dir/arena.yaml" --ticks 1 --threads 1 --quiet --set groups.east_post.blackboard.home_x=.5,007,5.,1e2,1.50 \
  --out "$dir/typed.csv" 2>/dev/null
[[ $(cut -d, -f3 "$dir/typed.csv" | tr '\n' ' ') == "groups.east_post.blackboard.home_x .5 007 5. 1e2 1.50 " ]] &&
  ok || bad "CSV swept values as written: $(cut -d, -f3 "$dir/typed.csv")"

"$thicket" run "$arena_dir/player.yaml" --set seed=1 2>/dev/null
[[ $? == 64 ]] && ok || bad "--set on a brain file should exit 64"
"$thicket" run "$dir/sweep.yaml" --watch 2>/dev/null
[[ $? == 64 ]] && ok || bad "--watch with a sweep should exit 64"
# One value per key is one run, which --watch shows with those values (it was refused as a sweep).
timeout 60 "$thicket" run "$arena_dir/arena.yaml" --watch --ticks 2 --set groups.players.count=3 >/dev/null 2>"$dir/watch1.err"
[[ $? == 0 ]] && grep -q "agents alive at the end: 243;" "$dir/watch1.err" && ok ||
  bad "--watch with a one-value --set (3 players + 240 minions): $(tail -2 "$dir/watch1.err")"
"$thicket" run "$arena_dir/arena.yaml" --watch --ticks 2 --set groups.players.count=3,4 2>"$dir/watch2.err"
[[ $? == 64 ]] && grep -q "a sweep (a scenario's 'sweep:', --set with several values) has many" "$dir/watch2.err" && ok ||
  bad "--watch with a two-value --set should exit 64: $(cat "$dir/watch2.err")"
# A string key swept over text that reads as a number or a bool: JSON rows write it as text, as
# the runs took it (tests/e2e/cases/sweep_string_key_text shows what the leaves saw), and so do
# shards merged.
labels="$here/tests/e2e/cases/sweep_string_key_text/labels.yaml"
"$thicket" run "$labels" --threads 1 --quiet --out "$dir/labels.jsonl" >/dev/null 2>&1
for k in 1 2; do "$thicket" run "$labels" --threads 1 --quiet --shard $k/2 --out "$dir/labels$k.jsonl" >/dev/null 2>&1; done
"$thicket" merge "$dir/labels-merged.jsonl" "$dir/labels1.jsonl" "$dir/labels2.jsonl" 2>/dev/null
for f in labels labels-merged; do
  [[ $(grep -o '"groups.g.blackboard.label":[^,]*,"groups.g.blackboard.size":[^,]*' "$dir/$f.jsonl" | tr '\n' ' ') == \
     '"groups.g.blackboard.label":"007","groups.g.blackboard.size":2 "groups.g.blackboard.label":"true","groups.g.blackboard.size":2 "groups.g.blackboard.label":"x","groups.g.blackboard.size":2 ' ]] &&
    ok || bad "$f: a string key's values as text in JSON rows: $(head -c 300 "$dir/$f.jsonl")"
done
# A batch of more runs than memory keeps (sets x seeds x runs, each within its own bound;
# the file sweeps two seeds):
# refused before it starts, where it aborted (std::bad_alloc).
"$thicket" run "$dir/sweep.yaml" --quiet --runs 1000000 --set groups.west_post.count=1,2,3,4,5,6,7,8,9,10 --out /dev/null 2>"$dir/err"
[[ $? == 64 ]] && grep -q "^thicket: error: the batch has 20000000 runs (10 parameter set(s) x 2 seed(s) x 1000000 run(s)); at most 1000000 in one batch: fewer runs or fewer values to sweep$" "$dir/err" &&
  ok || bad "a batch of 2 x 10^7 runs: $(head -3 "$dir/err")"

"$thicket" check "$here/docs/examples/sweep/arena_sweep.yaml" >/dev/null 2>&1 && ok || bad "check on the guide's sweep example failed"
echo "sweep: $pass passed, $fail failed"
[[ $fail == 0 ]]
