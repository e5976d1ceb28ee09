#!/usr/bin/env bash
# End-to-end test of scenario runs seen over time: --series (the same bytes on 1 and 2
# threads), gauge statistics in --out, --strict and --watch on a scenario. --watch paces the
# run in real time, so its test checks what happened, never when.
set -u
. "$(dirname "$0")/lib.sh"  # thicket, here, dir, ok, bad
arena="$here/scripts/examples/arena/arena.yaml"

# --series: one row per tick, metrics in name order, the same bytes for any --threads.
for k in 1 2; do
  "$thicket" run "$arena" --ticks 40 --threads $k --series "$dir/s$k.csv" --out "$dir/o$k.csv" --quiet 2>"$dir/err$k" \
    && ok || bad "arena --series on $k thread(s): $(cat "$dir/err$k")"
done
cmp -s "$dir/s1.csv" "$dir/s2.csv" && ok || bad "the series differs between 1 and 2 threads"
[[ $(head -1 "$dir/s1.csv") == "run,seed,tick,chases,damage_dealt,deaths,escapes,minions_left,returns,strikes" ]] \
  && ok || bad "series header: $(head -1 "$dir/s1.csv")"
[[ $(wc -l < "$dir/s1.csv") == 41 ]] && ok || bad "the series should have a header and 40 rows"
[[ $(sed -n 41p "$dir/s1.csv" | cut -d, -f1-3) == "1,7,40" ]] && ok || bad "last series row: $(tail -1 "$dir/s1.csv")"
# The series' last row holds the run's end values (--out), metric by metric.
[[ $(tail -1 "$dir/s1.csv" | cut -d, -f4-) == $(tail -1 "$dir/o1.csv" | cut -d, -f10-16) ]] \
  && ok || bad "the series' last row is not the run's result: $(tail -1 "$dir/s1.csv") / $(tail -1 "$dir/o1.csv")"
# Gauges: --out gains NAME_mean, NAME_min, NAME_max; stderr a line per gauge over the ticks.
head -1 "$dir/o1.csv" | grep -q ',strikes,minions_left_mean,minions_left_min,minions_left_max$' \
  && ok || bad "--out header lacks the gauge's statistics: $(head -1 "$dir/o1.csv")"
grep -q '^thicket: gauge minions_left per tick: mean 240.00, min 240.00, max 240.00$' "$dir/err1" \
  && ok || bad "no gauge line in the summary: $(cat "$dir/err1")"
"$thicket" run "$arena" --ticks 20 --runs 2 --threads 1 --series "$dir/s.jsonl" --series-every 10 --out "$dir/o.jsonl" --quiet 2>/dev/null
[[ $(wc -l < "$dir/s.jsonl") == 4 ]] && ok || bad "--runs 2 --series-every 10 over 20 ticks should write 4 lines"
grep -q '^{"run":2,"seed":8,"tick":20,"metrics":{"chases":[0-9]*,"damage_dealt":' "$dir/s.jsonl" \
  && ok || bad "JSONL series: $(cat "$dir/s.jsonl")"
# --series-every without --series: a usage error, as --record-every without --record (it was ignored).
"$thicket" run "$arena" --ticks 2 --series-every 5 --quiet 2>"$dir/err" >/dev/null
[[ $? == 64 ]] && grep -q "give --series too" "$dir/err" && ok || bad "--series-every without --series: $(head -1 "$dir/err")"
# A run with no sampled tick still gets the whole header: --ticks 0, or --series-every past
# the run's last tick (also when merged from shards).
want_header="run,seed,tick,chases,damage_dealt,deaths,escapes,minions_left,returns,strikes"
"$thicket" run "$arena" --ticks 0 --series "$dir/none0.csv" --quiet 2>/dev/null
[[ $(cat "$dir/none0.csv") == "$want_header" ]] && ok || bad "--ticks 0: the series header lacks the metrics: $(cat "$dir/none0.csv")"
"$thicket" run "$arena" --ticks 5 --runs 2 --threads 2 --series-every 10 --series "$dir/none10.csv" --quiet 2>/dev/null
[[ $(cat "$dir/none10.csv") == "$want_header" ]] && ok || bad "--series-every 10 of 5 ticks: the header: $(cat "$dir/none10.csv")"
for i in 1 2; do
  "$thicket" run "$arena" --ticks 5 --runs 2 --threads 1 --series-every 10 --series "$dir/unused.csv" --shard $i/2 \
    --out "$dir/none-p$i.jsonl" --quiet 2>/dev/null
done
"$thicket" merge "$dir/none-m.csv" "$dir/none-p1.jsonl" "$dir/none-p2.jsonl" --series "$dir/none-ms.csv" 2>/dev/null
cmp -s "$dir/none10.csv" "$dir/none-ms.csv" && ok || bad "merged header-only series: $(cat "$dir/none-ms.csv")"

# Scripts may not report inf or nan (a script error), but sums may overflow: inf in CSV, null
# in JSONL, in --series and --out alike.
mkdir -p "$dir/inf"
cat > "$dir/inf/big.lua" <<'LUA'
local thicket = require("thicket")
local L = {}
function L.Big(agent)
  thicket.metric("total", 1e308)
  thicket.gauge("level", 1e308)
  if agent.id == 1 then thicket.gauge("bad", 0/0) end
  return thicket.RUNNING
