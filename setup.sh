#!/usr/bin/env bash
# One command on a fresh Debian 12 machine: install what is missing, build, and run the
# main job — a headless run of the example brains, printing what the agents did and the
# throughput.
set -euo pipefail
cd "$(dirname "$0")"
tools/install_deps.sh
# The whole unit-test suite and the fuzz replays (test.sh, which shares build/, leaves both to its
# ASan build but for the unit tests that build samples or skips): `ctest` in build/ runs them all.
tools/build.sh build Release -DTHICKET_PYTHON=ON -DTHICKET_BENCH=ON -DTHICKET_UNIT_TESTS=all -DTHICKET_FUZZ_REPLAYS=ON
# The Python module where the system's python3 finds it (Debian: /usr/local/lib/python3.11/dist-packages).
sudo=""
[[ $(id -u) -ne 0 ]] && sudo="sudo"
$sudo cmake --install build --component python >/dev/null
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
echo
echo "== thicket-game: the library installed (build/install), a stealth game built against it (build/game), played by its scripted player =="
cmake --install build --prefix build/install >/dev/null
cmake -S examples/game -B build/game -G Ninja -DCMAKE_BUILD_TYPE=Release -DCMAKE_PREFIX_PATH="$PWD/build/install" >/dev/null
cmake --build build/game | tail -n 1
(cd build/game && SDL_VIDEODRIVER=offscreen ./thicket-game warehouse --frames 560 --autoplay --click 540:guard:3 --screenshot game.png |
  sed 's/, player at.*//')
echo "(the last frame: build/game/game.png. Play it on a desktop: cd build/game && ./thicket-game;"
echo " while it runs, edit build/game/mods/guard.lua or guard.yaml and save: the guards change at once)"
echo
echo "== Python: import thicket; a sweep of the arena's two posts (examples/python/tune_guards.py) =="
/usr/bin/python3 -c "import thicket; print('thicket', thicket.__version__, 'for Python at', thicket.__file__)"
/usr/bin/python3 examples/python/tune_guards.py --speeds 3,5 --runs 2 --ticks 200 --out build/tune_guards.png
