#!/usr/bin/env python3
"""Tunes the arena's guards from Python: sweeps the two posts' minion speeds, runs each point
with several seeds, plots the players' mean escapes as a heat map and prints the best point.

    PYTHONPATH=build/python python3 examples/python/tune_guards.py          # after ./setup.sh: python3 ... alone
    python3 examples/python/tune_guards.py --ticks 100 --runs 1 --out /tmp/tune.png

The runs are those of `thicket run scripts/examples/arena/arena.yaml --runs N --set KEY=V,...`
(guide, 10.6 "From Python"); thicket.sweep returns their rows as a pandas DataFrame.
"""
import argparse
import os
import sys

import matplotlib
matplotlib.use("Agg")  # files, no display
import matplotlib.pyplot as plt  # noqa: E402

import thicket  # noqa: E402

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
WEST = "groups.west_post.vehicle.max_speed"
EAST = "groups.east_post.vehicle.max_speed"


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--scenario", default=os.path.join(ROOT, "scripts/examples/arena/arena.yaml"))
    ap.add_argument("--speeds", default="3,4,5,6", help="minion speeds to try at each post, m/s")
    ap.add_argument("--runs", type=int, default=3, help="seeds per point")
    ap.add_argument("--ticks", type=int, default=300)
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("--out", default="tune_guards.png")
    args = ap.parse_args()
    speeds = [float(s) for s in args.speeds.split(",")]

    result = thicket.sweep(args.scenario, {WEST: speeds, EAST: speeds}, runs=args.runs, ticks=args.ticks,
                           threads=args.threads)
    table = result.metrics.groupby([WEST, EAST])["escapes"].mean().unstack(EAST)
    print(f"{len(result.metrics)} runs of {args.ticks} ticks; mean escapes by west (rows) and east (columns) speed:")
    print(table.round(2).to_string())

    best = result.metrics.groupby([WEST, EAST])["escapes"].mean().idxmin()
    low = table.loc[best[0], best[1]]
    print(f"best: west {best[0]:g} m/s, east {best[1]:g} m/s: {low:.2f} escapes on average")

    fig, ax = plt.subplots(figsize=(5.5, 4.5), dpi=100)
    image = ax.imshow(table.values, origin="lower", cmap="viridis_r")
    ax.set_xticks(range(len(table.columns)), [f"{v:g}" for v in table.columns])
    ax.set_yticks(range(len(table.index)), [f"{v:g}" for v in table.index])
    ax.set_xlabel("east post minions' max speed (m/s)")
    ax.set_ylabel("west post minions' max speed (m/s)")
    ax.set_title(f"arena: players' escapes, mean of {args.runs} seeds")
    middle = (table.values.min() + table.values.max()) / 2
    for i in range(len(table.index)):
        for j in range(len(table.columns)):
            value = table.values[i, j]
            ax.text(j, i, f"{value:.1f}", ha="center", va="center", fontsize=9,
                    color="black" if value < middle else "white")  # dark on the light (low) cells
    fig.colorbar(image, ax=ax, label="escapes")
    fig.tight_layout()
    fig.savefig(args.out)
    print(f"wrote {args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
