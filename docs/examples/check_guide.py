#!/usr/bin/env python3
"""Runs every command shown in the guide and compares what it prints with the guide.

A listing in docs/*.md is a fenced ```yaml, ```lua or ```cpp block whose first line is a
comment naming a file, "# docs/examples/...": the rest of the block must be that file,
exactly. A transcript is a fenced ```text block whose first line starts with "$ ".
Each "$ " line is a shell command, run from the repository root with build/ first on PATH
(so `thicket` is build/thicket; set THICKET_BIN_DIR
to use another folder); the lines after it, up to the next "$ " line, are what it
prints. Commands run in a pseudo-terminal, so standard output and standard error interleave
as they do on screen. The summary's wall time and agent-ticks/s change from run to run and
are not compared, nor the tick and sim time at the start of a reload notice.

    docs/examples/check_guide.py            # compare; exit 1 on any difference
    docs/examples/check_guide.py --fix      # rewrite the transcripts with the real output
"""
import os
import re
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
DOCS = os.path.join(ROOT, "docs")
MARK = "@@check_guide@@"
WALL = re.compile(r"wall [0-9.]+ s, [0-9]+ agent-ticks/s")
# Reload notices carry the tick and sim time at which they landed, which follow the wall clock.
RELOAD_CLOCK = re.compile(r"^t=[0-9.e+-]+ tick [0-9]+: ")


def blocks(text):
    """Yields (start, end, commands) for each transcript: line offsets and [(cmd, [lines])]."""
    lines = text.split("\n")
    i = 0
    while i < len(lines):
        if lines[i].strip() == "```text" and i + 1 < len(lines) and lines[i + 1].startswith("$ "):
            j = i + 1
            while lines[j].strip() != "```":
                j += 1
            cmds = []
            for line in lines[i + 1:j]:
                if line.startswith("$ "):
                    cmds.append((line[2:], []))
                else:
                    cmds[-1][1].append(line)
            yield i + 1, j, cmds
            i = j
        i += 1


LISTING = re.compile(r"^(?:#|--|//) (docs/examples/\S+)$")


def listings(text):
    """Yields (line, path, lines) for each listing of an example file."""
    lines = text.split("\n")
    i = 0
    while i < len(lines):
        if lines[i].strip() in ("```yaml", "```lua", "```cpp") and i + 1 < len(lines):
            m = LISTING.match(lines[i + 1])
            j = i + 1
            while lines[j].strip() != "```":
                j += 1
            if m:
                yield i + 2, m.group(1), lines[i + 2:j]
            i = j
        i += 1


def run(cmds):
    """Runs the commands in one shell inside a pty; returns each command's output lines."""
    # The marker line keeps $? so that a shown `echo $?` reports the command before it.
    keep = f"__rc=$?; echo {MARK}; (exit $__rc)\n"
    script = "".join(f"{keep}{c}\n" for c, _ in cmds) + keep
    with tempfile.NamedTemporaryFile("w", suffix=".sh", delete=False) as f:
        f.write(script)
        path = f.name
    bin_dir = os.environ.get("THICKET_BIN_DIR", os.path.join(ROOT, "build"))
    env = dict(os.environ, PATH=bin_dir + ":" + os.environ["PATH"], TERM="dumb")
    try:
        out = subprocess.run(["script", "-qec", f"bash {path}", "/dev/null"], cwd=ROOT, env=env,
                             capture_output=True, text=True, timeout=300).stdout
    finally:
        os.unlink(path)
    out = out.replace("\r\n", "\n").replace("\r", "\n")
    parts = out.split(MARK + "\n")[1:-1]
    return [p.rstrip("\n").split("\n") if p.strip("\n") else [] for p in parts]


def main():
    fix = "--fix" in sys.argv
    failures = 0
    for name in sorted(os.listdir(DOCS)):
        if not name.endswith(".md"):
            continue
        path = os.path.join(DOCS, name)
        with open(path) as f:
            text = f.read()
        lines = text.split("\n")
        for at, rel, shown in listings(text):
            try:
                with open(os.path.join(ROOT, rel)) as f:
                    actual = f.read().rstrip("\n").split("\n")
            except OSError:
                actual = None
            if actual != shown:
                failures += 1
                print(f"{name}:{at}: the listing of {rel} differs from the file")
        edits = []
        for start, end, cmds in blocks(text):
            got = run(cmds)
            if len(got) != len(cmds):
                print(f"{name}:{start + 1}: could not split the output of the block")
                failures += 1
                continue
            new_block = []
            for (cmd, want), have in zip(cmds, got):
                new_block.append("$ " + cmd)
                new_block.extend(have)
                norm = lambda ls: [RELOAD_CLOCK.sub("t=T tick K: ", WALL.sub("wall W s, N agent-ticks/s", l)).rstrip()
                                   for l in ls]
                if norm(want) != norm(have):
                    failures += 1
                    print(f"{name}:{start + 1}: $ {cmd}")
                    for l in want:
                        print("  - " + l)
                    for l in have:
                        print("  + " + l)
            edits.append((start, end, new_block))
        if fix and edits:
            for start, end, new_block in reversed(edits):
                # Keep the wall times already in the guide when nothing else changed.
                old = lines[start:end]
                if [WALL.sub("", l) for l in old] != [WALL.sub("", l) for l in new_block]:
                    lines[start:end] = new_block
            with open(path, "w") as f:
                f.write("\n".join(lines))
    print("guide listings and transcripts:", "all match" if not failures else f"{failures} difference(s)")
    return 1 if failures and not fix else 0


if __name__ == "__main__":
    sys.exit(main())
