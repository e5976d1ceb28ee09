#!/usr/bin/env bash
# End-to-end checks that a modder's runaway script cannot hold a run: the instruction budget
# stops a spinning task on every tick; the watchdog stops a plain leaf's endless loop by
# default; Ctrl-C (SIGINT) stops a run whose leaf loops for ever, with its summary.
# Waits use `timeout` so that a regression fails the test instead of hanging it.
set -u
. "$(dirname "$0")/lib.sh"  # thicket, here (the checkout), dir, ok, bad
root=$here
budget="$root/docs/examples/lua/budget.yaml"

# The guide's budget example: the budget error on every tick (it used to hang on tick 2).
timeout 20 "$thicket" run "$budget" --ticks 3 --leaf-timeout 0 >"$dir/out" 2>"$dir/err"
[[ $? == 1 ]] && ok || bad "budget run should exit 1 (script errors), not hang"
[[ $(grep -c "ran past its instruction budget" "$dir/err") == 3 ]] && ok || bad "3 budget errors expected: $(cat "$dir/err")"
[[ $(grep -c "spinner cleanup" "$dir/out") == 3 ]] && ok || bad "each stopped task runs its cleanup"
for args in "--ticks 1 --agents 3" "--ticks 2 --budget 1000" "--ticks 2 --budget-all"; do
  # shellcheck disable=SC2086
  timeout 20 "$thicket" run "$budget" $args --leaf-timeout 0 >/dev/null 2>"$dir/err"
  [[ $? == 1 ]] && ok || bad "budget run with $args should exit 1, not hang"
done

# The watchdog, by default: a plain leaf's endless loop is stopped; the run goes on.
mkdir -p "$dir/loop"
cat >"$dir/loop/loop.lua" <<'LUA'
local leaves = {}
function leaves.Work(agent, args)
  local n = 0
  while agent.bb.wood < 10 do n = n + 1 end
  return true
end
return leaves
LUA
printf 'tree: loop\nleaves: [loop.lua]\nblackboard: {wood: 0}\nroot: {action: Work}\n' >"$dir/loop/loop.yaml"
timeout 20 "$thicket" run "$dir/loop/loop.yaml" --ticks 2 >/dev/null 2>"$dir/err"
[[ $? == 1 ]] && ok || bad "an endless plain leaf should be stopped (exit 1)"
grep -q "loop.lua:4: stopped after running for more than 50 ms" "$dir/err" && ok || bad "watchdog message: $(cat "$dir/err")"
grep -q "in leaf 'Work' at node root, agent 1, tick 2" "$dir/err" && ok || bad "the leaf is stopped on tick 2 too"


# A leaf printing in a loop: each agent prints at most 4 MiB a tick, then its print raises at the
# line (a scenario's parallel tick held every line until the tick's end: gigabytes, then abort).
mkdir -p "$dir/flood"
cat >"$dir/flood/flood.lua" <<'LUA'
local leaves = {}
local line = ("p"):rep(400000)
function leaves.Shout(agent, args)
  while true do print(line) end
end
return leaves
LUA
printf 'tree: flood\nleaves: [flood.lua]\nroot: {action: Shout}\n' >"$dir/flood/flood.yaml"
timeout 60 "$thicket" run "$dir/flood/flood.yaml" --ticks 2 --agents 2 --leaf-timeout 0 >"$dir/out" 2>"$dir/err"
[[ $? == 1 ]] && ok || bad "a print flood should end in script errors (exit 1)"
[[ $(wc -l <"$dir/out") == 40 ]] && ok || bad "10 lines of 400 kB per agent per tick expected, got $(wc -l <"$dir/out")"
[[ $(grep -c "flood.lua:4: print: agent [12] printed and logged more than 4 MB this tick" "$dir/err") == 4 ]] && ok ||
  bad "the print cap's error, once per agent and tick: $(head -c 600 "$dir/err")"

