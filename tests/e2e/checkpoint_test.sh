#!/usr/bin/env bash
# End-to-end test of checkpoints (issue 15): a run of 2T ticks gives the same --out row (less
# its wall-time columns), the same record tick lines and end line as a run of T ticks that
# saves a checkpoint, resumed for T more, on 1 and 2 threads and across thread counts; bad
# checkpoint files are refused with a clear message and exit 2, and nothing is overwritten.
# Exactness needs brains without Lua tasks running at the checkpoint (a task restarts after a
# restore): the flock example, tests/e2e/checkpoint/skirmish.yaml (perception, pickups,
# damage, deaths, noises, cooldowns, hook-table mem) and paths.yaml (time-sliced path searches
# in progress). tests/e2e/resume_all_test.sh checks every example. The arena's brains are all tasks: its
# resumed run must go on and end at tick 2T, not repeat the uninterrupted run.
set -u
. "$(dirname "$0")/lib.sh"  # thicket, here, dir, ok, bad

# The --out row without wall_s and agent_ticks_per_s (columns 7 and 8), and a record's lines
# after tick T (tick lines past T and the end line).
row() { cut -d, -f1-6,9- "$1"; }
after() { awk -v t="$2" '/^\{"tick":/ { split($0, a, /[:,]/); if (a[2] + 0 > t) print; next } /^\{"end"/ { print }' "$1"; }

# A 2T run, and T + checkpoint + resume for T more; TK: the checkpoint's threads, RK: the resume's.
check_same() {  # name scenario T TK RK [every]
  local name=$1 scenario=$2 t=$3 tk=$4 rk=$5 every=${6:-$3}
  local d="$dir/$name"
  mkdir -p "$d"
  "$thicket" run "$scenario" --ticks $((2 * t)) --threads "$rk" --out "$d/full.csv" --record "$d/full.jsonl" --quiet 2>"$d/err" \
    || { bad "$name: the full run failed: $(cat "$d/err")"; return; }
  "$thicket" run "$scenario" --ticks "$t" --threads "$tk" --checkpoint "$d/cp.snap" --every "$every" --quiet 2>"$d/err" \
    || { bad "$name: the first half failed: $(cat "$d/err")"; return; }
  [[ -f "$d/cp.snap" && ! -e "$d/cp.snap.tmp" ]] && ok || bad "$name: no checkpoint, or its .tmp left behind"
  "$thicket" run "$scenario" --ticks $((2 * t)) --threads "$rk" --resume "$d/cp.snap" --out "$d/resumed.csv" \
    --record "$d/resumed.jsonl" --quiet 2>"$d/err" \
    || { bad "$name: the resumed run failed: $(cat "$d/err")"; return; }
  cmp -s <(row "$d/full.csv") <(row "$d/resumed.csv") && ok \
    || bad "$name: --out differs: $(row "$d/full.csv" | tail -1) / $(row "$d/resumed.csv" | tail -1)"
  local lines c=$((t / every * every))  # the checkpoint's tick: the last multiple of --every
  lines=$(after "$d/resumed.jsonl" "$c" | wc -l)
  [[ $lines == $((2 * t - c + 1)) ]] && ok || bad "$name: the resumed record has $lines lines after tick $c, not $((2 * t - c + 1))"
  cmp -s <(after "$d/full.jsonl" "$c") <(after "$d/resumed.jsonl" "$c") && ok \
    || bad "$name: the record's lines after tick $c differ"
}

arena="$here/scripts/examples/arena/arena.yaml"
flock="$here/scripts/examples/flock/flock.yaml"
skirmish="$here/tests/e2e/checkpoint/skirmish.yaml"
check_same skirmish1 "$skirmish" 30 1 1
check_same skirmish2 "$skirmish" 30 2 2
check_same skirmish21 "$skirmish" 30 2 1
check_same skirmish12 "$skirmish" 30 1 2
check_same skirmish_every "$skirmish" 30 1 1 7   # the last checkpoint is of tick 28: resumed from 29 on
check_same flock1 "$flock" 30 1 1
check_same flock2 "$flock" 30 2 2

# --record-every 4 on both halves, the checkpoint of tick 30 off the beat (its line was the first
# half's last): the resumed record's lines are the full run's, events of ticks 29 and 30 included.
"$thicket" run "$skirmish" --ticks 60 --threads 2 --record "$dir/rf.jsonl" --record-every 4 --quiet 2>/dev/null
"$thicket" run "$skirmish" --ticks 30 --threads 1 --record "$dir/r1.jsonl" --record-every 4 --checkpoint "$dir/r.snap" --every 30 --quiet 2>/dev/null
"$thicket" run "$skirmish" --ticks 60 --threads 2 --resume "$dir/r.snap" --record "$dir/r2.jsonl" --record-every 4 --quiet 2>/dev/null
cmp -s <(after "$dir/rf.jsonl" 30) <(after "$dir/r2.jsonl" 30) && ok || bad "--record-every 4: the resumed record differs"
grep -q '"percept",29,' "$dir/r2.jsonl" && ok || bad "--record-every 4: the events of tick 29 are not in the resumed record"

