#!/usr/bin/env bash
# End-to-end test of navigation in scenario runs (issue 12): the building (grid map) and
# courtyard (navmesh, polygon obstacles) examples, shortened, on 1 and 2 threads give the same
# record and the same metrics; no recorded position is inside a wall of building.map or inside
# a courtyard obstacle; check accepts both; a scenario whose map file is broken is reported at
# the map file's FILE:LINE:COL and exits 2.
set -u
. "$(dirname "$0")/lib.sh"  # thicket, here, dir, ok, bad
examples="$here/scripts/examples"

for name in building courtyard; do
  scenario="$examples/$name/$name.yaml"
  for k in 1 2; do
    "$thicket" run "$scenario" --ticks 300 --threads $k --record "$dir/$name$k.jsonl" --out "$dir/$name$k.csv" 2>"$dir/$name-err$k"
    [[ $? == 0 ]] && ok || bad "$name on $k thread(s) exited non-zero: $(cat "$dir/$name-err$k")"
  done
  cmp -s "$dir/${name}1.jsonl" "$dir/${name}2.jsonl" && ok || bad "$name: the record differs between 1 and 2 threads"
  [[ $(grep -c '^{"tick":' "$dir/${name}1.jsonl") == 300 ]] && ok || bad "$name: the record should have one line per tick"
  # Metrics: every column but wall time and throughput (7 and 8) must match.
  cut -d, -f1-6,9- "$dir/${name}1.csv" > "$dir/m1"; cut -d, -f1-6,9- "$dir/${name}2.csv" > "$dir/m2"
  cmp -s "$dir/m1" "$dir/m2" && ok || bad "$name: the metrics differ between 1 and 2 threads: $(cat "$dir/m1" "$dir/m2")"
  # No script errors (column 9), and some agents did what the scenario is about.
  [[ $(sed -n 2p "$dir/${name}1.csv" | cut -d, -f9) == 0 ]] && ok || bad "$name: script errors: $(cat "$dir/${name}1.csv" "$dir/$name-err1")"
  "$thicket" check "$scenario" 2>"$dir/check" && ok || bad "check on $name failed: $(cat "$dir/check")"
done
# Each example did what it is about within 300 ticks (columns found by name in the header).
column_positive() {  # FILE NAME
  awk -F, -v name="$2" 'NR == 1 { for (i = 1; i <= NF; ++i) if ($i == name) c = i } NR == 2 && c && $c > 0 { found = 1 } END { exit !found }' "$1"
}
column_positive "$dir/courtyard1.csv" deliveries && ok || bad "no courier delivered in 300 ticks: $(cat "$dir/courtyard1.csv")"
column_positive "$dir/building1.csv" patrol_legs && ok || bad "no guard finished a patrol leg in 300 ticks: $(cat "$dir/building1.csv")"

# Walls: building.map cells '@' 'O' 'W' are blocked ('T' is passable: terrain {T: 4}); the
# map's cell is 1 m with origin 0, so a position's cell is (floor(x), floor(y)), y by row.
python3 - "$examples/building/building.map" "$dir/building1.jsonl" > "$dir/walls" 2>&1 <<'PY'
import json, math, sys
lines = open(sys.argv[1]).read().split("\n")
rows = lines[lines.index("map") + 1:]
bad = 0
count = 0
for line in open(sys.argv[2]):
    for agent_id, x, y, *_ in json.loads(line).get("agents", []):
        count += 1
        c = rows[math.floor(y)][math.floor(x)]
        if c in "@OW":
            bad += 1
            if bad <= 5: print("agent %d at (%g, %g) is in a '%s' cell" % (agent_id, x, y, c))
print("positions", count, "in walls", bad)
sys.exit(1 if bad or count == 0 else 0)
PY
[[ $? == 0 ]] && ok || bad "building: positions inside walls: $(cat "$dir/walls")"

