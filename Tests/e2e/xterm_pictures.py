#!/usr/bin/env python3
"""xterm_pictures.py - the reader in a real terminal that draws sixel graphics: xterm -ti vt340
under Xvfb. The reader asks the terminal what it can draw (xterm -ti vt340 answers DA1 with
the sixel attribute), opens an article whose picture is four coloured squares (red, green /
blue, yellow) served on 127.0.0.1, and a screenshot of the X screen (xwd) must show the four
colours in their places: red left of green, blue under red, yellow under green, each square
about as large as the others, below the top of the window.

Skips (exit 0, "skipped") when Xvfb, xterm or xwd is missing.
usage: Tests/e2e/xterm_pictures.py    env: ZEADER=.build/debug/zeader
"""
import os
import shutil
import signal
import struct
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import tui_pictures  # noqa: E402  (the feed, the picture and the server)

# Runs inside xterm: the reader on a pty of its own, relayed both ways, so that the keys that
# open the article can be typed once its feed list is up.
RELAY = r'''
import fcntl, os, select, signal, sys, termios, tty
master, slave = os.openpty()
fcntl.ioctl(slave, termios.TIOCSWINSZ, fcntl.ioctl(0, termios.TIOCGWINSZ, b"\0" * 8))
reader = os.fork()
if reader == 0:
    os.close(master)
    os.setsid()
    fcntl.ioctl(slave, termios.TIOCSCTTY, 0)
    for fd in (0, 1, 2):
        os.dup2(slave, fd)
    os.execv(os.environ["ZEADER"], [os.environ["ZEADER"]])
os.close(slave)
with open(sys.argv[1], "w") as pids:
    pids.write("%d %d" % (os.getpid(), reader))
tty.setraw(0)
typed, seen = False, bytearray()
try:
    while True:
        ready, _, _ = select.select([0, master], [], [])
        if master in ready:
            data = os.read(master, 65536)
            if not data:
                break
            os.write(1, data)
            seen.extend(data)
            del seen[:-4096]
            if not typed and b"Pictures" in seen:
                typed = True
                os.write(master, b"\r")
                select.select([], [], [], 0.5)
                os.write(master, b"\r")
        if 0 in ready:
            data = os.read(0, 1024)
            if not data:
                break
            os.write(master, data)
except OSError:
    pass
finally:
    os.kill(reader, signal.SIGKILL)
    os.waitpid(reader, 0)
'''


def read_xwd(path):
    data = open(path, "rb").read()
    header = struct.unpack(">25I", data[:100])
    size, width, height = header[0], header[4], header[5]
    byte_order, bits, line = header[7], header[11], header[12]
    ncolors = header[19]
    offset = size + ncolors * 12
    assert bits == 32, "expected a 32-bit screen, got %d" % bits
    masks = header[14:17]

    def pixel(x, y):
        raw = data[offset + y * line + x * 4:offset + y * line + x * 4 + 4]
        value = struct.unpack("<I" if byte_order == 0 else ">I", raw)[0]
        out = []
        for mask in masks:
            shift = (mask & -mask).bit_length() - 1
            out.append((value & mask) >> shift)
        return tuple(out)

    return width, height, pixel


def regions(width, height, pixel):
    """The bounding boxes and pixel counts of each test colour on the screen (every other pixel)."""
    found = {}
    for y in range(0, height, 2):
        for x in range(0, width, 2):
            p = pixel(x, y)
            for name, colour in zip(("red", "green", "blue", "yellow"), tui_pictures.COLOURS):
                if all(abs(a - b) <= 40 for a, b in zip(p, colour)):
                    box = found.setdefault(name, [x, y, x, y, 0])
                    box[0], box[1] = min(box[0], x), min(box[1], y)
                    box[2], box[3] = max(box[2], x), max(box[3], y)
                    box[4] += 1
    return found


