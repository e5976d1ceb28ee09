#!/usr/bin/env bash
# End-to-end checks of CLI outputs that go to files: --log, --trace; dot of a tree; --version;
# the extension check of output files; dot and dump of a scenario; the docs name the designs.
set -u
. "$(dirname "$0")/lib.sh"  # thicket, here (the checkout), dir, ok, bad
cases="$here/tests/e2e/cases"

# --log FILE: script errors go to the file, not to stderr; the summary stays on stderr.
"$thicket" run "$cases/script_errors/brain.yaml" --ticks 3 --log "$dir/run.log" >/dev/null 2>"$dir/err"
[[ $? == 1 ]] && ok || bad "--log run should exit 1 (script errors)"
grep -q "leaves.lua:7: attempt to index a nil value" "$dir/run.log" && ok || bad "the log file lacks the script error"
grep -q "error:" "$dir/err" && bad "stderr should not carry the log with --log" || ok
grep -q "^thicket: root status" "$dir/err" && ok || bad "the summary should stay on stderr"
# A brain or scenario that does not load leaves the last run's log as it was (the log is emptied
# when a run starts, as --out, --trace and --record are); a clean run empties it.
echo "the last run's log" > "$dir/keep.log"
"$thicket" run "$cases/bad_fsm/brain.yaml" --ticks 3 --log "$dir/keep.log" >/dev/null 2>&1
[[ $? == 2 && $(cat "$dir/keep.log") == "the last run's log" ]] && ok || bad "a brain that does not load emptied --log: $(cat "$dir/keep.log")"
sed 's/^    brain: boid.yaml/    brain: no_such_brain.yaml/' "$here/scripts/examples/flock/flock.yaml" > "$dir/no_brain.yaml"
"$thicket" run "$dir/no_brain.yaml" --log "$dir/keep.log" >/dev/null 2>&1
[[ $? == 2 && $(cat "$dir/keep.log") == "the last run's log" ]] && ok || bad "a scenario that does not load emptied --log: $(cat "$dir/keep.log")"
"$thicket" run "$here/scripts/examples/flock/flock.yaml" --ticks 2 --log "$dir/keep.log" >/dev/null 2>&1
[[ $? == 0 && ! -s "$dir/keep.log" ]] && ok || bad "a clean scenario run should empty --log: $(head -c 200 "$dir/keep.log")"
"$thicket" run "$cases/bad_fsm/brain.yaml" --log "$dir/no/such/dir.log" >/dev/null 2>"$dir/err"
[[ $? == 64 ]] && grep -q "cannot write the log file '.*/no/such/dir.log': No such file or directory" "$dir/err" && ok || bad "an unwritable --log should be a usage error: $(cat "$dir/err")"
# An output that cannot be opened says why, and no usage text follows (the command line was right).
grep -q "usage:" "$dir/err" && bad "an unwritable --log printed the usage text" || ok
"$thicket" run "$here/scripts/examples/flock/flock.yaml" --ticks 2 --out "$dir/no/such/o.csv" >/dev/null 2>"$dir/err"
[[ $? == 64 && $(wc -l < "$dir/err") == 1 ]] && grep -q "cannot write the output file '.*/no/such/o.csv': No such file or directory" "$dir/err" &&
  ok || bad "an unwritable --out: $(head -3 "$dir/err")"
"$thicket" export "$here/docs/examples/hello/chicken.yaml" --to btcpp -o "$dir/no/such/x.xml" >/dev/null 2>"$dir/err"
[[ $? == 2 ]] && grep -q "cannot write .*/no/such/x.xml: No such file or directory" "$dir/err" && ok || bad "export -o unwritable: $(cat "$dir/err")"
"$thicket" export "$here/docs/examples/hello/chicken.yaml" --to groot >/dev/null 2>"$dir/err"
[[ $? == 64 ]] && grep -q "export cannot write 'groot' (--to btcpp" "$dir/err" && ok || bad "export --to an unknown target: $(cat "$dir/err")"

# An output given a file the run reads (a leaf file, a group's brain, a module) is refused
# before it is opened: the file stays as it was.
mkdir -p "$dir/own" && cp "$here/docs/examples/hello/"* "$dir/own/"
cp "$dir/own/chicken.lua" "$dir/own/chicken.lua.orig"
"$thicket" run "$dir/own/chicken.yaml" --ticks 2 --log "$dir/own/chicken.lua" >/dev/null 2>"$dir/err"
[[ $? == 64 ]] && grep -q "is given as --log but the run reads it: it would be overwritten" "$dir/err" &&
  cmp -s "$dir/own/chicken.lua" "$dir/own/chicken.lua.orig" && ok || bad "--log naming the brain's leaf file: $(head -1 "$dir/err")"
# Said in one line and the help's pointer, not buried under the usage.
[[ $(wc -l < "$dir/err") == 2 ]] && grep -q "^(thicket --help lists the options)$" "$dir/err" && ok || bad "an output over an input buried: $(wc -l < "$dir/err") lines"
(cd "$dir/own" && "$thicket" run chicken.yaml --ticks 2 --log ../own/chicken.lua >/dev/null 2>"$dir/err")
[[ $? == 64 ]] && grep -q "'../own/chicken.lua' is given as --log but the run reads it (as 'chicken.lua')" "$dir/err" &&
  cmp -s "$dir/own/chicken.lua" "$dir/own/chicken.lua.orig" && ok || bad "--log naming the leaf file by another path: $(head -1 "$dir/err")"
mkdir -p "$dir/flock" && cp "$here/scripts/examples/flock/"* "$dir/flock/"
cp "$dir/flock/boid.yaml" "$dir/boid.yaml.orig"
for output in "--log" "--checkpoint"; do
  extra=(); [[ $output == --checkpoint ]] && extra=(--every 1)
  "$thicket" run "$dir/flock/flock.yaml" --ticks 2 --quiet "$output" "$dir/flock/boid.yaml" "${extra[@]}" >/dev/null 2>"$dir/err"
  [[ $? == 64 ]] && grep -q "is given as $output but the run reads it" "$dir/err" &&
    cmp -s "$dir/flock/boid.yaml" "$dir/boid.yaml.orig" && ok || bad "$output naming a group's brain: $(head -1 "$dir/err")"
done

# export and import -o refuse to replace what they read (the brain, the tree, a --leaves file);
# a failed write to standard output is an error.
"$thicket" export "$dir/own/chicken.yaml" --to btcpp -o "$dir/own/chicken.yaml" >/dev/null 2>"$dir/err"
[[ $? == 64 ]] && grep -q "is given as -o but the command reads it" "$dir/err" && grep -q "^tree: chicken" "$dir/own/chicken.yaml" &&
  ok || bad "export -o onto its own brain: $(head -1 "$dir/err")"
"$thicket" export "$dir/own/chicken.yaml" --to btcpp -o "$dir/own/c.xml" >/dev/null 2>&1
"$thicket" import "$dir/own/c.xml" --leaves chicken.lua -o "$dir/own/chicken.lua" >/dev/null 2>"$dir/err"
[[ $? == 64 ]] && grep -q "is given as -o but the command reads it" "$dir/err" &&
  cmp -s "$dir/own/chicken.lua" "$dir/own/chicken.lua.orig" && ok || bad "import -o onto its --leaves file: $(tail -1 "$dir/err")"
