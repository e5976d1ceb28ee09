#!/usr/bin/env bash
# End-to-end checks of CLI outputs that go to files: --log, --trace; and dot of a tree.
set -u
thicket=$(realpath "$1")
here=$(cd "$(dirname "$0")" && pwd)
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
pass=0 fail=0
ok() { pass=$((pass + 1)); }
bad() { fail=$((fail + 1)); echo "FAIL: $*"; }
cases="$here/cases"

# --log FILE: script errors go to the file, not to stderr; the summary stays on stderr.
"$thicket" run "$cases/script_errors/brain.yaml" --ticks 3 --log "$dir/run.log" >/dev/null 2>"$dir/err"
[[ $? == 1 ]] && ok || bad "--log run should exit 1 (script errors)"
grep -q "leaves.lua:7: attempt to index a nil value" "$dir/run.log" && ok || bad "the log file lacks the script error"
grep -q "error:" "$dir/err" && bad "stderr should not carry the log with --log" || ok
grep -q "^thicket: root status" "$dir/err" && ok || bad "the summary should stay on stderr"

# --trace: one JSON object per agent per tick, with the running nodes in depth-first order.
"$thicket" run "$cases/spec_seed000_guard/seed000_guard.yaml" --ticks 3 --dt 0.5 --agents 2 --trace "$dir/t.jsonl" >/dev/null 2>&1
[[ $(wc -l < "$dir/t.jsonl") == 6 ]] && ok || bad "trace should have 6 lines (2 agents x 3 ticks)"
grep -qx '{"tick":1,"agent":1,"status":"running","running":\["root","root/1"\]}' "$dir/t.jsonl" && ok || bad "tick 1 trace line: $(head -1 "$dir/t.jsonl")"
grep -qx '{"tick":3,"agent":2,"status":"running","running":\["root","root/0","root/0/1","root/0/1/1","root/0/1/1/1"\]}' "$dir/t.jsonl" && ok || bad "tick 3 trace line: $(tail -1 "$dir/t.jsonl")"

# --trace of an fsm: a transition line (the initial state's entry, a reason's transition, a
# `when` check) before the agent's status line of that tick; `running` names the state.
"$thicket" run "$cases/fsm_order/brain.yaml" --ticks 3 --trace "$dir/f.jsonl" >/dev/null 2>&1
[[ $(wc -l < "$dir/f.jsonl") == 6 ]] && ok || bad "fsm trace should have 6 lines (3 ticks, 3 transitions)"
[[ $(sed -n 1p "$dir/f.jsonl") == '{"tick":1,"agent":1,"transition":{"fsm":"order","from":null,"to":"a"}}' ]] && ok || bad "fsm trace line 1: $(sed -n 1p "$dir/f.jsonl")"
[[ $(sed -n 2p "$dir/f.jsonl") == '{"tick":1,"agent":1,"status":"running","running":["root","a"]}' ]] && ok || bad "fsm trace line 2: $(sed -n 2p "$dir/f.jsonl")"
[[ $(sed -n 3p "$dir/f.jsonl") == '{"tick":2,"agent":1,"transition":{"fsm":"order","from":"a","to":"b","by":"go_b","reason":"a/reason"}}' ]] && ok || bad "fsm trace line 3: $(sed -n 3p "$dir/f.jsonl")"
[[ $(sed -n 4p "$dir/f.jsonl") == '{"tick":2,"agent":1,"status":"running","running":["root","b","b/tree","b/tree/1"]}' ]] && ok || bad "fsm trace line 4: $(sed -n 4p "$dir/f.jsonl")"
[[ $(sed -n 5p "$dir/f.jsonl") == '{"tick":3,"agent":1,"transition":{"fsm":"order","from":"b","to":"a","when":"b/when/0"}}' ]] && ok || bad "fsm trace line 5: $(sed -n 5p "$dir/f.jsonl")"

# --trace of a behavior machine: a switch line when the behavior changes (and for the first
# pick); `running` names the active behavior.
"$thicket" run "$cases/spec_machine_every_tick/machine_every_tick.yaml" --ticks 6 --dt 0.5 --trace "$dir/m.jsonl" >/dev/null 2>&1
[[ $(grep -c '"switch"' "$dir/m.jsonl") == 3 ]] && ok || bad "machine trace should have 3 switch lines"
[[ $(sed -n 1p "$dir/m.jsonl") == '{"tick":1,"agent":1,"switch":{"machine":"every_tick","from":null,"to":"work","check":"work/check"}}' ]] && ok || bad "machine trace line 1: $(sed -n 1p "$dir/m.jsonl")"
[[ $(sed -n 2p "$dir/m.jsonl") == '{"tick":1,"agent":1,"status":"running","running":["root","work"]}' ]] && ok || bad "machine trace line 2: $(sed -n 2p "$dir/m.jsonl")"
grep -qx '{"tick":4,"agent":1,"switch":{"machine":"every_tick","from":"work","to":"flee","check":"flee/check"}}' "$dir/m.jsonl" && ok || bad "machine trace: no switch from work to flee at tick 4"
[[ $(grep -A1 '"switch".*"to":"flee"' "$dir/m.jsonl" | tail -1) == '{"tick":4,"agent":1,"status":"running","running":["root","flee"]}' ]] && ok || bad "machine trace: the switch should come before its tick's status line"

# dot of a tree: one graph node per tree node, one edge per parent-child pair.
"$thicket" dot "$cases/spec_seed000_guard/seed000_guard.yaml" > "$dir/g.dot"
[[ $(grep -c '^  n[0-9]* \[label=' "$dir/g.dot") == 11 ]] && ok || bad "dot should have 11 nodes"
[[ $(grep -c ' -> ' "$dir/g.dot") == 10 ]] && ok || bad "dot should have 10 edges"
head -1 "$dir/g.dot" | grep -q '^digraph "seed000_guard" {' && ok || bad "dot header"

echo "cli: $pass passed, $fail failed"
[[ $fail == 0 ]]