def main():
    if not all(shutil.which(tool) for tool in ("Xvfb", "xterm", "xwd")):
        print("xterm-pictures: skipped (Xvfb, xterm or xwd missing)")
        return 0
    zeader = tui_pictures.ZEADER
    server = tui_pictures.serve()
    port = server.server_address[1]
    home = tempfile.mkdtemp(prefix="zeader-xterm-")
    display = ":%d" % (90 + os.getpid() % 100)
    xvfb = subprocess.Popen(["Xvfb", display, "-screen", "0", "1024x768x24", "-nolisten", "tcp"],
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    xterm = None
    failures = []
    try:
        env = tui_pictures.environment(home, {"DISPLAY": display, "ZEADER": zeader})
        subprocess.run([zeader, "add", "http://127.0.0.1:%d/feed.xml" % port], env=env, check=True,
                       stdout=subprocess.DEVNULL)
        subprocess.run([zeader, "refresh"], env=env, check=True, stdout=subprocess.DEVNULL)
        with open(home + "/relay.py", "w") as relay:
            relay.write(RELAY)
        time.sleep(1.0)
        xterm = subprocess.Popen(
            ["xterm", "-ti", "vt340", "-geometry", "100x40+0+0", "-fa", "", "-fn", "fixed", "-bg", "black",
             "-fg", "white", "-xrm", "XTerm*decGraphicsID: vt340", "-xrm", "XTerm*numColorRegisters: 256",
             "-e", sys.executable, home + "/relay.py", home + "/relay.pids"],
            env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        found = {}
        # Generous: the reader starts, asks xterm what it draws and fetches the picture, on a machine
        # that may be running the rest of the suite.
        deadline = time.monotonic() + 180
        shot = home + "/screen.xwd"
        while time.monotonic() < deadline:
            time.sleep(1.0)
            subprocess.run(["xwd", "-root", "-silent", "-display", display, "-out", shot], env=env, check=True)
            found = regions(*read_xwd(shot))
            if "red" in found and "green" in found:
                time.sleep(1.0)  # the whole picture, not its first bands
                subprocess.run(["xwd", "-root", "-silent", "-display", display, "-out", shot], env=env, check=True)
                found = regions(*read_xwd(shot))
                break
        if "red" not in found:
            failures.append("no red square on the screen: %s" % sorted(found))
        else:
            # The red square is the only red on the screen; the others are where the picture puts
            # them relative to it (xterm's own blue and yellow text colours are elsewhere).
            width, height, pixel = read_xwd(shot)
            x0, y0, x1, y1, _ = found["red"]
            side = x1 - x0
            cx, cy = (x0 + x1) // 2, (y0 + y1) // 2
            for name, (dx, dy), colour in zip(("red", "green", "blue", "yellow"), [(0, 0), (1, 0), (0, 1), (1, 1)],
                                              tui_pictures.COLOURS):
                got = pixel(min(width - 1, cx + dx * side), min(height - 1, cy + dy * side))
                if not all(abs(a - b) <= 40 for a, b in zip(got, colour)):
                    failures.append("%s square: %r at (%d, %d)" % (name, got, cx + dx * side, cy + dy * side))
            if side < 20 or abs((y1 - y0) - side) > 8:
                failures.append("the red square is %d x %d pixels" % (side, y1 - y0))
            if y0 < 40:
                failures.append("the picture starts at y=%d, over the title bar" % y0)
            print("xterm-pictures: the picture's red square at (%d, %d)-(%d, %d); green, blue and yellow beside and"
                  " under it" % (x0, y0, x1, y1))
        if os.environ.get("XTERM_PICTURES_SCREENSHOT"):
            shutil.copy(shot, os.environ["XTERM_PICTURES_SCREENSHOT"])
    finally:
        # The relay and the reader, should xterm's end not reach them.
        try:
            for pid in open(home + "/relay.pids").read().split():
                try:
                    os.kill(int(pid), signal.SIGKILL)
                except ProcessLookupError:
                    pass
        except OSError:
            pass
        for process in (xterm, xvfb):
            if process is None:
                continue
            process.terminate()
            try:
                process.wait(timeout=10)
            except subprocess.TimeoutExpired:
                process.kill()
                process.wait()
        server.shutdown()
        shutil.rmtree(home, ignore_errors=True)
    for failure in failures:
        print("FAIL " + failure)
    print("xterm-pictures: %d failed" % len(failures))
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