# Obstacles of courtyard.yaml: boxes, circles and polygons, read from its flow mappings.
python3 - "$examples/courtyard/courtyard.yaml" "$dir/courtyard1.jsonl" > "$dir/obstacles" 2>&1 <<'PY'
import json, re, sys
text = open(sys.argv[1]).read()
text = text[text.index("obstacles:"):text.index("teams:")]  # not the spawn box
nums = lambda s: [float(v) for v in re.findall(r"-?\d+(?:\.\d+)?", s)]
inside = []
for m in re.finditer(r"\{box: (\[\[.*?\]\])\}", text):
    x0, y0, x1, y1 = nums(m.group(1))
    inside.append(lambda x, y, b=(x0, y0, x1, y1): b[0] < x < b[2] and b[1] < y < b[3])
for m in re.finditer(r"\{circle: \[(.*?)\], radius: (.*?)\}", text):
    cx, cy = nums(m.group(1)); r = float(m.group(2))
    inside.append(lambda x, y, c=(cx, cy, r): (x - c[0]) ** 2 + (y - c[1]) ** 2 < c[2] ** 2)
def in_polygon(x, y, poly):
    hit = False
    for i in range(len(poly)):
        (ax, ay), (bx, by) = poly[i], poly[i - 1]
        if (ay > y) != (by > y) and x < ax + (y - ay) * (bx - ax) / (by - ay):
            hit = not hit
    return hit
for m in re.finditer(r"\{polygon: (\[\[.*?\]\])\}", text):
    v = nums(m.group(1))
    inside.append(lambda x, y, p=list(zip(v[::2], v[1::2])): in_polygon(x, y, p))
assert len(inside) == 9, len(inside)
bad = count = 0
for line in open(sys.argv[2]):
    for agent_id, x, y, *_ in json.loads(line).get("agents", []):
        count += 1
        if any(f(x, y) for f in inside):
            bad += 1
            if bad <= 5: print("agent %d at (%g, %g) is inside an obstacle" % (agent_id, x, y))
print("positions", count, "in obstacles", bad)
sys.exit(1 if bad or count == 0 else 0)
PY
[[ $? == 0 ]] && ok || bad "courtyard: positions inside obstacles: $(cat "$dir/obstacles")"

# A broken map file: its errors point into the map file, and the run exits 2.
mkdir -p "$dir/broken"
cp "$examples/building/guard.yaml" "$examples/building/guard.lua" "$dir/broken/"
printf 'type octile\nheight 2\nwidth 3\nmap\n...\n.x.\n' > "$dir/broken/bad.map"
printf 'scenario: broken\nworld: {map: bad.map}\nteams: [a]\ngroups:\n  - {name: g, team: a, brain: guard.yaml, spawn: {centre: [1, 1], radius: 0.5}}\n' \
  > "$dir/broken/broken.yaml"
"$thicket" run "$dir/broken/broken.yaml" 2>"$dir/broken_err"
[[ $? == 2 ]] && ok || bad "a scenario with a broken map should exit 2"
grep -q "bad.map:6:2: error:" "$dir/broken_err" && ok || bad "the broken map should be reported at bad.map:6:2: $(cat "$dir/broken_err")"
grep -q "broken.yaml:2:14: error: the map 'bad.map' has errors" "$dir/broken_err" && ok || bad "the scenario should say its map has errors: $(cat "$dir/broken_err")"
"$thicket" check "$dir/broken/broken.yaml" 2>"$dir/broken_check"
[[ $? == 2 ]] && ok || bad "check of a scenario with a broken map should exit 2"
grep -q "bad.map:6:2: error:" "$dir/broken_check" && ok || bad "check should report bad.map:6:2: $(cat "$dir/broken_check")"

