#!/usr/bin/env bash
# thicket path against the Moving AI files in data/movingai, with the .scen files as the oracle:
# on every map and with every --algorithm, each output line names its scenario's start and goal
# and a length within 1e-6 (relative) of the file's optimal length, and the exit status is 0;
# with --paths, the cells run from start to goal by legal moves (passable cells, 8 neighbours,
# no corner cutting; checked here against the map file itself) whose lengths add up to the
# printed length. Then the usage errors: each exits 64 with its message and the usage text.
# Usage: path_test.sh path/to/thicket
set -u
. "$(dirname "$0")/lib.sh"  # thicket, here (the checkout), dir, ok, bad
data="$here/data/movingai"
cases="$here/tests/e2e/cases"

# check_lines MAP SCEN OUT: prints one line per problem found, nothing when all is well.
check_lines() {
  tail -n +2 "$2" | paste - "$3" | awk -F'\t' -v mapfile="$1" '
    BEGIN {
      # The map: 4 header lines, then the rows; passable cells are . G S.
      row = -4
      while ((getline line < mapfile) > 0) {
        if (row >= 0) grid[row] = line
        row++
      }
    }
    function open(x, y) {
      if (!(y in grid) || x < 0 || x >= length(grid[y])) return 0
      c = substr(grid[y], x + 1, 1)
      return c == "." || c == "G" || c == "S"
    }
    {
      n = split($10, f, " ")
      if (f[1] != $5 || f[2] != $6 || f[3] != $7 || f[4] != $8) { print NR ": start/goal " $10; next }
      want = $9 + 0; got = f[5] + 0
      tol = 1e-6 * (want > 1 ? want : 1)
      if (f[5] == "none" || got - want > tol || want - got > tol) { print NR ": length " f[5] ", optimal " $9; next }
      if (n < 6) next
      m = split(f[6], cells, ";")
      split(cells[1], p, ","); split(cells[m], q, ",")
      if (p[1] != $5 || p[2] != $6 || q[1] != $7 || q[2] != $8) { print NR ": path ends"; next }
      total = 0
      for (i = 1; i <= m; i++) {
        split(cells[i], c2, ",")
        if (!open(c2[1], c2[2])) { print NR ": blocked cell " cells[i]; next }
        if (i == 1) continue
        split(cells[i - 1], c1, ",")
        dx = c2[1] - c1[1]; dy = c2[2] - c1[2]
        if (dx < -1 || dx > 1 || dy < -1 || dy > 1 || (dx == 0 && dy == 0)) { print NR ": jump " cells[i - 1] " " cells[i]; next }
        if (dx != 0 && dy != 0) {
          if (!open(c1[1] + dx, c1[2]) || !open(c1[1], c1[2] + dy)) { print NR ": corner cut at " cells[i - 1]; next }
          total += sqrt(2)
        } else total += 1
      }
      if (total - got > tol || got - total > tol) print NR ": path length " total ", printed " got
    }'
}

# THICKET_PATH_QUICK=1 (the sanitizer build, ~10x slower): the 512 x 512 maps with the auto
# choice only (unit_nav runs both searches there on every 7th scenario); all three on the arena.
for map in arena AR0500SR random512-20-0 maze512-2-5; do
  algorithms="auto astar jps"
  [[ ${THICKET_PATH_QUICK:-0} == 1 && $map != arena ]] && algorithms=auto
  for algorithm in $algorithms; do
    "$thicket" path "$data/$map.map" "$data/$map.map.scen" --algorithm "$algorithm" --paths >"$dir/out" 2>"$dir/err"
    rc=$?
    [[ $rc == 0 ]] && ok || bad "$map --algorithm $algorithm: exit $rc: $(head -3 "$dir/err")"
    want=$(($(wc -l <"$data/$map.map.scen") - 1))
    [[ $(wc -l <"$dir/out") == "$want" ]] && ok || bad "$map --algorithm $algorithm: $(wc -l <"$dir/out") lines, expected $want"
    problems=$(check_lines "$data/$map.map" "$data/$map.map.scen" "$dir/out")
    [[ -z "$problems" ]] && ok || bad "$map --algorithm $algorithm: $(echo "$problems" | head -5)"
    grep -q "^thicket: $want scenarios (.*): $want match the optimal length, 0 differ$" "$dir/err" && ok ||
      bad "$map --algorithm $algorithm summary: $(head -1 "$dir/err")"
  done