# A chain: 0..20 saved, resumed and saved into the same file 20..40, resumed 40..60 on 2
# threads: the same row as one run of 60.
"$thicket" run "$skirmish" --ticks 20 --threads 1 --checkpoint "$dir/chain.snap" --every 20 --quiet 2>/dev/null
"$thicket" run "$skirmish" --ticks 40 --threads 2 --resume "$dir/chain.snap" --checkpoint "$dir/chain.snap" --every 20 --quiet 2>/dev/null
"$thicket" run "$skirmish" --ticks 60 --threads 2 --resume "$dir/chain.snap" --out "$dir/chain.csv" --quiet 2>"$dir/err" \
  && ok || bad "the chain's last part failed: $(cat "$dir/err")"
cmp -s <(row "$dir/skirmish1/full.csv") <(row "$dir/chain.csv") && ok || bad "the chain's row differs from one run's"

# The arena (tasks everywhere): the resumed run goes on from tick 30 to 60 on either thread count.
for k in 1 2; do
  "$thicket" run "$arena" --ticks 30 --threads $k --checkpoint "$dir/arena$k.snap" --every 30 --quiet 2>/dev/null
  "$thicket" run "$arena" --ticks 60 --threads $k --resume "$dir/arena$k.snap" --out "$dir/arena$k.csv" --quiet 2>"$dir/err" \
    && ok || bad "arena resumed on $k thread(s): $(cat "$dir/err")"
  [[ $(tail -1 "$dir/arena$k.csv" | cut -d, -f1-4) == "1,7,60,640" ]] && ok || bad "arena resumed row: $(tail -1 "$dir/arena$k.csv")"
done

# The same run's checkpoint is the same bytes in another process: the task journals' tables
# (world answers such as nearest's {id, x, y, ...}) are written in a fixed key order (they were
# written in Lua's order of string keys, which follows a hash seeded from the clock and addresses).
"$thicket" run "$arena" --ticks 30 --threads 1 --checkpoint "$dir/again.snap" --every 30 --quiet 2>/dev/null
cmp -s "$dir/arena1.snap" "$dir/again.snap" && ok || bad "the arena's checkpoint differs from one process to the next"

# A checkpoint in the middle of a run is replaced each time, atomically.
"$thicket" run "$arena" --ticks 20 --threads 1 --checkpoint "$dir/m.snap" --every 5 --quiet 2>/dev/null && ok || bad "checkpoint every 5"
[[ -f "$dir/m.snap" && ! -e "$dir/m.snap.tmp" ]] && ok || bad "checkpoint file or .tmp"

# Which script errors are printed carries over a resume: the log of T ticks and the resumed
# run's log together are the 2T run's log. One error from four agents every other tick is
# printed six times in all, then only counted; one naming its tick every third tick is
# printed each time. (The book was not saved: the resumed run printed the first error's six
# repeats again, 8 errors instead of 2.) A warning (a condition answering with a near status
# name, every agent every tick) is said once in the whole run, on 1 or 2 threads, and not again
# after the resume (its book is saved too, format 7).
mkdir -p "$dir/errs"
cat > "$dir/errs/b.lua" <<'LUA'
local thicket = require("thicket")
local leaves = {}
function leaves.Boom(agent)
  if thicket.tick() % 2 == 0 and agent.id % 3 == 0 then error("boom") end
  if thicket.tick() % 3 == 0 and agent.id == 1 then error("lost the target at tick " .. thicket.tick()) end
  return true
end
function leaves.Sure(agent) return "sucess" end
return leaves
LUA
printf 'tree: b\nleaves: [b.lua]\nroot:\n  sequence:\n    - condition: Sure\n    - action: Boom\n' > "$dir/errs/b.yaml"
printf 'scenario: errs\nseed: 1\nticks: 12\nworld: {size: [50, 50]}\nteams: [a]\ngroups:\n  - {name: g, team: a, count: 12, brain: b.yaml, spawn: {centre: [25, 25], radius: 5}}\n' > "$dir/errs/s.yaml"
"$thicket" run "$dir/errs/s.yaml" --ticks 12 --quiet --log "$dir/errs/full.txt" 2>/dev/null
"$thicket" run "$dir/errs/s.yaml" --ticks 6 --quiet --log "$dir/errs/first.txt" --checkpoint "$dir/errs/cp.snap" --every 6 2>/dev/null
"$thicket" run "$dir/errs/s.yaml" --ticks 12 --threads 2 --quiet --log "$dir/errs/second.txt" --resume "$dir/errs/cp.snap" 2>/dev/null
[[ $(grep -c "^error: " "$dir/errs/full.txt") == 10 && $(grep -c "^error: " "$dir/errs/second.txt") == 2 ]] && ok \
  || bad "script errors printed: the 2T run $(grep -c "^error: " "$dir/errs/full.txt") (want 10), after the resume $(grep -c "^error: " "$dir/errs/second.txt") (want 2)"
