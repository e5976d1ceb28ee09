#!/usr/bin/env bash
# One command on a fresh Debian 12 machine: install what is missing, build, and run the
# main job — a headless run of the example brains, printing what the agents did and the
# throughput.
set -euo pipefail
cd "$(dirname "$0")"
tools/install_deps.sh
tools/build.sh build Release
echo
echo "== The guard tree (BehaviorTreeBuilder design): 10,000 agents, 60 s of sim time (agent 1 tells its story) =="
build/thicket run scripts/examples/guard/guard.yaml --agents 10000 --ticks 600 --dt 0.1
echo
echo "== The minion, a behavior machine: 2,000 agents, 60 s (agent 1 tells its story) =="
build/thicket run scripts/examples/minion/minion.yaml --agents 2000 --ticks 600 --dt 0.1
echo
echo "== The arena scenario: 240 minions guard two posts against 400 wandering players, in a 2D world =="
build/thicket run scripts/examples/arena/arena.yaml --runs 3 --out build/arena.csv --record build/arena.jsonl.gz
build/thicket view build/arena.jsonl.gz -o build/arena.html
echo "(one row per run in build/arena.csv; the first run recorded: open build/arena.html in a browser to replay it)"
echo
echo "== The flock (steering and perception toolkit): 1,000 boids avoiding obstacles =="
build/thicket run scripts/examples/flock/flock.yaml
echo
echo "== Navigation: guards patrol a building drawn as a grid map, intruders sneak around them =="
build/thicket run scripts/examples/building/building.yaml
echo
echo "== Navigation: couriers cross a courtyard of shapes on a Recast/Detour navmesh =="
build/thicket run scripts/examples/courtyard/courtyard.yaml
echo
echo "== Perception: guards (a hierarchical state machine driven by perception events) see, hear and remember; intruders sneak to the goal =="
build/thicket run scripts/examples/stealth/stealth.yaml --runs 3