# A leaf sending in a loop to every agent: at most 16,384 sends a tick, then thicket.send raises
# at the line (4,097 to each target were kept: a loop over 200 ids held 6 GB).
cat >"$dir/flood/send.lua" <<'LUA'
local thicket = require("thicket")
local leaves = {}
function leaves.Spam(agent, args)
  local sent = 0
  while true do
    for id = 1, 50 do thicket.send(id, "e"); sent = sent + 1; agent.bb.sent = sent end
  end
end
return leaves
LUA
printf 'tree: spam\nleaves: [send.lua]\nblackboard: {sent: 0}\nroot: {action: Spam}\n' >"$dir/flood/send.yaml"
timeout 60 "$thicket" run "$dir/flood/send.yaml" --ticks 1 --agents 50 --leaf-timeout 0 >"$dir/out" 2>"$dir/err"
[[ $? == 1 ]] && ok || bad "a send flood should end in script errors (exit 1)"
[[ $(grep -c "send.lua:6: thicket.send: agent [0-9]* sent more than 16384 events this tick" "$dir/err") -ge 20 ]] && ok ||
  bad "the send cap's error for each agent: $(head -c 600 "$dir/err")"
grep -q "script errors: 50$" "$dir/err" && ok || bad "one send-cap error per agent: $(tail -2 "$dir/err")"

# World queries: 25,000 agents each steering over the whole world (radius 1e6) examined 25,000
# agents a call, 625 million a tick, in C++ time no leaf limit cuts (50,000 took 174 s a tick).
# Each agent's queries now examine at most its share of 400 million a tick; a radius of 5 is
# far within it.
mkdir -p "$dir/crowd"
printf 'local L = {}\nfunction L.A(agent) agent:steer{separation = 1, cohesion = 1, radius = tonumber(agent.bb.r)} return true end\nreturn L\n' >"$dir/crowd/crowd.lua"
printf 'tree: crowd\nleaves: [crowd.lua]\nblackboard: {r: 5}\nroot: {action: A}\n' >"$dir/crowd/crowd.yaml"
for r in 1e6 5; do
  cat >"$dir/crowd/s$r.yaml" <<YAML
scenario: crowd
teams: [a]
world: {size: [1000, 1000]}
groups:
  - {name: g, team: a, count: 25000, brain: crowd.yaml, blackboard: {r: $r}, spawn: {box: [[0, 0], [1000, 1000]]}}
YAML
done
timeout 120 "$thicket" run "$dir/crowd/s1e6.yaml" --ticks 1 --threads 1 >/dev/null 2>"$dir/err"
[[ $? == 1 ]] && ok || bad "world queries past their share should be script errors (exit 1): $(tail -3 "$dir/err")"
grep -q "crowd.lua:2: steer: agent 1's world queries examined more than 16000 agents this tick (its share of the tick's 400000000 over 25000 agents" "$dir/err" && ok ||
  bad "the query share's error: $(head -c 600 "$dir/err")"
timeout 120 "$thicket" run "$dir/crowd/s5.yaml" --ticks 2 --threads 1 >/dev/null 2>"$dir/err"
[[ $? == 0 ]] && ok || bad "a radius of 5 is within the share: $(head -c 600 "$dir/err")"

# interrupted WHAT ARGS...: thicket ARGS in the background (stderr to $dir/err), Ctrl-C once it
# catches it, its exit status in $rc; WHAT names the run in a failure.
interrupted() {
  local what=$1 pid
  shift
  "$thicket" "$@" >/dev/null 2>"$dir/err" &
  pid=$!
  catches_sigint $pid || bad "$what never set its Ctrl-C handler"
  kill -INT $pid
  timeout 10 tail --pid=$pid -f /dev/null && ok || { bad "SIGINT did not stop $what"; kill -KILL $pid; }
  wait $pid
  rc=$?
}

