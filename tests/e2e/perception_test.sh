#!/usr/bin/env bash
# End-to-end test of perception (issue 13) through the thicket CLI:
# - tests/e2e/perception/watch.yaml (a watcher, a walker, a wall, a door area, a respawning
#   pickup, a loud and a quiet noise) prints exactly watch.expected (the Lua API: percepts,
#   memory, sees, the blackboard keys the senses write, pickups), on 1 and 2 threads; its
#   --explain lines and --trace records are exactly watch_explain.expected / watch_trace.expected;
# - the stealth example gives byte-identical records, traces and explain logs on 1 and 2
#   threads, and its guards detect, hear, search, shoot, reload and catch, its intruders take
#   pickups and reach the goal; its guards are hierarchical state machines: their trace has the
#   perception events (renamed by the scenario) taken by the states that map them, in the tick
#   of the percept, and transitions with the states exited and entered;
# - the sentry (tests/e2e/perception/sentry.yaml): a conditional abort reacts on the tick of
#   the percept;
# - bad input: bindings that do not fit the brain (FILE:LINE:COL, did you mean, exit 2, also
#   from check), a bad thicket.noise (the Lua file and line).
set -u
. "$(dirname "$0")/lib.sh"  # thicket, here (the checkout), dir, ok, bad
cases="$here/tests/e2e/perception"
example="$here/docs/examples/perception"   # watch.yaml and its brains: the guide's example (section 12)
wall() { sed -E 's/wall [0-9.]+ s, [0-9]+ agent-ticks\/s/wall W/'; }

cd "$example" || exit 1
for k in 1 2; do
  "$thicket" run watch.yaml --quiet --threads $k 2>&1 | wall | sed "s/on $k thread(s)/on 1 thread(s)/" > "$dir/watch$k"
  diff -u "$cases/watch.expected" "$dir/watch$k" > "$dir/diff" && ok || bad "watch.yaml on $k thread(s):
$(head -30 "$dir/diff")"
  "$thicket" run watch.yaml --quiet --threads $k --explain --trace "$dir/trace$k.jsonl" 2>&1 | grep '^tick' > "$dir/explain$k"
  diff -u "$cases/watch_explain.expected" "$dir/explain$k" > "$dir/diff" && ok || bad "watch.yaml --explain on $k thread(s):
$(head -30 "$dir/diff")"
  diff -u "$cases/watch_trace.expected" "$dir/trace$k.jsonl" > "$dir/diff" && ok || bad "watch.yaml --trace on $k thread(s):
$(head -30 "$dir/diff")"
done
python3 -c "import json,sys; [json.loads(l) for l in open(sys.argv[1])]" "$dir/trace1.jsonl" && ok || bad "the trace is not JSONL"

stealth="$here/scripts/examples/stealth/stealth.yaml"
for k in 1 2; do
  "$thicket" run "$stealth" --quiet --threads $k --record "$dir/rec$k.jsonl" --trace "$dir/st$k.jsonl" --explain \
    --log "$dir/log$k" --out "$dir/out$k.csv" 2>/dev/null || bad "stealth on $k thread(s) exited non-zero"
done
cmp -s "$dir/rec1.jsonl" "$dir/rec2.jsonl" && ok || bad "stealth: the record differs between 1 and 2 threads"
# Without --trace/--explain every agent is sensed on its worker (not all first on one thread):
# the same run.
"$thicket" run "$stealth" --quiet --threads 2 --record "$dir/rec_plain.jsonl" 2>/dev/null
cmp -s "$dir/rec1.jsonl" "$dir/rec_plain.jsonl" && ok || bad "stealth: --explain/--trace changed the run"
cmp -s "$dir/st1.jsonl" "$dir/st2.jsonl" && ok || bad "stealth: the trace differs between 1 and 2 threads"
cmp -s "$dir/log1" "$dir/log2" && ok || bad "stealth: the --explain log differs between 1 and 2 threads"
cut -d, -f1-6,9- "$dir/out1.csv" > "$dir/m1"; cut -d, -f1-6,9- "$dir/out2.csv" > "$dir/m2"
cmp -s "$dir/m1" "$dir/m2" && ok || bad "stealth: metrics differ between 1 and 2 threads"
column() {  # FILE NAME -> the value of column NAME in row 2
  awk -F, -v name="$2" 'NR == 1 { for (i = 1; i <= NF; ++i) if ($i == name) c = i } NR == 2 && c { print $c }' "$1"
}
for m in detections searches deaths pickups_taken reached_goal noises caught shots hits reloads gave_up rests; do
  v=$(column "$dir/out1.csv" $m)
  [[ -n "$v" && "$v" != 0 ]] && ok || bad "stealth: metric $m is '${v}', expected > 0: $(cat "$dir/out1.csv")"