"$thicket" import "$dir/own/c.xml" -o "$dir/own/c.xml" >/dev/null 2>"$dir/err"
[[ $? == 64 ]] && grep -q "<root BTCPP_format" "$dir/own/c.xml" && ok || bad "import -o onto its own tree: $(tail -1 "$dir/err")"
# A pipe given to run (with scenario options too) is refused, not waited on for ever.
mkfifo "$dir/pipe.yaml"
timeout 20 "$thicket" run "$dir/pipe.yaml" --runs 2 >/dev/null 2>"$dir/err"
[[ $? == 2 ]] && grep -q "pipe.yaml: error: cannot open file: not a plain file (a pipe or a socket)" "$dir/err" && ok ||
  bad "run of a pipe: $(cat "$dir/err")"
# An export and its import keep the brain's blackboard keys in its order (they came back
# sorted by name).
"$thicket" export "$here/docs/examples/lua/blackboard.yaml" --to btcpp -o "$dir/own/soldier.xml" >/dev/null 2>&1
"$thicket" import "$dir/own/soldier.xml" -o "$dir/own/soldier.yaml" >/dev/null 2>&1
[[ $(sed -n '/^blackboard:/,/^[a-z]/p' "$dir/own/soldier.yaml" | grep -o '^  [a-z_]*' | paste -sd' ') == "  health   speed   ammo   alert   mood   target" ]] && ok ||
  bad "import after export: the blackboard's order: $(sed -n '/^blackboard:/,/^root:/p' "$dir/own/soldier.yaml")"
# A control with more children than a thicket node may have: said at the XML's line (it said
# "needs at least one child, got 70000", or pointed into the brain the import would write).
python3 -c 'print("<root BTCPP_format=\"4\"><BehaviorTree ID=\"M\">\n<Sequence>" + "<Action ID=\"A\"/>" * 70000 + "</Sequence></BehaviorTree></root>")' >"$dir/wide.xml"
"$thicket" import "$dir/wide.xml" -o "$dir/wide.yaml" >/dev/null 2>"$dir/err"
[[ $? == 2 ]] && grep -q "wide.xml:2:1: error: Sequence may have at most 65534 children (a thicket node's most), got 70000" "$dir/err" && ok ||
  bad "a control with 70000 children: $(head -c 300 "$dir/err")"
# A tree used twice by a tree used twice ... (9 levels: 512 uses) whose leaf has a 100 KB
# attribute or property: each use would write its own copy (51 MB), past what a brain may hold
# (16 MB). Refused at once (a 1 MB one took 40 s and 1 GB, behavior3's 64 s and 4.2 GB).
python3 - "$dir" <<'PY'
import json, sys
d, big = sys.argv[1], "x" * 100000
xml = ['<root BTCPP_format="4" main_tree_to_execute="T9">', '<BehaviorTree ID="T0"><Act s="%s"/></BehaviorTree>' % big]
xml += ['<BehaviorTree ID="T%d"><Sequence><SubTree ID="T%d"/><SubTree ID="T%d"/></Sequence></BehaviorTree>' % (i, i - 1, i - 1) for i in range(1, 10)]
open(d + "/dag.xml", "w").write("\n".join(xml + ['<TreeNodesModel><Action ID="Act"><input_port name="s"/></Action></TreeNodesModel>', "</root>"]) + "\n")
trees = [{"id": "T0", "title": "T0", "root": "a", "nodes": {"a": {"id": "a", "name": "Act", "properties": {"s": big}}}}]
trees += [{"id": "T%d" % i, "title": "T%d" % i, "root": "r", "nodes": {"r": {"id": "r", "name": "Sequence", "children": ["c1", "c2"]},
           "c1": {"id": "c1", "name": "T%d" % (i - 1)}, "c2": {"id": "c2", "name": "T%d" % (i - 1)}}} for i in range(1, 10)]
json.dump({"scope": "project", "selectedTree": "T9", "trees": trees, "custom_nodes": [{"name": "Act", "category": "action"}]}, open(d + "/dag.json", "w"))
PY
"$thicket" import "$dir/dag.xml" >/dev/null 2>"$dir/err"
[[ $? == 2 ]] && grep -q "dag.xml:2:23: error: the tree's attributes pass 16 MB here once its subtrees are expanded" "$dir/err" && ok ||
  bad "a 100 KB attribute in a SubTree used 512 times: $(head -c 300 "$dir/err")"
"$thicket" import "$dir/dag.json" >/dev/null 2>"$dir/err"
[[ $? == 2 ]] && grep -q "dag.json: error: the tree's properties pass 16 MB once its shared nodes are expanded" "$dir/err" && ok ||
  bad "a 100 KB behavior3 property in a tree used 512 times: $(head -c 300 "$dir/err")"
# The same bound counts a port's text at each reference (200 references to a 100 KB text: 20
# MB), and restarts with each tree when a file without a main tree has every tree checked
# (20 trees each using a 1 MB one once were said past it).
python3 - "$dir" <<'PY'
import sys
d, big = sys.argv[1], "x" * 100000
refs = " ".join('a%d="{p}"' % i for i in range(200))
open(d + "/refs.xml", "w").write('<root BTCPP_format="4" main_tree_to_execute="M"><BehaviorTree ID="M"><SubTree ID="T0" p="%s"/></BehaviorTree>\n<BehaviorTree ID="T0"><Act %s/></BehaviorTree></root>\n' % (big, refs))
trees = ['<BehaviorTree ID="S"><Act s="%s"/></BehaviorTree>' % (big * 10)]
trees += ['<BehaviorTree ID="T%d"><SubTree ID="S"/></BehaviorTree>' % i for i in range(20)]
open(d + "/nomain.xml", "w").write('<root BTCPP_format="4">\n' + "\n".join(trees) + "\n</root>\n")
PY
"$thicket" import "$dir/refs.xml" >/dev/null 2>"$dir/err"
[[ $? == 2 ]] && grep -q "refs.xml:2:23: error: the tree's attributes pass 16 MB here" "$dir/err" && ok ||
  bad "200 references to a 100 KB port text: $(head -c 300 "$dir/err")"
"$thicket" import "$dir/nomain.xml" >/dev/null 2>"$dir/err"
[[ $? == 2 && $(wc -l < "$dir/err") == 1 ]] && grep -q "several trees and no main_tree_to_execute" "$dir/err" && ok ||
  bad "20 trees each using a 1 MB tree, no main tree: $(head -c 300 "$dir/err")"
# A behavior3 node's properties nested a million deep (2 MB): refused where the nesting passes
# 256 levels (copying the value to write it out overflowed the stack: a segfault).
python3 -c 'n = 1000000; print("{\"root\":\"a\",\"nodes\":{\"a\":{\"id\":\"a\",\"name\":\"Succeeder\",\"properties\":{\"x\":" + "[" * n + "]" * n + "}}}}")' >"$dir/deep.json"
"$thicket" import "$dir/deep.json" >/dev/null 2>"$dir/err"
[[ $? == 2 ]] && grep -q "deep.json:1:325: error: the JSON nests deeper than 256 levels here" "$dir/err" && ok ||
  bad "a behavior3 value nested a million deep: $(head -c 300 "$dir/err")"