done

# The e2e cases' expected output (cases/path_arena*) holds the files' optimal lengths too.
problems=$(check_lines "$data/arena.map" "$data/arena.map.scen" "$cases/path_arena/stdout")
[[ -z "$problems" ]] && ok || bad "cases/path_arena/stdout: $(echo "$problems" | head -5)"
problems=$(check_lines "$data/arena.map" "$cases/path_arena_astar_paths/few.scen" "$cases/path_arena_astar_paths/stdout")
[[ -z "$problems" ]] && ok || bad "cases/path_arena_astar_paths/stdout: $(echo "$problems" | head -5)"

# Without --paths the line has five fields, the same as with them but the sixth.
"$thicket" path "$data/arena.map" "$data/arena.map.scen" >"$dir/five" 2>/dev/null
"$thicket" path "$data/arena.map" "$data/arena.map.scen" --paths 2>/dev/null | cut -d' ' -f1-5 >"$dir/six"
cmp -s "$dir/five" "$dir/six" && ok || bad "--paths changed the first five fields"

# Usage errors: exit 64, the message, then the usage text (which names thicket path).
usage_case() {
  local want=$1
  shift
  "$thicket" path "$@" >"$dir/out" 2>"$dir/err"
  local rc=$?
  [[ $rc == 64 ]] && ok || bad "thicket path $*: exit $rc, expected 64"
  [[ "$(head -1 "$dir/err")" == "thicket: $want" ]] && ok || bad "thicket path $*: '$(head -1 "$dir/err")', expected 'thicket: $want'"
  # A known option's bad value is said alone, with a pointer to --help; the rest with the usage.
  if [[ $want == --* || $want == "unknown algorithm"* ]]; then
    [[ $(sed -n 2p "$dir/err") == "(thicket --help lists the options)" && $(wc -l < "$dir/err") == 2 ]] && ok ||
      bad "thicket path $*: a bad option value should be said alone: $(cat "$dir/err")"
  else
    grep -q "^       thicket path MAP.map SCEN.scen" "$dir/err" && ok || bad "thicket path $*: no usage text"
  fi
  [[ ! -s "$dir/out" ]] && ok || bad "thicket path $*: wrote to stdout"
}
m="$data/arena.map" s="$data/arena.map.scen"
usage_case "'thicket path' needs MAP.map"
usage_case "'thicket path' needs SCEN.scen (or --from X,Y --to X,Y) after MAP.map" "$m"
usage_case "'thicket path' takes one MAP.map and one SCEN.scen" "$m" "$s" "$s"
usage_case "unknown option '--path'; did you mean '--paths'? (options of 'thicket path': --paths, --algorithm, --from, --to)" "$m" "$s" --path
usage_case "unknown algorithm 'a-star'; did you mean 'astar'? (algorithms: auto, astar, jps)" "$m" "$s" --algorithm a-star
usage_case "unknown algorithm 'dijkstra' (algorithms: auto, astar, jps)" "$m" "$s" --algorithm=dijkstra
usage_case "--algorithm needs a value" "$m" "$s" --algorithm
usage_case "--paths takes no value" "$m" "$s" --paths=yes
usage_case "--from needs --to" "$m" --from 1,1
usage_case "--to needs --from" "$m" --to 1,1
usage_case "--from needs X,Y (whole numbers), got '1;2'" "$m" --from '1;2' --to 3,3
usage_case "--to needs X,Y (whole numbers), got '3,'" "$m" --from 1,2 --to 3,
usage_case "'thicket path' takes either SCEN.scen or --from and --to, not both" "$m" "$s" --from 1,1 --to 2,2

