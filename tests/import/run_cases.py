#!/usr/bin/python3
"""Imported trees make the same leaf calls as their library: tests/import/run_cases.py THICKET

Each folder under btcpp/ and b3/ holds a tree (tree.xml: BehaviorTree.CPP 4; tree.json:
behavior3), script.json (what each leaf returns call by call, and the blackboard writes it
makes), ticks, and expected: the leaf calls, halts and root status per tick that the real
library printed running that tree with the same scripted leaves (BehaviorTree.CPP 4.10.0
ticked with tickExactlyOnce; behavior3js 0.2.2 with one blackboard; README.md says how).

For each case this writes leaves.lua from script.json, runs `thicket import`, then
`thicket run` with a trace, and compares. For BT.CPP trees it also checks the round trip:
`thicket export` of the imported brain, imported again, runs the same calls.
"""
import json
import os
import subprocess
import sys
import tempfile
import xml.dom.minidom

HERE = os.path.dirname(os.path.abspath(__file__))


def lua_value(v):
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, (int, float)):
        return repr(float(v))
    if v is None:
        return "nil"
    return '"' + str(v).replace("\\", "\\\\").replace('"', '\\"') + '"'


def leaves_lua(script):
    """Scripted leaves: call k of leaf NAME prints "TICK NAME", makes its k-th write and
    returns its k-th status (both cycling); an action halted while running prints "TICK halt NAME"."""
    out = ['local thicket = require("thicket")', "local map = {S = thicket.SUCCESS, F = thicket.FAILURE, R = thicket.RUNNING}",
           "local count, leaves = {}, {}"]
    all_writes = script.get("writes", {})  # leaf name -> the write of each call (cycling; null: none)
    for name in sorted(k for k in script if k not in ("blackboard", "writes")):
        spec = script[name]
        statuses = ", ".join(lua_value(s) for s in spec["statuses"])
        writes = []
        for w in all_writes.get(name, []):
            writes.append("{%s, %s}" % (lua_value(w[0]), lua_value(w[1])) if w else "false")
        body = (
            "  count[%(n)s] = (count[%(n)s] or 0) + 1\n"
            "  local k = count[%(n)s]\n"
            "  print(thicket.tick() .. \" \" .. %(n)s)\n"
            "  local writes = {%(w)s}\n"
            "  if #writes > 0 then local w = writes[(k - 1) %% #writes + 1]; if w then agent.bb[w[1]] = w[2] end end\n"
            "  local seq = {%(s)s}\n"
            "  return seq[(k - 1) %% #seq + 1]\n" % {"n": lua_value(name), "w": ", ".join(writes), "s": statuses})
        if spec.get("kind") == "condition":
            out.append("leaves[%s] = function(agent, args)\n%send" % (lua_value(name), body.replace("return seq", "return \"S\" == seq")))
        else:
            out.append("leaves[%s] = {\n tick = function(agent, args, mem)\n%s end,\n"
                       " stop = function(agent, args, mem, status) if status == \"aborted\" then print(thicket.tick() .. \" halt \" .. %s) end end,\n}"
                       % (lua_value(name), body.replace("return seq[", "return map[seq[").replace("+ 1]\n", "+ 1]]\n"), lua_value(name)))
    out.append("return leaves")
    return "\n".join(out) + "\n"


def run_output(thicket, work, brain, ticks, library):
    trace = os.path.join(work, "trace.jsonl")
    r = subprocess.run([thicket, "run", brain, "--ticks", str(ticks), "--trace", trace], cwd=work,
                       capture_output=True, text=True, timeout=60)
    status = {}
    with open(trace) as f:
        for line in f:
            rec = json.loads(line)
            if "status" in rec:
                status[rec["tick"]] = rec["status"]
    names = {"invalid": "skipped"} if library == "btcpp" else {"aborted": "error"}
    lines = {k: [] for k in range(1, ticks + 1)}
    for line in r.stdout.splitlines():
        lines[int(line.split(" ", 1)[0])].append(line)
    out = []
    for k in range(1, ticks + 1):
        out += lines[k]
        out.append("%d status %s" % (k, names.get(status.get(k), status.get(k))))
    return "\n".join(out) + "\n", r


def records_agree(a_path, b_path):
    """Two records agree in every agent's position, heading, group, life and root status,
    and in events and metrics (node status strings differ: bt_* nodes reset theirs)."""
    a = [json.loads(l) for l in open(a_path)][1:]
    b = [json.loads(l) for l in open(b_path)][1:]
    if len(a) != len(b):
        return False
    for ta, tb in zip(a, b):
        if [x[:7] for x in ta.get("agents", [])] != [x[:7] for x in tb.get("agents", [])]:
            return False
        if ta.get("events") != tb.get("events") or ta.get("metrics") != tb.get("metrics"):
            return False
    return True


