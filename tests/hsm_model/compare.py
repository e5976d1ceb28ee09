#!/usr/bin/env python3
"""Runs random hierarchical fsm brains through the thicket CLI and through model.py and
compares standard output line by line. Exit status 0: all equal; 1: some mismatch.

Usage: compare.py THICKET [--count N] [--seed S] [--ticks T] [--jobs J] [--show K] [--keep DIR]
       compare.py THICKET --brain FILE.yaml     (one given brain, JSON text)
"""
import argparse
import difflib
import json
import os
import random
import shutil
import subprocess
import sys
import tempfile
from collections import Counter
from concurrent.futures import ThreadPoolExecutor

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import gen     # noqa: E402
import model   # noqa: E402

LEAVES = os.path.join(HERE, "leaves.lua")


def run_engine(thicket, d, ticks):
    p = subprocess.run([thicket, "run", "brain.yaml", "--ticks", str(ticks)], cwd=d,
                       capture_output=True, text=True, timeout=60)
    return p.returncode, p.stdout.splitlines(), p.stderr


COV = Counter()


def run_model(path, ticks):
    try:
        out, errs = model.run(path, ticks, cov=COV)
        return out, errs, None
    except Exception as e:             # a model bug: reported, counts as a mismatch
        import traceback
        return [], [], traceback.format_exc()


def explain(path, ticks, eng):
    """The model's reading switches which, flipped alone, make the model agree with the
    engine on this case (a hint for triage; the comparison itself never flips them)."""
    found = []
    for k in list(model.OPTIONS):
        old = model.OPTIONS[k]
        model.OPTIONS[k] = not old
        try:
            out, _ = model.run(path, ticks)
            if out == eng:
                found.append("%s=%d" % (k, not old))
        except Exception:
            pass
        finally:
            model.OPTIONS[k] = old
    return found


def show_case(i, d, brain_text, rc, eng, mod, err, stderr, why):
    print("=" * 78)
    print("MISMATCH case %d (dir %s)" % (i, d))
    if why:
        print("(the model agrees with the engine if it reads: %s; see README.md)" % ", ".join(why))
    print("--- brain.yaml")
    print(brain_text)
    if err:
        print("--- model raised:\n" + err)
    if rc not in (0, 1):
        print("--- engine exit status %d, stderr:\n%s" % (rc, stderr))
    first = next((k for k in range(max(len(eng), len(mod)))
                  if k >= len(eng) or k >= len(mod) or eng[k] != mod[k]), None)
    if first is not None:
        print("--- first difference at line %d" % (first + 1))
        lim = first + 12
        print("--- engine stdout (%d lines, up to line %d)" % (len(eng), min(lim, len(eng))))
        print("\n".join(eng[:lim]))
        print("--- model stdout (%d lines, up to line %d)" % (len(mod), min(lim, len(mod))))
        print("\n".join(mod[:lim]))
        print("--- diff (engine -> model)")
        for line in difflib.unified_diff(eng, mod, "engine", "model", n=2, lineterm=""):
            print(line)
    print("--- engine stderr (head)")
    print("\n".join(stderr.splitlines()[:6]))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("thicket")
    ap.add_argument("--count", type=int, default=200)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--ticks", type=int, default=12)
    ap.add_argument("--jobs", type=int, default=max(2, os.cpu_count() or 2))
    ap.add_argument("--show", type=int, default=3)
    ap.add_argument("--keep", help="write every case under this directory and keep it")
    ap.add_argument("--brain", help="compare one given brain file instead of random ones")
    ap.add_argument("--coverage", action="store_true",
                    help="print how often each rule fired in the model over all brains")
    ap.add_argument("--option", action="append", default=[],
                    help="NAME=0|1: set a model reading switch (triage only; see model.OPTIONS)")
    o = ap.parse_args()

    for kv in o.option:
        k, v = kv.split("=")
        assert k in model.OPTIONS, k
        model.OPTIONS[k] = v not in ("0", "false", "no")
    thicket = os.path.abspath(o.thicket)
    if not os.access(thicket, os.X_OK):
        print("no executable thicket at %s" % thicket, file=sys.stderr)
        return 2
    root = o.keep or tempfile.mkdtemp(prefix="hsm_model.")
    os.makedirs(root, exist_ok=True)
    cases = []
    if o.brain:
        d = os.path.join(root, "given")
        os.makedirs(d, exist_ok=True)
        with open(o.brain) as f:
            text = f.read()
        cases.append((0, d, text))
    else:
        for i in range(o.count):
            b = gen.gen_brain(random.Random(gen.brain_seed(o.seed, i)), o.ticks)
            d = os.path.join(root, "case%04d" % i)
            os.makedirs(d, exist_ok=True)
            cases.append((i, d, json.dumps(b, indent=1)))
    for i, d, text in cases:
        with open(os.path.join(d, "brain.yaml"), "w") as f:
            f.write(text + "\n")
        shutil.copy(LEAVES, os.path.join(d, "leaves.lua"))

    with ThreadPoolExecutor(max_workers=o.jobs) as ex:
        futs = [ex.submit(run_engine, thicket, d, o.ticks) for _, d, _ in cases]
        bad = 0
        lines = 0
        kinds = Counter()
        for (i, d, text), fut in zip(cases, futs):
            mod, errs, err = run_model(os.path.join(d, "brain.yaml"), o.ticks)
            rc, eng, stderr = fut.result()
            lines += len(mod)
            ok = err is None and rc in (0, 1) and eng == mod
            if not ok:
                bad += 1
                why = explain(os.path.join(d, "brain.yaml"), o.ticks, eng) if err is None else []
                for w in why or ["(no single reading switch)"]:
                    kinds[w] += 1
                if bad <= o.show:
                    show_case(i, d, text, rc, eng, mod, err, stderr, why)
                with open(os.path.join(d, "expected_model.stdout"), "w") as f:
                    f.write("".join(x + "\n" for x in mod))
                with open(os.path.join(d, "engine.stdout"), "w") as f:
                    f.write("".join(x + "\n" for x in eng))
    if o.coverage:
        for k, v in sorted(COV.items()):
            print("  %6d  %s" % (v, k))
    for k, v in sorted(kinds.items()):
        print("  %d mismatch(es) explained by %s" % (v, k))
    print("hsm_model: %d brain(s), seed %d, %d ticks: %d mismatch(es); %d model lines compared; cases in %s"
          % (len(cases), o.seed, o.ticks, bad, lines, root))
    if not o.keep and bad == 0:
        shutil.rmtree(root)
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