if [[ -w /dev/full ]]; then
  "$thicket" export "$dir/own/chicken.yaml" --to btcpp >/dev/full 2>"$dir/err"
  [[ $? == 2 ]] && grep -q "cannot write to standard output" "$dir/err" && ok || bad "export to a full stdout: $(head -1 "$dir/err")"
fi

# Checkpoints are a scenario's: on a brain file --checkpoint, --every and --resume are usage
# errors (they were ignored: a user who thought the run was saved got nothing).
for opts in "--checkpoint $dir/q.snap --every 1" "--resume $dir/does-not-exist.snap" "--every 2"; do
  "$thicket" run "$dir/own/chicken.yaml" --ticks 3 $opts >/dev/null 2>"$dir/err"
  [[ $? == 64 ]] && grep -q "a brain file's run has no checkpoint" "$dir/err" && [[ ! -e "$dir/q.snap" ]] && ok ||
    bad "$opts on a brain file: $(head -1 "$dir/err")"
done

# An output that cannot be written in full (a full disk: /dev/full) is an error, exit 2 (was:
# lost without a word, exit 0).
if [[ -w /dev/full ]]; then
  "$thicket" run "$dir/own/chicken.yaml" --ticks 3 --trace /dev/full >/dev/null 2>"$dir/err"
  [[ $? == 2 ]] && grep -q "the trace file '/dev/full' could not be written in full" "$dir/err" && ok ||
    bad "--trace to a full disk: $(grep -v '^thicket: [0-9]\|root status' "$dir/err" | head -1)"
  for output in --out --series --trace --record; do
    "$thicket" run "$dir/flock/flock.yaml" --ticks 2 --quiet "$output" /dev/full >/dev/null 2>"$dir/err"
    [[ $? == 2 ]] && grep -q "/dev/full" "$dir/err" && ok || bad "$output to a full disk: exit $?"
  done
  # Standard output on a full disk: dump, dot and a run's Lua prints (they exited 0, the output lost).
  for command in "dump $cases/script_errors/brain.yaml" "dot $cases/script_errors/brain.yaml" "run $here/docs/examples/reload/lamp.yaml --ticks 2"; do
    # shellcheck disable=SC2086
    "$thicket" $command >/dev/full 2>"$dir/err"
    rc=$?
    [[ $rc == 2 ]] && grep -q "^thicket: error: cannot write to standard output" "$dir/err" && ok || bad "$command > /dev/full: exit $rc, $(tail -1 "$dir/err")"
  done
fi

# --agents has a ceiling: 99,999,999,999 took the machine's memory before the first tick.
"$thicket" run "$dir/own/chicken.yaml" --agents 99999999999 >/dev/null 2>"$dir/err"
[[ $? == 64 ]] && grep -q -- "--agents is at most 10000000" "$dir/err" && ok || bad "--agents 99999999999: $(head -1 "$dir/err")"

# Mistyped commands and options get a did-you-mean; a one-dash option is no file name.
"$thicket" chek "$dir/own/chicken.yaml" >/dev/null 2>"$dir/err"
[[ $? == 64 ]] && grep -q "unknown command 'chek'; did you mean 'check'?" "$dir/err" && ok || bad "chek: $(head -1 "$dir/err")"
"$thicket" run "$dir/own/chicken.yaml" --tick 5 >/dev/null 2>"$dir/err"
[[ $? == 64 ]] && grep -q "unknown option '--tick'; did you mean '--ticks'?" "$dir/err" && ok || bad "--tick: $(head -1 "$dir/err")"
"$thicket" run "$dir/own/chicken.yaml" -t 5 >/dev/null 2>"$dir/err"
[[ $? == 64 ]] && grep -q "unknown option '-t'" "$dir/err" && ok || bad "-t 5: $(head -1 "$dir/err")"

# import -o with a --leaves file that is not beside the output: a warning says where the brain
# will look for it (the brain names it as given).
mkdir -p "$dir/imported"
"$thicket" import "$here/docs/examples/import/door.xml" --leaves door.lua -o "$dir/imported/door.yaml" >/dev/null 2>"$dir/err"
[[ $? == 0 ]] && grep -q -- "--leaves door.lua: no such file where the brain will look for it ($dir/imported/door.lua)" "$dir/err" &&
  ok || bad "import --leaves not beside -o: $(head -1 "$dir/err")"
cp "$here/docs/examples/import/door.lua" "$dir/imported/"
"$thicket" import "$here/docs/examples/import/door.xml" --leaves door.lua -o "$dir/imported/door.yaml" >/dev/null 2>"$dir/err"
[[ $? == 0 && ! -s "$dir/err" ]] && ok || bad "import --leaves beside -o: $(head -1 "$dir/err")"

# --help (or -h) anywhere prints the usage and exits 0; after a command, that command's lines
# alone (import's 2, not every command's 40), and a pointer to the rest.
for args in "--help" "help" "--trace x --help" "run $dir/own/chicken.yaml --help" "help run"; do
  "$thicket" $args >"$dir/out" 2>"$dir/err"
  [[ $? == 0 ]] && grep -q "^usage: thicket run FILE" "$dir/out" && ok || bad "thicket $args: $(head -1 "$dir/err")"
done
grep -q "mpirun -n K thicket run" "$dir/out" && ! grep -q "thicket import" "$dir/out" && ok || bad "help run: not run's lines alone"
# Help for no such command is a usage error, with the near command (it printed the usage and
# exited 0, as if 'nope' were one).
for args in "help nope" "nope --help" "help chek"; do
  "$thicket" $args >"$dir/out" 2>"$dir/err"
  rc=$?
  [[ $rc == 64 ]] && grep -q "^thicket: unknown command '\(nope\|chek\)'" "$dir/err" && ok || bad "thicket $args: exit $rc, $(head -1 "$dir/err")"