cat "$dir/errs/first.txt" "$dir/errs/second.txt" | cmp -s - "$dir/errs/full.txt" && ok || bad "the two halves' logs are not the 2T run's log"
"$thicket" run "$dir/errs/s.yaml" --ticks 12 --threads 2 --quiet --log "$dir/errs/full2.txt" 2>/dev/null
warnings() { grep -c "^warning: [^ ]*b.lua:[0-9]*: condition 'Sure' returned the text 'sucess'" "$1"; }
[[ $(warnings "$dir/errs/full.txt") == 1 && $(warnings "$dir/errs/full2.txt") == 1 && $(warnings "$dir/errs/first.txt") == 1 &&
   $(warnings "$dir/errs/second.txt") == 0 ]] && ok \
  || bad "warnings said: the 2T run $(warnings "$dir/errs/full.txt") (want 1), on 2 threads $(warnings "$dir/errs/full2.txt") (want 1), first half $(warnings "$dir/errs/first.txt") (1), after the resume $(warnings "$dir/errs/second.txt") (0)"

# Bad checkpoints: exit 2, "thicket: FILE: error: ...", no output file touched.
good="$dir/skirmish1/cp.snap"
size=$(stat -c %s "$good")
refuse() {  # name file pattern
  echo keep > "$dir/out.csv"
  "$thicket" run "$skirmish" --ticks 60 --threads 1 --resume "$2" --out "$dir/out.csv" --quiet 2>"$dir/err"
  local rc=$?
  [[ $rc == 2 ]] && ok || bad "$1: exit $rc, not 2"
  grep -q "^thicket: $2: error: $3" "$dir/err" && ok || bad "$1: message: $(cat "$dir/err")"
  [[ $(cat "$dir/out.csv") == keep ]] && ok || bad "$1: --out was overwritten"
}
for cut in 0 5 23 24 100 $((size / 2)) $((size - 1)); do
  head -c "$cut" "$good" > "$dir/cut$cut.snap"
  refuse "truncated at $cut" "$dir/cut$cut.snap" "\(truncated\|not a thicket checkpoint\)"
done
cp "$good" "$dir/flip.snap"
printf '\x5a' | dd of="$dir/flip.snap" bs=1 seek=$((size / 3)) conv=notrunc 2>/dev/null
refuse "a flipped byte" "$dir/flip.snap" "corrupt"
{ printf 'NOTASNAP'; tail -c +9 "$good"; } > "$dir/magic.snap"
refuse "wrong magic" "$dir/magic.snap" "not a thicket checkpoint: it does not start as one; --resume takes the file"
# The scenario given to --resume (a likely slip): said as text, in the user's words ("magic" said nothing).
refuse "the scenario itself" "$skirmish" "not a thicket checkpoint: it is text (a scenario or brain file?)"
cp "$good" "$dir/newer.snap"
printf '\x63' | dd of="$dir/newer.snap" bs=1 seek=8 conv=notrunc 2>/dev/null
refuse "a newer format" "$dir/newer.snap" "checkpoint format version 99 is newer"
refuse "a missing file" "$dir/none.snap" "cannot read it"
refuse "another scenario" "$dir/flock1/cp.snap" "it was made from scenario"
"$thicket" run "$skirmish" --ticks 20 --resume "$good" --quiet 2>"$dir/err"
[[ $? == 2 ]] && grep -q "past the run's end" "$dir/err" && ok || bad "--ticks before the checkpoint's tick: $(cat "$dir/err")"
"$thicket" run "$skirmish" --ticks 60 --seed 9 --resume "$good" --quiet 2>"$dir/err"
[[ $? == 2 ]] && grep -q "made with seed 11, not 9" "$dir/err" && ok || bad "another seed: $(cat "$dir/err")"
# Another dt, however near: said in full ("made with dt 0.1 s, not 0.1 s" at six digits).
"$thicket" run "$skirmish" --ticks 60 --dt 0.10000001 --resume "$good" --quiet 2>"$dir/err"
[[ $? == 2 ]] && grep -q "made with dt 0.1 s, not 0.10000001 s" "$dir/err" && ok || bad "another dt: $(cat "$dir/err")"

