#!/usr/bin/env bash
# End-to-end test of scenario records (issue 14; docs/record-format.md) on the arena and flock
# examples: the header's fields, every agent entry's shape, events (deaths with their damage,
# machine switches), recorded keys, --record-every, gzip (zcat gives the plain record), the
# same bytes on 1 and 2 threads, the scenario's `record:` block, --trace / --explain carrying
# the brains' events; bad input (an unknown key, a bad extension) is refused clearly.
set -u
. "$(dirname "$0")/lib.sh"  # thicket, here, dir, ok, bad
arena="$here/scripts/examples/arena/arena.yaml"
flock="$here/scripts/examples/flock/flock.yaml"

# ---- the arena, plain on 1 and 2 threads, gzip on 2
for k in 1 2; do
  "$thicket" run "$arena" --quiet --ticks 150 --threads $k --record "$dir/a$k.jsonl" --record-keys health,invincible 2>"$dir/err$k"
  [[ $? == 0 ]] && ok || bad "arena --record on $k thread(s) exited non-zero: $(cat "$dir/err$k")"
done
cmp -s "$dir/a1.jsonl" "$dir/a2.jsonl" && ok || bad "the record differs between 1 and 2 threads"
"$thicket" run "$arena" --quiet --ticks 150 --threads 2 --record "$dir/a.jsonl.gz" --record-keys health,invincible 2>"$dir/err"
[[ $? == 0 ]] && ok || bad "arena --record FILE.jsonl.gz exited non-zero: $(cat "$dir/err")"
[[ $(head -c 2 "$dir/a.jsonl.gz" | od -An -tx1 | tr -d ' ') == 1f8b ]] && ok || bad "the .gz record is not gzip"
zcat "$dir/a.jsonl.gz" | cmp -s - "$dir/a1.jsonl" && ok || bad "zcat of the .gz record differs from the plain record"
[[ $(stat -c %s "$dir/a.jsonl.gz") -lt $(( $(stat -c %s "$dir/a1.jsonl") / 3 )) ]] && ok ||
  bad "the gzip record is not much smaller: $(stat -c %s "$dir/a.jsonl.gz") vs $(stat -c %s "$dir/a1.jsonl")"

# The whole record checked against the format (python3: one JSON object a line).
check_record() {  # FILE TICKS EVERY KEYS(comma-separated) [arena]
  python3 - "$@" <<'PY'
import json, sys
path, ticks, every, keys = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), sys.argv[4]
arena = len(sys.argv) > 5
keys = keys.split(",") if keys else []
lines = [json.loads(l) for l in open(path)]
problems = []
def need(cond, what):
    if not cond and len(problems) < 10: problems.append(what)
h = lines[0]
need(h.get("format") == "thicket-record" and h.get("version") == 1, "header format/version: %r" % {k: h.get(k) for k in ("format", "version")})
need(h["every"] == every and h["ticks"] == ticks and h["dt"] > 0 and "seed" in h and h["scenario"], "header every/ticks/dt/seed/scenario")
w = h["world"]
need(len(w["bounds"]) == 4 and w["bounds"][2] > w["bounds"][0], "world bounds %r" % w["bounds"])
for key in ("obstacles", "map", "waypoints", "navmesh", "areas", "pickups"):
    need(key in w, "world lacks " + key)
if arena:
    need(w["obstacles"] == [{"circle": [80, 50, 8]}, {"box": [20, 70, 40, 74]}, {"box": [120, 26, 140, 30]}], "arena obstacles %r" % w["obstacles"])
    need(h["teams"] == ["minions", "players"], "teams %r" % h["teams"])
    need([b["type"] for b in h["brains"]] == ["machine", "tree"], "brain types %r" % [b["type"] for b in h["brains"]])
    need([g["brain"] for g in h["groups"]] == [0, 0, 1], "the two minion groups share one brain entry")
    minion = h["brains"][0]["nodes"]
    links = [n for n in minion if n.get("links")]
    need(len(links) == 3 and all(minion[l[0][0]]["parent"] == 0 for l in (n["links"] for n in links)), "machine checks link to their behaviors")
    need(any(n.get("params") == "limit: 20" for n in minion), "leaf args as params")
