#!/usr/bin/env python3
"""Pixel checks of a thicket-game screenshot (tests/game_test.sh): not a golden image, but the
things that must be there. Reads the PNG with the standard library alone.

  check_screenshot.py SHOT.png "screenshot SHOT.png: 1280x720, player at (x, y), guard 2 at (x, y), ..."
                      [--banner] [--debugger]

Checks: the size; the map (floor, wall and exit colours in quantity); the player's blue at its
position; a guard colour (calm, alert or chase) at each guard's position; the side panel;
with --banner the red error banner at the top left; with --debugger the debugger's box."""
import re
import struct
import sys
import zlib

FLOOR = (206, 200, 184)
BLOCKED = [(52, 54, 64), (46, 96, 58), (50, 90, 150)]  # walls, trees, water
PLAYER = (30, 110, 250)
GUARDS = [(235, 190, 30), (250, 130, 0), (225, 30, 30)]
PANEL = (28, 30, 38)
DEBUGGER_BOX = (46, 47, 51)  # (16, 18, 26) at alpha 215 over the floor


def read_png(path):
    data = open(path, "rb").read()
    if data[:8] != b"\x89PNG\r\n\x1a\n":
        sys.exit(f"{path}: not a PNG")
    pos, chunks, width = 8, [], 0
    idat = b""
    while pos < len(data):
        length, kind = struct.unpack(">I4s", data[pos:pos + 8])
        body = data[pos + 8:pos + 8 + length]
        pos += 12 + length
        if kind == b"IHDR":
            width, height, depth, colour, _, _, interlace = struct.unpack(">IIBBBBB", body)
            if depth != 8 or colour not in (2, 6) or interlace:
                sys.exit(f"{path}: expected 8-bit RGB or RGBA, not interlaced (depth {depth}, colour type {colour})")
            channels = 3 if colour == 2 else 4
        elif kind == b"IDAT":
            idat += body
    raw = zlib.decompress(idat)
    stride = width * channels
    rows, prev = [], bytearray(stride)
    for y in range(height):
        f = raw[y * (stride + 1)]
        line = bytearray(raw[y * (stride + 1) + 1:(y + 1) * (stride + 1)])
        for i in range(stride):
            a = line[i - channels] if i >= channels else 0
            b = prev[i]
            c = prev[i - channels] if i >= channels else 0
            if f == 1:
                line[i] = (line[i] + a) & 255
            elif f == 2:
                line[i] = (line[i] + b) & 255
            elif f == 3:
                line[i] = (line[i] + (a + b) // 2) & 255
            elif f == 4:
                p = a + b - c
                pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
                pred = a if pa <= pb and pa <= pc else (b if pb <= pc else c)
                line[i] = (line[i] + pred) & 255
        rows.append(line)
        prev = line
    return width, height, channels, rows


def main():
    args = [a for a in sys.argv[1:] if not a.startswith("--")]
    flags = {a for a in sys.argv[1:] if a.startswith("--")}
    path, info = args[0], args[1]
    width, height, channels, rows = read_png(path)

    def px(x, y):
        r = rows[y]
        return tuple(r[x * channels:x * channels + 3])

    failures = []
    m = re.search(r": (\d+)x(\d+)", info)
    if not m or (int(m.group(1)), int(m.group(2))) != (width, height):
        failures.append(f"size {width}x{height}, the game said {info}")
    counts = {}
    for y in range(height):
        r = rows[y]
        for x in range(0, width * channels, channels):
            c = (r[x], r[x + 1], r[x + 2])
            counts[c] = counts.get(c, 0) + 1

    def near(c, want, tol=3):
        return all(abs(a - b) <= tol for a, b in zip(c, want))

    def count_near(want, tol=3):
        return sum(n for c, n in counts.items() if near(c, want, tol))

    n = counts.get(FLOOR, 0)
    if n < 20000:
        failures.append(f"floor colour {FLOOR}: {n} pixels, expected >= 20000")
    n = sum(counts.get(c, 0) for c in BLOCKED)
    if n < 5000:
        failures.append(f"walls, trees and water: {n} pixels, expected >= 5000")
    # The exit's green, maybe under a guard's translucent cone.
    n = sum(k for c, k in counts.items() if c[1] >= 150 and c[0] <= 120 and c[2] <= 120)
    if n < 60:
        failures.append(f"exit: {n} green pixels, expected >= 60")

    # Where the game says the exit is, its green (the map picture is cached between frames:
    # it must be the level's own, also after R or Tab).
    # (Unless someone stands on it.)
    m = re.search(r"exit at \((\d+), (\d+)\)", info)
    covered = m and any(abs(int(x) - int(m.group(1))) <= 12 and abs(int(y) - int(m.group(2))) <= 12
                        for _, x, y in re.findall(r"(player|guard \d+) at \((\d+), (\d+)\)", info))
    if m and not covered:
        ex, ey = int(m.group(1)), int(m.group(2))
        c = px(ex, ey)
        if not (c[1] >= 150 and c[0] <= 120 and c[2] <= 120):
            failures.append(f"exit at ({ex}, {ey}): colour {c}, not the exit's green")

    def around(x, y, colours, radius=6, least=10):
        n = 0
        for yy in range(max(0, y - radius), min(height, y + radius + 1)):
            for xx in range(max(0, x - radius), min(width, x + radius + 1)):
                if px(xx, yy) in colours:
                    n += 1
        return n >= least, n

    agents = re.findall(r"(player|guard \d+) at \((\d+), (\d+)\)", info)
    if not any(a[0] == "player" for a in agents):
        failures.append("the game named no player position")
    guards = 0
    m = re.search(r"debugger box (\d+) (\d+) (\d+) (\d+)", info)
    box_rect = tuple(int(v) for v in m.groups()) if m else None
    for who, x, y in agents:
        if "--banner" in flags and int(x) < 600 and int(y) < 120:
            continue  # under the banner
        if box_rect and box_rect[0] <= int(x) < box_rect[0] + box_rect[2] and box_rect[1] <= int(y) < box_rect[1] + box_rect[3]:
            continue  # under the debugger's box
        ok, n = around(int(x), int(y), [PLAYER] if who == "player" else GUARDS)
        if not ok:
            failures.append(f"{who} at ({x}, {y}): {n} pixels of its colour around it")
        guards += who != "player"
    if guards == 0:
        failures.append("the game named no guard position")
    if px(width - 5, height - 5) != PANEL:
        failures.append(f"side panel: pixel {px(width - 5, height - 5)} at the bottom right, expected {PANEL}")
    if "--banner" in flags:
        c = px(10, 10)
        if not (c[0] > 70 and c[1] < 40 and c[2] < 45):
            failures.append(f"no error banner: pixel {c} at (10, 10)")
    elif px(10, 10)[0] > 70 and px(10, 10)[1] < 40:
        failures.append("an error banner where none should be")
    if "--debugger" in flags:
        # The box the game says it drew: mostly its dark colour (over floor or walls), framed.
        if not box_rect:
            failures.append("the game drew no debugger box")
        else:
            x0, y0, w, h = box_rect
            dark = sum(1 for yy in range(y0, y0 + h) for xx in range(x0, x0 + w) if max(px(xx, yy)) < 70)
            if dark < w * h // 2:
                failures.append(f"debugger box {box_rect}: only {dark} of {w * h} pixels dark")
            if count_near(DEBUGGER_BOX) < 1000:
                failures.append("no debugger box colour over the floor")
    elif box_rect:
        failures.append("a debugger box where none should be")
    if failures:
        print(f"{path}: " + "; ".join(failures))
        sys.exit(1)
    print(f"{path}: map, exit, player, {guards} guards, panel" + (", banner" if "--banner" in flags else "") +
          (", debugger" if "--debugger" in flags else "") + " present")


main()