done
[[ $(column "$dir/out1.csv" script_errors) == 0 ]] && ok || bad "stealth: script errors: $(cat "$dir/out1.csv")"
grep -q '"sense":"hearing"' "$dir/st1.jsonl" && ok || bad "stealth: no guard heard a noise"
grep -q ' hears a sound made by agent ' "$dir/log1" && ok || bad "stealth: --explain said nothing about hearing"
grep -q '\["percept",[0-9]*,[0-9]*,"hearing","enter","sound",' "$dir/rec1.jsonl" && ok || bad "stealth: no percept events in the record"
python3 -c "import json,sys; [json.loads(l) for l in open(sys.argv[1])]" "$dir/rec1.jsonl" && ok || bad "the record is not JSONL"

# The guards (scripts/examples/stealth/guard.yaml) are hierarchical state machines: calm {patrol,
# rest}, alert {search}, combat {engage, reload}. Their senses send perception events, renamed by
# the scenario (seen: saw_intruder, heard: noise, forgot: calm_down; lost_sight as is); an event
# is offered to the innermost active state first and taken by the one that maps it.
"$thicket" check "$stealth" > "$dir/out" 2>&1 && ok || bad "stealth: thicket check: $(cat "$dir/out")"
for want in \
  '"event":{"name":"saw_intruder","taken_by":"calm"}' \
  '"event":{"name":"saw_intruder","taken_by":"alert"}' \
  '"event":{"name":"lost_sight","taken_by":"combat"}' \
  '"event":{"name":"noise","taken_by":"alert"}' \
  '"event":{"name":"calm_down","taken_by":"alert"}' \
  '"event":{"name":"calm_down","taken_by":null}' \
  '"event":{"name":"tired","taken_by":"patrol"}' \
  '"event":{"name":"success","taken_by":"reload"}' \
  '"event":{"name":"success","taken_by":"search"}' \
  '"from":"calm","to":"combat","by":"saw_intruder","event":"saw_intruder","exited":["patrol","calm"],"entered":["combat","engage"]}' \
  '"from":"combat","to":"alert","by":"lost_sight","event":"lost_sight","exited":["engage","combat"],"entered":["alert","search"]}' \
  '"from":"alert","to":"combat","by":"saw_intruder","event":"saw_intruder","exited":["search","alert"],"entered":["combat","reload"]}' \
  '"from":"engage","to":"reload","when":"engage/when/0","exited":["engage"],"entered":["reload"]}' \
  '"from":"reload","to":"engage","by":"success","event":"success","exited":["reload"],"entered":["engage"]}' \
  '"from":"alert","to":"search","by":"noise","event":"noise","exited":["search"],"entered":["search"]}' \
  '"from":"alert","to":"calm","by":"calm_down","event":"calm_down","exited":["search","alert"],"entered":["calm","patrol"]}' \
  '"from":"search","to":"calm","by":"success","event":"success","exited":["search","alert"],"entered":["calm","patrol"]}' \
  '"from":"patrol","to":"rest","by":"tired","event":"tired","exited":["patrol"],"entered":["rest"]}'; do
  grep -qF "$want" "$dir/st1.jsonl" && ok || bad "stealth: the guards' trace has no $want"
