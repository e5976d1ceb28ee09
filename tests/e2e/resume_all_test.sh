#!/usr/bin/env bash
# Exact resume of every scenario example (issue 31): for each scenario file under
# scripts/examples (a YAML file whose top key is `scenario:`, found here: a new example is
# checked too), at a few checkpoint ticks T, a run of 2T ticks and a run of T ticks saved to a
# checkpoint, resumed for T more, write the same --out row (less its wall-time columns), the same
# --series samples after T and the same --record lines after T; on --threads 1, on 2, and saved
# on 1 resumed on 2. One line per case says "same" or what differs, and the end lists the
# examples that resumed exactly.
#
# The ticks: 13 and 60 for every example (Lua tasks run at both in every example with tasks),
# and for the examples whose brains slice path searches (agent:path_to with a budget, through
# thicket.move_to), a tick where a search is in progress (kSearching below; the test checks
# that one is, by reading the checkpoint's agent records, and says so when an edited example
# no longer has one there: pick another tick then).
#
# THICKET_RESUME_QUICK=1 (the sanitizer build): only the saved-on-1-resumed-on-2 case, and the
# search ticks with 13 for the other examples.
set -u
. "$(dirname "$0")/lib.sh"  # thicket, here, dir, ok, bad, no_wall_csv

quick=${THICKET_RESUME_QUICK:-0}
declare -A kSearching=([stealth]=257 [building]=140)

# A record's lines after tick T (its tick lines past T and the end line); a series' header and
# samples after T (the tick is its third column).
after() { awk -v t="$2" '/^\{"tick":/ { split($0, a, /[:,]/); if (a[2] + 0 > t) print; next } /^\{"end"/ { print }' "$1"; }
series_after() { awk -F, -v t="$2" 'NR == 1 || $3 + 0 > t' "$1"; }

# How many agents of a checkpoint hold a path search in progress: the agent records of the
# layout at the top of runtime/src/sim/sim_snapshot.cpp (format 3 on), after the header and
# the metrics. Prints "?" when the file cannot be read so.
searching() {
  python3 - "$1" "$here/tests/e2e" 2>/dev/null <<'PY' || echo "?"
import sys
sys.path.insert(0, sys.argv[2])
from checkpoint_layout import Reader
r = Reader(open(sys.argv[1], "rb").read())
assert r.format >= 3
agents = r.header()
r.hashes()                                # format 8: the map's and the Lua files' hashes
r.metrics()
r.book()                                  # agent-ticks, script errors, the error book
r.effects_said()                          # format 9: the refused effects' messages said
n = 0
for _ in range(agents):
    r.p += 1 + 4 + 16 + 8                 # alive, entity, wander target, wander stream
    if r.take("<B"):
        n += 1
        r.p += 32 + 2                     # from, goal, algorithm, smooth
        zones = r.take("<I")
        r.p += 32 * zones + 8             # danger zones, nodes expanded
    r.p += 8 + 8 + 4 + 1
assert r.p <= len(r.b)
print(n)
PY
}

declare -A exact  # example -> 0 when a case differed
check() {  # name scenario T
  local name=$1 scenario=$2 t=$3 d="$dir/$1/$3"
  mkdir -p "$d"
  local k
  # The uninterrupted runs, the first halves (one checkpoint each), then the resumed runs.
  local threads=(1 2) pairs=("1 1" "2 2" "1 2")
  if [[ $quick == 1 ]]; then threads=(2) pairs=("1 2"); fi
  for k in "${threads[@]}"; do
    "$thicket" run "$scenario" --ticks $((2 * t)) --threads "$k" --out "$d/full$k.csv" --series "$d/full$k.series.csv" \
      --record "$d/full$k.jsonl" --quiet 2>"$d/err" || { bad "$name T=$t: the full run on $k thread(s) failed: $(cat "$d/err")"; exact[$name]=0; return; }
  done
  for k in 1 2; do
    [[ $quick == 1 && $k == 2 ]] && continue
    "$thicket" run "$scenario" --ticks "$t" --threads "$k" --checkpoint "$d/cp$k.snap" --every "$t" --quiet 2>"$d/err" \
      || { bad "$name T=$t: the first half on $k thread(s) failed: $(cat "$d/err")"; exact[$name]=0; return; }
  done
  local n
  n=$(searching "$d/cp1.snap")
  if [[ ${kSearching[$name]:-} == "$t" ]]; then
    [[ $n != "?" && $n -gt 0 ]] && ok \
      || bad "$name T=$t: no path search is in progress at tick $t any more ($n): give kSearching another tick"
  fi
  local pair tk rk what
  for pair in "${pairs[@]}"; do
    read -r tk rk <<<"$pair"
    what=""
    if ! "$thicket" run "$scenario" --ticks $((2 * t)) --threads "$rk" --resume "$d/cp$tk.snap" --out "$d/r$tk$rk.csv" \
         --series "$d/r$tk$rk.series.csv" --record "$d/r$tk$rk.jsonl" --quiet 2>"$d/err"; then
      what="the resumed run failed: $(cat "$d/err")"
    else
      cmp -s <(no_wall_csv "$d/full$rk.csv") <(no_wall_csv "$d/r$tk$rk.csv") || what+=" --out"
      cmp -s <(series_after "$d/full$rk.series.csv" "$t") <(series_after "$d/r$tk$rk.series.csv" "$t") || what+=" --series"
      cmp -s <(after "$d/full$rk.jsonl" "$t") <(after "$d/r$tk$rk.jsonl" "$t") || what+=" --record"
      [[ $(after "$d/r$tk$rk.jsonl" "$t" | wc -l) == $((t + 1)) ]] || what+=" (record lines)"
    fi
    if [[ -z $what ]]; then
      ok
      echo "resume_all: $name T=$t threads $tk->$rk ($n search(es) in progress): same"
    else
      bad "$name T=$t threads $tk->$rk ($n search(es) in progress): differs:$what"
      exact[$name]=0
    fi
  done
}

examples=()
while IFS= read -r f; do
  # The top key: the first line that is neither blank nor a comment.
  [[ $(awk '!/^[[:space:]]*(#|$)/ { print; exit }' "$f") == scenario:* ]] && examples+=("$f")
done < <(find "$here/scripts/examples" -name '*.yaml' | sort)
[[ ${#examples[@]} -ge 5 ]] && ok || bad "only ${#examples[@]} scenario examples found under scripts/examples"

for f in "${examples[@]}"; do
  name=$(basename "$f" .yaml)
  exact[$name]=1
  ticks=(13 60)
  [[ $quick == 1 ]] && ticks=(13)
  [[ -n ${kSearching[$name]:-} ]] && ticks=("${kSearching[$name]}") && [[ $quick != 1 ]] && ticks+=(13 60)
  for t in "${ticks[@]}"; do check "$name" "$f" "$t"; done
done

same="" differ=""
for f in "${examples[@]}"; do
  name=$(basename "$f" .yaml)
  if [[ ${exact[$name]} == 1 ]]; then same+=" $name"; else differ+=" $name"; fi
done
echo "resume_all: exact:${same:- none}; not exact:${differ:- none}"
echo "resume_all_test: $pass passed, $fail failed"
[[ $fail == 0 ]]
