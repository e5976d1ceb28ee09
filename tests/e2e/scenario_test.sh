#!/usr/bin/env bash
# End-to-end test of scenario runs: the example arena, shortened, on 1 and 2 threads gives
# the same record and the same metrics; --runs writes one row per seed; check accepts it.
set -u
. "$(dirname "$0")/lib.sh"  # thicket, here, dir, ok, bad
arena="$here/scripts/examples/arena/arena.yaml"
for k in 1 2; do
  "$thicket" run "$arena" --ticks 120 --threads $k --record "$dir/rec$k.jsonl" --out "$dir/out$k.csv" 2>"$dir/err$k"
  [[ $? == 0 ]] && ok || bad "arena on $k thread(s) exited non-zero: $(cat "$dir/err$k")"
done
cmp -s "$dir/rec1.jsonl" "$dir/rec2.jsonl" && ok || bad "the record differs between 1 and 2 threads"
[[ $(grep -c '^{"tick":' "$dir/rec1.jsonl") == 120 ]] && ok || bad "the record should have one line per tick"
# Metrics: every column but wall time and throughput (7 and 8) must match.
cut -d, -f1-6,9- "$dir/out1.csv" > "$dir/m1"; cut -d, -f1-6,9- "$dir/out2.csv" > "$dir/m2"
cmp -s "$dir/m1" "$dir/m2" && ok || bad "the metrics differ between 1 and 2 threads: $(cat "$dir/m1" "$dir/m2")"
grep -q '^run,seed,ticks,agents_start,agents_end,agent_ticks,wall_s,agent_ticks_per_s,script_errors,chases,' "$dir/out1.csv" && ok || bad "CSV header: $(head -1 "$dir/out1.csv")"
"$thicket" run "$arena" --ticks 30 --runs 3 --threads 1 --out "$dir/runs.jsonl" 2>"$dir/err_runs"
[[ $(wc -l < "$dir/runs.jsonl") == 3 ]] && ok || bad "--runs 3 should write 3 JSONL rows"
grep -q '"seed":9,' "$dir/runs.jsonl" && ok || bad "run 3 should use seed 7 + 2"
grep -q 'thicket: metric strikes: mean' "$dir/err_runs" && ok || bad "no summary over runs on stderr"
"$thicket" check "$arena" 2>"$dir/check" && ok || bad "check on the arena scenario failed: $(cat "$dir/check")"
printf 'scenario: broken\nworld: {size: [10, 10]}\nteams: [a]\ngroups:\n  - {name: g, team: b, brain: nowhere.yaml, spawn: {centre: [5, 5], radius: 1}}\n' > "$dir/broken.yaml"
"$thicket" run "$dir/broken.yaml" 2>"$dir/broken_err"
[[ $? == 2 ]] && ok || bad "a broken scenario should exit 2"
grep -q "broken.yaml:5:.*error" "$dir/broken_err" && ok || bad "a broken scenario should report FILE:LINE:COL: $(cat "$dir/broken_err")"
# The run's log (log decorators, thicket.log, script errors with tracebacks) is the same on
# 1, 2 and 3 threads, in agent order: the workers' lines used to interleave as they happened.
# Two groups, so that a worker's agents are not one run of ids; 36 agents make the old race show
# (its interleaving depended on timing, so a test of it can only make a pass by luck unlikely).
mkdir -p "$dir/logs"
cat > "$dir/logs/b.lua" <<'LUA'
local thicket = require("thicket")
local leaves = {}
function leaves.Boom(agent)
  thicket.log("boom? " .. agent.id)
  if thicket.tick() % 2 == 0 then error("boom " .. agent.id) end
  return true
end
return leaves
LUA
printf 'tree: b\nleaves: [b.lua]\nroot:\n  log:\n    message: hello\n    child: {action: Boom}\n' > "$dir/logs/b.yaml"
printf 'scenario: logs\nseed: 1\nticks: 4\nworld: {size: [50, 50]}\nteams: [a, b]\ngroups:\n  - {name: g, team: a, count: 20, brain: b.yaml, spawn: {centre: [15, 25], radius: 5}}\n  - {name: h, team: b, count: 16, brain: b.yaml, spawn: {centre: [35, 25], radius: 5}}\n' > "$dir/logs/s.yaml"
for k in 1 2 3; do
  "$thicket" run "$dir/logs/s.yaml" --threads $k --quiet --log "$dir/logs/log$k.txt" 2>/dev/null
done
[[ $(grep -c "boom? " "$dir/logs/log1.txt") == 144 ]] && ok || bad "the log run should log 144 lines of its own: $(head -3 "$dir/logs/log1.txt")"
cmp -s "$dir/logs/log1.txt" "$dir/logs/log2.txt" && cmp -s "$dir/logs/log1.txt" "$dir/logs/log3.txt" && ok ||
  bad "the log differs between 1, 2 and 3 threads: $(diff "$dir/logs/log1.txt" "$dir/logs/log2.txt" | head -5)"