# A point outside the map, however far, is a load error (exit 2) naming it, not a usage error.
"$thicket" path "$m" --from 99999999999,1 --to -1,0 >"$dir/out" 2>"$dir/err"
[[ $? == 2 ]] && ok || bad "--from 99999999999,1 should exit 2"
[[ "$(cat "$dir/err")" == "thicket: error: --from 99999999999,1 is outside $m (width 49, height 49)
thicket: error: --to -1,0 is outside $m (width 49, height 49)" ]] && ok || bad "far points: $(cat "$dir/err")"
# A map that is not there says so (it said "cannot read the file" alone).
"$thicket" path "$dir/missing.map" --from 0,0 --to 1,1 >"$dir/out" 2>"$dir/err"
[[ $? == 2 ]] && [[ "$(cat "$dir/err")" == "$dir/missing.map: error: cannot read the file: there is no such file" ]] &&
  ok || bad "missing map: $(cat "$dir/err")"
# Past 18 digits too (it was a usage error, exit 64), said as typed.
"$thicket" path "$m" --from 1,1 --to 99999999999999999999,-99999999999999999999 >"$dir/out" 2>"$dir/err"
[[ $? == 2 ]] && [[ "$(cat "$dir/err")" == "thicket: error: --to 99999999999999999999,-99999999999999999999 is outside $m (width 49, height 49)" ]] &&
  ok || bad "20-digit points: $(cat "$dir/err")"

# Standard output that cannot be written (a full disk): said, exit 1 (the paths were lost with exit 0).
for args in "$s" "--from 1,1 --to 2,2"; do
  # shellcheck disable=SC2086
  "$thicket" path "$m" $args >/dev/full 2>"$dir/err"
  rc=$?
  [[ $rc == 1 ]] && grep -q "^thicket: error: cannot write to standard output" "$dir/err" && ok ||
    bad "thicket path $args >/dev/full: exit $rc: $(head -2 "$dir/err")"
done
# A scenario whose length differs, under a long path: the note keeps its line and lengths (it was
# cut at 160 bytes).
long="$dir/$(printf 'a%.0s' {1..150})"
mkdir -p "$long"
sed '3s/\t[0-9.]*$/\t1.5/' "$s" > "$long/wrong.scen"
"$thicket" path "$m" "$long/wrong.scen" >/dev/null 2>"$dir/err"
[[ $? == 1 ]] && grep -q "^$long/wrong.scen:3: note: length [0-9.]*, the file's optimal length is 1.50000000$" "$dir/err" && ok ||
  bad "a differing length under a long path: $(head -1 "$dir/err")"
# A byte-order mark before the map's or the scenario file's first line (a Windows editor's) is
# skipped, as YAML's is: it was read as part of 'type', and the error quoted a line that looked
# right. A scenario file with no scenario says so, not "(auto)".
printf '\xEF\xBB\xBF' | cat - "$m" > "$dir/bom.map"
printf '\xEF\xBB\xBF' | cat - "$s" > "$dir/bom.scen"
"$thicket" path "$dir/bom.map" "$dir/bom.scen" >"$dir/bom.out" 2>"$dir/err"
rc=$?
"$thicket" path "$m" "$s" >"$dir/plain.out" 2>/dev/null
[[ $rc == 0 ]] && cmp -s "$dir/bom.out" "$dir/plain.out" && ok || bad "a map and scenario file with a BOM: exit $rc: $(head -2 "$dir/err")"
printf 'version 1\n' > "$dir/none.scen"
"$thicket" path "$m" "$dir/none.scen" >/dev/null 2>"$dir/err"
grep -q "^thicket: 0 scenarios (the file has none): 0 match the optimal length, 0 differ$" "$dir/err" && ok ||
  bad "a scenario file without a scenario: $(cat "$dir/err")"

# The help text names the command.
"$thicket" --help | grep -q "^       thicket path MAP.map --from X,Y --to X,Y" && ok || bad "--help lacks thicket path"

echo "path: $pass passed, $fail failed"
[[ $fail == 0 ]]