need(w["map"] is None and w["waypoints"] is None and w["navmesh"] is None, "no map/waypoints/navmesh here")
need(h["keys"] == keys, "keys %r" % h["keys"])
for b in h["brains"]:
    nodes = b["nodes"]
    need(b["type"] in ("tree", "fsm", "machine") and b["file"] and b["name"], "brain entry %r" % {k: b.get(k) for k in ("file", "name", "type")})
    need(nodes[0]["parent"] == -1 and all(0 <= n["parent"] < i for i, n in enumerate(nodes) if i), "node parents come first")
    need(all(isinstance(n["id"], str) and n["kind"] and n["label"] for n in nodes), "node id/kind/label")
    need(all(0 <= t < len(nodes) for n in nodes for t, _ in n.get("links", [])), "link targets")
first = 1
for g in h["groups"]:
    need(g["first"] == first and g["count"] > 0 and 0 <= g["team"] < len(h["teams"]) and 0 <= g["brain"] < len(h["brains"]), "group %r" % g)
    first += g["count"]
agents = first - 1
group_of = {}
for gi, g in enumerate(h["groups"]):
    for i in range(g["first"], g["first"] + g["count"]): group_of[i] = gi
end = lines[-1]
need(end.get("end") is True and end["ticks"] == ticks and "gauges" in end and end["script_errors"] == 0, "end line %r" % end)
ticklines = lines[1:-1]
want = [t for t in range(1, ticks + 1) if t % every == 0 or t == ticks]
need([l["tick"] for l in ticklines] == want, "tick lines at %r" % [l["tick"] for l in ticklines][:10])
dead = set()
prev = 0
deaths = damage_for_death = switches = 0
key_values = set()
for l in ticklines:
    ids = [a[0] for a in l["agents"]]
    need(ids == sorted(ids) and len(set(ids)) == len(ids), "tick %d: ids ascending, once" % l["tick"])
    for a in l["agents"]:
        need(len(a) == 9, "tick %d: agent entry of %d fields: %r" % (l["tick"], len(a), a))
        aid, x, y, heading, group, alive, status, nodes, vals = a
        need(aid not in dead, "tick %d: agent %d listed after it died" % (l["tick"], aid))
        need(group == group_of.get(aid), "agent %d group %r" % (aid, group))
        brain = h["brains"][h["groups"][group]["brain"]]
        need(isinstance(x, (int, float)) and isinstance(y, (int, float)) and -3.15 < heading < 3.15, "agent %d position/heading" % aid)
        need(alive in (0, 1) and status in ("running", "success", "failure", "invalid"), "agent %d alive/status" % aid)
        need(len(nodes) == len(brain["nodes"]) and set(nodes) <= set("RSF."), "agent %d nodes %r" % (aid, nodes))
        need(len(vals) == len(keys), "agent %d keys %r" % (aid, vals))
        for k, v in zip(keys, vals): key_values.add((k, h["groups"][group]["brain"], type(v).__name__))
        if alive == 0: dead.add(aid)
    need(len(l["metrics"]) == len(h["metrics"]), "tick %d metrics" % l["tick"])
    tick_of_death = {}
    for e in l["events"]:
        need(prev < e[1] <= l["tick"], "tick %d: event of tick %d" % (l["tick"], e[1]))
        if e[0] == "death":
            deaths += 1
            tick_of_death[e[2]] = e[1]
            need(any(a[0] == e[2] and a[5] == 0 for a in l["agents"]), "agent %d died but is not listed with alive 0" % e[2])
        if e[0] == "switch":
            need(len(e) == 6 and e[3] == "minion", "switch event %r" % e)
            if e[4] is not None: switches += 1
    for aid, t in tick_of_death.items():
        if any(e[0] == "damage" and e[3] == aid and e[1] == t for e in l["events"]): damage_for_death += 1
    prev = l["tick"]
need(len(dead) == deaths, "deaths %d, agents listed dead %d" % (deaths, len(dead)))
if arena:
    need(deaths > 0 and damage_for_death == deaths, "deaths %d, with their damage %d" % (deaths, damage_for_death))
    need(switches > 0, "no machine switched behavior")
    if keys == ["health", "invincible"]:
        need(key_values == {("health", 0, "int"), ("health", 1, "int"), ("invincible", 0, "bool"), ("invincible", 1, "NoneType")},
             "key values by brain: %r" % sorted(key_values))
print("ok" if not problems else "\n".join(problems))
sys.exit(1 if problems else 0)
PY
}
out=$(check_record "$dir/a1.jsonl" 150 1 health,invincible arena) && ok || bad "arena record: $out"