# Ctrl-C with no time limit: the loop is stopped where it is, the run ends with its summary.
interrupted "the run" run "$dir/loop/loop.yaml" --ticks 0 --leaf-timeout 0
[[ $rc == 0 ]] && ok || bad "an interrupted run exits 0 (the leaf Ctrl-C stopped made no error of its own)"
grep -q "loop.lua:4: stopped: the run was interrupted (Ctrl-C)" "$dir/err" && ok || bad "interrupt message: $(cat "$dir/err")"
grep -q "^thicket: root status:.*script errors: 0 (interrupted)" "$dir/err" && ok || bad "the summary says interrupted, no script error"

# Ctrl-C of many agents mid-tick: every call of the tick's rest is stopped, and said once (a
# block per agent was printed, with "further ones are counted in the summary's script errors").
interrupted "the many-agent run" run "$dir/loop/loop.yaml" --agents 50 --ticks 0 --leaf-timeout 0
[[ $rc == 0 ]] && ok || bad "an interrupted many-agent run exits 0"
[[ $(grep -c "stopped: the run was interrupted (Ctrl-C)" "$dir/err") == 1 ]] && ok ||
  bad "the interrupt is said once, not per agent: $(grep -c "interrupted (Ctrl-C)" "$dir/err") times"
grep -q "further ones are counted" "$dir/err" && bad "no 'further ones are counted' for calls Ctrl-C stopped" || ok

# Ctrl-C of a run whose leaf errors: the script errors still make it exit 1.
printf 'return { Bad = function() local t = os.clock(); while os.clock() - t < 0.01 do end; error("boom") end }\n' >"$dir/loop/bad.lua"
printf 'tree: bad\nleaves: [bad.lua]\nroot: {action: Bad}\n' >"$dir/loop/bad.yaml"
interrupted "the erring run" run "$dir/loop/bad.yaml" --ticks 0
[[ $rc == 1 ]] && ok || bad "an interrupted run with script errors exits 1"

# Bad values of the new options are usage errors.
"$thicket" run "$budget" --leaf-timeout -1 >/dev/null 2>&1
[[ $? == 64 ]] && ok || bad "--leaf-timeout -1 is a usage error"
"$thicket" run "$budget" --lua-memory lots >/dev/null 2>&1
[[ $? == 64 ]] && ok || bad "--lua-memory lots is a usage error"
for value in x -1 1e3 '' 4294967297; do
  "$thicket" run "$budget" --max-agents "$value" >/dev/null 2>"$dir/err"
  [[ $? == 64 ]] && grep -q "^thicket: --max-agents needs a whole number of agents from 0 (no cap) to 4294967296, got '$value'" "$dir/err" && ok ||
    bad "--max-agents '$value' is a usage error: $(head -1 "$dir/err")"
done
# A value past the cap says the cap (it said "needs a whole number of MiB", as if 9999999999 were none).
"$thicket" run "$budget" --lua-memory 9999999999 >/dev/null 2>"$dir/err"
[[ $? == 64 ]] && grep -q "^thicket: --lua-memory needs a whole number of MiB from 0 (no cap) to 1073741824, got '9999999999'" "$dir/err" && ok ||
  bad "--lua-memory 9999999999: $(head -1 "$dir/err")"
# A scenario's leaves cannot spawn: the flag is refused there, with why.
"$thicket" run "$root/docs/examples/checkpoint/hoard.yaml" --max-agents 5 >/dev/null 2>"$dir/err"
[[ $? == 64 ]] && grep -q "^thicket: --max-agents is for brain files; a scenario's leaves cannot spawn" "$dir/err" && ok ||
  bad "--max-agents with a scenario: $(head -1 "$dir/err")"
# --runs is bounded: a batch keeps a result per run (--runs 100000000000 died of bad_alloc).
for value in 0 1000001 100000000000; do
  timeout 20 "$thicket" run "$root/docs/examples/checkpoint/hoard.yaml" --runs "$value" >/dev/null 2>"$dir/err"
  [[ $? == 64 ]] && grep -q "^thicket: --runs needs a whole number from 1 to 1000000, got '$value'" "$dir/err" && ok ||
    bad "--runs '$value' is a usage error: $(head -1 "$dir/err")"
done

echo "guard: $pass passed, $fail failed"
[[ $fail == 0 ]]
