#!/usr/bin/env python3
"""The debug API of a served run (issue 34: what `thicket edit --attach` drives), without a browser.

usage: attach_test.py THICKET SOURCE_DIR

`thicket run SCENARIO --serve 0` on a copy of the guard example (its brain in a small scenario of
its own): the agents, an agent's node statuses (as many as `thicket dump` lists nodes) and
blackboard, pause / step / resume (paused time not made up afterwards), blackboard writes and
their errors, breakpoints (the run pauses after a tick in which an agent entered the node),
reload of an edited copy (and of a broken one: the run goes on), the finished run still read,
and Ctrl-C while paused. Examples are never modified: everything runs on a temporary copy.
"""
import json
import os
import re
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
import urllib.error
import urllib.parse
import urllib.request

import raw_http

THICKET, SOURCE = sys.argv[1], sys.argv[2]
failures = []


def refused(run, path, body, content_type):
    """POSTs `body` with `content_type`; the HTTP error's status and its JSON "error" (None, "taken"
    when it was answered 2xx)."""
    req = urllib.request.Request(run.base + path, data=body, method="POST", headers={"Content-Type": content_type})
    try:
        urllib.request.urlopen(req, timeout=20)
        return None, "taken"
    except urllib.error.HTTPError as e:
        return e.code, json.loads(e.read().decode())["error"]


def port_of(run):
    return int(run.base.rsplit(":", 1)[1])


def expect(cond, what):
    if not cond:
        failures.append(what)
        print("FAIL:", what)


SCENARIO = """scenario: guards
seed: 3
ticks: {ticks}
dt: 0.1
world: {{size: [60, 60]}}
teams: [guards]
groups:
  - name: guards
    team: guards
    count: {count}
    brain: guard.yaml
    spawn: {{box: [[5, 5], [55, 55]]}}
"""