# A metric counted before the checkpoint is a counter after the resume too: a gauge report of
# it is the script error it is in the uninterrupted run (the kind is not saved; a counter with a
# total is one).
mkdir -p "$dir/kinds"
cat > "$dir/kinds/k.lua" <<'LUA'
local thicket = require("thicket")
return { Report = function()
  if thicket.tick() <= 3 then thicket.metric("hits", 2) else thicket.gauge("hits", 1) end
  return thicket.RUNNING
end }
LUA
printf 'tree: k\nleaves: [k.lua]\nroot: {action: Report}\n' > "$dir/kinds/k.yaml"
printf 'scenario: kinds\nseed: 1\nworld: {size: [20, 20]}\nteams: [a]\nmetrics: [hits]\ngroups:\n  - {name: g, team: a, brain: k.yaml, spawn: {centre: [5, 5], radius: 1}}\n' > "$dir/kinds/s.yaml"
"$thicket" run "$dir/kinds/s.yaml" --ticks 3 --threads 1 --checkpoint "$dir/kinds/cp.snap" --every 3 --quiet 2>/dev/null
"$thicket" run "$dir/kinds/s.yaml" --ticks 4 --threads 1 --resume "$dir/kinds/cp.snap" --quiet 2>"$dir/err"
[[ $? == 1 ]] && grep -q "metric 'hits' is a counter (thicket.metric reported it before), so thicket.gauge cannot report it" "$dir/err" \
  && grep -q "^thicket: metric hits: mean 6.00" "$dir/err" && ok || bad "a counter's kind after a resume: $(cat "$dir/err")"