done
"$thicket" help chek >/dev/null 2>"$dir/err"
grep -q "unknown command 'chek'; did you mean 'check'?" "$dir/err" && ok || bad "thicket help chek: $(head -1 "$dir/err")"
for args in "import x.xml -h" "help import" "path -h" "export --help" "version --help"; do
  "$thicket" $args >"$dir/out" 2>"$dir/err"
  rc=$? word=${args%% *}
  [[ $word == help ]] && word=${args#help }
  [[ $word == version ]] && word=--version
  [[ $rc == 0 && $(head -1 "$dir/out") == "usage: thicket $word "* || $(head -1 "$dir/out") == "usage: thicket $word" ]] &&
    ! grep -q "thicket run" "$dir/out" && grep -q "^(thicket --help lists every command)$" "$dir/out" && ok ||
    bad "thicket $args: $(head -1 "$dir/out")"
done

# A number too long for the options: the message says the limit.
"$thicket" run "$cases/bad_fsm/brain.yaml" --seed 12345678901234567890 >/dev/null 2>"$dir/err"
[[ $? == 64 ]] && grep -q "^thicket: --seed needs a whole number from 0 to 9223372036854775807, got '12345678901234567890'" "$dir/err" && ok ||
  bad "--seed of 20 digits: $(head -1 "$dir/err")"
# 19 digits up to 2^63 - 1, as a scenario's seed: (it took 18); past it with --runs, refused (rows carried seeds no one could give).
"$thicket" run "$cases/bad_fsm/brain.yaml" --seed 9223372036854775808 >/dev/null 2>"$dir/err"
[[ $? == 64 ]] && ok || bad "--seed 2^63: $(head -1 "$dir/err")"
arena="$here/scripts/examples/arena/arena.yaml"
"$thicket" run "$arena" --ticks 0 --seed 9223372036854775806 --runs 2 --out "$dir/seeds.csv" >/dev/null 2>&1
[[ $? == 0 ]] && [[ "$(cut -d, -f2 "$dir/seeds.csv" | tail -2 | tr '\n' ' ')" == "9223372036854775806 9223372036854775807 " ]] && ok ||
  bad "seeds up to 2^63 - 1: $(cat "$dir/seeds.csv")"
# A checkpoint given to check or run as a brain is said to be one (it was "the file is not UTF-8").
"$thicket" run "$arena" --ticks 2 --quiet --checkpoint "$dir/cp.snap" --every 1 >/dev/null 2>&1
"$thicket" check "$dir/cp.snap" >/dev/null 2>"$dir/err"
[[ $? == 2 ]] && grep -q "cp.snap: error: this is a checkpoint (a saved run): go on from it with 'thicket run SCENARIO --resume cp.snap'" "$dir/err" &&
  ok || bad "check of a checkpoint: $(head -1 "$dir/err")"
"$thicket" run "$arena" --ticks 0 --seed 9223372036854775807 --runs 3 >/dev/null 2>"$dir/err"
[[ $? == 64 ]] && grep -q "^thicket: error: 3 run(s) from seed 9223372036854775807 would take seeds past 9223372036854775807" "$dir/err" && ok ||
  bad "--runs past the largest seed: $(head -1 "$dir/err")"

# --trace: one JSON object per agent per tick, with the running nodes in depth-first order.
"$thicket" run "$here/tests/spec_examples/seed000_guard.yaml" --ticks 3 --dt 0.5 --agents 2 --trace "$dir/t.jsonl" >/dev/null 2>&1
[[ $(wc -l < "$dir/t.jsonl") == 6 ]] && ok || bad "trace should have 6 lines (2 agents x 3 ticks)"
grep -qx '{"tick":1,"agent":1,"status":"running","running":\["root","root/1"\]}' "$dir/t.jsonl" && ok || bad "tick 1 trace line: $(head -1 "$dir/t.jsonl")"
grep -qx '{"tick":3,"agent":2,"status":"running","running":\["root","root/0","root/0/1","root/0/1/1","root/0/1/1/1"\]}' "$dir/t.jsonl" && ok || bad "tick 3 trace line: $(tail -1 "$dir/t.jsonl")"

# --trace of an fsm: a transition line (the initial state's entry, a reason's transition, a
# `when` check) with the states left and entered (SPEC 4.1), before the agent's status line of
# that tick; `running` names the state. The act's success at tick 1 is an event no state takes:
# dropped at tick 2's event phase, before the reason's transition.
"$thicket" run "$cases/fsm_order/brain.yaml" --ticks 3 --trace "$dir/f.jsonl" >/dev/null 2>&1
[[ $(wc -l < "$dir/f.jsonl") == 7 ]] && ok || bad "fsm trace should have 7 lines (3 ticks, 3 transitions, 1 event)"
[[ $(sed -n 1p "$dir/f.jsonl") == '{"tick":1,"agent":1,"transition":{"fsm":"order","from":null,"to":"a","exited":[],"entered":["a"]}}' ]] && ok || bad "fsm trace line 1: $(sed -n 1p "$dir/f.jsonl")"
[[ $(sed -n 2p "$dir/f.jsonl") == '{"tick":1,"agent":1,"status":"running","running":["root","a"]}' ]] && ok || bad "fsm trace line 2: $(sed -n 2p "$dir/f.jsonl")"
[[ $(sed -n 3p "$dir/f.jsonl") == '{"tick":2,"agent":1,"event":{"name":"success","taken_by":null}}' ]] && ok || bad "fsm trace line 3: $(sed -n 3p "$dir/f.jsonl")"
[[ $(sed -n 4p "$dir/f.jsonl") == '{"tick":2,"agent":1,"transition":{"fsm":"order","from":"a","to":"b","by":"go_b","reason":"a/reason","exited":["a"],"entered":["b"]}}' ]] && ok || bad "fsm trace line 4: $(sed -n 4p "$dir/f.jsonl")"
[[ $(sed -n 5p "$dir/f.jsonl") == '{"tick":2,"agent":1,"status":"running","running":["root","b","b/tree","b/tree/1"]}' ]] && ok || bad "fsm trace line 5: $(sed -n 5p "$dir/f.jsonl")"
[[ $(sed -n 6p "$dir/f.jsonl") == '{"tick":3,"agent":1,"transition":{"fsm":"order","from":"b","to":"a","when":"b/when/0","exited":["b"],"entered":["a"]}}' ]] && ok || bad "fsm trace line 6: $(sed -n 6p "$dir/f.jsonl")"

# --trace of a hierarchical fsm (SPEC 4.1): an event taken by a composite, and the transition
# it causes with the states left (innermost first) and entered (outermost first).
(cd "$cases/hsm_guard" && "$thicket" run brain.yaml --ticks 9 --trace "$dir/h.jsonl" >/dev/null 2>&1)
grep -qx '{"tick":6,"agent":1,"event":{"name":"noise","taken_by":"calm"}}' "$dir/h.jsonl" && ok || bad "hsm trace: no noise event taken by calm at tick 6"
[[ $(grep -A1 '"name":"noise"' "$dir/h.jsonl" | tail -1) == '{"tick":6,"agent":1,"transition":{"fsm":"guard","from":"calm","to":"alert","by":"noise","event":"noise","exited":["rest","calm"],"entered":["alert"]}}' ]] && ok || bad "hsm trace: the noise transition: $(grep -A1 '"name":"noise"' "$dir/h.jsonl" | tail -1)"
grep -qx '{"tick":9,"agent":1,"transition":{"fsm":"guard","from":"alert","to":"calm","by":"success","event":"success","exited":\["alert"\],"entered":\["calm","patrol"\]}}' "$dir/h.jsonl" && ok || bad "hsm trace: alert's success should enter calm, patrol"

# --trace of a brain's end: entering the top-level final state `gone` (tick 11) is a transition,
# and leaving it (its exit leaf runs) a record of its own, `"to":null,"ended":true`, before the
# tick's status line; tick 12 starts the brain again with the initial descent.
(cd "$cases/hsm_history_final" && "$thicket" run brain.yaml --ticks 12 --trace "$dir/e.jsonl" >/dev/null 2>&1)
[[ $(grep '"tick":11,' "$dir/e.jsonl" | tail -3 | paste -sd'|') == '{"tick":11,"agent":1,"transition":{"fsm":"hist","from":"idle","to":"gone","by":"quit","event":"quit","exited":["idle"],"entered":["gone"]}}|{"tick":11,"agent":1,"transition":{"fsm":"hist","from":"gone","to":null,"ended":true,"exited":["gone"],"entered":[]}}|{"tick":11,"agent":1,"status":"success","running":[]}' ]] &&
  ok || bad "hsm trace: the brain's end at tick 11: $(grep '"tick":11,' "$dir/e.jsonl" | tail -3)"
grep -qx '{"tick":12,"agent":1,"transition":{"fsm":"hist","from":null,"to":"combat","exited":\[\],"entered":\["combat","engage"\]}}' "$dir/e.jsonl" && ok || bad "hsm trace: tick 12 should start the brain again"
# ... and a scenario's record lists the transition into `gone`, not the end (its `to` is a state).
(cd "$cases/hsm_history_final" && "$thicket" run scenario.yaml --quiet --record "$dir/e.record.jsonl" >/dev/null 2>&1)
[[ $(grep -o '\["transition",[^]]*\]' "$dir/e.record.jsonl" | grep -c '"gone"') == 1 ]] &&
  grep -q '\["transition",11,1,"hist","idle","gone",' "$dir/e.record.jsonl" && ! grep -q '"gone","",\|"gone",null' "$dir/e.record.jsonl" &&
  ok || bad "hsm record: the transitions to and from gone: $(grep -o '\["transition",[^]]*\]' "$dir/e.record.jsonl" | grep gone)"

# --trace of a behavior machine: a switch line when the behavior changes (and for the first
# pick); `running` names the active behavior.
"$thicket" run "$cases/../../spec_examples/machine_every_tick.yaml" --ticks 6 --dt 0.5 --trace "$dir/m.jsonl" >/dev/null 2>&1
[[ $(grep -c '"switch"' "$dir/m.jsonl") == 3 ]] && ok || bad "machine trace should have 3 switch lines"
[[ $(sed -n 1p "$dir/m.jsonl") == '{"tick":1,"agent":1,"switch":{"machine":"every_tick","from":null,"to":"work","check":"work/check"}}' ]] && ok || bad "machine trace line 1: $(sed -n 1p "$dir/m.jsonl")"
[[ $(sed -n 2p "$dir/m.jsonl") == '{"tick":1,"agent":1,"status":"running","running":["root","work"]}' ]] && ok || bad "machine trace line 2: $(sed -n 2p "$dir/m.jsonl")"
grep -qx '{"tick":4,"agent":1,"switch":{"machine":"every_tick","from":"work","to":"flee","check":"flee/check"}}' "$dir/m.jsonl" && ok || bad "machine trace: no switch from work to flee at tick 4"
[[ $(grep -A1 '"switch".*"to":"flee"' "$dir/m.jsonl" | tail -1) == '{"tick":4,"agent":1,"status":"running","running":["root","flee"]}' ]] && ok || bad "machine trace: the switch should come before its tick's status line"

# Perception events in a scenario (SPEC 4.1): `seen` renamed `spotted` is taken by the dozing
# sentry the tick its sight reports the walker; `remembered`, switched off, is never sent.
(cd "$cases/hsm_percept" && "$thicket" run scenario.yaml --quiet --trace "$dir/p.jsonl" >/dev/null 2>&1)
grep -qx '{"tick":58,"agent":1,"event":{"name":"spotted","taken_by":"doze"}}' "$dir/p.jsonl" && ok || bad "percept trace: no spotted event taken by doze at tick 58"
grep -q '"name":"lost_sight","taken_by":"alarm"' "$dir/p.jsonl" && ok || bad "percept trace: lost_sight keeps its default name"
! grep -q '"name":"remembered"' "$dir/p.jsonl" && ok || bad "percept trace: remembered was switched off but sent"
! grep -q '"name":"seen"' "$dir/p.jsonl" && ok || bad "percept trace: seen was renamed but sent under its old name"

# --trace of events (SPEC 4.1) and time slicing: an event line (taken_by null: a tree brain
# takes no events) before the receiving agent's status line; a sliced agent writes no line for a call
# that skips it (ids 1-3, and 4 spawned in call 0; tick_every 2, 5 calls: 1+2+2+2+2 = 9 lines).
(cd "$cases/events_slicing" && "$thicket" run brain.yaml --agents 3 --ticks 5 --trace "$dir/e.jsonl" >/dev/null 2>&1)
[[ $(grep -c '"status"' "$dir/e.jsonl") == 9 ]] && ok || bad "sliced trace should have 9 status lines, has $(grep -c '"status"' "$dir/e.jsonl")"
[[ $(grep -A1 '"event"' "$dir/e.jsonl" | head -2 | tr '\n' ' ') == '{"tick":2,"agent":2,"event":{"name":"hello","taken_by":null}} {"tick":2,"agent":2,"status":"running","running":["root"]} ' ]] && ok || bad "event trace lines: $(grep -A1 '"event"' "$dir/e.jsonl" | head -2)"

# dot of a tree: one graph node per tree node, one edge per parent-child pair.
"$thicket" dot "$here/tests/spec_examples/seed000_guard.yaml" > "$dir/g.dot"
[[ $(grep -c '^  n[0-9]* \[label=' "$dir/g.dot") == 11 ]] && ok || bad "dot should have 11 nodes"
[[ $(grep -c ' -> ' "$dir/g.dot") == 10 ]] && ok || bad "dot should have 10 edges"
head -1 "$dir/g.dot" | grep -q '^digraph "seed000_guard" {' && ok || bad "dot header"
# Names with a backslash or a quote are escaped in the labels, and the label's own line breaks
# stay line breaks (a state named 'x\' ran into its act's line as a literal '\n').
mkdir -p "$dir/dotname"
printf 'return {Run = function() return "running" end}\n' > "$dir/dotname/l.lua"
cat > "$dir/dotname/b.yaml" <<'YAML'
fsm: 'q"'
leaves: [l.lua]
initial: 'x\'
states:
  'x\': {act: Run, transitions: {'say "hi"': y}}
  y: {act: Run}
YAML
"$thicket" dot "$dir/dotname/b.yaml" > "$dir/dotname.dot" 2>"$dir/err"
grep -qF 's0 [label="x\\\naction Run"];' "$dir/dotname.dot" && grep -qF '[label="say \"hi\""]' "$dir/dotname.dot" &&
  head -1 "$dir/dotname.dot" | grep -qF 'digraph "q\"" {' && ok || bad "dot of names with a backslash and quotes: $(cat "$dir/dotname.dot" "$dir/err")"

root="$here"
arena="$here/scripts/examples/arena/arena.yaml"

# --version (and `version`): "thicket X.Y.Z", THICKET_VERSION_STRING of thicket/version.hpp, exit 0.
want=$(sed -n 's/^#define THICKET_VERSION_STRING "\([0-9.]*\)"$/\1/p' "$root/runtime/include/thicket/version.hpp")
[[ -n "$want" ]] && ok || bad "thicket/version.hpp defines no THICKET_VERSION_STRING"
for cmd in --version version; do
  got=$("$thicket" $cmd 2>&1)
  [[ $? == 0 ]] && ok || bad "thicket $cmd should exit 0"
  [[ "$got" == "thicket $want" ]] && ok || bad "thicket $cmd printed '$got', expected 'thicket $want'"
done

# Output files: the format follows the extension, so any other extension is a usage error
# that names the accepted ones, and nothing is written.
(cd "$dir" && "$thicket" run "$arena" --ticks 1 --out x.txt >/dev/null 2>err)
[[ $? == 64 ]] && ok || bad "--out x.txt should be a usage error (64)"
grep -q "^thicket: --out .*FILE.csv or FILE.jsonl, got 'x.txt'" "$dir/err" && ok || bad "--out x.txt message: $(head -1 "$dir/err")"
[[ ! -e "$dir/x.txt" ]] && ok || bad "--out x.txt should write nothing"
(cd "$dir" && "$thicket" run "$arena" --ticks 1 --record=rec.csv >/dev/null 2>err)
[[ $? == 64 ]] && ok || bad "--record rec.csv should be a usage error (64)"
grep -q "^thicket: --record writes JSON lines, plain or gzip-compressed as its extension says: it needs FILE.jsonl or FILE.jsonl.gz, got 'rec.csv'" "$dir/err" && ok || bad "--record message: $(head -1 "$dir/err")"
(cd "$dir" && "$thicket" run "$root/tests/spec_examples/seed000_guard.yaml" --ticks 1 --trace t.json >/dev/null 2>err)
[[ $? == 64 ]] && ok || bad "--trace t.json should be a usage error (64)"
grep -q "^thicket: --trace writes JSON lines: it needs FILE.jsonl, got 't.json'" "$dir/err" && ok || bad "--trace message: $(head -1 "$dir/err")"
[[ ! -e "$dir/t.json" ]] && ok || bad "--trace t.json should write nothing"
"$thicket" run "$root/tests/spec_examples/seed000_guard.yaml" --ticks 2 --quiet --trace /dev/stdout 2>/dev/null | grep -q '^{"tick":2,' && ok || bad "--trace /dev/stdout should be accepted"

# dot of a scenario: a node per group, a cluster per brain file holding that brain's graph
# (ids prefixed per brain), and an edge from each group to its brain's cluster.
"$thicket" dot "$arena" > "$dir/s.dot" 2>"$dir/err"
[[ $? == 0 ]] && ok || bad "dot of a scenario should exit 0: $(cat "$dir/err")"
head -1 "$dir/s.dot" | grep -q "^// .*arena.yaml is a scenario file: its groups and their brains$" && ok || bad "scenario dot comment: $(head -1 "$dir/s.dot")"
sed -n 2p "$dir/s.dot" | grep -q '^digraph "arena" {' && ok || bad "scenario dot header: $(sed -n 2p "$dir/s.dot")"
[[ $(grep -c '^  g[0-9]* \[label="[a-z_]*\\nteam [a-z]*, [0-9]* agents", shape=house' "$dir/s.dot") == 3 ]] && ok || bad "scenario dot should have 3 group nodes"
[[ $(grep -c '^  subgraph cluster_b[0-9]* {' "$dir/s.dot") == 2 ]] && ok || bad "scenario dot should have 2 brain clusters (2 groups share minion.yaml)"
[[ $(grep -c '^  g[0-9]* -> b[0-9]*_[a-z0-9]* \[lhead=cluster_b[0-9]*\];' "$dir/s.dot") == 3 ]] && ok || bad "scenario dot should have 3 group -> brain edges"
for brain in minion player; do
  "$thicket" dot "$root/scripts/examples/arena/$brain.yaml" > "$dir/$brain.dot"
  n=$(grep -c '^  [ns][0-9]* \[label=' "$dir/$brain.dot")
  k=$([[ $brain == minion ]] && echo 0 || echo 1)
  [[ $(grep -c "^    b${k}_[ns][0-9]* \[label=" "$dir/s.dot") == "$n" ]] && ok || bad "cluster b$k should hold $brain.yaml's $n nodes"
done
if command -v dot >/dev/null; then
  dot -Tsvg "$dir/s.dot" -o "$dir/s.svg" 2>"$dir/err" && ok || bad "graphviz rejects the scenario dot: $(cat "$dir/err")"
fi

# dump of a scenario: a header per group, each brain file dumped once.
"$thicket" dump "$arena" > "$dir/s.dump" 2>"$dir/err"
[[ $? == 0 ]] && ok || bad "dump of a scenario should exit 0: $(cat "$dir/err")"
[[ $(head -1 "$dir/s.dump") == "scenario arena: 3 group(s), 2 brain file(s)" ]] && ok || bad "scenario dump header: $(head -1 "$dir/s.dump")"
grep -qx 'group west_post (team minions, 120 agents): brain .*/arena/minion.yaml' "$dir/s.dump" && ok || bad "dump: west_post header"
grep -qx 'group east_post (team minions, 120 agents): brain .*/arena/minion.yaml, dumped above' "$dir/s.dump" && ok || bad "dump: east_post header"
grep -qx 'group players (team players, 400 agents): brain .*/arena/player.yaml' "$dir/s.dump" && ok || bad "dump: players header"
"$thicket" dump "$root/scripts/examples/arena/minion.yaml" > "$dir/minion.dump"
"$thicket" dump "$root/scripts/examples/arena/player.yaml" > "$dir/player.dump"
grep -v '^group \|^scenario ' "$dir/s.dump" | cmp -s - <(cat "$dir/minion.dump" "$dir/player.dump") && ok || bad "the scenario dump should hold each brain's own dump"

# The user-facing docs, examples and setup name the designs ("the behavior machine"), not the
# seed articles' numbers ("seed 002"), which mean nothing to a reader of the project.
hits=$(grep -rniE 'seeds? ?0{2}[0-3]' "$root/README.md" "$root/docs" "$root/setup.sh" "$root/scripts/examples" \
  "$root/examples" "$root/schemas" 2>/dev/null)
[[ -z "$hits" ]] && ok || bad "docs mention seed numbers: $hits"
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

# Outputs written aside and renamed (import/export -o, --checkpoint) leave what the name is:
# a link stays a link (its file gets the output), a pipe stays a pipe (and gets the output).
# (A rename once put a plain file in the place of `-o /dev/null`.)
xml="$here/tests/import/btcpp/run_once/tree.xml"
: > "$dir/real.yaml"
ln -s real.yaml "$dir/link.yaml"
"$thicket" import "$xml" -o "$dir/link.yaml" >/dev/null 2>&1
[[ -L "$dir/link.yaml" ]] && ok || bad "import -o LINK replaced the link with a file"
grep -q "^root:" "$dir/real.yaml" && ok || bad "import -o LINK did not write the linked file"
mkfifo "$dir/pipe"
# (the reader is waited for, not given a fixed 0.2 s: on a loaded machine it may not yet have
# written what it read)
timeout -s KILL 10 cat "$dir/pipe" > "$dir/piped" &
reader=$!
timeout -s KILL 10 "$thicket" import "$xml" -o "$dir/pipe" >/dev/null 2>&1
wait $reader
[[ -p "$dir/pipe" ]] && ok || bad "import -o PIPE replaced the pipe with a file"
grep -q "^root:" "$dir/piped" && ok || bad "import -o PIPE: nothing came through the pipe"
: > "$dir/real.xml"
ln -s real.xml "$dir/link.xml"
"$thicket" export "$cases/dump_imported/bt.yaml" --to btcpp -o "$dir/link.xml" >/dev/null 2>&1
[[ -L "$dir/link.xml" ]] && grep -q "<root" "$dir/real.xml" && ok || bad "export -o LINK replaced the link or missed its file"
mkdir "$dir/folder"
"$thicket" import "$xml" -o "$dir/folder" >/dev/null 2>"$dir/err"
[[ $? == 2 ]] && grep -q "it is a folder" "$dir/err" && ok || bad "import -o FOLDER: $(cat "$dir/err")"
rm -f "$dir/pipe"
mkfifo "$dir/pipe"
timeout -s KILL 20 cat "$dir/pipe" > "$dir/piped_checkpoint" &
reader=$!
timeout -s KILL 20 "$thicket" run "$here/scripts/examples/flock/flock.yaml" --ticks 4 --checkpoint "$dir/pipe" --every 4 >/dev/null 2>&1
wait $reader
[[ -p "$dir/pipe" ]] && ok || bad "--checkpoint PIPE replaced the pipe with a file"
[[ -s "$dir/piped_checkpoint" ]] && ok || bad "--checkpoint PIPE: nothing came through the pipe"

# Files named in a brain are plain files: a leaf file, an import or a required module that is a
# pipe (nothing writing to it would block the load for ever), a device or a folder is an error
# at its line, and the load goes on to report the rest.
mkdir -p "$dir/plain" && rm -f "$dir/plain/p.lua" "$dir/plain/p.yaml" "$dir/plain/m.lua" && mkfifo "$dir/plain/p.lua" "$dir/plain/p.yaml" "$dir/plain/m.lua"
printf 'tree: t\nroot: {action: A}\nleaves: [p.lua, /dev/zero, ., ok.lua]\nimport: [p.yaml]\n' > "$dir/plain/b.yaml"
printf 'return {A = function() return "success" end}\n' > "$dir/plain/ok.lua"
timeout 20 "$thicket" check "$dir/plain/b.yaml" >/dev/null 2>"$dir/err"
[[ $? == 2 ]] && grep -q "b.yaml:3:10: error: leaf file 'p.lua' is not a plain file (.*p.lua is a pipe or a socket)" "$dir/err" &&
  grep -q "b.yaml:3:17: error: leaf file '/dev/zero' is not a plain file (/dev/zero is a device)" "$dir/err" &&
  grep -q "b.yaml:3:28: error: leaf file '.' is not a plain file (.* is a folder)" "$dir/err" &&
  grep -q "b.yaml:4:10: error: cannot open '.*p.yaml': not a plain file (a pipe or a socket)" "$dir/err" &&
  grep -q "b.yaml: 4 error(s)" "$dir/err" && ok || bad "leaf files and imports that are not plain files: $(cat "$dir/err")"
timeout 20 "$thicket" check "$dir/plain/p.yaml" >/dev/null 2>"$dir/err"
[[ $? == 2 ]] && grep -q "p.yaml: error: cannot open file: not a plain file (a pipe or a socket)" "$dir/err" && ok ||
  bad "a brain file that is a pipe: $(cat "$dir/err")"
printf 'local m = require("m")\nreturn {A = function() return "success" end}\n' > "$dir/plain/r.lua"
printf 'tree: t\nroot: {action: A}\nleaves: [r.lua]\n' > "$dir/plain/r.yaml"
timeout 20 "$thicket" check "$dir/plain/r.yaml" >/dev/null 2>"$dir/err"
[[ $? == 2 ]] && grep -q "r.lua:1: error: module 'm' (.*m.lua) is not a plain file" "$dir/err" && ok ||
  bad "a required module that is a pipe: $(cat "$dir/err")"

# Messages of megabytes are shown by their start and size: a script error's message (the log
# keeps a line a reader can take in) and an event's name in --explain (the trace keeps it whole).
mkdir -p "$dir/huge"
cat > "$dir/huge/big.lua" <<'LUA'
local thicket = require("thicket")
local L = {}
L.ErrHuge = function(a) error(string.rep("z", 100000)) end
L.SendHuge = function(a) a:send(string.rep("x", 100000)) return thicket.RUNNING end
return L
LUA
printf 'tree: t\nleaves: [big.lua]\nroot: {action: ErrHuge}\n' > "$dir/huge/err.yaml"
printf 'fsm: f\nleaves: [big.lua]\nstates:\n  a: {act: SendHuge}\n' > "$dir/huge/ev.yaml"
"$thicket" run "$dir/huge/err.yaml" --ticks 1 >/dev/null 2>"$dir/err"
longest=$(awk '{ print length }' "$dir/err" | sort -n | tail -1)
[[ $longest -lt 2100 ]] && grep -q "big.lua:3: zzz.*\.\.\. ([0-9]* bytes)" "$dir/err" && ok || bad "a huge error message: its longest line is $longest bytes"
"$thicket" run "$dir/huge/ev.yaml" --ticks 2 --explain --trace "$dir/huge/t.jsonl" >/dev/null 2>"$dir/err"
longest=$(awk '{ print length }' "$dir/err" | sort -n | tail -1)
[[ $longest -lt 400 ]] && grep -q "event xxx.*\.\.\. (100000 bytes) dropped" "$dir/err" && awk 'length($0) > 100000 { whole = 1 } END { exit !whole }' "$dir/huge/t.jsonl" && ok ||
  bad "a huge event name in --explain: its longest line is $longest bytes"

# The summary counts the agents at the end too when leaves spawned or despawned (the root
# statuses count those): "1 agent(s) (2 at the end)".
(cd "$cases/spawn_blackboard_checked" && "$thicket" run brain.yaml --ticks 2 >/dev/null 2>"$dir/err")
grep -q "^thicket: 1 agent(s) (2 at the end), 2 tick(s)" "$dir/err" && grep -q "root status: running=2" "$dir/err" && ok ||
  bad "the summary of a run whose leaves spawned: $(grep '^thicket' "$dir/err")"

# Seconds (--dt, --leaf-timeout, --speed) are plain decimals: no hex ("0x10" was 16 s), sign or
# space, and a value too small for a double is refused rather than read as 0 (for --leaf-timeout,
# "no limit": a leaf that never returns then hung the run).
chicken="$here/docs/examples/hello/chicken.yaml"
for flag_value in "--leaf-timeout 1e-400" "--dt 1e-400" "--dt 0x10" "--dt +5" "--dt  5" "--leaf-timeout 0x1" "--speed +1"; do
  read -r flag value <<<"$flag_value"
  [[ $flag_value == "--dt  5" ]] && value=" 5"
  "$thicket" run "$chicken" --ticks 1 "$flag" "$value" >/dev/null 2>"$dir/err"
  [[ $? == 64 ]] && grep -q "^thicket: $flag needs a number .*got '$value'" "$dir/err" && ok || bad "$flag '$value' should be refused: $(head -1 "$dir/err")"
done
"$thicket" run "$chicken" --ticks 1 --dt 5. --leaf-timeout .5 >/dev/null 2>"$dir/err" && ok || bad "--dt 5. --leaf-timeout .5: $(head -1 "$dir/err")"
# `--` ends the options: a file named -x.yaml (it was "unknown option '--'"); an unknown command
# that looks like an option is near the options in its place (--versio got no suggestion).
cp "$chicken" "$dir/-dash.yaml" && cp "${chicken%.yaml}.lua" "$dir/"
(cd "$dir" && "$thicket" check -- -dash.yaml >/dev/null 2>&1) && ok || bad "check -- -dash.yaml should load the file"
(cd "$dir" && "$thicket" run --ticks 1 --quiet -- -dash.yaml >/dev/null 2>&1) && ok || bad "run --ticks 1 -- -dash.yaml should run it"
(cd "$dir" && "$thicket" check -- --ticks >/dev/null 2>"$dir/err")
[[ $? == 2 ]] && grep -q "ticks" "$dir/err" && ok || bad "check -- --ticks: a file named --ticks: $(head -1 "$dir/err")"
"$thicket" --versio >/dev/null 2>"$dir/err"
[[ $? == 64 ]] && grep -q "did you mean '--version'?" "$dir/err" && ok || bad "--versio: $(head -1 "$dir/err")"
# Past the most it takes, the message says that most (it said ">= 0", which 2000000 is).
"$thicket" run "$chicken" --ticks 1 --leaf-timeout 2000000 >/dev/null 2>"$dir/err"
[[ $? == 64 ]] && grep -q "^thicket: --leaf-timeout needs a number of seconds from 0 (no limit) to 1000000, got '2000000'" "$dir/err" && ok ||
  bad "--leaf-timeout 2000000: $(head -1 "$dir/err")"

# An empty value is no value ('--log ""' logged to stderr, 'import -o ""' wrote to stdout,
# 'edit --attach ""' ran unattached), and a value missing at the end is said so, not called an
# unknown option (export).
door="$here/docs/examples/import"
while IFS='|' read -r want args; do
  eval "set -- $args"
  timeout 10 "$thicket" "$@" >/dev/null 2>"$dir/err" </dev/null
  [[ $? == 64 ]] && [[ $(head -1 "$dir/err") == "thicket: $want" ]] && ok || bad "thicket $args: $(head -1 "$dir/err")"
done <<EOF
--log needs a file|run "$chicken" --log ''
--log needs a file|run "$chicken" --log=
--attach needs a value|edit "$chicken" --attach ''
--attach needs a value|edit "$chicken" --attach=
--series needs FILE.csv or FILE.jsonl|merge "$dir/m.csv" "$dir/p.jsonl" --series=
--out needs a file|import "$door/door.xml" --out=
-o needs a file|import "$door/door.xml" -o ''
--tree needs an ID|import "$door/door.xml" --tree ''
--leaves needs a Lua file|import "$door/door.xml" --leaves ''
-o needs a file|export "$door/door.yaml" --to btcpp -o ''
-o needs a file|export "$door/door.yaml" --to btcpp -o
--to needs a format (--to btcpp)|export "$door/door.yaml" --to
an empty FILE ('')|check ''
unknown option '-o' ('thicket check' takes FILE only)|check "$chicken" -o x
unknown option '-o' of thicket merge (it has --series FILE; OUT is the first file)|merge "$dir/m.csv" "$dir/p.jsonl" -o x
unknown option '--prot' for 'thicket edit'; did you mean '--port'? (options: --port, --attach)|edit "$chicken" --prot 5
unknown option '--too' for export; did you mean '--to'? (options: --to btcpp, -o)|export "$door/door.yaml" --too btcpp
unknown option '--leavs' for import; did you mean '--leaves'? (options: -o, --tree, --leaves)|import "$door/door.xml" --leavs a.lua
unknown option '--serie' of thicket merge; did you mean '--series'? (it has --series FILE; OUT is the first file)|merge "$dir/m.csv" "$dir/p.jsonl" --serie x
EOF

# dump of a long check: expression (200,000 terms, 0.8 MB) in time proportional to its size: the
# disassembly scanned back over the whole expression at each term (this took over a minute).
python3 -c "print('tree: a\nblackboard: {x: 1}\nroot: {condition: {check: \"' + ' + '.join(['x'] * 200000) + ' > 0\"}}')" > "$dir/long_check.yaml"
timeout 30 "$thicket" dump "$dir/long_check.yaml" > "$dir/long_check.txt" 2>"$dir/err"
[[ $? == 0 ]] && grep -q "expr=(x x + x + .* x + 0 >)" "$dir/long_check.txt" && ok || bad "dump of a 200,000-term check: $(head -c 300 "$dir/err")"

# A tree file whose name holds a line break: the brain's first comment writes it as \n (the
# name "x<newline>tick_every: 7<newline>#.xml" added a tick_every key to the imported brain).
odd="$dir/x"$'\n'"tick_every: 7"$'\n'"#.xml"
cp "$dir/own/c.xml" "$odd"
"$thicket" import "$odd" -o "$dir/odd.yaml" 2>"$dir/err"
[[ $? == 0 ]] && ! grep -q "^tick_every" "$dir/odd.yaml" && grep -qF 'x\ntick_every: 7\n#.xml' "$dir/odd.yaml" \
  && ok || bad "import of a file named with line breaks: $(head -3 "$dir/odd.yaml") $(cat "$dir/err")"

# The progress bar (standard error a terminal: `script` gives the run one) is redrawn at most
# ~1,000 times a run: it was redrawn every 64 ticks, ~3,100 times here, which cost a long run
# of a small brain a third of its speed. The last redraw shows the last tick.
printf 'tree: p\nroot: {wait: 100}\n' > "$dir/progress.yaml"
if command -v script >/dev/null 2>&1; then
  script -qec "'$thicket' run '$dir/progress.yaml' --ticks 200000" /dev/null > "$dir/progress.out" 2>&1
  draws=$(tr '\r' '\n' < "$dir/progress.out" | grep -c '] [0-9]*/200000 ticks')
  [[ $draws -ge 100 && $draws -le 1001 ]] && grep -q '200000/200000 ticks' "$dir/progress.out" && ok ||
    bad "the progress bar was drawn $draws times over 200,000 ticks (at most ~1,000, the last at 200000)"
  # A scenario's bar likewise (it was redrawn every 16 ticks: 2,500 times here).
  printf 'scenario: s\nseed: 1\nticks: 40000\ndt: 0.1\nworld: {size: [20, 20]}\nteams: [a]\ngroups:\n  - {name: g, team: a, count: 1, brain: progress.yaml, spawn: {centre: [5, 5], radius: 1}}\n' > "$dir/progress_s.yaml"
  script -qec "'$thicket' run '$dir/progress_s.yaml'" /dev/null > "$dir/progress_s.out" 2>&1
  draws=$(tr '\r' '\n' < "$dir/progress_s.out" | grep -c '] [0-9]*/40000 ticks')
  [[ $draws -ge 100 && $draws -le 1001 ]] && grep -q '40000/40000 ticks' "$dir/progress_s.out" && ok ||
    bad "a scenario's progress bar was drawn $draws times over 40,000 ticks (at most ~1,000, the last at 40000)"
fi

# A brain run with --ticks 0 runs until interrupted: Ctrl-C ends it cleanly, with the summary
# marked (interrupted), exit 0 (SPEC 9). Sent once the brain has printed (no clock waited on).
printf 'local L = {}\nfunction L.Talk() print("ticking") return "running" end\nreturn L\n' > "$dir/talk.lua"
printf 'tree: talk\nleaves: [talk.lua]\nroot: {action: Talk}\n' > "$dir/talk.yaml"
"$thicket" run "$dir/talk.yaml" --ticks 0 >"$dir/talk.out" 2>"$dir/talk.err" &
talk=$!
for _ in $(seq 1 400); do grep -q ticking "$dir/talk.out" 2>/dev/null && break; sleep 0.05; done
kill -INT $talk 2>/dev/null
wait $talk
[[ $? == 0 ]] && grep -q "root status: running=1; script errors: 0 (interrupted)$" "$dir/talk.err" && ok ||
  bad "--ticks 0 interrupted: $(tail -2 "$dir/talk.err")"

echo "cli: $pass passed, $fail failed"
[[ $fail == 0 ]]
