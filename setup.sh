#!/usr/bin/env bash
# One command on a fresh Debian 12 machine: install what is missing, build, and run the
# main job — a headless run of the example brains, printing what the agents did and the
# throughput.
set -euo pipefail
cd "$(dirname "$0")"
tools/install_deps.sh
tools/build.sh build Release
echo
echo "== Seed 000's guard: 10,000 agents, 60 s of sim time (agent 1 tells its story) =="
build/thicket run scripts/examples/guard/guard.yaml --agents 10000 --ticks 600 --dt 0.1
if [[ -f scripts/examples/minion/minion.yaml ]]; then
  echo
  echo "== Seed 002's minion, a behavior machine: 10,000 agents, 60 s (agent 1 tells its story) =="
  build/thicket run scripts/examples/minion/minion.yaml --agents 10000 --ticks 600 --dt 0.1
fi