end
return L
LUA
printf 'tree: big\nleaves: [big.lua]\nroot: {action: Big}\n' > "$dir/inf/big.yaml"
printf 'scenario: big\nticks: 2\nworld: {size: [10, 10]}\nteams: [a]\ngroups:\n  - {name: g, team: a, count: 2, brain: big.yaml, spawn: {centre: [5, 5], radius: 1}}\nmetrics: [total, level, bad]\n' > "$dir/inf/s.yaml"
"$thicket" run "$dir/inf/s.yaml" --threads 1 --series "$dir/inf/s.csv" --out "$dir/inf/o.jsonl" --quiet 2>"$dir/inf/err"
[[ $? == 1 ]] && ok || bad "a gauge fed nan should be a script error (exit 1)"
grep -q "bad argument #2 to 'gauge' (a metric's value must be a finite number)" "$dir/inf/err" && ok ||
  bad "the script error for nan: $(head -3 "$dir/inf/err")"
[[ $(tail -1 "$dir/inf/s.csv") == "1,1,2,0,0,0,inf,inf" ]] && ok || bad "overflowed sums in CSV: $(cat "$dir/inf/s.csv")"
grep -q '"metrics":{"bad":0,"damage_dealt":0,"deaths":0,"level":null,"total":null,"level_mean":null,' "$dir/inf/o.jsonl" &&
  ok || bad "overflowed sums in JSONL: $(cat "$dir/inf/o.jsonl")"
grep -q '"minions_left_mean":240,"minions_left_min":240,"minions_left_max":240}' "$dir/o.jsonl" \
  && ok || bad "JSONL --out lacks the gauge's statistics: $(head -1 "$dir/o.jsonl")"

# Usage errors.
for args in "--series $dir/x.txt" "--series-every 0" "--watch --runs 2"; do
  # shellcheck disable=SC2086
  "$thicket" run "$arena" $args >/dev/null 2>&1
  [[ $? == 64 ]] && ok || bad "'run arena $args' should be a usage error (64)"
done
printf 'tree: t\nroot: {wait: {seconds: 1}}\n' > "$dir/brain.yaml"
"$thicket" run "$dir/brain.yaml" --series "$dir/b.csv" >/dev/null 2>&1
[[ $? == 64 ]] && ok || bad "--series on a brain file should be a usage error (64)"

# --strict: agent 2 fails in its third tick; the run stops after that tick, exit 1.
mkdir "$dir/w"
cat > "$dir/w/count.lua" <<'LUA'
local thicket = require("thicket")
local L = {}
function L.Count(agent)
  agent.n = (agent.n or 0) + 1
  thicket.gauge("level", 1)
  if agent.id == 2 and agent.n == 3 then error("boom") end
  return thicket.RUNNING
end
return L
LUA
printf 'tree: count\nleaves: [count.lua]\nroot: {action: Count}\n' > "$dir/w/count.yaml"
printf 'scenario: w\nticks: 20\nworld: {size: [10, 10]}\nteams: [a]\ngroups:\n  - {name: g, team: a, count: 2, brain: count.yaml, spawn: {centre: [5, 5], radius: 1}}\nmetrics: [level]\n' > "$dir/w/s.yaml"
"$thicket" run "$dir/w/s.yaml" --threads 2 --strict --series "$dir/strict.csv" 2>"$dir/strict_err"
[[ $? == 1 ]] && ok || bad "--strict with a script error should exit 1"
grep -q 'script errors: 1 (stopped: --strict)$' "$dir/strict_err" && ok || bad "no strict stop in: $(cat "$dir/strict_err")"
[[ $(wc -l < "$dir/strict.csv") == 4 ]] && ok || bad "--strict should stop after tick 3: $(cat "$dir/strict.csv")"

# --watch: two agents on two workers print their version; the Lua file is edited while the
# run goes on. Both workers switch in the same tick, and the notice is said once.
cat > "$dir/w/count.lua" <<'LUA'
local L = {}
function L.Count(agent) print("v1 " .. agent.id) return true end
return L
LUA
"$thicket" run "$dir/w/s.yaml" --threads 2 --watch --ticks 0 --dt 0.02 >"$dir/out" 2>"$dir/err" &
pid=$!
wait_for() { for _ in $(seq 1 200); do grep -q "$1" "$2" 2>/dev/null && return 0; sleep 0.05; done; return 1; }
wait_for '^v1 2$' "$dir/out"
sed 's/v1/v2/' "$dir/w/count.lua" > "$dir/w/count.lua.tmp" && mv "$dir/w/count.lua.tmp" "$dir/w/count.lua"
wait_for '^v2 2$' "$dir/out"
wait_for '^v2 1$' "$dir/out"
kill -INT $pid 2>/dev/null
wait $pid
grep -q '^v2 1$' "$dir/out" && grep -q '^v2 2$' "$dir/out" && ok || bad "the edit did not reach both workers: $(tail -4 "$dir/out")"
sed -n '/^v2/,$p' "$dir/out" | grep -q '^v1' && bad "v1 after the first v2: workers ran two versions" || ok
[[ $(grep -c ': reloaded .*count.lua: 1 leaves replaced (Count)$' "$dir/err") == 1 ]] \
  && ok || bad "the reload notice should show once: $(cat "$dir/err")"
echo "series: $pass passed, $fail failed"
[[ $fail == 0 ]]