# ---- --record-every: a line every 5 ticks and on the last; events of the ticks between kept
"$thicket" run "$arena" --quiet --ticks 23 --threads 2 --record "$dir/e5.jsonl" --record-every 5 2>"$dir/err"
out=$(check_record "$dir/e5.jsonl" 23 5 "" arena) && ok || bad "--record-every 5: $out"
python3 - "$dir/a1.jsonl" "$dir/e5.jsonl" <<'PY' && ok || bad "--record-every 5 lost or changed events"
import json, sys
every1 = [json.loads(l) for l in open(sys.argv[1])][1:24]
every5 = [json.loads(l) for l in open(sys.argv[2])][1:-1]
sys.exit(0 if [e for l in every1 for e in l["events"]] == [e for l in every5 for e in l["events"]] else 1)
PY

# ---- the scenario's record: block
mkdir "$dir/arena" && cp "$here/scripts/examples/arena/"* "$dir/arena/"
printf 'record: {keys: [health], every: 4}\n' >> "$dir/arena/arena.yaml"
"$thicket" run "$dir/arena/arena.yaml" --quiet --ticks 20 --record "$dir/block.jsonl" 2>"$dir/err"
out=$(check_record "$dir/block.jsonl" 20 4 health arena) && ok || bad "record: {keys, every} in the scenario: $out"
"$thicket" run "$dir/arena/arena.yaml" --quiet --ticks 20 --record "$dir/over.jsonl" --record-every 10 --record-keys invincible 2>"$dir/err"
out=$(check_record "$dir/over.jsonl" 20 10 invincible arena) && ok || bad "--record-every/--record-keys over the scenario's: $out"
# A byte flipped inside a gzip record's data: said as corrupt gzip data, not as the JSON error the
# damaged line shows first.
python3 -c "import sys; d = bytearray(open(sys.argv[1], 'rb').read()); d[len(d) // 2] ^= 0xff; open(sys.argv[2], 'wb').write(d)" \
  "$dir/a.jsonl.gz" "$dir/flipped.jsonl.gz"
"$thicket" view "$dir/flipped.jsonl.gz" -o "$dir/flipped.html" >/dev/null 2>"$dir/err"
[[ $? == 2 ]] && grep -q "error: corrupt gzip data" "$dir/err" && ok || bad "a flipped byte in gzip data: $(cat "$dir/err")"
# view says the run's ticks, and the lines that hold them (it said "N ticks" of the lines).
lines=$(grep -c '^{"tick"' "$dir/over.jsonl")
"$thicket" view "$dir/over.jsonl" -o "$dir/over.html" >"$dir/out" 2>&1
grep -q "(20 ticks in $lines tick lines, up to" "$dir/out" && ok || bad "view of a record every 10: $(cat "$dir/out")"

# ---- flock: a tree brain, 1000 agents
"$thicket" run "$flock" --quiet --ticks 30 --threads 2 --record "$dir/f.jsonl.gz" 2>"$dir/err"
[[ $? == 0 ]] && ok || bad "flock --record exited non-zero: $(cat "$dir/err")"
zcat "$dir/f.jsonl.gz" > "$dir/f.jsonl"
out=$(check_record "$dir/f.jsonl" 30 1 "") && ok || bad "flock record: $out"
[[ $(sed -n 2p "$dir/f.jsonl" | grep -o '\],\[' | wc -l) == 999 ]] && ok || bad "flock: 1000 agents a tick line"

# ---- --trace / --explain on a scenario: the brains' events, the same on 1 and 2 threads
for k in 1 2; do
  "$thicket" run "$arena" --quiet --ticks 40 --threads $k --trace "$dir/t$k.jsonl" --explain --log "$dir/x$k.log" 2>/dev/null
done
cmp -s "$dir/t1.jsonl" "$dir/t2.jsonl" && ok || bad "the scenario trace differs between 1 and 2 threads"
cmp -s "$dir/x1.log" "$dir/x2.log" && ok || bad "the scenario --explain log differs between 1 and 2 threads"
grep -q '^{"tick":1,"agent":1,"switch":{"machine":"minion","from":null,"to":"hunt","check":"hunt/check"}}$' "$dir/t1.jsonl" && ok ||
  bad "trace: no switch line: $(head -2 "$dir/t1.jsonl")"
grep -q '^{"tick":1,"agent":1,"status":"running","running":\["root","hunt"\]}$' "$dir/t1.jsonl" && ok || bad "trace: no tick record"
grep -q '^tick [0-9]* agent [0-9]*: machine minion switched from [a-z_]* to [a-z_]* (condition [A-Za-z]* passed)$' "$dir/x1.log" && ok ||
  bad "--explain: no switch sentence: $(head -3 "$dir/x1.log")"