# A map's origin past 1e9 m (1e300 + 4 == 1e300: a world with no width) and cells out of range
# are errors at their keys.
printf 'type octile\nheight 2\nwidth 3\nmap\n...\n...\n' > "$dir/broken/good.map"
for world_line in "{map: good.map, origin: [1e300, 0]}|'origin' must be within 1000000000 m of (0, 0) on each axis" \
                  "{map: good.map, cell: 1e-300}|'cell' must be at least 0.001 (metres), got 1e-300" \
                  "{map: good.map, cell: 1e300}|'cell' must be a number > 0 and at most 1000000, got 1e300"; do
  printf 'scenario: far\nworld: %s\nteams: [a]\ngroups:\n  - {name: g, team: a, brain: guard.yaml, spawn: {centre: [1, 1], radius: 0.5}}\n' \
    "${world_line%%|*}" > "$dir/broken/far.yaml"
  "$thicket" check "$dir/broken/far.yaml" 2>"$dir/far_err"
  [[ $? == 2 ]] && grep -qF "far.yaml:2:" "$dir/far_err" && grep -qF "${world_line#*|}" "$dir/far_err" && ok ||
    bad "world ${world_line%%|*}: $(cat "$dir/far_err")"
done

# Long searches from Lua answer to the leaf time limit. A 2048 x 2048 map whose goal is behind a
# wall with its one gap at the top: a whole A* search expands nearly all of the start's side
# (4M cells, ~1 s); it is stopped inside find_path, where before it ran to the end and the stop
# came at the next line. (A goal walled in is no test of it: the map's components answer at once.)
mkdir -p "$dir/big"
python3 -c 'import sys
n = 2048
rows = [["."] * n for _ in range(n)]
for k in range(1, n): rows[k][n - 11] = "@"
with open(sys.argv[1], "w") as f:
    f.write("type octile\nheight %d\nwidth %d\nmap\n" % (n, n))
    for r in rows: f.write("".join(r) + "\n")' "$dir/big/big.map"
cat > "$dir/big/big.yaml" <<'EOF'
scenario: big
ticks: 1
world: {map: big.map}
teams: [red]
groups:
  - {name: g, team: red, count: 1, brain: seeker.yaml, spawn: {box: [[5, 5], [6, 6]]}}
EOF
printf 'tree: seeker\nleaves: [seeker.lua]\nroot: {action: Seek}\n' > "$dir/big/seeker.yaml"
stopped_inside() {  # stopped_inside WHAT CALL: the leaf makes CALL on its line 4 and is stopped there
  printf 'local thicket = require("thicket")\nlocal L = {}\nfunction L.Seek(agent)\n  local path = %s\n  print("the search returned")\n  return "success"\nend\nreturn L\n' \
    "$2" > "$dir/big/seeker.lua"
  "$thicket" run "$dir/big/big.yaml" --threads 1 >"$dir/big/out" 2>"$dir/big/err"
  [[ $? == 1 ]] && grep -q "seeker.lua:4: stopped after running for more than 50 ms" "$dir/big/err" && ! grep -q returned "$dir/big/out" &&
    ok || bad "$1 over a big map is stopped inside the call: $(head -3 "$dir/big/err")"
}
# (the search visits nearly every cell left of the wall before it goes round by the gap)
stopped_inside "a whole search" 'thicket.find_path(1, 1, 2042, 2042, {algorithm = "astar"})'
# ... and so is a budgeted one, whatever its budget.
stopped_inside "a budgeted search" 'agent:path_to(2042, 2042, {algorithm = "astar", budget = 100000000})'
# Danger zones are priced before the search starts: their squares may span 4M cells in all.
cat > "$dir/big/seeker.lua" <<'EOF'
local thicket = require("thicket")
local L = {}
function L.Seek(agent)
  local zones = {}
  for i = 1, 3 do zones[i] = {1024, 1024, 1000, 5} end
  print(pcall(thicket.find_path, 1, 1, 100, 100, {danger = zones}))
  return thicket.SUCCESS
end
return L
EOF
"$thicket" run "$dir/big/big.yaml" --threads 1 >"$dir/big/out" 2>"$dir/big/err"
grep -q "^false	path options: the danger zones span 12012003 cells of the map in all (each zone's square, zone by zone); one search prices at most 4194304: fewer or smaller zones$" "$dir/big/out" &&
  ok || bad "danger zones spanning too many cells: $(cat "$dir/big/out" "$dir/big/err" | head -3)"

echo "nav scenario: $pass passed, $fail failed"
[[ $fail == 0 ]]
