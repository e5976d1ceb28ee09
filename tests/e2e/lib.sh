# Sourced by the end-to-end scripts (tests/e2e/*_test.sh), whose first argument is the thicket
# binary: thicket (that path, absolute), here (the checkout), dir (a temporary folder, removed
# at exit), the pass / fail counters and ok / bad to count a check (bad prints why), and
# no_wall_csv / no_wall_jsonl: --out rows less the columns that differ from run to run, and
# catches_sigint: waits until a process started with & has its Ctrl-C handler.
thicket=$(realpath "$1")
here=$(cd "$(dirname "$0")/../.." && pwd)
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
pass=0 fail=0
ok() { pass=$((pass + 1)); }
bad() { fail=$((fail + 1)); echo "FAIL: $*"; }
# Rows less wall_s and agent_ticks_per_s, found by name in the CSV header (a sweep moves them).
no_wall_csv() {
  awk -F, 'NR == 1 { for (i = 1; i <= NF; i++) if ($i == "wall_s" || $i == "agent_ticks_per_s") skip[i] = 1 }
           { line = ""; for (i = 1; i <= NF; i++) if (!skip[i]) line = line (line == "" ? "" : ",") $i; print line }' "$1"
}
no_wall_jsonl() { sed -E 's/"wall_s":[^,]*,"agent_ticks_per_s":[^,]*,//' "$1"; }
# Waits until process $1 catches SIGINT (its handler, SigCgt in /proc/PID/status), then half a
# second more for its ticks to be under way. A command this script starts with `&` begins with
# SIGINT ignored (bash does so for background jobs without job control), and `thicket run` sets
# its handler once the brain has loaded, just before the first tick: a Ctrl-C sent before that
# was lost, and the run went on (the ASan build on a loaded CI machine took over the 0.5 s this
# test once slept to load).
catches_sigint() {
  local mask
  for _ in $(seq 1 400); do
    mask=$(awk '/^SigCgt:/ {print $2}' "/proc/$1/status" 2>/dev/null)
    [[ -n $mask ]] && (( (16#$mask >> 1) & 1 )) && { sleep 0.5; return 0; }
    sleep 0.05
  done
  return 1
}