# ---- bad input
"$thicket" run "$arena" --quiet --ticks 1 --record "$dir/r.json" 2>"$dir/err"
[[ $? == 64 ]] && grep -q "^thicket: --record writes JSON lines, plain or gzip-compressed as its extension says: it needs FILE.jsonl or FILE.jsonl.gz, got '$dir/r.json'$" "$dir/err" &&
  ok || bad "bad extension: $(head -1 "$dir/err")"
"$thicket" run "$arena" --quiet --ticks 1 --record "$dir/r.jsonl" --record-keys health,helth 2>"$dir/err"
[[ $? == 2 ]] && grep -q "arena.yaml: error: --record-keys: key 'helth' is not declared by any group's brain, so it cannot be recorded; did you mean 'health'? (keys: home_x, home_y, health, invincible)$" "$dir/err" &&
  ok || bad "unknown --record-keys key: $(cat "$dir/err")"
[[ ! -e "$dir/r.jsonl" ]] && ok || bad "a run that failed to load left an empty record behind"
"$thicket" run "$arena" --quiet --ticks 1 --record "$dir/r.jsonl" --record-every 0 2>"$dir/err"
[[ $? == 64 ]] && grep -q "^thicket: --record-every needs a whole number of ticks from 1 to 1000000, got '0'$" "$dir/err" && ok || bad "--record-every 0: $(head -1 "$dir/err")"
"$thicket" run "$arena" --quiet --ticks 1 --record-keys health 2>"$dir/err"
[[ $? == 64 ]] && grep -q "give --record too" "$dir/err" && ok || bad "--record-keys without --record: $(head -1 "$dir/err")"
# A key listed twice, as the scenario's record: keys refuses it (the header listed it twice).
"$thicket" run "$arena" --ticks 1 --record "$dir/twice.jsonl" --record-keys health,health >/dev/null 2>"$dir/err"
[[ $? == 64 ]] && grep -q "^thicket: --record-keys lists 'health' twice$" "$dir/err" && ok || bad "--record-keys health,health: $(head -1 "$dir/err")"
set_block() {  # the scenario copy's last line (its record: block) replaced
  sed -i '$d' "$dir/arena/arena.yaml"
  printf '%s\n' "$1" >> "$dir/arena/arena.yaml"
}
set_block 'record: {keys: [health, 3, health], every: 0, often: true}'
"$thicket" run "$dir/arena/arena.yaml" --quiet --ticks 1 2>"$dir/err"
[[ $? == 2 ]] && ok || bad "a bad record: block should exit 2"
grep -q "arena.yaml:39:[0-9]*: error: unknown key 'often' in 'record'" "$dir/err" &&
  grep -q "arena.yaml:39:[0-9]*: error: 'every' must be a whole number >= 1" "$dir/err" &&
  grep -q "arena.yaml:39:[0-9]*: error: a recorded key is a blackboard key name, got " "$dir/err" &&
  grep -q "arena.yaml:39:[0-9]*: error: key 'health' is listed twice in 'keys'" "$dir/err" && ok || bad "record: block errors: $(cat "$dir/err")"
set_block 'record: {keys: [helth, invincible, nowhere]}'
"$thicket" run "$dir/arena/arena.yaml" --quiet --ticks 1 2>"$dir/err"
[[ $? == 2 ]] && grep -q "arena.yaml:39:17: error: key 'helth' is not declared by any group's brain, so it cannot be recorded; did you mean 'health'?" "$dir/err" &&
  grep -q "arena.yaml:39:36: error: key 'nowhere' is not declared by any group's brain" "$dir/err" && ok || bad "unknown scenario keys (all at once, at their places): $(cat "$dir/err")"
"$thicket" check "$dir/arena/arena.yaml" 2>"$dir/err" >/dev/null
[[ $? == 2 ]] && grep -q "2 error(s)" "$dir/err" && ok || bad "check should report the unknown keys: $(cat "$dir/err")"
# With another error in the file, the keys are still checked against the brains: every error at once.
set_block 'record: {keys: [helth], every: 0}'
"$thicket" check "$dir/arena/arena.yaml" 2>"$dir/err" >/dev/null
[[ $? == 2 ]] && grep -q "arena.yaml:39:17: error: key 'helth' is not declared by any group's brain" "$dir/err" &&
  grep -q "arena.yaml:39:32: error: 'every' must be a whole number >= 1, got 0" "$dir/err" && grep -q "2 error(s)" "$dir/err" &&
  ok || bad "unknown recorded keys beside another error: $(cat "$dir/err")"
