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

# dot of a tree: one graph node per tree node, one edge per parent-child pair.
"$thicket" dot "$cases/spec_seed000_guard/seed000_guard.yaml" > "$dir/g.dot"
[[ $(grep -c '^  n[0-9]* \[label=' "$dir/g.dot") == 11 ]] && ok || bad "dot should have 11 nodes"
[[ $(grep -c ' -> ' "$dir/g.dot") == 10 ]] && ok || bad "dot should have 10 edges"
head -1 "$dir/g.dot" | grep -q '^digraph "seed000_guard" {' && ok || bad "dot header"

# An alias bomb (each anchor holds two aliases of the one before, 2^29 leaves expanded) and a
# 20,000-deep nesting: `check` (loader and schema pass) refuses each at once, with a position.
{
  printf 'tree: bomb\ntrees:\n  pool:\n    sequence:\n      - &a0 {action: Work}\n'
  for i in $(seq 1 29); do printf '      - &a%d {sequence: [*a%d, *a%d]}\n' "$i" $((i - 1)) $((i - 1)); done
  printf 'root: *a29\n'
} > "$dir/bomb.yaml"
timeout 5 "$thicket" check "$dir/bomb.yaml" >/dev/null 2>"$dir/err"
[[ $? == 2 ]] && ok || bad "check of an alias bomb should exit 2 within 5 s"
grep -q "bomb.yaml:20:26: error: aliases expand to more than 250000 nodes here" "$dir/err" && ok || bad "alias bomb message: $(head -1 "$dir/err")"
{ printf 'tree: deep\nroot: '; head -c 20000 /dev/zero | tr '\0' '['; head -c 20000 /dev/zero | tr '\0' ']'; echo; } > "$dir/deep.yaml"
timeout 5 "$thicket" check "$dir/deep.yaml" >/dev/null 2>"$dir/err"
grep -q "deep.yaml:2:306: error: nesting deeper than 300 levels at line 2" "$dir/err" && ok || bad "deep nesting message: $(head -1 "$dir/err")"

echo "cli: $pass passed, $fail failed"
[[ $fail == 0 ]]