def blackboard_round_trip(thicket, failed):
    """import(export(T)) keeps every blackboard key: texts that hold "--" (which an XML comment
    cannot), quotes and backslashes, names written quoted (n, on), infinite numbers, characters
    outside ASCII and control characters (escaped in the comment, and in attribute values as
    character references, which a reader would otherwise turn into spaces): the leaves print the
    same values, and expat (Python's XML parser) reads the XML. A text XML cannot hold (a control
    character in an attribute, bytes that are not UTF-8) fails the export with the reason."""
    brain = """tree: keys
leaves: [show.lua]
blackboard:
  plain: "hello"
  dash: "a--b"
  dashes: "---"
  quoted: 'say "hi" \\ it''s -- ok'
  n: 2.5
  on: "x--"
  far: .inf
  near: -.inf
  count: {type: integer, default: 7}
  flag: true
  note: {type: any}
  odd: "x\\uFFFEy\\x01\\t\u00e9\\u0085"
root:
  action: {leaf: Show, args: {msg: "line1\\nline2\\ttab\\r", u: "\u00e9t\u00e9"}}
"""
    show = """local leaves = {}
local function shown(v)  -- control characters and bytes past ASCII as \ddd, one line each
  if type(v) ~= "string" then return v end
  return (v:gsub("[%c\\128-\\255]", function(c) return "\\\\" .. c:byte() end))
end
function leaves.Show(agent, args)
  for _, k in ipairs({"plain", "dash", "dashes", "quoted", "n", "on", "far", "near", "count", "flag", "note", "odd"}) do
    print(k, math.type(agent.bb[k]) or type(agent.bb[k]), shown(agent.bb[k]))
  end
  print("msg", shown(args.msg), "u", shown(args.u))
  return true
end
return leaves
"""
    with tempfile.TemporaryDirectory() as work:
        with open(os.path.join(work, "brain.yaml"), "w", encoding="utf-8") as f:
            f.write(brain)
        with open(os.path.join(work, "show.lua"), "w") as f:
            f.write(show)
        steps = [["export", "brain.yaml", "--to", "btcpp", "-o", "x.xml"],
                 ["import", "x.xml", "--leaves", "show.lua", "-o", "again.yaml"]]
        for step in steps:
            r = subprocess.run([thicket] + step, cwd=work, capture_output=True, text=True)
            if r.returncode != 0:
                failed.append("blackboard round trip: %s failed: %s" % (step[0], r.stderr))
                return
        if "--" in open(os.path.join(work, "x.xml"), encoding="utf-8").read().split("<!--", 1)[1].split("-->", 1)[0]:
            failed.append("blackboard round trip: the export's comment holds '--'")
        try:
            xml.dom.minidom.parse(os.path.join(work, "x.xml"))
        except Exception as e:  # expat's own message
            failed.append("blackboard round trip: expat cannot read the export: %s" % e)
        runs = [subprocess.run([thicket, "run", b, "--ticks", "1", "--quiet"], cwd=work, capture_output=True, text=True)
                for b in ("brain.yaml", "again.yaml")]
        if runs[0].returncode != 0 or runs[0].stdout.count("\n") != 13:
            failed.append("blackboard round trip: the brain did not run: " + runs[0].stdout + runs[0].stderr)
        elif runs[1].stdout != runs[0].stdout:
            failed.append("blackboard round trip: the values differ\n--- brain\n%s--- import(export(brain))\n%s%s" %
                          (runs[0].stdout, runs[1].stdout, runs[1].stderr))
        # Texts no XML document can hold: the export says so and writes nothing. (A brain file
        # with bytes that are not UTF-8 does not load at all: the loader says where.)
        bad = {"control": ('  action: {leaf: Show, args: {msg: "a\\x01b"}}\n', "the character U+0001, which XML 1.0 cannot hold"),
               "bytes": ('  action: {leaf: Show, args: {msg: "a\xffb"}}\n', "bytes.yaml:4:38: error: the file is not UTF-8 (byte 0xff here)")}
        for name, (root, reason) in bad.items():
            with open(os.path.join(work, name + ".yaml"), "wb") as f:
                f.write(("tree: bad\nleaves: [show.lua]\nroot:\n").encode() + root.encode("latin-1"))
            r = subprocess.run([thicket, "export", name + ".yaml", "--to", "btcpp", "-o", name + ".xml"], cwd=work,
                               capture_output=True, text=True, errors="replace")
            if r.returncode != 2 or reason not in r.stderr or (name != "bytes" and "nothing is written" not in r.stderr) or \
                    os.path.exists(os.path.join(work, name + ".xml")):
                failed.append("export of a text XML cannot hold (%s): rc %d, %s" % (name, r.returncode, r.stderr))