done
grep -qE '"from":"rest","to":"patrol",.*"exited":\["rest"\],"entered":\["patrol"\]\}' "$dir/st1.jsonl" && ok ||
  bad "stealth: no guard went back from rest to patrol (rest's after)"
grep -q '^tick [0-9]* agent [0-9]*: event saw_intruder taken by calm$' "$dir/log1" &&
  grep -q ': fsm stealth_guard went from calm to combat (event saw_intruder, taken by calm); left patrol, calm; entered combat, engage$' "$dir/log1" &&
  ok || bad "stealth: --explain says nothing of the guards' events and transitions"
# Each sight or hearing event comes in the tick of its percept (sent just before the guard's
# tick, handled in that tick's event phase); saw_intruder and lost_sight alternate per guard.
python3 - "$dir/st1.jsonl" > "$dir/out" <<'PY' && ok || bad "stealth: events and percepts: $(cat "$dir/out")"
import json, sys
percepts, events = set(), []
for line in open(sys.argv[1]):
    r = json.loads(line)
    if "percept" in r:
        percepts.add((r["tick"], r["agent"], r["percept"]["sense"], r["percept"]["phase"]))
    elif "event" in r:
        events.append((r["tick"], r["agent"], r["event"]["name"]))
wants = {"saw_intruder": ("sight", "enter"), "lost_sight": ("sight", "exit"), "noise": ("hearing", "enter")}
bad, last, n = [], {}, 0
for tick, agent, name in events:
    if name in wants:
        n += 1
        if (tick, agent) + wants[name] not in percepts: bad.append(f"tick {tick} agent {agent}: {name} without its percept")
    if name in ("saw_intruder", "lost_sight"):
        if last.get(agent, "lost_sight") == name: bad.append(f"tick {tick} agent {agent}: {name} twice in a row")
        last[agent] = name
print("; ".join(bad[:5]) or f"{n} events checked")
sys.exit(1 if bad or n < 20 else 0)
PY

# Brains react the tick something is perceived: the sentry's abort starts the alarm on the tick
# its sight reports the walker (tick 54 is t=5.3: tick k runs at t = (k - 1) dt).
cd "$cases" || exit 1
for k in 1 2; do
  "$thicket" run sentry.yaml --quiet --explain --threads $k 2>&1 | head -4 > "$dir/sentry$k"
  printf '%s\n' "t=0 agent 1: dozing" "tick 54: agent 1 (sentry) sees agent 2 (walker) at 18.0, 11.6, 8.2 m, cone 1" \
    "t=5.3 agent 1: doze stops: aborted" "t=5.3 agent 1: alarm: agent 2 in sight (sees: true)" > "$dir/sentry_want"
  diff -u "$dir/sentry_want" "$dir/sentry$k" > "$dir/diff" && ok || bad "sentry on $k thread(s): $(cat "$dir/diff")"
done
# The same wall as a polygon in a navmesh world: sight is blocked by the shapes the navmesh is
# cut from, so the sentry sees the walker on the same tick.
sed -e 's/    - {box: \[\[14, 11\], \[15, 20\]\]}/    - {polygon: [[14, 11], [15, 11], [15, 20], [14, 20]]}\n  navmesh: true/' \
  -e "s|brain: sentry_|brain: $cases/sentry_|" sentry.yaml > "$dir/sentry_navmesh.yaml"
grep -q "navmesh: true" "$dir/sentry_navmesh.yaml" && ok || bad "the navmesh variant of sentry.yaml was not made"
"$thicket" run "$dir/sentry_navmesh.yaml" --quiet --explain 2>&1 | head -4 > "$dir/sentry_nm"
diff -u "$dir/sentry_want" "$dir/sentry_nm" > "$dir/diff" && ok || bad "sentry in a navmesh world: $(cat "$dir/diff")"

# Every slot a group can bind (tests/e2e/perception/slots.yaml), an integer key among them.
for k in 1 2; do
  "$thicket" run slots.yaml --quiet --threads $k 2>&1 | grep "agent 1:" > "$dir/slots$k"
  diff -u slots.expected "$dir/slots$k" > "$dir/diff" && ok || bad "slots.yaml on $k thread(s):
