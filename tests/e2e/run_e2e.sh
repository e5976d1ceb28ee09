#!/usr/bin/env bash
# End-to-end tests: run the thicket CLI on YAML + Lua files and compare what it prints.
#
# Each folder under cases/ holds:
#   cmd        the thicket arguments, one line, run inside the folder
#   stdout     the exact expected standard output
#   stderr     (optional) the exact expected standard error, less the summary lines
#              ("thicket: N agent(s)...", "thicket: root status..."), which carry wall time,
#              and thicket path's "search time" (wall time) and "nodes expanded" (a figure of
#              the search's inner workings, not of its results) lines
#   rc         (optional) the expected exit status (default 0)
#   trace      (optional, empty) append the root status per tick from --trace, as the
#              spec's worked examples do ("status K S")
# Usage: run_e2e.sh path/to/thicket [case-name-filter]
set -u
thicket=$(realpath "$1")
filter=${2:-}
here=$(cd "$(dirname "$0")" && pwd)
pass=0 fail=0
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
for dir in "$here"/cases/*/; do
  name=$(basename "$dir")
  [[ -n "$filter" && "$name" != *"$filter"* ]] && continue
  read -r -a args < "$dir/cmd"
  want_rc=0
  [[ -f "$dir/rc" ]] && want_rc=$(cat "$dir/rc")
  extra=()
  [[ -f "$dir/trace" ]] && extra=(--trace "$tmp/trace.jsonl")
  (cd "$dir" && "$thicket" "${args[@]}" "${extra[@]}" >"$tmp/out" 2>"$tmp/err" </dev/null)
  rc=$?
  if [[ -f "$dir/trace" ]]; then
    sed -n 's/^{"tick":\([0-9]*\),"agent":1,"status":"\([a-z]*\)".*/status \1 \2/p' "$tmp/trace.jsonl" >>"$tmp/out"
  fi
  ok=1
  why=""
  if [[ "$rc" != "$want_rc" ]]; then ok=0; why+=" exit status $rc, expected $want_rc;"; fi
  if ! diff -u "$dir/stdout" "$tmp/out" >"$tmp/diff_out"; then ok=0; why+=" stdout differs;"; fi
  if [[ -f "$dir/stderr" ]]; then
    grep -Ev '^thicket: ([0-9]+ agent|root status|search time|nodes expanded)' "$tmp/err" >"$tmp/err_filtered"
    if ! diff -u "$dir/stderr" "$tmp/err_filtered" >"$tmp/diff_err"; then ok=0; why+=" stderr differs;"; fi
  fi
  if [[ $ok == 1 ]]; then
    pass=$((pass + 1))
  else
    fail=$((fail + 1))
    echo "FAIL $name:$why"
    echo "  command: thicket ${args[*]}"
    [[ -s "$tmp/diff_out" ]] && sed 's/^/  /' "$tmp/diff_out" | head -40
    [[ -s "$tmp/diff_err" ]] && sed 's/^/  /' "$tmp/diff_err" | head -40
    [[ "$rc" != "$want_rc" ]] && sed 's/^/  stderr: /' "$tmp/err" | head -20
  fi
done
echo "e2e: $pass passed, $fail failed"
[[ $fail == 0 ]]