# A brain changed since the checkpoint: a note, and the run goes on.
mkdir "$dir/edited"
cp "$here"/tests/e2e/checkpoint/* "$dir/edited/"
"$thicket" run "$dir/edited/skirmish.yaml" --ticks 10 --threads 1 --checkpoint "$dir/e.snap" --every 10 --quiet 2>/dev/null
sed -i 's/seconds: 0.5/seconds: 0.7/' "$dir/edited/fighter.yaml"
"$thicket" run "$dir/edited/skirmish.yaml" --ticks 20 --threads 1 --resume "$dir/e.snap" --quiet 2>"$dir/err" \
  && ok || bad "resume after a brain edit failed: $(cat "$dir/err")"
grep -q "e.snap: note: brain .*fighter.yaml changed since the snapshot: its agents are remapped by node id" "$dir/err" \
  && ok || bad "no note on the edited brain: $(cat "$dir/err")"
! grep -q "Lua file" "$dir/err" && ok || bad "a note on Lua files no one edited: $(cat "$dir/err")"
# A leaf file edited since (checkpoint format 8): allowed, and said, naming the file.
echo "-- edited" >> "$dir/edited/fighter.lua"
"$thicket" run "$dir/edited/skirmish.yaml" --ticks 20 --threads 1 --resume "$dir/e.snap" --quiet 2>"$dir/err" \
  && grep -q "e.snap: note: Lua file .*edited/fighter.lua was edited since the checkpoint (or is new): the resumed run calls the leaves as they are now" "$dir/err" \
  && ok || bad "no note on the edited leaf file: $(cat "$dir/err")"
# A checkpoint of format 7 (no map or Lua file hashes in its header) still resumes.
python3 - "$dir/e.snap" "$dir/e7.snap" "$here/tests/e2e" <<'PY'
import sys
sys.path.insert(0, sys.argv[3])
from checkpoint_layout import as_format_7
open(sys.argv[2], "wb").write(as_format_7(open(sys.argv[1], "rb").read()))
PY
"$thicket" run "$dir/edited/skirmish.yaml" --ticks 20 --threads 1 --resume "$dir/e7.snap" --quiet 2>"$dir/err" \
  && ! grep -q "Lua file" "$dir/err" && ok || bad "a format 7 checkpoint: $(cat "$dir/err")"
# A map edited since is another world (its walls are not saved): refused.
mkdir -p "$dir/mapped/tests/e2e/checkpoint" "$dir/mapped/scripts/examples/building"
cp "$here"/tests/e2e/checkpoint/* "$dir/mapped/tests/e2e/checkpoint/"
cp "$here/scripts/examples/building/building.map" "$dir/mapped/scripts/examples/building/"
"$thicket" run "$dir/mapped/tests/e2e/checkpoint/paths.yaml" --ticks 4 --threads 1 --checkpoint "$dir/m.snap" --every 4 --quiet 2>/dev/null
sed -i '6s/\.\.\./@@@/' "$dir/mapped/scripts/examples/building/building.map"
"$thicket" run "$dir/mapped/tests/e2e/checkpoint/paths.yaml" --ticks 8 --threads 1 --resume "$dir/m.snap" --quiet 2>"$dir/err"
[[ $? == 2 ]] && grep -q "m.snap: error: its map .*building.map differs from the one it was made with" "$dir/err" \
  && ok || bad "a resume with an edited map: $(cat "$dir/err")"
# A key whose type changed refuses the resume, with no note claiming a remap (a key of its
# own: the scenario binds the others to senses and pickups).
mkdir "$dir/typed"
cp "$here"/tests/e2e/checkpoint/* "$dir/typed/"
sed -i 's/^  health: 15/  health: 15\n  mood: 0/' "$dir/typed/fighter.yaml"
"$thicket" run "$dir/typed/skirmish.yaml" --ticks 10 --threads 1 --checkpoint "$dir/t.snap" --every 10 --quiet 2>/dev/null
sed -i 's/^  mood: 0/  mood: "calm"/' "$dir/typed/fighter.yaml"
"$thicket" run "$dir/typed/skirmish.yaml" --ticks 20 --threads 1 --resume "$dir/t.snap" --quiet 2>"$dir/err"
[[ $? == 2 ]] && grep -q "blackboard key 'mood' is string now and was number" "$dir/err" && ! grep -q "note:" "$dir/err" \
  && ok || bad "a changed key type: $(cat "$dir/err")"
cp "$dir/edited/fighter.yaml" "$dir/fighter.kept"
# So does a brain that changed kind (a hot reload refuses that too): a tree saved, an fsm now.
printf 'fsm: fighter\nleaves: [fighter.lua]\nblackboard: {health: 15, sees_enemy: false, suspicious: false, last_x: 0, last_y: 0}\nstates:\n  roam: {act: Roam}\n' \
  >"$dir/edited/fighter.yaml"
echo keep > "$dir/out.csv"
"$thicket" run "$dir/edited/skirmish.yaml" --ticks 20 --threads 1 --resume "$dir/e.snap" --out "$dir/out.csv" --quiet 2>"$dir/err"
[[ $? == 2 ]] && grep -q "fighter.yaml is an fsm now and was a tree in the snapshot" "$dir/err" && ! grep -q "note:" "$dir/err" \
  && ok || bad "a brain that changed kind: $(cat "$dir/err")"
# (refused before any output is opened, as the run's first setup is checked first)
[[ $(cat "$dir/out.csv") == keep ]] && ok || bad "a resume refused for a brain that changed kind emptied --out"
cp "$dir/fighter.kept" "$dir/edited/fighter.yaml"

# Time-sliced path searches in progress are saved (what each was started with and the nodes it
# has expanded) and come back exactly: the same paths found at the same ticks, on any threads.
paths="$here/tests/e2e/checkpoint/paths.yaml"
check_same paths1 "$paths" 7 1 1
check_same paths12 "$paths" 7 1 2
check_same paths21 "$paths" 7 2 1
# No save before the run ends (--every past it): no file, not an empty one (the writability check
# made it, and a --resume of it said "not a thicket checkpoint").
rm -f "$dir/none.snap"
"$thicket" run "$skirmish" --ticks 6 --checkpoint "$dir/none.snap" --every 10 --quiet 2>/dev/null && [[ ! -e "$dir/none.snap" ]] \
  && ok || bad "a run that saved no checkpoint left $(ls -la "$dir/none.snap" 2>&1)"

# A brain with tick_every (no effect in a scenario) whose leaves read the clock and wait: the
# resumed agents' clocks go on (they restarted at 0 before snapshot format 4).
check_same sliced1 "$here/tests/e2e/checkpoint/sliced.yaml" 10 1 1
check_same sliced12 "$here/tests/e2e/checkpoint/sliced.yaml" 10 1 2
"$thicket" run "$paths" --ticks 14 --threads 2 --resume "$dir/paths1/cp.snap" --quiet 2>"$dir/err" && ok || bad "paths resume: $(cat "$dir/err")"
grep -q "note:" "$dir/err" && bad "a note on resuming searches: $(cat "$dir/err")" || ok

# The stop hooks of the dead count metrics at once and damage and signal after the next tick:
# a checkpoint of a tick with deaths keeps what they did (it was lost: the metrics counted only
# in the next tick, the damage and signals waited in lists a checkpoint did not save).
last_words="$here/tests/e2e/checkpoint/last_words.yaml"
check_same last_words3 "$last_words" 3 1 1
check_same last_words5 "$last_words" 5 2 1
check_same last_words6 "$last_words" 6 1 2
"$thicket" run "$last_words" --ticks 3 --threads 1 --out "$dir/lw3.csv" --quiet 2>/dev/null
# deaths, revenge and stops: agent 7 died at tick 3
[[ $(awk -F, 'NR == 1 { for (i = 1; i <= NF; ++i) c[$i] = i } NR == 2 { print $c["deaths"] "," $c["revenge"] "," $c["stops"] }' \
      "$dir/lw3.csv") == "1,1,1" ]] && ok \
  || bad "a run of 3 ticks: the stop hook of tick 3's dead is not counted: $(tail -1 "$dir/lw3.csv")"

# A checkpoint names the brains as the saving run did (relative to its working folder): a
# resume from another folder, or of a copy of the files, finds them group by group.
mkdir -p "$dir/moved/A"
cp "$here"/tests/e2e/checkpoint/{last_words.yaml,avenger.yaml,avenger.lua} "$dir/moved/A/"
(cd "$dir/moved" && "$thicket" run A/last_words.yaml --ticks 5 --threads 1 --checkpoint cp.snap --every 5 --quiet 2>/dev/null)
(cd "$dir/moved/A" && "$thicket" run last_words.yaml --ticks 10 --threads 1 --resume ../cp.snap --out ../inside.csv --quiet 2>"$dir/err") \
  && ok || bad "a resume from the scenario's own folder: $(cat "$dir/err")"
cp -r "$dir/moved/A" "$dir/moved/B"
(cd "$dir/moved" && "$thicket" run B/last_words.yaml --ticks 10 --threads 1 --resume cp.snap --out copy.csv --quiet 2>"$dir/err") \
  && ok || bad "a resume of a copy of the files: $(cat "$dir/err")"
"$thicket" run "$last_words" --ticks 10 --threads 1 --out "$dir/moved/full.csv" --quiet 2>/dev/null
for f in inside copy; do
  cmp -s <(row "$dir/moved/full.csv" | cut -d, -f2-) <(row "$dir/moved/$f.csv" | cut -d, -f2-) && ok \
    || bad "the resumed run ($f) differs from the uninterrupted one"
done

# Ctrl-C while a tick's Lua calls run: the tick under way ends whole (its calls are not stopped,
# as they are without --checkpoint), so the checkpoint saved at the stop is a tick of the
# uninterrupted run. Before, the calls still to run failed ("stopped: the run was interrupted")
# and were saved so: the resumed run counted fewer than the whole one (1,493 of 1,500).
mkdir -p "$dir/busy"
cat >"$dir/busy/busy.lua" <<'LUA'
local thicket = require("thicket")
local L = {}
function L.Busy(agent)
  local x = 0
  for i = 1, 100000 do x = x + i % 7 end  -- about a millisecond
  return x >= 0
end
function L.Count(agent)
  thicket.metric("counted")
  return true
end
return L
LUA
printf 'tree: busy\nleaves: [busy.lua]\nroot:\n  sequence: [{action: Busy}, {action: Count}]\n' >"$dir/busy/busy.yaml"
printf 'scenario: busy\nticks: 400\nworld: {size: [50, 50]}\nteams: [a]\nmetrics: [counted]\ngroups:\n  - {name: g, team: a, count: 10, brain: busy.yaml, spawn: {centre: [25, 25], radius: 5}}\n' \
  >"$dir/busy/s.yaml"
"$thicket" run "$dir/busy/s.yaml" --threads 1 --quiet --leaf-timeout 0 --checkpoint "$dir/busy/cp.snap" --every 1000 \
  --out "$dir/busy/half.csv" >/dev/null 2>"$dir/busy/half.err" &
pid=$!
catches_sigint $pid || bad "the checkpointed run never set its Ctrl-C handler"
kill -INT $pid
wait $pid
half=$(no_wall_csv "$dir/busy/half.csv" | tail -1 | cut -d, -f3)
"$thicket" run "$dir/busy/s.yaml" --threads 1 --quiet --leaf-timeout 0 --resume "$dir/busy/cp.snap" \
  --out "$dir/busy/resumed.csv" 2>/dev/null
"$thicket" run "$dir/busy/s.yaml" --threads 1 --quiet --leaf-timeout 0 --out "$dir/busy/whole.csv" 2>/dev/null
if [[ -n $half && $half -lt 400 ]] && ! grep -q "stopped: the run was interrupted" "$dir/busy/half.err"; then
  cmp -s <(no_wall_csv "$dir/busy/whole.csv") <(no_wall_csv "$dir/busy/resumed.csv") && ok ||
    bad "resumed after Ctrl-C at tick $half: $(tail -1 "$dir/busy/resumed.csv"), whole: $(tail -1 "$dir/busy/whole.csv")"
else
  bad "the Ctrl-C'd run (tick ${half:-?} of 400) stopped Lua calls or was not cut short: $(grep -m1 "stopped: the run" "$dir/busy/half.err")"
fi

# Usage errors.
for args in "--checkpoint $dir/x.snap" "--every 5" "--checkpoint $dir/x.snap --every 0" \
            "--checkpoint $dir/x.snap --every 5 --runs 2" "--resume $good --runs 2" "--resume $good --watch"; do
  # shellcheck disable=SC2086
  "$thicket" run "$arena" $args >/dev/null 2>&1
  [[ $? == 64 ]] && ok || bad "'run arena $args' should be a usage error (64)"
done

# A --set of one value per key is one run (as for --watch), but a checkpoint knows the scenario
# by its file's content only: the refusal says that, not that it is a sweep.
"$thicket" run "$arena" --set groups.west_post.count=3 --checkpoint "$dir/x.snap" --every 5 >/dev/null 2>"$dir/err"
[[ $? == 64 ]] && grep -q "take no --set (or 'sweep:') values, even one per key" "$dir/err" && ! grep -q "has many" "$dir/err" &&
  ok || bad "a one-value --set with --checkpoint: $(head -1 "$dir/err")"

# A checkpoint in a folder that does not exist is refused before the run (it ran to the end and
# then said it could not write CHECKPOINT.tmp), as the other outputs are.
"$thicket" run "$flock" --quiet --ticks 5 --checkpoint "$dir/no/such/cp.snap" --every 2 >/dev/null 2>"$dir/err"
[[ $? == 64 && $(cat "$dir/err") == "thicket: cannot write the checkpoint file '$dir/no/such/cp.snap': No such file or directory" ]] &&
  ok || bad "--checkpoint into a missing folder: $(cat "$dir/err")"

# Resumed at the checkpoint's own tick (nothing left to run) with --record, from a run saved
# without one: the record holds the header and the end line, no line of the checkpoint's tick
# ("the tick lines after the checkpoint's tick"; it wrote one for tick 30).
"$thicket" run "$skirmish" --ticks 30 --resume "$dir/skirmish1/cp.snap" --record "$dir/at30.jsonl" --record-every 7 --quiet 2>/dev/null
[[ $(grep -c '^{"tick":' "$dir/at30.jsonl") == 0 && $(wc -l < "$dir/at30.jsonl") == 2 ]] && ok ||
  bad "a resume at the checkpoint's tick should record no tick line: $(cut -c1-30 "$dir/at30.jsonl")"

# A served run until Ctrl-C (--serve, --ticks 0) takes a checkpoint as any run does (it was
# refused: "made at tick 30, past the run's end (--ticks 0)").
"$thicket" run "$skirmish" --resume "$dir/skirmish1/cp.snap" --serve 0 --ticks 0 --speed 0 --quiet >/dev/null 2>"$dir/served.err" &
served=$!
for _ in $(seq 1 200); do grep -q "http://" "$dir/served.err" && break; sleep 0.05; done
sleep 0.5
kill -INT $served 2>/dev/null
wait $served
rc=$?
[[ $rc == 0 ]] && grep -q "(interrupted)" "$dir/served.err" && ! grep -q "past the run's end" "$dir/served.err" && ok ||
  bad "a served run until Ctrl-C should resume a checkpoint: exit $rc, $(cat "$dir/served.err")"

# A --checkpoint name that is a link to a file not made yet: before the first save nothing is
# left (the check of the output removed the link and left an empty file at its target).
mkdir -p "$dir/linked/scratch"
ln -sf scratch/cp.snap "$dir/linked/cp.snap"
"$thicket" run "$skirmish" --ticks 3 --quiet --checkpoint "$dir/linked/cp.snap" --every 5 2>"$dir/err" >/dev/null
[[ -L "$dir/linked/cp.snap" && ! -e "$dir/linked/scratch/cp.snap" ]] && ok ||
  bad "a link as --checkpoint before the first save: $(ls -la "$dir/linked" "$dir/linked/scratch")"
"$thicket" run "$skirmish" --ticks 10 --quiet --checkpoint "$dir/linked/cp.snap" --every 5 2>"$dir/err" >/dev/null
[[ -L "$dir/linked/cp.snap" && -s "$dir/linked/scratch/cp.snap" ]] && ok ||
  bad "a link as --checkpoint: the save should go to its target: $(ls -la "$dir/linked" "$dir/linked/scratch")"

# What is said once, or a few times, for the whole run carries over a resume and is the same
# on any number of threads: a transition no state maps (said once, counted once: it was said
# and counted once per worker, and again after a resume), a signal to a key the target lacks
# (said 5 times: a resume started its count again), and a counter reported +1 and -1, whose
# total is back at 0 (a resume forgot it was a counter: the gauge on it went through, no error).
mkdir -p "$dir/once"
cat > "$dir/once/l.lua" <<'LUA'
local thicket = require("thicket")
local L = {}
function L.Knock(agent) if thicket.tick() >= 2 then return "open" end end
function L.Idle() return thicket.RUNNING end
function L.Poke(agent)
  local t = thicket.tick()
  agent:signal(agent.id % 4 + 1, "nokey", 1)
  if t <= 2 then thicket.metric("m", agent.id % 2 == 1 and 1 or -1) end
  if t >= 5 and agent.id == 1 then thicket.gauge("m", 5) end
  return thicket.RUNNING
end
return L
LUA
printf 'fsm: door\nleaves: [l.lua]\nstates:\n  closed:\n    reason: Knock\n    act: Poke\n    transitions: {open_up: open}\n  open: {}\n' > "$dir/once/door.yaml"
printf 'scenario: once\nseed: 1\nticks: 8\nworld: {size: [50, 50]}\nteams: [a]\nmetrics: [m]\ngroups:\n  - {name: g, team: a, count: 4, brain: door.yaml, spawn: {centre: [25, 25], radius: 5}}\n' > "$dir/once/s.yaml"
for k in 1 2 3; do
  "$thicket" run "$dir/once/s.yaml" --threads $k --quiet --log "$dir/once/full$k.txt" --out "$dir/once/full$k.csv" 2>/dev/null
done
cmp -s "$dir/once/full1.txt" "$dir/once/full3.txt" && cmp -s "$dir/once/full1.txt" "$dir/once/full2.txt" && ok ||
  bad "what is said once differs with the threads: $(diff "$dir/once/full1.txt" "$dir/once/full3.txt" | head -5)"
[[ $(grep -c "has no transition 'open'" "$dir/once/full1.txt") == 1 && $(grep -c "'nokey'" "$dir/once/full1.txt") == 5 &&
   $(grep -c "is a counter" "$dir/once/full1.txt") -ge 1 ]] && ok || bad "the once run's log: $(cat "$dir/once/full1.txt")"
[[ $(row "$dir/once/full1.csv" | tail -1) == $(row "$dir/once/full3.csv" | tail -1) ]] && ok ||
  bad "the once run's --out differs with the threads (script errors?): $(tail -1 "$dir/once/full3.csv")"
# --strict stops after the tick of the first script error, also when it is said once for the
# workers together (the shared book counts it, not a worker's runtime).
sed 's/    act: Poke/    act: Idle/' "$dir/once/door.yaml" > "$dir/once/knock.yaml"
sed 's/brain: door.yaml/brain: knock.yaml/' "$dir/once/s.yaml" > "$dir/once/strict.yaml"
"$thicket" run "$dir/once/strict.yaml" --threads 2 --strict --quiet --out "$dir/once/strict.csv" >/dev/null 2>&1
rc=$?
[[ $rc == 1 && $(tail -1 "$dir/once/strict.csv" | cut -d, -f3) == 2 ]] && ok ||
  bad "--strict on 2 threads with a said-once error: exit $rc, row $(tail -1 "$dir/once/strict.csv")"
for k in 1 2; do
  "$thicket" run "$dir/once/s.yaml" --ticks 4 --threads $k --quiet --log "$dir/once/a$k.txt" --checkpoint "$dir/once/cp$k.snap" --every 4 2>/dev/null
  "$thicket" run "$dir/once/s.yaml" --threads $((3 - k)) --quiet --log "$dir/once/b$k.txt" --out "$dir/once/b$k.csv" --resume "$dir/once/cp$k.snap" 2>/dev/null
  cmp -s "$dir/once/full1.txt" <(cat "$dir/once/a$k.txt" "$dir/once/b$k.txt") && ok ||
    bad "the once run resumed ($k thread(s), then $((3 - k))): its log differs: $(diff "$dir/once/full1.txt" <(cat "$dir/once/a$k.txt" "$dir/once/b$k.txt") | head -6)"
  [[ $(row "$dir/once/full1.csv" | tail -1) == $(row "$dir/once/b$k.csv" | tail -1) ]] && ok ||
    bad "the once run resumed: --out $(row "$dir/once/b$k.csv" | tail -1), not $(row "$dir/once/full1.csv" | tail -1)"
done

echo "checkpoint_test: $pass passed, $fail failed"
[[ $fail == 0 ]]