# Which script errors are printed is judged in agent order over all the workers: 72 errors
# naming their agent, 20 printed (a node's share), the twentieth saying so, on any threads.
[[ $(grep -c "^error: " "$dir/logs/log1.txt") == 20 ]] && ok || bad "20 of the varied errors should be printed: $(grep -c "^error: " "$dir/logs/log1.txt")"
grep -q "20 errors at this node have now been printed" "$dir/logs/log3.txt" && ok || bad "the twentieth error should say the rest are counted"
# The same error from every agent: printed six times in all, not six times per worker.
sed -i 's/error("boom " .. agent.id)/error("boom")/' "$dir/logs/b.lua"
for k in 1 2; do
  "$thicket" run "$dir/logs/s.yaml" --threads $k --quiet --log "$dir/logs/same$k.txt" 2>/dev/null
done
[[ $(grep -c "^error: " "$dir/logs/same1.txt") == 6 ]] && cmp -s "$dir/logs/same1.txt" "$dir/logs/same2.txt" && ok ||
  bad "one error from every agent: 6 printed on 1 and 2 threads alike: $(grep -c "^error: " "$dir/logs/same1.txt") $(grep -c "^error: " "$dir/logs/same2.txt")"

# The end line lists each run's agents alive up to 10 runs; past that their mean, min and max
# (a big sweep's line held a number per run).
"$thicket" run "$dir/logs/s.yaml" --runs 11 --quiet --log "$dir/logs/many.txt" 2>"$dir/logs/many.err"
grep -q "^thicket: agents alive at the end: mean 36.0, min 36, max 36 over the 11 runs; root status" "$dir/logs/many.err" &&
  ok || bad "11 runs' end line: $(grep 'alive at the end' "$dir/logs/many.err")"
"$thicket" run "$dir/logs/s.yaml" --runs 10 --quiet --log "$dir/logs/ten.txt" 2>"$dir/logs/ten.err"
grep -q "^thicket: agents alive at the end: 36 36 36 36 36 36 36 36 36 36; root status" "$dir/logs/ten.err" &&
  ok || bad "10 runs' end line: $(grep 'alive at the end' "$dir/logs/ten.err")"

# A gauge NAME has the columns NAME_mean, NAME_min and NAME_max in the rows: a metric the
# scenario declares under one of those names was a second column of that name in --out.
mkdir -p "$dir/clash"
printf 'local thicket = require("thicket")\nreturn { Probe = function(agent)\n  thicket.gauge("load", 1)\n  return "running"\nend }\n' > "$dir/clash/b.lua"
printf 'tree: b\nleaves: [b.lua]\nroot: {action: Probe}\n' > "$dir/clash/b.yaml"
printf 'scenario: s\nticks: 1\nworld: {size: [10, 10]}\nteams: [a]\ngroups:\n  - {name: g, team: a, brain: b.yaml, spawn: {centre: [5, 5], radius: 1}}\nmetrics: [load, load_mean]\n' > "$dir/clash/s.yaml"
"$thicket" run "$dir/clash/s.yaml" --quiet --out "$dir/clash/o.csv" 2>"$dir/clash/err"
[[ $? == 1 ]] && ok || bad "a gauge whose column is a declared metric should be a script error (exit 1)"
grep -q "b.lua:3: gauge 'load' has the columns load_mean, load_min and load_max in the rows, and 'load_mean' is a metric of the scenario too: rename one of them" "$dir/clash/err" &&
  ok || bad "the gauge's column clash should be named: $(head -3 "$dir/clash/err")"
[[ $(head -1 "$dir/clash/o.csv" | tr ',' '\n' | sort | uniq -d) == "" ]] && ok || bad "--out has a column twice: $(head -1 "$dir/clash/o.csv")"

# A refused signal or damage is said 5 times per call and key, then only counted (the e2e case
# world_effect_errors_capped: 2 agents, 10 ticks, 40 errors; it printed 40).
"$thicket" run "$here/tests/e2e/cases/world_effect_errors_capped/sc.yaml" --threads 2 --quiet >/dev/null 2>"$dir/capped_err"
[[ $(grep -c "^error: .*pester.lua:[45]: agent" "$dir/capped_err") == 10 && $(grep -c "^  said 5 times; further ones from this call are only counted$" "$dir/capped_err") == 2 ]] &&
  grep -q "script errors: 40$" "$dir/capped_err" && ok || bad "capped effect errors: $(cat "$dir/capped_err")"

# agent:damage's rules (the e2e case scenario_damage_rules: its stdout and exit status there):
# the invincible target's integer health is no error; the other one's is one, said and counted.
"$thicket" run "$here/tests/e2e/cases/scenario_damage_rules/s.yaml" --threads 2 --quiet >/dev/null 2>"$dir/damage_err"
[[ $(grep -c "damaged agent" "$dir/damage_err") == 1 ]] &&
  grep -q "^error: .*/scenario_damage_rules/l.lua:7: agent 1 damaged agent 3 (tick 1), whose brain declares 'health' as integer: damage needs a number" "$dir/damage_err" &&
  grep -q "script errors: 1$" "$dir/damage_err" && ok || bad "damage errors: $(cat "$dir/damage_err")"

echo "scenario: $pass passed, $fail failed"
[[ $fail == 0 ]]
