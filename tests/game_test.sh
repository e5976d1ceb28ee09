#!/usr/bin/env bash
# tests/game_test.sh BUILD_DIR: thicket-game (examples/game, issue 29) as a studio would build it,
# then played headless. BUILD_DIR is installed into a fresh prefix; the game is configured
# against that prefix alone (find_package(thicket), never the source tree), built, and run
# under SDL's offscreen video driver with the scripted player (--autoplay):
#   - each level's autoplayed outcome is tests/game/outcomes.expected;
#   - screenshots show the map, the exit, the player, every guard and the panel (pixel checks,
#     tests/game/check_screenshot.py), and the debugger's box for a guard clicked at;
#   - the debugger's text (--inspect) names the clicked guard's state path, running nodes,
#     blackboard and percepts; P pauses, N steps one frame;
#   - hot reload during play: guard.lua changed at frame 100 (the game's own --edit hook, never
#     the wall clock) changes every guard's sight from frame 101 and the run's outcome, while
#     frames 1-100 are those of an unchanged run; a broken guard.lua or guard.yaml is shown
#     (every error, FILE:LINE:COL) while the guards run on unchanged, and fixing it clears it;
#   - a bad level file is refused with FILE:LINE:COL.
# Everything lives in a temporary directory, removed at the end. About 40 s (the build).
set -uo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
build=$(cd "$1" && pwd)
# shellcheck source=tests/check_lib.sh
source "$here/tests/check_lib.sh"  # $tmp, ok, bad, quiet

prefix=$tmp/prefix
quiet cmake --install "$build" --prefix "$prefix" || { bad "cmake --install $build"; exit 1; }
generator=()
command -v ninja >/dev/null && generator=(-G Ninja)
game=$tmp/game
if ! quiet cmake -S "$here/examples/game" -B "$game" "${generator[@]}" -DCMAKE_BUILD_TYPE=Release \
  -DCMAKE_PREFIX_PATH="$prefix"; then
  bad "examples/game does not configure against the installed thicket"
  exit 1