# ... but only once every group reads: with both minion groups refused (count 0), the key only
# their brain declares is not called undeclared.
set_block 'record: {keys: [invincible]}'
sed 's/^    count: 120$/    count: 0/' "$dir/arena/arena.yaml" > "$dir/arena/nominions.yaml"
"$thicket" check "$dir/arena/nominions.yaml" 2>"$dir/err" >/dev/null
[[ $? == 2 ]] && grep -q "nominions.yaml:20:12: error: 'count' must be a whole number >= 1" "$dir/err" &&
  ! grep -q "not declared by any group's brain" "$dir/err" && ok || bad "record keys of groups that did not read: $(cat "$dir/err")"

# A 3 MB gzip holding one endless line (a header, then 520 MB without a newline): view names the
# line past 512 MB instead of taking all it inflates to.
head -n 1 "$dir/a1.jsonl" > "$dir/bomb.jsonl"
python3 -c 'import gzip, sys
with gzip.open(sys.argv[2], "wb", compresslevel=1) as f:
    f.write(open(sys.argv[1], "rb").read())
    block = b"x" * (1 << 20)
    for _ in range(520): f.write(block)' "$dir/bomb.jsonl" "$dir/bomb.jsonl.gz"
timeout 60 "$thicket" view "$dir/bomb.jsonl.gz" -o "$dir/bomb.html" 2>"$dir/err" >/dev/null
[[ $? == 2 ]] && grep -q "bomb.jsonl.gz:2: error: a line longer than 512 MB: no record has one" "$dir/err" && [[ ! -e "$dir/bomb.html" ]] &&
  ok || bad "view of a gzip with one endless line: $(cat "$dir/err")"

# -o naming the record through a link (a symbolic or a hard one, named .html) would replace the
# record with the page: refused, the record untouched.
cp "$dir/a1.jsonl" "$dir/keep.jsonl"
ln -sf keep.jsonl "$dir/soft.html"
ln -f "$dir/keep.jsonl" "$dir/hard.html"
for link in soft hard; do
  "$thicket" view "$dir/keep.jsonl" -o "$dir/$link.html" 2>"$dir/err" >/dev/null
  [[ $? == 64 ]] && grep -q "is given as -o but the command reads it (as '$dir/keep.jsonl'): it would be overwritten" "$dir/err" &&
    cmp -s "$dir/keep.jsonl" "$dir/a1.jsonl" && ok || bad "view -o through a $link link to the record: $(head -n 2 "$dir/err")"
done

# A small gzip whose header holds 17 million values (a list of zeros): refused before it is
# parsed (the parse took ~40 bytes a value: a 100 KB file took 2.7 GB).
python3 -c '
import gzip, sys
with gzip.open(sys.argv[1], "wt") as f:
    f.write("{\"format\":\"thicket-record\",\"version\":1,\"teams\":[" + "0," * (1 << 24) + "0]}\n{\"end\":true}\n")
' "$dir/many.jsonl.gz"
"$thicket" view "$dir/many.jsonl.gz" -o "$dir/many.html" 2>"$dir/err" >/dev/null
[[ $? == 2 ]] && grep -q "many.jsonl.gz:1: error: not a thicket record: its first line holds more than 16777216 values (16777221)" "$dir/err" &&
  [[ ! -e "$dir/many.html" ]] && ok || bad "a header of 17 million values: $(cat "$dir/err")"
# An output that cannot be opened says why (it said only "cannot write 'X'", exit 2), as run's
# outputs do (exit 64); one that cannot be written in full is a failure of the command (exit 2).
# (The short record of --record-every 5: the 150-tick one took 9 s a view under ASan.)
mkdir -p "$dir/folder.html"
for out in "$dir/folder.html:Is a directory" "$dir/none/x.html:No such file or directory"; do
  "$thicket" view "$dir/e5.jsonl" -o "${out%%:*}" 2>"$dir/err" >/dev/null
  [[ $? == 64 ]] && [[ "$(cat "$dir/err")" == "thicket: cannot write the output file '${out%%:*}': ${out#*:}" ]] && ok ||
    bad "view -o ${out%%:*}: $(cat "$dir/err")"
done
"$thicket" view "$dir/e5.jsonl" -o /dev/full 2>"$dir/err" >/dev/null
[[ $? == 2 ]] && grep -q "^thicket: the output file '/dev/full' could not be written in full" "$dir/err" && ok ||
  bad "view -o /dev/full: $(cat "$dir/err")"

echo "e2e_record: $pass passed, $fail failed"
[[ $fail == 0 ]]