def example_round_trips(thicket, failed):
    """import(export(T)) behaves as T: every example tree brain that exports to BT.CPP runs its
    scenario with the brain's root replaced by the round trip's, and the records agree."""
    import shutil
    examples = os.path.join(os.path.dirname(os.path.dirname(HERE)), "scripts", "examples")
    done = 0
    for folder in sorted(os.listdir(examples)):
        scenario = folder + ".yaml"
        if not os.path.exists(os.path.join(examples, folder, scenario)):
            continue
        for brain in sorted(os.listdir(os.path.join(examples, folder))):
            if not brain.endswith(".yaml") or brain == scenario:
                continue
            text = open(os.path.join(examples, folder, brain)).read()
            if "\ntree:" not in "\n" + text:
                continue
            with tempfile.TemporaryDirectory() as work:
                shutil.copytree(examples, os.path.join(work, "examples"))  # scenarios share maps across folders
                dst = os.path.join(work, "examples", folder)
                e = subprocess.run([thicket, "export", brain, "--to", "btcpp", "-o", "x.xml"], cwd=dst, capture_output=True, text=True)
                if e.returncode != 0:
                    if "no BT.CPP equivalent" not in e.stderr and "BT.CPP has no node" not in e.stderr and "BT.CPP" not in e.stderr:
                        failed.append("example %s/%s: export failed without naming the node: %s" % (folder, brain, e.stderr))
                    continue
                leaves = text.split("leaves: [", 1)[1].split("]", 1)[0].split(",")
                cmd = [thicket, "import", "x.xml", "-o", "x.yaml"]
                for leaf in leaves:
                    cmd += ["--leaves", leaf.strip()]
                i = subprocess.run(cmd, cwd=dst, capture_output=True, text=True)
                if i.returncode != 0:
                    failed.append("example %s/%s: import of its export failed: %s" % (folder, brain, i.stderr))
                    continue
                runs = []
                for variant in ("original", "round_trip"):
                    if variant == "round_trip":
                        imported = open(os.path.join(dst, "x.yaml")).read()
                        head = text.split("\nroot:", 1)[0]
                        with open(os.path.join(dst, brain), "w") as f:
                            f.write(head + "\nroot:" + imported.split("\nroot:", 1)[1])
                    rec = os.path.join(work, variant + ".jsonl")
                    r = subprocess.run([thicket, "run", scenario, "--ticks", "60", "--record", rec, "--quiet"], cwd=dst,
                                       capture_output=True, text=True, timeout=120)
                    runs.append(rec if r.returncode in (0, 1) else None)
                if None in runs or not records_agree(*runs):
                    failed.append("example %s/%s: the scenario runs differently with import(export(brain))" % (folder, brain))
                    continue
                done += 1
    return done


def main():
    thicket = os.path.abspath(sys.argv[1])
    only = sys.argv[2] if len(sys.argv) > 2 else ""
    # THICKET_IMPORT_QUICK=1 (the sanitizer build, ~10x slower): every second case of each
    # library (every case named, with a name to match), the round trip on every 5th of those,
    # no example scenarios. (Every case there
    # took 78 s of CPU on the 2-vCPU VM, two thirds of it the processes' starts and exits under
    # ASan; the importers' code meets the sanitizers in every case, and in fuzz/import_fuzz.cpp.)
    quick = os.environ.get("THICKET_IMPORT_QUICK") == "1"
    count = 0
    failed, passed = [], 0
    for library in ("btcpp", "b3"):
        root = os.path.join(HERE, library)
        for index, case in enumerate(sorted(os.listdir(root))):
            if only and only not in case:
                continue
            if quick and not only and index % 2 == 1:
                continue
            src = os.path.join(root, case)
            tree = "tree.xml" if library == "btcpp" else "tree.json"
            with open(os.path.join(src, "script.json")) as f:
                script = json.load(f)
            ticks = int(open(os.path.join(src, "ticks")).read())
            expected = open(os.path.join(src, "expected")).read()
            with tempfile.TemporaryDirectory() as work:
                with open(os.path.join(work, "leaves.lua"), "w") as f:
                    f.write(leaves_lua(script))
                r = subprocess.run([thicket, "import", os.path.join(src, tree), "--leaves", "leaves.lua", "-o", "brain.yaml"],
                                   cwd=work, capture_output=True, text=True)
                if r.returncode != 0:
                    failed.append("%s/%s: import failed: %s" % (library, case, r.stderr.strip()))
                    continue
                got, run = run_output(thicket, work, "brain.yaml", ticks, library)
                if got != expected:
                    failed.append("%s/%s: the calls differ from %s's\n--- expected\n%s--- thicket\n%s%s" %
                                  (library, case, library, expected, got, run.stderr))
                    continue
                count += 1
                if library == "btcpp" and (not quick or count % 5 == 0):  # import(export(x)) makes the same calls as x
                    e = subprocess.run([thicket, "export", "brain.yaml", "--to", "btcpp", "-o", "again.xml"], cwd=work,
                                       capture_output=True, text=True)
                    i = subprocess.run([thicket, "import", "again.xml", "--leaves", "leaves.lua", "-o", "again.yaml"],
                                       cwd=work, capture_output=True, text=True)
                    if e.returncode != 0 or i.returncode != 0:
                        failed.append("%s/%s: round trip failed: %s%s" % (library, case, e.stderr, i.stderr))
                        continue
                    again, _ = run_output(thicket, work, "again.yaml", ticks, library)
                    if again != expected:
                        failed.append("%s/%s: import(export(x)) differs\n%s" % (library, case, again))
                        continue
            passed += 1
    if not only:
        blackboard_round_trip(thicket, failed)
    examples = 0 if only or quick else example_round_trips(thicket, failed)
    for f in failed:
        print("FAIL " + f)
    print("import cases: %d passed, %d failed; %d example brains run the same after export and import" % (passed, len(failed), examples))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