class Run:
    def __init__(self, cwd, scenario, *args):
        self.proc = subprocess.Popen([THICKET, "run", scenario, "--serve", "0", "--threads", "2", *args], cwd=cwd,
                                     stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
        line = self.proc.stderr.readline()
        m = re.search(r"http://127\.0\.0\.1:(\d+)/", line)
        if not m:
            self.proc.kill()
            raise SystemExit("thicket run --serve did not print its address: " + line)
        self.base = "http://127.0.0.1:" + m.group(1)

    def request(self, path, body=None, headers=None):
        data = None if body is None else json.dumps(body).encode()
        sent = dict(headers or {})
        if body is not None:
            sent["Content-Type"] = "application/json"
        req = urllib.request.Request(self.base + path, data=data, method="GET" if body is None else "POST", headers=sent)
        try:
            with urllib.request.urlopen(req, timeout=20) as r:
                return r.status, json.loads(r.read().decode()), r.headers.get("Content-Type")
        except urllib.error.HTTPError as e:
            return e.code, json.loads(e.read().decode()), e.headers.get("Content-Type")

    def get(self, path):
        status, body, _ = self.request(path)
        return status, body

    def post(self, path, body=None):
        status, body, _ = self.request(path, {} if body is None else body)
        return status, body

    def wait_for(self, what, cond, seconds=20):
        end = time.monotonic() + seconds
        while time.monotonic() < end:
            got = cond()
            if got:
                return got
            time.sleep(0.05)
        expect(False, "waited %d s for %s" % (seconds, what))
        return None

    def interrupt(self):
        self.proc.send_signal(signal.SIGINT)
        try:
            rest = self.proc.communicate(timeout=15)[1]
        except subprocess.TimeoutExpired:
            self.proc.kill()
            rest = self.proc.communicate()[1]
            expect(False, "Ctrl-C ends the served run")
        return self.proc.returncode, rest


def node_lines(dump):
    return [line for line in dump.splitlines() if re.match(r"^\s+\d+ ", line)]


tmp = tempfile.mkdtemp(prefix="thicket-attach-")
run = None
try:
    folder = os.path.join(tmp, "guard")
    shutil.copytree(os.path.join(SOURCE, "scripts/examples/guard"), folder)
    with open(os.path.join(folder, "guards.yaml"), "w") as f:
        f.write(SCENARIO.format(ticks=100000, count=20))
    with open(os.path.join(folder, "done.yaml"), "w") as f:
        f.write(SCENARIO.format(ticks=5, count=2100))
    brain = os.path.join(folder, "guard.yaml")
    original = open(brain).read()
    dump = subprocess.run([THICKET, "dump", brain], capture_output=True, text=True, timeout=30).stdout
    nodes = node_lines(dump)
    ids = [re.search(r"id=(\S+)", line).group(1) for line in nodes]
    expect(len(nodes) == 11 and ids[1] == "fight_or_flight", "thicket dump lists the guard's 11 nodes")

    # 10 ticks a second: slow enough to pause between two, fast enough to meet a breakpoint soon.
    run = Run(tmp, "guard/guards.yaml", "--speed", "1")
    got = run.wait_for("the first ticks", lambda: (lambda s, b: b if s == 200 and b["tick"] >= 2 else None)(*run.get("/api/agents")))
    status, agents, ctype = run.request("/api/agents")
    expect(status == 200 and ctype.startswith("application/json"), "GET /api/agents answers JSON")
    expect(agents["count"] == 20 and [a["id"] for a in agents["agents"]] == list(range(1, 21)),
           "/api/agents lists the 20 live agents in tick order: %s" % agents.get("count"))
    a1 = agents["agents"][0]
    expect(a1["brain"] == "guard" and a1["file"].endswith("guard/guard.yaml") and a1["status"] in ("running", "success", "failure"),
           "an agent names its brain, file and status: %s" % a1)
    expect(agents["paused"] is False and agents["done"] is False, "the run goes: not paused, not done")

    status, agent = run.get("/api/agent?id=3")
    expect(status == 200 and agent["id"] == 3 and agent["brain"] == "guard", "GET /api/agent?id=3")
    expect(len(agent["statuses"]) == len(nodes) and set(agent["statuses"]) <= set("RSF."),
           "the statuses: one of R S F . per node of thicket dump (%r)" % agent["statuses"])
    expect(list(agent["blackboard"]) == ["health", "enemy_hp", "enemy_visible", "kills", "mood"],
           "the blackboard in declaration order: %s" % list(agent["blackboard"]))
    expect(isinstance(agent["blackboard"]["kills"], int) and agent["blackboard"]["mood"] in ("calm", "scared", "angry")
           and isinstance(agent["blackboard"]["enemy_visible"], bool), "blackboard values as JSON numbers, booleans, strings")
    status, body = run.get("/api/agent?id=999")
    expect(status == 404 and body["error"] == "no agent 999", "an unknown agent: 404 (%d %s)" % (status, body))
    status, body = run.get("/api/nothing")
    expect(status == 404, "an unknown endpoint: 404")
    # Connections that send half a request and wait hold a server thread each until the read
    # times out: 16 of them (the pool) kept the page's requests waiting 9 s; now about 1 s.
    import socket
    port = int(run.base.rsplit(":", 1)[1])
    idle = [socket.create_connection(("127.0.0.1", port)) for _ in range(16)]
    for sock in idle:
        sock.sendall(b"GET /api/debug HTTP/1.1\r\nHost: x\r\n")
    try:
        with urllib.request.urlopen(run.base + "/api/debug", timeout=6) as r:
            expect(r.status == 200, "GET /api/debug beside 16 half-sent connections")
    except OSError as e:
        expect(False, "GET /api/debug beside 16 half-sent connections: %s" % e)
    for sock in idle:
        sock.close()
    # A chunked body is refused before it is read (this httplib read one whole, whatever its
    # size: 600 MB took 1.6 GB); the page and scripts send a Content-Length.
    head = raw_http.chunked_post(port, "/api/pause", b"{}")
    expect(head.startswith("HTTP/1.1 411") and "with a Content-Length" in head, "a chunked body is refused: %r" % head[:200])
    # A POST with no Content-Length has an empty body (curl -X POST URL): answered at once (it
    # waited for a body until the read timed out, then got a 400).
    head, seconds = raw_http.bodiless_post(port, "/api/pause")
    expect(head.startswith("HTTP/1.1 200") and '"paused":true' in head and seconds < 2,
           "a POST without a body pauses: %r (%.1f s)" % (head[:300], seconds))
    head, _ = raw_http.bodiless_post(port, "/api/resume")
    expect(head.startswith("HTTP/1.1 200") and '"paused":false' in head, "and resumes: %r" % head[:300])
    # Pages of other sites are refused (as the editor refuses them): a POST from one would pause
    # the run, and a page whose name points at 127.0.0.1 (DNS rebinding) would read it.
    status, body, _ = run.request("/api/pause", {}, {"Origin": "http://example.com"})
    expect(status == 403 and "own address" in body["error"], "a POST from another site is refused: %d %s" % (status, body))
    status, body, _ = run.request("/api/agents", headers={"Host": "evil.example:%d" % port})
    expect(status == 403, "a request for another host name is refused (DNS rebinding): %d" % status)
    status, body, _ = run.request("/api/agents", headers={"Origin": "null"})
    expect(status == 403, "a request from a file page (Origin: null) is refused: %d" % status)
    status, body = run.get("/api/debug")
    expect(status == 200 and body["paused"] is False, "the refused pause did not pause the run")
    status, body, _ = run.request("/api/agents", headers={"Origin": "http://localhost:%d" % port, "Host": "localhost:%d" % port})
    expect(status == 200, "the run's own page (as localhost) is answered: %d" % status)
    status, body = run.get("/api/pause")
    expect(status == 405, "GET on a POST endpoint: 405")
    # HEAD answers as GET does, without the body (it was refused with 405).
    with urllib.request.urlopen(urllib.request.Request(run.base + "/api/agents", method="HEAD"), timeout=20) as r:
        expect(r.status == 200 and r.read() == b"" and r.headers.get("Content-Type") == "application/json",
               "HEAD on a GET endpoint: 200, no body: %d" % r.status)
    # Every answer is JSON, httplib's own errors too (they came with an empty body).
    status, body = run.post("/api/agent?id=1")
    expect(status in (400, 405) and "error" in body, "POST on a GET endpoint answers JSON: %d %s" % (status, body))
    import socket
    with socket.create_connection(("127.0.0.1", int(run.base.rsplit(":", 1)[1].strip("/")))) as raw:
        raw.sendall(b"NONSENSE\r\n\r\n")
        reply = b""
        while True:  # the whole answer: headers and body may come in separate packets (slow builds)
            chunk = raw.recv(4096)
            if not chunk:
                break
            reply += chunk
            head, sep, body = reply.partition(b"\r\n\r\n")
            length = re.search(rb"Content-Length: (\d+)", head)
            if sep and length and len(body) >= int(length.group(1)):
                break
        reply = reply.decode(errors="replace")
    expect(reply.startswith("HTTP/1.1 400") and '{"error":"a malformed request (HTTP 400)"}' in reply,
           "a malformed request line: a 400 with a JSON body: %r" % reply[:200])

    # Pause: the tick stays; step: one tick more each, still paused.
    status, body = run.post("/api/pause")
    expect(status == 200 and body["ok"] and body["paused"], "POST /api/pause: %s" % body)
    paused_at = body["tick"]
    time.sleep(0.6)
    status, debug = run.get("/api/debug")
    expect(debug["paused"] and debug["tick"] == paused_at and debug["hit"] is None and not debug["done"],
           "paused: the tick stays at %d (%s)" % (paused_at, debug))
    status, body = run.post("/api/step")
    expect(body["ok"] and body["paused"] and body["tick"] == paused_at + 1, "POST /api/step: one tick (%s)" % body)
    status, body = run.post("/api/step")
    expect(body["ok"] and body["tick"] == paused_at + 2, "a second step: one tick more (%s)" % body)
    time.sleep(0.3)
    status, debug = run.get("/api/debug")
    expect(debug["paused"] and debug["tick"] == paused_at + 2, "after the steps the run stays paused")

    # The blackboard: written while paused, read back; errors say what is wrong.
    status, body = run.post("/api/blackboard", {"id": 3, "key": "health", "value": 55.5})
    expect(status == 200 and body == {"ok": True}, "set health: %s" % body)
    status, body = run.post("/api/blackboard", {"id": 3, "key": "kills", "value": 4})
    expect(body == {"ok": True}, "set an integer key: %s" % body)
    status, body = run.post("/api/blackboard", {"id": 3, "key": "mood", "value": "angry"})
    expect(body == {"ok": True}, "set a string key: %s" % body)
    status, agent = run.get("/api/agent?id=3")
    bb = agent["blackboard"]
    expect(bb["health"] == 55.5 and bb["kills"] == 4 and bb["mood"] == "angry", "the values read back: %s" % bb)
    status, body = run.post("/api/blackboard", {"id": 3, "key": "helth", "value": 50})
    expect(body["ok"] is False and "no blackboard key 'helth'" in body["error"] and "did you mean 'health'" in body["error"],
           "an unknown key, with a did-you-mean: %s" % body)
    status, body = run.post("/api/blackboard", {"id": 3, "key": "kills", "value": 2.5})
    expect(body["ok"] is False and "whole number" in body["error"], "an integer key takes whole numbers: %s" % body)
    status, body = run.post("/api/blackboard", {"id": 3, "key": "mood", "value": 5})
    expect(body["ok"] is False and "string" in body["error"], "a wrong type: %s" % body)
    # A refused value or key is named by its first 60 bytes (a 200 KB string came back whole).
    status, body = run.post("/api/blackboard", {"id": 3, "key": "health", "value": "é" * 100000})
    expect(body["ok"] is False and "not a string" in body["error"] and "... (200002 bytes)" in body["error"]
           and len(body["error"]) < 200, "a long refused value: its excerpt (%d bytes of error)" % len(body["error"]))
    status, body = run.post("/api/blackboard", {"id": 3, "key": "k" * 5000, "value": 1})
    expect(body["ok"] is False and "'" + "k" * 60 + "... (5000 bytes)'" in body["error"] and len(body["error"]) < 200,
           "a long unknown key: its excerpt (%d bytes of error)" % len(body["error"]))
    status, body = run.post("/api/blackboard", {"id": 999, "key": "health", "value": 5})
    expect(body["ok"] is False and "no agent 999" in body["error"], "no such agent: %s" % body)
    status, body = run.post("/api/blackboard", {"id": 3})
    expect(status == 400 and body["ok"] is False, "a request without key and value: 400")

    # Paused time is not made up: at 10 ticks a second, 2 s paused must not become a burst of
    # 20 ticks after the resume.
    time.sleep(2.0)
    status, debug = run.get("/api/debug")
    before = debug["tick"]
    resumed = time.monotonic()
    status, body = run.post("/api/resume")
    expect(body["ok"] and not body["paused"], "POST /api/resume: %s" % body)
    time.sleep(0.3)
    status, agents = run.get("/api/agents")
    elapsed = time.monotonic() - resumed
    expect(agents["tick"] - before <= elapsed * 10 + 4,
           "after the resume the run keeps its pace (%d ticks in %.2f s)" % (agents["tick"] - before, elapsed))

    # Breakpoints: the guard enters fight_or_flight when it spots an enemy (2% a tick, 20 guards).
    weird = os.path.join(folder, "..", "guard", "guard.yaml")  # compared after normalising
    status, body = run.post("/api/breakpoints", {"breakpoints": [{"file": weird, "node": "fight_or_flight"},
                                                                 {"file": weird, "node": "fight_or_fligth"},
                                                                 {"brain": "gaurd", "node": "x"}]})
    # Set all the same (a reload may bring the node), but said: the node is not in the brain, no
    # agent runs that brain.
    expect(status == 200 and body["ok"] is True and body["count"] == 3 and len(body["unmatched"]) == 2
           and body["unmatched"][0]["node"] == "fight_or_fligth"
           and ("no node 'fight_or_fligth' in brain file '%s'" % weird) in body["unmatched"][0]["why"]  # as written
           and "did you mean 'fight_or_flight'?" in body["unmatched"][0]["why"]
           and body["unmatched"][1]["why"].startswith("no agent runs brain 'gaurd'; did you mean 'guard'?"),
           "POST /api/breakpoints: %s" % body)
    # The run lists them as set (a page loaded again shows them; it had only their count).
    status, d = run.get("/api/debug")
    expect(d["breakpoints"] == 3 and d["breakpoint_list"] == [{"file": weird, "node": "fight_or_flight"},
                                                               {"file": weird, "node": "fight_or_fligth"},
                                                               {"brain": "gaurd", "node": "x"}],
           "GET /api/debug lists the breakpoints: %s" % d)
    debug = run.wait_for("a breakpoint hit", lambda: (lambda s, d: d if d["paused"] and d["hit"] else None)(*run.get("/api/debug")))
    if debug:
        hit = debug["hit"]
        expect(hit["node"] == "fight_or_flight" and hit["brain"] == "guard" and hit["file"].endswith("guard.yaml")
               and hit["tick"] == debug["tick"], "the hit names agent, brain, file, node and tick: %s" % hit)
        status, agent = run.get("/api/agent?id=%d" % hit["agent"])
        expect(agent["statuses"][1] in "RSF", "the agent of the hit ran the node (%r)" % agent["statuses"])
        time.sleep(0.5)
        status, again = run.get("/api/debug")
        expect(again["paused"] and again["tick"] == debug["tick"], "a breakpoint hit pauses the run")
        # Resume: it goes on, and the next entry pauses again (breakpoints by brain name too).
        status, body = run.post("/api/breakpoints", {"breakpoints": [{"brain": "guard", "node": "fight_or_flight"}]})
        expect(body == {"ok": True, "count": 1, "unmatched": []}, "a breakpoint by brain name")
        status, body = run.post("/api/resume")
        expect(body["ok"] and not body["paused"], "resume after a hit")
        status, d = run.get("/api/debug")
        expect(d["hit"] is None or d["tick"] > debug["tick"], "resume clears the hit")
        second = run.wait_for("a second hit", lambda: (lambda s, d: d if d["paused"] and d["hit"] and d["tick"] > debug["tick"] else None)(*run.get("/api/debug")))
        expect(bool(second) and second["hit"]["node"] == "fight_or_flight", "a later entry pauses again")
    status, body = run.post("/api/breakpoints", {"breakpoints": []})
    expect(body == {"ok": True, "count": 0, "unmatched": []}, "breakpoints cleared")
    status, d = run.get("/api/debug")
    expect(d["breakpoints"] == 0 and d["breakpoint_list"] == [], "no breakpoint listed once cleared: %s" % d)
    # Bounded: each breakpoint is matched against every agent on the run's thread.
    status, body = run.post("/api/breakpoints", {"breakpoints": [{"brain": "guard", "node": "x"}] * 1001})
    expect(status == 400 and body["error"] == "at most 1000 breakpoints, got 1001", "1001 breakpoints: %s %.200s" % (status, body))
    # A breakpoint nested 100,000 lists deep is a 400 that names it by its kind (the message
    # dumped it, recursing once per level: the run died of a stack overflow).
    deep = b'{"breakpoints":[' + b"[" * 100000 + b"]" * 100000 + b"]}"
    code, why = refused(run, "/api/breakpoints", deep, "application/json")
    expect(code == 400 and why.endswith("got a list nested more than 64 levels deep"), "a deep breakpoint: %s %s" % (code, why))
    status, body = run.get("/api/debug")
    expect(status == 200 and "tick" in body, "the run answers after a deep breakpoint")
    # A body past 8 MB is refused (413) without being kept (httplib's default took any size:
    # 1.5 GB took the run to 3 GB).
    head = raw_http.exchange(port_of(run), b"POST /api/pause HTTP/1.1\r\nHost: 127.0.0.1:%d\r\nContent-Type: application/json\r\n"
                             b"Content-Length: %d\r\nConnection: close\r\n\r\n%s" % (port_of(run), 9 << 20, b" " * (9 << 20)))
    expect(head.startswith("HTTP/1.1 413"), "a 9 MB body: %.100s" % head)
    # A form body (curl -d's Content-Type) past httplib's 8 KB for forms: told to send JSON.
    big = json.dumps({"breakpoints": [{"brain": "guard", "node": "fight_or_flight"}] * 300}).encode()
    code, why = refused(run, "/api/breakpoints", big, "application/x-www-form-urlencoded")
    expect(code == 413 and "'Content-Type: application/json'" in why, "a 10 KB form body: %s %s" % (code, why))
    # At most 24 viewers stream the record at once; the 25th is told so, and the API still
    # answers (with every server thread held by a stream, 17 tabs locked it out).
    port = int(run.base.rsplit(":", 1)[1])
    streams = []
    for _ in range(25):
        s = socket.create_connection(("127.0.0.1", port), timeout=20)
        s.sendall(b"GET /record HTTP/1.1\r\nHost: 127.0.0.1:%d\r\n\r\n" % port)
        streams.append(s)
    firsts = [s.recv(12).decode(errors="replace") for s in streams]
    expect(firsts.count("HTTP/1.1 200") == 24 and firsts.count("HTTP/1.1 503") == 1,
           "25 streams: 24 served, 1 refused (%s)" % sorted(set(firsts)))
    status, body = run.get("/api/debug")
    expect(status == 200 and "tick" in body, "the API answers beside 24 streams")
    for s in streams:
        s.close()
    status, body = run.post("/api/resume")

    # Reload: an edited copy (while running), then a broken one (the run goes on), then fixed
    # while paused.
    with open(brain, "w") as f:
        f.write(original.replace("legs_per_report: 20", "legs_per_report: 25"))
    status, body = run.post("/api/reload")
    expect(status == 200 and body["ok"] is True and any(r["file"].endswith("guard.yaml") and r["ok"] for r in body["reports"]),
           "POST /api/reload after an edit: %s" % body)
    status, body = run.post("/api/reload")
    expect(body == {"ok": True, "reports": []}, "nothing changed: no reports (%s)" % body)
    with open(brain, "w") as f:
        f.write(original.replace("action: {leaf: Patrol", "action: {leaf: Patrl"))
    status, body = run.post("/api/reload")
    reports = body.get("reports", [])
    expect(body["ok"] is False and len(reports) == 1 and reports[0]["ok"] is False and "guard.yaml" in reports[0]["first_error"]
           and "Patrl" in reports[0]["first_error"], "a broken edit: ok false with the first error (%s)" % body)
    status, a = run.get("/api/agents")
    b = run.wait_for("ticks after a failed reload",
                     lambda: (lambda s, b: b if b["tick"] > a["tick"] + 2 else None)(*run.get("/api/agents")))
    expect(bool(b) and not b["done"] and b["count"] == 20, "after a failed reload the run goes on")
    status, agent = run.get("/api/agent?id=1")
    expect(len(agent["statuses"]) == len(nodes), "the old version still runs")
    run.post("/api/pause")
    with open(brain, "w") as f:
        f.write(original)
    status, body = run.post("/api/reload")
    expect(body["ok"] is True and len(body["reports"]) == 1, "the fix reloads at once while paused: %s" % body)

    # Ctrl-C while paused ends the run cleanly.
    status, debug = run.get("/api/debug")
    expect(debug["paused"], "paused before Ctrl-C")
    rc, err = run.interrupt()
    expect(rc == 0 and "(interrupted)" in err, "Ctrl-C while paused ends the run with its summary (exit %s)" % rc)
    run = None

    # A finished run stays readable; commands that need a tick say the run is over.
    run = Run(tmp, "guard/done.yaml", "--speed", "0")
    got = run.wait_for("the end of the run", lambda: (lambda s, b: b if s == 200 and b["done"] else None)(*run.get("/api/agents")))
    if got:
        expect(got["tick"] == 5 and got["count"] == 2100 and len(got["agents"]) == 2000,
               "the finished run: tick 5, 2100 agents, 2000 listed (%d, %d, %d)" % (got["tick"], got["count"], len(got["agents"])))
        status, agent = run.get("/api/agent?id=2100")
        expect(status == 200 and len(agent["statuses"]) == len(nodes), "an agent of the finished run")
        # ?file=: the agents of that file only (by its whole path: a file of the same name in
        # another folder has none), counted past the 2,000 listed.
        other = os.path.join(tmp, "other")
        os.makedirs(other, exist_ok=True)
        shutil.copy(brain, os.path.join(other, "guard.yaml"))
        status, mine = run.get("/api/agents?file=" + urllib.parse.quote(brain))
        expect(status == 200 and mine.get("matched") == 2100 and len(mine["agents"]) == 2000,
               "?file= the run's brain: 2100 matched, 2000 listed (%s, %d)" % (mine.get("matched"), len(mine.get("agents", []))))
        status, theirs = run.get("/api/agents?file=" + urllib.parse.quote(os.path.join(other, "guard.yaml")))
        expect(status == 200 and theirs.get("matched") == 0 and theirs["agents"] == [] and theirs["count"] == 2100,
               "?file= a file of the same name in another folder: none (%s)" % {k: theirs.get(k) for k in ("matched", "count")})
        for path in ("/api/pause", "/api/step", "/api/resume", "/api/reload"):
            status, body = run.post(path)
            expect(body["ok"] is False and "over" in body["error"], "%s after the end: %s" % (path, body))
        status, debug = run.get("/api/debug")
        expect(debug["done"] and not debug["paused"], "/api/debug after the end: %s" % debug)
    rc, err = run.interrupt()
    expect(rc == 0, "Ctrl-C ends the finished run's server (exit %s)" % rc)
    run = None

    # --ticks 0 runs until Ctrl-C, as with --watch (it served an empty run, over at tick 0), and
    # its record's header says ticks null: thicket view takes it.
    record = os.path.join(tmp, "until.jsonl")
    run = Run(tmp, "guard/done.yaml", "--speed", "0", "--ticks", "0", "--record", record)
    got = run.wait_for("ticks of a run until Ctrl-C",
                       lambda: (lambda s, b: b if s == 200 and b["tick"] >= 10 else None)(*run.get("/api/agents")))
    expect(bool(got) and not got["done"], "--serve --ticks 0 runs on: %s" % (got and {k: got[k] for k in ("tick", "done")}))
    rc, err = run.interrupt()
    expect(rc == 0 and "(interrupted)" in err, "Ctrl-C ends a run of --ticks 0 with its summary (exit %s)" % rc)
    run = None
    with open(record) as f:
        header = json.loads(f.readline())
    expect("ticks" in header and header["ticks"] is None, "the record's ticks: %s" % header.get("ticks"))
    view = subprocess.run([THICKET, "view", record, "-o", os.path.join(tmp, "until.html")], capture_output=True, text=True)
    expect(view.returncode == 0, "thicket view takes a record of a run until Ctrl-C: " + view.stderr)

    # With --watch the run reloads a saved file at its next tick, before the editor's POST
    # /api/reload comes: that POST answers with the run's own reload (it said "nothing").
    run = Run(tmp, "guard/guards.yaml", "--speed", "1", "--watch")
    run.wait_for("a tick", lambda: (lambda s, b: b if s == 200 and b["tick"] >= 1 else None)(*run.get("/api/agents")))
    def ticks_pass(n):  # the run's own ticks, not the wall clock: --watch looks before each tick
        start = run.get("/api/agents")[1]["tick"]
        run.wait_for("%d ticks" % n, lambda: (lambda s, b: b if b["tick"] >= start + n else None)(*run.get("/api/agents")))
    with open(brain, "w") as f:
        f.write(original.replace("legs_per_report: 20", "legs_per_report: 30"))
    ticks_pass(3)  # --watch has reloaded it
    status, body = run.post("/api/reload")
    reports = body.get("reports", [])
    expect(body.get("ok") is True and len(reports) == 1 and reports[0]["watch"] is True and reports[0]["ok"] is True
           and reports[0]["file"].endswith("guard.yaml"), "a save --watch reloaded first is answered: %s" % body)
    with open(brain, "w") as f:
        f.write(original.replace("action: {leaf: Patrol", "action: {leaf: Patrl"))
    ticks_pass(3)
    status, body = run.post("/api/reload")
    reports = body.get("reports", [])
    expect(body.get("ok") is False and len(reports) == 1 and reports[0]["watch"] is True and "Patrl" in reports[0]["first_error"],
           "a broken save --watch tried first is answered with its error: %s" % body)
    status, body = run.post("/api/reload")
    expect(body == {"ok": True, "reports": []}, "then nothing: %s" % body)
    run.interrupt()
    run = None
    with open(brain, "w") as f:
        f.write(original)
finally:
    if run:
        run.proc.kill()
        run.proc.wait()
    shutil.rmtree(tmp, ignore_errors=True)

if failures:
    print("%d check(s) failed" % len(failures))
    sys.exit(1)
print("attach: all checks passed")