$(head -30 "$dir/diff")"
done
# A pickup's integer gift wraps around as Lua's integer + does (tests/e2e/perception/hoard.yaml;
# under UBSan the sum was a signed overflow).
printf '1\t9223372036854775807\tinteger\n2\t-2\tinteger\n3\t9223372036854775805\tinteger\n4\t-4\tinteger\n' > "$dir/hoard_want"
"$thicket" run hoard.yaml --ticks 4 --quiet 2> "$dir/hoard_err" > "$dir/hoard"
diff -u "$dir/hoard_want" "$dir/hoard" > "$dir/diff" && ok || bad "hoard.yaml: $(cat "$dir/diff" "$dir/hoard_err" | head -20)"
# Bindings reach every agent of their group on any thread count, even when another group's
# brain declares the same key with another type (log lines of two workers interleave: sorted).
for k in 1 2; do
  "$thicket" run alias.yaml --quiet --threads $k 2>&1 | grep 'alert=' | sort > "$dir/alias$k"
done
[[ $(grep -c 'alert=true sees(9)=true' "$dir/alias1") == 6 ]] && cmp -s "$dir/alias1" "$dir/alias2" && ok ||
  bad "alias.yaml: 1 thread: $(cat "$dir/alias1"); 2 threads: $(cat "$dir/alias2")"

# The record keeps the tick's percept events and takes, even those of an agent that dies that
# tick; nobody sees an agent after it died, LOD or not.
"$thicket" run die.yaml --quiet --record "$dir/die.jsonl" > /dev/null 2> "$dir/die_log"
grep -q '^{"tick":10,.*"events":\[\["percept",10,2,"touch","enter","pickup","medkit"\],\["take",10,"medkit",2\],\["damage",10,1,2,1000\],\["death",10,2\]\],' "$dir/die.jsonl" && ok ||
  bad "die.yaml: tick 10 of the record: $(grep '"tick":10,' "$dir/die.jsonl")"
grep -q "agent 2: tick 1 health=125.0 armed=true kit=medic kits=integer 1 pickup:enter:taken$" "$dir/die_log" &&
  grep -q "agent 2: tick 10 health=150.0 armed=true kit=medic kits=integer 2 pickup:enter:taken$" "$dir/die_log" && ok ||
  bad "die.yaml: the medkit's gifts (number, boolean, text, integer): $(grep 'agent 2: tick \(1\|10\) ' "$dir/die_log")"
grep -q "agent 1: tick 11 sees(2)=false seen=false seen_id=0.0 rem=true mem_id=2.0 percepts=sight:exit:2$" "$dir/die_log" && ok ||
  bad "die.yaml: the watcher still sees the dead victim: $(grep 'tick 1[1-4] ' "$dir/die_log")"

# Bad input.
"$thicket" run bad_binding.yaml --quiet > "$dir/out" 2> "$dir/err"
[[ $? == 2 ]] && ok || bad "bad bindings should exit 2"
grep -q "^bad_binding.yaml:14:26: error: senses of group 'watcher': 'seen' is written into blackboard key 'seen_x', which its brain ../../../docs/examples/perception/watcher.yaml declares as number (it must be a boolean)$" "$dir/err" && ok || bad "wrong-type binding message: $(cat "$dir/err")"
grep -q "^bad_binding.yaml:14:41: error: .*'haerd', which its brain ../../../docs/examples/perception/watcher.yaml does not declare (declare it as a boolean); did you mean 'heard'?$" "$dir/err" && ok || bad "undeclared binding message: $(cat "$dir/err")"
"$thicket" check bad_binding.yaml > /dev/null 2> "$dir/err"
[[ $? == 2 ]] && grep -q "bad_binding.yaml: 2 error(s)" "$dir/err" && ok || bad "check should report both binding errors: $(cat "$dir/err")"
"$thicket" check bad_events.yaml > /dev/null 2> "$dir/err"
[[ $? == 2 ]] && grep -q "^bad_events.yaml:14:22: error: senses of group 'sentry': perception event 'seen' is sent as 'saw_enmy', which no state of its brain ../../../docs/examples/hsm/sentry.yaml takes; did you mean 'saw_enemy'? (its transitions: saw_enemy, noise, quiet, lost_enemy); switch it off with false if it is not wanted$" "$dir/err" &&
  grep -q "^bad_events.yaml:21:7: error: senses of group 'walker': 'events' names the perception events its brain ../../../docs/examples/hsm/intruder.yaml is sent, but that brain is not an fsm, and only fsm brains take events$" "$dir/err" &&
  grep -q "bad_events.yaml: 2 error(s)" "$dir/err" && ok || bad "events a brain cannot take: $(cat "$dir/err")"