fi
found=$(sed -n 's/^thicket_DIR:PATH=//p' "$game/CMakeCache.txt")
[[ $found == "$prefix"/* ]] && ok "find_package(thicket) found the install: ${found#"$tmp"/}" ||
  bad "find_package(thicket) found $found, not the fresh install"
if ! quiet cmake --build "$game"; then
  bad "examples/game does not build"
  exit 1
fi
ok "thicket-game built against the install"
cd "$game" || exit 1
export SDL_VIDEODRIVER=offscreen SDL_AUDIODRIVER=dummy
run() { ./thicket-game "$@" 2>"$tmp/err"; }

# ---- No display: said, with the headless hint (it ran with no window and no word) ----
env -u SDL_VIDEODRIVER -u DISPLAY -u WAYLAND_DISPLAY timeout 20 ./thicket-game >/dev/null 2>"$tmp/err"
rc=$?
[[ $rc == 2 ]] && grep -q "^thicket-game: no display to open a window on" "$tmp/err" &&
  grep -q "without a display: thicket-game --frames N --screenshot FILE.png" "$tmp/err" && ok "no display: said, exit 2" ||
  { cat "$tmp/err"; bad "no display: exit $rc"; }

# ---- The autoplayed levels ----
for level in warehouse courtyard arena; do run $level --frames 3000 --autoplay; done >"$tmp/outcomes"
diff -u "$here/tests/game/outcomes.expected" "$tmp/outcomes" >"$tmp/diff" && ok "autoplayed outcomes: $(cut -d';' -f1 "$tmp/outcomes" | paste -sd, -)" ||
  { cat "$tmp/diff"; bad "autoplayed outcomes differ from tests/game/outcomes.expected"; }

# ---- Screenshots ----
check_shot() {  # check_shot NAME [--banner] [--debugger] -- game args...
  local name=$1
  shift
  local flags=()
  while [[ $1 != -- ]]; do flags+=("$1"); shift; done
  shift
  local info
  info=$(run "$@" --screenshot "$tmp/$name.png" | grep '^screenshot')
  if python3 "$here/tests/game/check_screenshot.py" "$tmp/$name.png" "$info" "${flags[@]}" >"$tmp/out"; then
    ok "screenshot $name: $(sed 's/.*: //' "$tmp/out")"
  else
    cat "$tmp/out" "$tmp/err"
    bad "screenshot $name"
  fi
}
check_shot warehouse -- warehouse --frames 240 --autoplay
check_shot arena -- arena --frames 240 --autoplay
check_shot debugger --debugger -- courtyard --frames 120 --autoplay --click 100:guard:3
# Tab to the next level: its own map on screen (the map's picture, cached between frames, was
# once kept from the level before: the exit's green stood where the old level had it).
check_shot tabbed -- warehouse --frames 60 --autoplay --press 20:tab

# ---- The debugger's text, pause and step ----
run warehouse --frames 100 --autoplay --press 30:p --press 40:n --press 41:n --press 50:p --click 60:guard:3 --inspect >"$tmp/inspect"
# 100 loop iterations, 20 of them paused (P at 30 and 50) but for two N steps: 82 frames.
grep -q "^Warehouse: playing at frame 82 " "$tmp/inspect" && ok "P pauses, N steps one frame (82 frames in 100 iterations)" ||
  bad "pause/step: $(head -1 "$tmp/inspect")"
# A held key's repeats change nothing: P held from iteration 30 pauses once (29 frames in 100).
run warehouse --frames 100 --autoplay --press 30:p --repeat 31:p --repeat 32:p --repeat 33:c --inspect >"$tmp/held"
grep -q "^Warehouse: playing at frame 29 " "$tmp/held" && ok "a held P pauses once (its key repeats are not presses)" ||
  bad "a held P: $(head -1 "$tmp/held")"
for want in "| guard 3 at" "| states: duty > calm > patrol" "|   duty/act" "|   route = \"13,12 27,10 27,16 9,16\"" "| percepts:" "| memory:"; do
  grep -qF -- "$want" "$tmp/inspect" || bad "the clicked guard's debugger lacks '$want'"
done
ok "the debugger of a clicked guard: $(grep -c '^|' "$tmp/inspect") lines (states, running nodes, blackboard, percepts, memory)"
run warehouse --frames 10 --click 5:2:2 --inspect | grep -q "| no guard selected" && ok "a click away from the guards closes the debugger" ||
  bad "a click on an empty spot selected a guard"

# ---- Hot reload during play ----
fresh_mods() { rm -rf "$tmp/$1" && cp -r "$game/mods" "$tmp/$1"; }
fresh_mods base
run warehouse --frames 3000 --autoplay --mods "$tmp/base" --log "$tmp/base.log" >/dev/null
sed 's/^local SIGHT_RANGE = 7 /local SIGHT_RANGE = 12/' "$game/mods/guard.lua" >"$tmp/far.lua"
grep -q "^local SIGHT_RANGE = 12" "$tmp/far.lua" || bad "the edit of guard.lua did not apply (SIGHT_RANGE = 7 not found)"
fresh_mods far
run warehouse --frames 3000 --autoplay --mods "$tmp/far" --log "$tmp/far.log" --edit "100:guard.lua:$tmp/far.lua" >"$tmp/out"
frame_lines() { grep -E "^frame ($2) guard " "$1"; }
if diff -q <(awk '$2 <= 100' "$tmp/base.log" | grep '^frame') <(awk '$2 <= 100' "$tmp/far.log" | grep '^frame') >/dev/null; then
  ok "reload: frames 1-100 are those of the unchanged run"
else
  bad "reload: the runs differ before the edit"
fi
if grep -q "^frame 101 reload guard.lua ok" "$tmp/far.log" &&
  [[ $(frame_lines "$tmp/far.log" 100 | grep -c ' 7\.0$') == 6 && $(frame_lines "$tmp/far.log" 101 | grep -c ' 12\.0$') == 6 ]] &&
  [[ $(frame_lines "$tmp/far.log" 102 | grep -c 'sight 12\.00 ') == 6 ]]; then
  ok "reload: guard.lua saved at frame 100 gives every guard's brain sight 12 from frame 101 (its cone from 102)"
else
  bad "reload: sight after the edit: $(frame_lines "$tmp/far.log" '100|101|102' | head -3)"
fi
# A leaf that fails every tick from frame 101 (guard 4's Watch): the runtime prints its error a
# few times and then only counts it; the overlay stays while the count grows (it went five
# seconds after the 6th printed error, the leaf still failing).
sed 's/^function leaves.Watch(agent)$/&\n  if agent.id == 4 then error("oops") end/' "$game/mods/guard.lua" >"$tmp/raise.lua"
grep -q 'error("oops")' "$tmp/raise.lua" || bad "the edit of guard.lua did not apply (leaves.Watch not found)"
fresh_mods raise
run warehouse --frames 400 --mods "$tmp/raise" --log "$tmp/raise.log" --edit "100:guard.lua:$tmp/raise.lua" >/dev/null
if grep -q "^frame 101 script error: .*oops" "$tmp/raise.log" && grep -q "^frame 400 script error: .*oops" "$tmp/raise.log"; then
  ok "a leaf failing every tick keeps its error on screen (frames 101 to 400)"
else
  bad "a leaf failing every tick: script error frames $(grep 'script error' "$tmp/raise.log" | awk '{print $2}' | paste -sd' ')"
fi
# A mod's escape sequences (a print, an error, a blackboard text) reach neither the terminal
# nor the debugger: control characters are shown as '?' (an error's come escaped by the
# runtime already, as \x1B).
sed 's/^function leaves.Watch(agent)$/&\n  if agent.id == 4 then print("\\27]0;pwned\\7\\u{9B}31m") agent.bb.route = "\\27[41m" .. agent.bb.route error("\\27[2Jdanger") end/' \
  "$game/mods/guard.lua" >"$tmp/escape.lua"
fresh_mods escape
run warehouse --frames 103 --mods "$tmp/escape" --edit "100:guard.lua:$tmp/escape.lua" --select 4 --inspect >"$tmp/out"
# (U+009B, a C1 control: a terminal's CSI, as ESC [ is; UTF-8 C2 9B.)
if ! grep -q $'\x1b' "$tmp/out" "$tmp/err" && ! grep -q $'\xc2\x9b' "$tmp/out" "$tmp/err" && grep -q '?]0;pwned??31m' "$tmp/out" && grep -q '\\x1B\[2Jdanger' "$tmp/err" &&
  grep -q 'route = "?\[41m' "$tmp/out"; then
  ok "a mod's escape sequences are shown as ?, not sent to the terminal"
else
  bad "a mod's escape sequences: $(grep -c $'\x1b' "$tmp/out" "$tmp/err" | paste -sd' ') $(grep -a 'pwned\|danger\|route =' "$tmp/out" "$tmp/err" | head -3)"
fi
base_end=$(tail -1 "$tmp/base.log") far_end=$(tail -1 "$tmp/far.log")
[[ $base_end != "$far_end" ]] && ok "reload: the guards play differently ($base_end -> $far_end)" ||
  bad "reload: the same outcome with sight 12 ($far_end)"
# The reload kept the guards' state: no state path restarted at frame 101.
if diff <(frame_lines "$tmp/base.log" 101 | cut -d' ' -f1-5) <(frame_lines "$tmp/far.log" 101 | cut -d' ' -f1-5) >/dev/null; then
  ok "reload: every guard kept its state and place across the reload"
else
  bad "reload: the states at frame 101 changed"
fi

# A broken Lua file at frame 100, fixed at 150; a broken YAML file at 200, fixed at 250.
sed 's/^local SIGHT_RANGE = 7 /local SIGHT_RANGE = = 7/' "$game/mods/guard.lua" >"$tmp/broken.lua"
sed 's/action: MoveTo/action: MoveTO/' "$game/mods/guard.yaml" >"$tmp/broken.yaml"
fresh_mods broken
run warehouse --frames 300 --autoplay --mods "$tmp/broken" --log "$tmp/broken.log" --edit "100:guard.lua:$tmp/broken.lua" \
  --edit "150:guard.lua:$game/mods/guard.lua" --edit "200:guard.yaml:$tmp/broken.yaml" \
  --edit "250:guard.yaml:$game/mods/guard.yaml" >"$tmp/out"
if grep -q "^frame 101 showing error: $tmp/broken/guard.lua:7: error: unexpected symbol near '='" "$tmp/broken.log" &&
  grep -q "^frame 149 showing error: .*guard.lua:7:" "$tmp/broken.log" && ! grep -q "^frame 151 showing" "$tmp/broken.log"; then
  ok "a broken guard.lua is shown (guard.lua:7: unexpected symbol) from frame 101 until it is fixed (frame 151)"
else
  bad "broken guard.lua: $(grep -m3 -E 'reload|showing' "$tmp/broken.log")"
fi
yaml_errors=$(grep -c "^frame 201 showing error: .*guard.yaml:[0-9]*:[0-9]*: error: unknown leaf 'MoveTO'; did you mean 'MoveTo'?" "$tmp/broken.log")
if [[ $yaml_errors == 4 ]] && ! grep -q "^frame 251 showing" "$tmp/broken.log"; then
  ok "a broken guard.yaml shows all 4 errors (FILE:LINE:COL, did you mean) until it is fixed (frame 251)"
else
  bad "broken guard.yaml: $yaml_errors errors shown; $(grep -m3 -E 'frame 2[05]1 (reload|showing)' "$tmp/broken.log")"
fi
# The console and the log say a failed reload as the screen does, FILE:LINE:COL: error: (they
# dropped "error:").
if grep -q "^frame 201: $tmp/broken/guard.yaml did not load: $tmp/broken/guard.yaml:[0-9]*:[0-9]*: error: unknown leaf 'MoveTO'" "$tmp/out" &&
  grep -q "^frame 201 reload guard.yaml failed: $tmp/broken/guard.yaml:[0-9]*:[0-9]*: error: unknown leaf 'MoveTO'" "$tmp/broken.log"; then
  ok "a failed reload on the console and in the log: FILE:LINE:COL: error:"
else
  bad "a failed reload's line: $(grep -m1 'did not load' "$tmp/out"); $(grep -m1 'reload guard.yaml failed' "$tmp/broken.log")"
fi
if diff <(grep ' guard ' "$tmp/base.log" | awk '$2 <= 300') <(grep ' guard ' "$tmp/broken.log") >/dev/null; then
  ok "while a mod file was broken the guards ran on exactly as before"
else
  bad "a broken mod file changed the guards"
fi
# A guard.yaml that no longer declares a key the game writes (goal_x) or gives (route) at frame
# 100: refused with the key named (the game's reload check), and the guards run on exactly as
# before, not frozen by a brain the game cannot drive.
grep -v -E '^  (goal_x|route): ' "$game/mods/guard.yaml" >"$tmp/nokeys.yaml"
fresh_mods nokeys
run warehouse --frames 300 --autoplay --mods "$tmp/nokeys" --log "$tmp/nokeys.log" --edit "100:guard.yaml:$tmp/nokeys.yaml" >"$tmp/out"
if grep -q "^frame 101 showing error: .*guard.yaml: error: guard.yaml declares no blackboard key 'goal_x' (a number) and the game needs it; .*'route'" "$tmp/nokeys.log" &&
  diff <(grep -E '^frame [0-9]+ guard ' "$tmp/base.log" | awk '$2 <= 300') <(grep -E '^frame [0-9]+ guard ' "$tmp/nokeys.log") >/dev/null; then
  ok "a guard.yaml without keys the game drives is refused on reload (named on screen); the guards run on as before"
else
  bad "guard.yaml without goal_x and route: $(grep -m3 -E 'reload|showing' "$tmp/nokeys.log")"
fi
# guard.yaml deleted at frame 100 and put back as it was at frame 130: said on screen from the
# next look that finds it still gone until it is back; the guards run on as before all along.
fresh_mods gone
run warehouse --frames 200 --autoplay --mods "$tmp/gone" --log "$tmp/gone.log" --edit "100:guard.yaml:" \
  --edit "130:guard.yaml:$game/mods/guard.yaml" >"$tmp/out"
if grep -q "^frame 10[1-3] showing error: .*guard.yaml: error: the file is gone (deleted or moved away)" "$tmp/gone.log" &&
  grep -q "^frame 130 showing error: .*the file is gone" "$tmp/gone.log" && ! grep -q "^frame 13[2-9] showing" "$tmp/gone.log" &&
  diff <(grep -E '^frame [0-9]+ guard ' "$tmp/base.log" | awk '$2 <= 200') <(grep -E '^frame [0-9]+ guard ' "$tmp/gone.log") >/dev/null; then
  ok "a deleted guard.yaml is said on screen until it is back; the guards run on as before"
else
  bad "guard.yaml deleted and back: $(grep -m3 -E 'reload|showing' "$tmp/gone.log")"
fi
# A Lua error at run time (guard 4's Watch raises one every tick from frame 101): that leaf
# fails, the error is shown with its file and line, the other guards go on as before.
sed 's/^function leaves.Watch(agent)$/function leaves.Watch(agent)\n  if agent.id == 4 then error("oops") end/' \
  "$game/mods/guard.lua" >"$tmp/raise.lua"
fresh_mods raise
run warehouse --frames 200 --autoplay --mods "$tmp/raise" --log "$tmp/raise.log" --edit "100:guard.lua:$tmp/raise.lua" >"$tmp/out"
if grep -q "^frame 101 script error: error: $tmp/raise/guard.lua:18: oops" "$tmp/raise.log" &&
  grep -q "100 script errors" "$tmp/out" &&
  diff <(grep -E ' guard [2356] ' "$tmp/base.log" | awk '$2 <= 200') <(grep -E ' guard [2356] ' "$tmp/raise.log") >/dev/null; then
  ok "a Lua error in a leaf is shown (guard.lua:18: oops, 100 script errors) and the other guards run on"
else
  bad "a Lua error in a leaf: $(grep -m1 'script error' "$tmp/raise.log"); $(cat "$tmp/out")"
fi
# A mod that spawns agents (thicket.spawn: with the next id, and with id 1) and despawns a guard:
# the guards are the level's, so the game despawns the strangers and spawns the guard again,
# and says so (a stranger's MoveTo wrote past the guards: a crash; Tab into a level whose guard
# ids a stranger held: a crash).
sed 's/^function leaves.Watch(agent)$/function leaves.Watch(agent)\n  if agent.id == 2 and not SPAWNED then SPAWNED = true; thicket.spawn("guard", {x = agent.bb.x, y = agent.bb.y, route = agent.bb.route}); thicket.spawn("guard", {route = agent.bb.route}, 1) end\n  if agent.id == 3 and not GONE then GONE = true; thicket.despawn(4) end/' \
  "$game/mods/guard.lua" >"$tmp/spawner.lua"
fresh_mods spawner
run warehouse --frames 200 --autoplay --mods "$tmp/spawner" --log "$tmp/spawner.log" --edit "100:guard.lua:$tmp/spawner.lua" --press 150:tab >"$tmp/out"
if [[ $? == 0 ]] && grep -q "^frame 101 script error: error: a mod despawned guard 4 (thicket.despawn): the guards are the level's, so the game spawned it again" "$tmp/spawner.log" &&
  [[ $(grep -c "error: a mod spawned agent" "$tmp/err") == 4 ]] &&  # (twice: Tab starts the mod afresh, its globals too)
  grep -q "error: a mod despawned guard 4 (thicket.despawn): the guards are the level's, so the game spawned it again" "$tmp/err" &&
  grep -q "^frame 102 guard 4 " "$tmp/spawner.log" && grep -q "^Courtyard: playing at frame 51 .*; 5 guards, 0 script errors" "$tmp/out"; then
  ok "a mod's thicket.spawn and thicket.despawn leave the level's guards as they are, are reported, and Tab goes on"
else
  bad "a mod that spawns and despawns: $(cat "$tmp/out" "$tmp/err" | head -5)"
fi
# A mod that despawns a guard and spawns an agent with its id in the same call: the stranger is
# despawned and the guard spawned again, once (the guard's respawn was refused, the stranger kept
# as its brain with no state, and "spawned it again" said every frame).
sed 's/^function leaves.Watch(agent)$/function leaves.Watch(agent)\n  if agent.id == 3 and not SWAPPED then SWAPPED = true; thicket.despawn(4); thicket.spawn("guard", {route = agent.bb.route}, 4) end/' \
  "$game/mods/guard.lua" >"$tmp/swap.lua"
fresh_mods swap
run warehouse --frames 160 --autoplay --mods "$tmp/swap" --log "$tmp/swap.log" --edit "100:guard.lua:$tmp/swap.lua" >"$tmp/out"
if [[ $? == 0 ]] && [[ $(grep -c "error: a mod spawned agent 4 (thicket.spawn)" "$tmp/err") == 1 ]] &&
  [[ $(grep -c "error: a mod despawned guard 4 (thicket.despawn): the guards are the level's, so the game spawned it again" "$tmp/err") == 1 ]] &&
  grep -q "^frame 150 guard 4 " "$tmp/swap.log" && ! grep -E "^frame 1[2-5][0-9] guard 4 " "$tmp/swap.log" | grep -q " nan"; then
  ok "a guard despawned and its id spawned by a mod: the stranger goes, the guard comes back once"
else
  bad "a mod that swaps a guard for a stranger: $(grep -c 'spawned it again' "$tmp/err") respawns said; $(grep -m1 '^frame 150 guard 4 ' "$tmp/swap.log")"
fi
# A leaf that fills the Lua heap (a table grown without end): the fix saved cannot even be
# compiled (no memory left), the banner says to press R, and R restarts the level with the mod
# as saved, in fresh Lua states: the guards walk again (R kept the full heap: they stood frozen).
# (No time limit: the heap's cap, not the machine's speed, stops the leaf.)
sed 's/^function leaves.Watch(agent)$/&\n  BIG = BIG or {}\n  while true do BIG[#BIG + 1] = string.rep("x", 10000) .. #BIG end/' "$game/mods/guard.lua" >"$tmp/hoard.lua"
fresh_mods heap
run warehouse --frames 320 --leaf-timeout 0 --lua-memory 48 --mods "$tmp/heap" --log "$tmp/heap.log" \
  --edit "100:guard.lua:$tmp/hoard.lua" --edit "140:guard.lua:$game/mods/guard.lua" --press 150:r >"$tmp/out"
restarted=$(awk '/^frame 1 guard 2 /{n++} END {print n+0}' "$tmp/heap.log")
if [[ $? == 0 ]] && grep -q "showing error: (the Lua heap is full: fix the file, save it, then press R" "$tmp/heap.log" &&
  [[ $restarted == 2 ]] && [[ $(tail -40 "$tmp/heap.log" | grep -c "script error\|showing error") == 0 ]] &&
  [[ $(grep "^frame 100 guard 2 " "$tmp/heap.log" | tail -1 | cut -d' ' -f5-6) != "$(grep "^frame 160 guard 2 " "$tmp/heap.log" | tail -1 | cut -d' ' -f5-6)" ]]; then
  ok "a mod that filled the Lua heap: its fix loads with R (fresh Lua states), and the guards walk again"
else
  bad "a mod that filled the Lua heap: restarted $restarted; $(grep -m2 'showing error' "$tmp/heap.log"); $(tail -3 "$tmp/heap.log")"
fi
# A mod file that builds a big table as it loads runs past the game's budget (100,000
# instructions, the one a task's resume has): refused, and --budget gives it more.
sed 's/^local leaves = {}$/&\nlocal SINES = {}\nfor d = 0, 35999 do SINES[d] = math.sin(math.rad(d \/ 100)) end/' "$game/mods/guard.lua" >"$tmp/sines.lua"
fresh_mods sines
cp "$tmp/sines.lua" "$tmp/sines/guard.lua"
run warehouse --frames 5 --mods "$tmp/sines" >"$tmp/out"
rc=$?
run warehouse --frames 5 --mods "$tmp/sines" --budget 1000000 >"$tmp/out"
if [[ $rc == 1 && $? == 0 ]]; then
  ok "a mod that builds a big table as it loads needs --budget (refused at 100,000 instructions, loads with 1,000,000)"
else
  bad "a mod's big table at load: exit $rc without --budget, then $(head -2 "$tmp/err")"
fi
# A mod that spawns many agents in a frame: three said one by one, then how many more (6,000
# lines a frame were printed for 1,000 spawns).
sed 's/^function leaves.Watch(agent)$/&\n  if agent.id == 2 and not FLOOD then FLOOD = true; for i = 1, 200 do thicket.spawn("guard", {route = agent.bb.route}) end end/' \
  "$game/mods/guard.lua" >"$tmp/flood.lua"
fresh_mods flood
run warehouse --frames 110 --autoplay --mods "$tmp/flood" --edit "100:guard.lua:$tmp/flood.lua" >"$tmp/out"
if [[ $? == 0 && $(grep -c "error: a mod spawned agent" "$tmp/err") == 3 ]] &&
  grep -q "^error: \.\.\. and 197 more agents a mod spawned this frame, despawned" "$tmp/err"; then
  ok "a mod's 200 spawns in a frame: 3 said, and 197 more"
else
  bad "a mod's spawn flood: $(grep -c 'a mod spawned' "$tmp/err") lines; $(grep -m1 'more agents' "$tmp/err")"
fi
# A guard.yaml that changes kind (an fsm made a tree) cannot reload ("restart the run to change
# kinds"): the banner says to press R, and R starts the level with it.
{ sed -n '/^blackboard:/,/^  look:/p' "$game/mods/guard.yaml"; printf 'tree: guard\nleaves: [guard.lua]\nroot:\n  sequence: [{action: NextPoint}, {action: MoveTo}, {wait: 1.0}]\n'; } >"$tmp/kind.yaml"
fresh_mods kind
run warehouse --frames 200 --mods "$tmp/kind" --log "$tmp/kind.log" --edit "100:guard.yaml:$tmp/kind.yaml" --press 150:r >"$tmp/out"
if [[ $? == 0 ]] && grep -q "showing error: (press R: the level restarts with the brain as saved)" "$tmp/kind.log" &&
  [[ $(tail -8 "$tmp/kind.log" | grep -c "showing error") == 0 ]] && tail -8 "$tmp/kind.log" | grep -q "^frame 51 guard 2 - "; then
  ok "a guard.yaml of another kind: the banner says to press R, and R starts the level with it"
else
  bad "a guard.yaml of another kind: $(grep -m2 'showing error' "$tmp/kind.log"); $(tail -3 "$tmp/kind.log")"
fi
# R takes the mod as saved, in fresh Lua states: a guard.lua that loaded only over an older
# version's global (CONFIG, which the version before set) does not load afresh. R says so on
# standard error and on screen, and the guards go on with their last good version (R was silent,
# and the old Lua state ran on as if restarted).
sed 's/^local leaves = {}$/&\nCONFIG = {range = 9}/' "$game/mods/guard.lua" >"$tmp/config.lua"
sed 's/^local leaves = {}$/&\nlocal RANGE = CONFIG.range/' "$game/mods/guard.lua" >"$tmp/usesconfig.lua"
fresh_mods restart
run warehouse --frames 160 --mods "$tmp/restart" --log "$tmp/restart.log" --edit "50:guard.lua:$tmp/config.lua" \
  --edit "60:guard.lua:$tmp/usesconfig.lua" --press 100:r >"$tmp/out"
if [[ $? == 0 ]] && grep -q "^thicket-game: the mod as saved does not load in fresh Lua states" "$tmp/err" &&
  grep -q "guard.lua:[0-9]*: error: attempt to index a nil value (global 'CONFIG')" "$tmp/err" &&
  grep -q "^frame $(sed -n 's/^outcome playing frame //p' "$tmp/restart.log") showing error: .*guard.lua:[0-9]*: error: attempt to index a nil value (global 'CONFIG')" "$tmp/restart.log" &&
  [[ $(grep -c "^frame 1 guard 2 " "$tmp/restart.log") == 2 ]]; then
  ok "R with a mod that does not load afresh: said on standard error and on screen; the level restarts with the last good version"
else
  bad "R with a mod that does not load afresh: $(head -2 "$tmp/err"); $(tail -2 "$tmp/restart.log")"
fi
# A mod saved while the game is paused is reloaded then, not when play goes on.
fresh_mods paused
run warehouse --frames 80 --autoplay --mods "$tmp/paused" --edit "50:guard.lua:$tmp/far.lua" --press 51:p >"$tmp/out"
grep -q "^frame 50: $tmp/paused/guard.lua reloaded" "$tmp/out" && ok "a mod saved while paused is reloaded at once (frame 50, paused)" ||
  bad "reload while paused: $(grep -m2 reload "$tmp/out")"
fresh_mods banner
check_shot banner --banner -- warehouse --frames 120 --autoplay --mods "$tmp/banner" --edit "100:guard.yaml:$tmp/broken.yaml"

# A leaf renamed in guard.lua (refused: guard.yaml still calls the old name), then in
# guard.yaml: once guard.yaml loads, guard.lua loads with it, and its error is no longer shown
# (it stayed up over a game that ran fine until guard.lua was saved again).
sed 's/^function leaves.NextPoint(agent)$/function leaves.NextPointX(agent)/' "$game/mods/guard.lua" >"$tmp/renamed.lua"
sed 's/action: NextPoint$/action: NextPointX/' "$game/mods/guard.yaml" >"$tmp/renamed.yaml"
grep -q "NextPointX" "$tmp/renamed.lua" && grep -q "NextPointX" "$tmp/renamed.yaml" || bad "the NextPoint renames did not apply"
fresh_mods renamed
run warehouse --frames 160 --autoplay --mods "$tmp/renamed" --log "$tmp/renamed.log" --edit "50:guard.lua:$tmp/renamed.lua" \
  --edit "100:guard.yaml:$tmp/renamed.yaml" >"$tmp/out"
if grep -q "^frame 51 showing error: .*unknown leaf 'NextPoint'; did you mean 'NextPointX'? (.*guard.lua no longer defines it, and .*guard.yaml still calls it here)" "$tmp/renamed.log" &&
  grep -q "^frame 100 showing error" "$tmp/renamed.log" && ! grep -q "^frame 101 showing" "$tmp/renamed.log" &&
  grep -q "^frame 101: $tmp/renamed/guard.lua reloaded" "$tmp/out"; then
  ok "a leaf renamed in guard.lua, then in guard.yaml: guard.lua loads with guard.yaml, and its error goes (frame 101)"
else
  bad "a rename across both mod files: $(grep -m4 -E 'frame (51|100|101) (showing|reload)' "$tmp/renamed.log")"
fi

# red_text PNG: the PNG shows red text (over 500 red pixels: the load errors' colour).
red_text() {
  python3 - "$1" <<'PY'
import struct, sys, zlib
data = open(sys.argv[1], "rb").read()
w, h = struct.unpack(">II", data[16:24])
idat = b"".join(data[i + 8:i + 8 + struct.unpack(">I", data[i:i + 4])[0]]
                for i in range(8, len(data) - 12) if data[i + 4:i + 8] == b"IDAT")
raw, row, prev, red = zlib.decompress(idat), 3 * w, bytearray(3 * w), 0
for y in range(h):  # PNG filters undone, then the error text's red counted
    f, line = raw[y * (row + 1)], bytearray(raw[y * (row + 1) + 1:(y + 1) * (row + 1)])
    for x in range(row):
        a = line[x - 3] if x >= 3 else 0
        b, c = prev[x], prev[x - 3] if x >= 3 else 0
        p = a + b - c
        pred = [0, a, b, (a + b) // 2, a if abs(p - a) <= abs(p - b) and abs(p - a) <= abs(p - c) else b if abs(p - b) <= abs(p - c) else c][f]
        line[x] = (line[x] + pred) & 255
    red += sum(1 for x in range(0, row, 3) if line[x] > 200 and line[x + 1] < 160 and line[x + 2] < 160)
    prev = line
sys.exit(0 if red > 500 else 1)
PY
}

# A mod that does not load at start-up: its errors on screen (the game waits for a fix on a
# desktop; headless, the screenshot shows them) as well as on standard error.
fresh_mods startup
cp "$tmp/broken.yaml" "$tmp/startup/guard.yaml"
run warehouse --frames 20 --mods "$tmp/startup" --screenshot "$tmp/startup.png" >/dev/null
if [[ $? == 1 ]] && grep -q "guard.yaml:[0-9]*:[0-9]*: error: unknown leaf 'MoveTO'; did you mean 'MoveTo'?" "$tmp/err" &&
  red_text "$tmp/startup.png"
then
  ok "a mod broken at start-up: its errors on screen (red text in the screenshot) and on standard error"
else
  bad "a mod broken at start-up: $(head -3 "$tmp/err")"
fi
# On screen the game waits, trying the mod twice a second, and starts once it loads (a person
# fixing the file; here the fixed file is copied in once the errors are out, and the test waits
# up to 30 s for the start, then ends the game).
fresh_mods waiting
cp "$tmp/broken.yaml" "$tmp/waiting/guard.yaml"
./thicket-game warehouse --mods "$tmp/waiting" >"$tmp/waiting.out" 2>"$tmp/waiting.err" &
waiting_pid=$!
for _ in $(seq 300); do grep -q "error: unknown leaf 'MoveTO'" "$tmp/waiting.err" && break; sleep 0.1; done
cp "$game/mods/guard.yaml" "$tmp/waiting/guard.yaml"
# (Seen while the game runs: its standard output is line-buffered, also into a file.)
started=0
for _ in $(seq 300); do grep -q "loads: the game starts" "$tmp/waiting.out" && started=1 && break; sleep 0.1; done
kill "$waiting_pid" 2>/dev/null
wait "$waiting_pid" 2>/dev/null
[[ $started == 1 ]] && grep -q "^$tmp/waiting/guard.yaml loads: the game starts" "$tmp/waiting.out" && grep -q "Warehouse. Edit" "$tmp/waiting.out" &&
  ok "on screen, a mod broken at start-up is waited for: fixed, the game starts" ||
  bad "on screen, a mod broken at start-up: $(cat "$tmp/waiting.out" | head -3)"
# A leaf that loops for ever is stopped at the game's own limit (10 ms; --leaf-timeout, which
# the message names, sets it).
run warehouse --frames 5 --leaf-timeout abc >/dev/null
[[ $? == 2 ]] && grep -q "leaf-timeout takes seconds" "$tmp/err" && ok "--leaf-timeout is the game's option too" ||
  bad "--leaf-timeout: $(cat "$tmp/err")"
run warehouse --frames 5 --edit "1:../levels/warehouse.level:$game/mods/guard.lua" >/dev/null
[[ $? == 2 ]] && grep -q "FILE is a file of the mod folder" "$tmp/err" && grep -q "^name Warehouse" "$game/levels/warehouse.level" &&
  ok "--edit writes only into the mod folder" || bad "--edit outside the mods: $(cat "$tmp/err")"
run warehouse --frames 5 --lua-memory -3 >/dev/null
[[ $? == 2 ]] && grep -q -- "--lua-memory takes a whole number" "$tmp/err" && ok "--lua-memory is the game's option too" ||
  bad "--lua-memory: $(cat "$tmp/err")"
sed 's/^function leaves.Watch(agent)$/&\n  while true do end/' "$game/mods/guard.lua" >"$tmp/loop.lua"
grep -q "while true do end" "$tmp/loop.lua" || bad "the edit of guard.lua did not apply (leaves.Watch not found)"
fresh_mods looping
run warehouse --frames 102 --mods "$tmp/looping" --log "$tmp/loop.log" --edit "100:guard.lua:$tmp/loop.lua" >/dev/null
grep -q "^frame 101 script error: .*guard.lua:[0-9]*: stopped after running for more than 10 ms" "$tmp/loop.log" &&
  ok "a leaf that never returns is stopped at the game's own limit (10 ms, not the runtime's 50)" ||
  bad "a looping leaf: $(grep -m1 'script error' "$tmp/loop.log")"

# ---- Bad input ----
cp "$game/levels/warehouse.map" "$tmp/"
printf 'name Bad\nmap warehouse.map\nplayer 0 0\nexit 45 27\nguard 15 1 28\nlantern 3 3\n' >"$tmp/bad.level"
run "$tmp/bad.level" --frames 10 --screenshot "$tmp/bad_level.png" >/dev/null
if [[ $? == 1 ]] && grep -q "bad.level:3:8: error: player cell (0, 0) is a wall" "$tmp/err" &&
  grep -q "bad.level:5:12: error: 'guard' takes cells as pairs" "$tmp/err" && grep -q "bad.level:6:1: error: unknown keyword 'lantern'" "$tmp/err" &&
  [[ $(grep -c "error:" "$tmp/err") == 3 ]] && red_text "$tmp/bad_level.png"; then
  ok "a bad level file: every error at FILE:LINE:COL, on standard error and on screen (red text in the screenshot)"
else
  cat "$tmp/err"
  bad "a bad level file"
fi
# On screen a level broken at start-up is waited for as a broken mod is (the window stayed
# closed, its errors on standard error only): fixed, the game starts; its errors are printed once.
cp "$tmp/bad.level" "$tmp/waiting.level"
./thicket-game "$tmp/waiting.level" >"$tmp/waiting_level.out" 2>"$tmp/waiting_level.err" &
waiting_pid=$!
for _ in $(seq 300); do grep -q "unknown keyword 'lantern'" "$tmp/waiting_level.err" && break; sleep 0.1; done
sed 's/^name Warehouse$/name Mended/' "$here/examples/game/levels/warehouse.level" >"$tmp/mended.level"
grep -q "^name Mended" "$tmp/mended.level" || bad "the warehouse level's name line was not found"
mv "$tmp/mended.level" "$tmp/waiting.level"
started=0
for _ in $(seq 300); do grep -q "Mended. Edit" "$tmp/waiting_level.out" && started=1 && break; sleep 0.1; done
kill "$waiting_pid" 2>/dev/null
wait "$waiting_pid" 2>/dev/null
[[ $started == 1 ]] && [[ $(grep -c "unknown keyword 'lantern'" "$tmp/waiting_level.err") == 1 ]] &&
  ok "on screen, a level broken at start-up is waited for (its errors printed once): fixed, the game starts" ||
  bad "on screen, a level broken at start-up: $(head -3 "$tmp/waiting_level.out" "$tmp/waiting_level.err")"
# A cell too far, a second map line, a folder named as a level: each said as what it is.
printf 'name Far\nmap warehouse.map\nmap warehouse.map\nplayer 2000000 1\nexit 45 27\n' >"$tmp/far.level"
run "$tmp/far.level" --frames 5 >/dev/null
if [[ $? == 1 ]] && grep -q "far.level:3:1: error: a second 'map' line: the level's map is named at line 2" "$tmp/err" &&
  grep -q "far.level:4:8: error: '2000000' is too far: a cell's column and row are from -1000000 to 1000000" "$tmp/err" &&
  ! grep -q "has no 'player' cell" "$tmp/err"; then  # (the player is given, on a wrong cell)
  ok "a cell too far and a second map line: said so"
else
  bad "a cell too far, a second map: $(cat "$tmp/err")"
fi
mkdir -p "$tmp/folder.level"
run "$tmp/folder.level" --frames 5 >/dev/null
[[ $? == 1 ]] && grep -q "folder.level: error: a folder, not a level file" "$tmp/err" && ok "a folder named as a level: said so" ||
  bad "a folder named as a level: $(cat "$tmp/err")"
# A level that cannot be won (walls between the player and the exit), a map wider than the
# screen shows, and a level file's control characters (an escape sequence in its name or a
# keyword reached the terminal as written): each refused or shown as '?'.
printf 'type octile\nheight 3\nwidth 5\nmap\n..@..\n..@..\n..@..\n' >"$tmp/walled.map"
printf 'name Walled\nmap walled.map\nplayer 0 0\nexit 4 2\n' >"$tmp/walled.level"
run "$tmp/walled.level" --frames 5 >/dev/null
[[ $? == 1 ]] && grep -q "walled.level:4:6: error: exit cell (4, 2) cannot be reached from the player's cell (0, 0): walls close it off" "$tmp/err" &&
  ok "a level whose exit cannot be reached: said at its exit line" || bad "an unreachable exit: $(cat "$tmp/err")"
# A second player or exit line (the last was taken without a word), the exit on the player's
# cell (escaped at frame 1), and a cell written with leading zeros (00000002 was "too far").
printf 'name Twice\nmap walled.map\nplayer 0 0\nplayer 1 0\nexit 0 2\nexit 1 2\n' >"$tmp/twice.level"
run "$tmp/twice.level" --frames 5 >/dev/null
[[ $? == 1 ]] && grep -q "twice.level:4:1: error: a second 'player' line: the level's player cell is given at line 3" "$tmp/err" &&
  grep -q "twice.level:6:1: error: a second 'exit' line" "$tmp/err" && ok "a second player or exit line: said there" ||
  bad "a second player or exit line: $(cat "$tmp/err")"
printf 'name Same\nmap walled.map\nplayer 1 1\nexit 1 1\n' >"$tmp/same.level"
run "$tmp/same.level" --frames 5 >/dev/null
[[ $? == 1 ]] && grep -q "same.level:4:6: error: exit cell (1, 1) is the player's cell" "$tmp/err" &&
  ok "an exit on the player's cell: refused" || bad "an exit on the player's cell: $(cat "$tmp/err")"
printf 'name Zeros\nmap walled.map\nplayer 00000000 0000001\nexit 00000001 2\n' >"$tmp/zeros.level"
run "$tmp/zeros.level" --frames 5 >/dev/null && ok "cells with leading zeros read as numbers" ||
  bad "cells with leading zeros: $(cat "$tmp/err")"
python3 -c 'print("type octile\nheight 2\nwidth 1000\nmap\n" + ("." * 1000 + "\n") * 2, end="")' >"$tmp/wide.map"
printf 'name Wide\nmap wide.map\nplayer 0 0\nexit 9 1\n' >"$tmp/wide.level"
run "$tmp/wide.level" --frames 5 >/dev/null
[[ $? == 1 ]] && grep -q "wide.level:2:5: error: the map is 1000 x 2 cells; the game shows at most 960 x 720" "$tmp/err" &&
  ok "a map wider than the screen: refused" || bad "a 1000-cell-wide map: $(cat "$tmp/err")"
printf 'name Esc\033[31mRed\nmap warehouse.map\nplayer 3 3\nexit 45 27\nbell\007\033[2J 1\n' >"$tmp/esc.level"
run "$tmp/esc.level" --frames 5 >"$tmp/out"
if [[ $? == 1 ]] && grep -q "esc.level:5:1: error: unknown keyword 'bell??\[2J'" "$tmp/err" && ! grep -q $'\033' "$tmp/err"; then
  ok "a level file's control characters are shown as '?'"
else
  bad "control characters of a level file: $(cat -v "$tmp/err")"
fi
printf 'name Esc\033[31mRed\nmap warehouse.map\nplayer 3 3\nexit 45 27\n' >"$tmp/esc.level"
run "$tmp/esc.level" --frames 5 >"$tmp/out"
grep -q "^Esc?\[31mRed: playing at frame 5" "$tmp/out" && ok "a level name's control characters are shown as '?'" ||
  bad "a level name with an escape: $(cat -v "$tmp/out")"
# A level whose map is missing: one error at its map line (it also said "the level names no map").
printf 'name Lost\nmap nothere.map\nplayer 1 1\nexit 2 2\n' >"$tmp/lost.level"
run "$tmp/lost.level" --frames 5 >/dev/null
if [[ $? == 1 ]] && grep -q "lost.level:2:5: error: map file 'nothere.map' not found" "$tmp/err" &&
  ! grep -q "names no map" "$tmp/err"; then
  ok "a level whose map is missing: at its map line"
else
  bad "a level whose map is missing: $(cat "$tmp/err")"
fi
# Tab (or R) into a level that does not load: refused, shown, and the level being played goes
# on (a failed load into the level being played once left a mixed game, scored "escaped").
mkdir -p "$tmp/lv"
cp "$game/levels/warehouse.level" "$game/levels/warehouse.map" "$tmp/lv/"
cp "$tmp/lost.level" "$tmp/lv/zlost.level"
mkdir -p "$tmp/lv/afolder.level"  # a folder is no level: Tab passes it by
run --levels "$tmp/lv" warehouse --frames 40 --press 5:tab --log "$tmp/tab.log" >"$tmp/out"
if [[ $? == 0 ]] && grep -q "^Warehouse: playing at frame 40" "$tmp/out" && grep -q "zlost.level:2:5: error: map file 'nothere.map' not found" "$tmp/err" &&
  grep -q "showing error: .*zlost.level:2:5: error: map file 'nothere.map' not found" "$tmp/tab.log"; then
  ok "Tab into a level that does not load: refused and shown, the level goes on"
else
  bad "Tab into a bad level: $(cat "$tmp/out" "$tmp/err" | head -5)"
fi
# A second Tab goes on past the level that did not load (it tried that one again and again).
sed 's/^name Warehouse$/name Second/' "$game/levels/warehouse.level" >"$tmp/lv/zzz.level"
run --levels "$tmp/lv" warehouse --frames 40 --press 5:tab --press 10:tab >"$tmp/out"
grep -q "^Second: playing at frame" "$tmp/out" && ok "a second Tab goes on past a level that did not load" ||
  bad "Tab past a bad level: $(cat "$tmp/out" | head -2)"
rm "$tmp/lv/zzz.level"
# Numbers past what an option holds are refused (they wrapped round: --select 4294967298 was 2).
run --frames 5 --select 4294967298 >/dev/null
[[ $? == 2 ]] && grep -q -- "--select takes a whole number from 0 to 4294967295" "$tmp/err" && ok "--select past 2^32: refused" ||
  bad "--select 4294967298: $(cat "$tmp/err")"
run --frames 99999999999999999999999 >/dev/null
[[ $? == 2 ]] && grep -q -- "--frames takes a whole number" "$tmp/err" && ok "--frames past a long: refused" || bad "--frames huge: $(cat "$tmp/err")"
# Arguments that were bent without a word: --threads 0 (raised to 1), a screenshot named .jpg
# (written as a PNG), a second level (the last one played); and "no level" listed the game's
# own levels, not those of the --levels folder in use.
run --frames 5 --threads 0 >/dev/null
[[ $? == 2 ]] && grep -q -- "--threads takes a whole number from 1 to 64, not '0'" "$tmp/err" && ok "--threads 0: refused" ||
  bad "--threads 0: $(cat "$tmp/err")"
run --frames 5 --threads 65 >/dev/null  # the same words as for 0 (it said "from 0 to 64")
[[ $? == 2 ]] && grep -q -- "--threads takes a whole number from 1 to 64, not '65'" "$tmp/err" && ok "--threads 65: refused" ||
  bad "--threads 65: $(cat "$tmp/err")"
# An --edit that can never be made (frame 0, past --frames, no SOURCE) is refused (it was
# ignored without a word); one made is made once, not again when R restarts the frame count.
refused=1
for bad_edit in "0:guard.lua:$tmp/far.lua" "9:guard.lua:$tmp/far.lua" "3:guard.lua:$tmp/none.lua"; do
  run warehouse --frames 5 --edit "$bad_edit" >/dev/null
  [[ $? == 2 ]] && grep -q -- "--edit" "$tmp/err" || { refused=0; bad "--edit $bad_edit: $(head -1 "$tmp/err")"; }
done
[[ $refused == 1 ]] && ok "an --edit that can never be made: refused"
fresh_mods once
cp "$game/mods/guard.lua" "$tmp/near.lua"
run warehouse --frames 20 --mods "$tmp/once" --log "$tmp/once.log" --edit "5:guard.lua:$tmp/far.lua" \
  --edit "7:guard.lua:$tmp/near.lua" --press 9:r >/dev/null
[[ $(grep -c "reload guard.lua" "$tmp/once.log") == 2 ]] && ok "an --edit is made once, whatever R does" ||
  bad "an --edit after R: $(grep 'reload' "$tmp/once.log" | paste -sd';')"
run warehouse --frames 5 --screenshot "$tmp/no/such/folder/x.png" >/dev/null  # said after the run
[[ $? == 2 ]] && grep -q "no/such/folder is no folder" "$tmp/err" && ok "a screenshot's missing folder: said at the start" ||
  bad "a screenshot's missing folder: $(head -1 "$tmp/err")"
run warehouse --frames 5 --log /dev/full >/dev/null  # the log lost, with exit 0
[[ $? == 2 ]] && grep -q "cannot write /dev/full: the log is incomplete" "$tmp/err" && ok "a log that cannot be written: said" ||
  bad "--log /dev/full: $(cat "$tmp/err")"
run --frames 5 --screenshot "$tmp/shot.jpg" >/dev/null
[[ $? == 2 && ! -e $tmp/shot.jpg ]] && grep -q -- "--screenshot writes a PNG: name a .png file, not '.*shot.jpg'" "$tmp/err" &&
  ok "--screenshot x.jpg: refused" || bad "--screenshot x.jpg: $(cat "$tmp/err")"
run warehouse courtyard --frames 5 >/dev/null
[[ $? == 2 ]] && grep -q -- "one level at a time: 'warehouse' and 'courtyard'" "$tmp/err" && ok "two levels: refused" ||
  bad "two levels: $(cat "$tmp/err")"
run --levels "$tmp/lv" nowhere --frames 5 >/dev/null
[[ $? == 2 ]] && grep -q -- "no level .*nowhere.level (levels in .*lv: warehouse, zlost)" "$tmp/err" &&
  ok "no level: the --levels folder's levels listed" || bad "no level: $(cat "$tmp/err")"
# A level named by its path comes once in the Tab cycle (it came twice: the path never equalled
# the levels folder's own name for it). From the courtyard, Tab twice: arena, then warehouse
# (the cycle was courtyard, warehouse, courtyard, arena).
run "$game/levels/../levels/courtyard.level" --frames 10 --press 2:tab --press 4:tab >"$tmp/out"
grep -q "^Warehouse: " "$tmp/out" && ok "a level given by path: once in the Tab cycle" || bad "Tab cycle from a path: $(cat "$tmp/out")"
# guard.yaml declaring a key the game needs with the wrong type: refused at the start, as a
# missing key is (it started, and the game's writes to the key failed without a word).
fresh_mods typed
sed -i 's/^  x: 0.0/  x: "here"/' "$tmp/typed/guard.yaml"
run warehouse --frames 5 --mods "$tmp/typed" >/dev/null
[[ $? == 1 ]] && grep -q "guard.yaml: error: guard.yaml's blackboard key 'x' is string; the game needs a number there" "$tmp/err" &&
  ok "a key of the wrong type is refused" || bad "a key of the wrong type: $(cat "$tmp/err")"
fresh_mods route
sed -i 's/^  route: .*/  route: 0/' "$tmp/route/guard.yaml"
run warehouse --frames 5 --mods "$tmp/route" >/dev/null
[[ $? == 1 ]] && grep -q "guard.yaml's blackboard key 'route' is number; the game gives each guard its round there as text" "$tmp/err" &&
  ok "a route of the wrong type is refused (every guard stood still)" || bad "a route of the wrong type: $(cat "$tmp/err")"
# A level that is a pipe or a device: refused (a pipe nothing writes to froze the game, and
# /dev/zero's endless line took all the memory).
mkfifo "$tmp/fifo.level"
timeout 20 ./thicket-game "$tmp/fifo.level" --frames 2 >/dev/null 2>"$tmp/err"
[[ $? == 1 ]] && grep -q "not a plain file" "$tmp/err" && ok "a level that is a pipe is refused" ||
  bad "a level that is a pipe: $(cat "$tmp/err")"
# --bench stops on Ctrl-C as the game does (SDL makes SIGINT a quit event, which it never polled).
timeout --preserve-status -s INT -k 20 3 ./thicket-game --bench --frames 100000 --threads 1 >"$tmp/bench" 2>"$tmp/err"
rc=$?
[[ $rc == 130 ]] && grep -q "stopped" "$tmp/bench" && ok "--bench stops on Ctrl-C" ||
  bad "--bench and Ctrl-C: exit $rc ($(tail -1 "$tmp/bench"))"
ln -s /dev/zero "$tmp/zero.level"
timeout 20 ./thicket-game "$tmp/zero.level" --frames 2 >/dev/null 2>"$tmp/err"
[[ $? == 1 ]] && grep -q "not a plain file" "$tmp/err" && ok "a level that is a device is refused" ||
  bad "a level that is a device: $(cat "$tmp/err")"
fresh_mods nomods
rm "$tmp/nomods/guard.lua"
run warehouse --frames 10 --mods "$tmp/nomods" >/dev/null
[[ $? == 1 ]] && grep -q "guard.lua" "$tmp/err" && ok "a missing guard.lua: $(head -1 "$tmp/err")" || bad "a missing guard.lua: $(cat "$tmp/err")"

if [[ $failures == 0 ]]; then
  echo "game: ok"
else
  echo "game: $failures FAILED"
  exit 1
fi