"$thicket" check bad_gives.yaml > /dev/null 2> "$dir/err"
[[ $? == 2 ]] && ok || bad "gifts that do not fit should fail the check"
grep -q "^bad_gives.yaml:6:39: error: pickup 'kit' gives 'health' text, but the brain ../../../docs/examples/perception/walker.yaml of group 'walker' declares it as number$" "$dir/err" &&
  grep -q "^bad_gives.yaml:6:53: error: pickup 'kit' gives 'helth', which no brain of a group that may take it declares; did you mean 'health'?$" "$dir/err" &&
  grep -q "^bad_gives.yaml:7:58: error: pickup 'flag' gives 'health' true/false, but" "$dir/err" && ok || bad "gift messages: $(cat "$dir/err")"
"$thicket" run bad_noise_scenario.yaml --quiet > /dev/null 2> "$dir/err"
[[ $? == 1 ]] && ok || bad "a script error in a scenario should exit 1"
grep -q "^error: bad_noise.lua:5: thicket.noise: loudness must be a finite number > 0" "$dir/err" && ok || bad "bad noise message: $(cat "$dir/err")"
grep -q "^error: bad_noise.lua:11: thicket.noise: seconds must be a finite number >= 0, got nan (not a number: 0/0?)$" "$dir/err" && ok || bad "a nan noise's message: $(cat "$dir/err")"
grep -q "^error: bad_noise.lua:6: thicket.noise: agent 1 made more than 16 sounds this tick (a runaway loop?)$" "$dir/err" && ok || bad "noise loop message: $(cat "$dir/err")"

# A pickup taken again by an agent that stays on it (respawn 0): --explain says each take, and
# "touches" only when touch began (it said "touches" on every tick, a phase the trace calls stay).
mkdir -p "$dir/retake"
printf 'tree: s\nleaves: [s.lua]\nroot: {action: Stand}\n' > "$dir/retake/stand.yaml"
printf 'local L = {}\nfunction L.Stand() return "running" end\nreturn L\n' > "$dir/retake/s.lua"
cat > "$dir/retake/p.yaml" <<'YAML'
scenario: p
world: {size: [45, 20], pickups: [{name: bmed, at: [30, 10], radius: 0.5, respawn: 0, gives: {}}]}
teams: [b]
groups: [{name: g4, team: b, count: 1, brain: stand.yaml, spawn: {box: [[30.2, 10], [30.2, 10]]}, vehicle: {mass: 1, max_speed: 0, max_force: 0, radius: 0}, senses: {touch: true}}]
YAML
"$thicket" run "$dir/retake/p.yaml" --explain --ticks 3 --threads 1 2>&1 | grep '^tick' > "$dir/retake/explain"
[[ "$(cat "$dir/retake/explain")" == "tick 1: agent 1 (g4) touches pickup bmed at 30.0, 10.0, 0.2 m
tick 1: agent 1 (g4) takes pickup bmed (back in 0.1 s)
tick 2: agent 1 (g4) takes pickup bmed (back in 0.1 s)
tick 3: agent 1 (g4) takes pickup bmed (back in 0.1 s)" ]] && ok || bad "a pickup retaken in place: $(cat "$dir/retake/explain")"

echo "e2e_perception: $pass passed, $fail failed"
[[ $fail == 0 ]]
