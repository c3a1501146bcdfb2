#!/usr/bin/env python3
"""tmux_pictures.py - the real reader inside the real tmux, in the right-hand pane of a split
window; tmux runs on a pseudo-terminal made here, which plays the outer terminal: a kitty
that answers the graphics query OK and the status report (`ESC [ 5 n`).

  on   allow-passthrough on: the reader's query reaches the outer terminal and its answers
       come back, so the picture goes through the passthrough: its data once (colours read
       back), placed at the pane's place in the outer terminal; scrolling sends placements
       only; leaving the article frees the image.
  off  allow-passthrough off: the query gets no answer within the wait, the picture is a
       mosaic in the pane (its colours in tmux's copy of the pane), nothing reaches the
       outer terminal's graphics.

The feed and the picture come from an HTTP server on 127.0.0.1 (tui_pictures.py's).
usage: Tests/e2e/tmux_pictures.py    env: ZEADER=.build/debug/zeader
"""
import os
import re
import select
import shutil
import signal
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import tui_pictures as tp  # noqa: E402

BOUND = 20.0


def run_in_tmux(home, passthrough, failures):
    """tmux on a new pty of 40 rows and 100 columns, the reader in a 60-column pane on the
    right; answers as kitty, opens the first item, scrolls, leaves and quits. Returns what
    tmux wrote to its terminal, the offsets where scrolling and leaving began, and tmux's
    copy of the reader's pane once the picture had time to come."""
    sock = os.path.join(home, "tmux-%s.sock" % passthrough)
    conf = os.path.join(home, "tmux.conf")
    with open(conf, "w") as f:
        f.write("set -g allow-passthrough %s\nset -g status off\nset -sg escape-time 10\n" % passthrough)
    env = tp.environment(home, {})
    pid, master = tp.spawn_on_pty(["tmux", "-S", sock, "-f", conf, "new-session", "sleep 600", ";",
                                   "split-window", "-h", "-l", "60", tp.ZEADER], env)
    output = bytearray()
    marks = {}

    def pump(seconds, until=None):
        end = time.monotonic() + seconds
        while time.monotonic() < end:
            ready, _, _ = select.select([master], [], [], 0.05)
            if ready:
                try:
                    data = os.read(master, 65536)
                except OSError:
                    return False
                output.extend(data)
                # The outer kitty's answers to what reaches it.
                if b"\x1b_Gi=31," in data:
                    os.write(master, b"\x1b_Gi=31;OK\x1b\\")
                if b"\x1b[5n" in data:
                    os.write(master, b"\x1b[0n")
            if until is not None and until():
                return True
        return False

    def tmux(*args):
        return subprocess.run(["tmux", "-S", sock] + list(args), env=env, capture_output=True, text=True).stdout

    pump(BOUND, lambda: "Pictures" in tmux("capture-pane", "-p"))
    pump(0.5)
    os.write(master, b"\r")
    pump(0.3)
    os.write(master, b"\r")
    pump(3.0, lambda: b"a=t," in output)
    pump(1.0)
    pane = tmux("display-message", "-p", "#{pane_top} #{pane_left} #{pane_width}").split()
    screen = tmux("capture-pane", "-e", "-p")
    marks["scrolled"] = len(output)
    for _ in range(12):
        os.write(master, b"\x1bOB")
        pump(0.1)
    pump(1.0)
    marks["left"] = len(output)
    os.write(master, b"q")
    pump(0.5)
    marks["list"] = len(output)
    os.write(master, b"q")
    pump(1.0)
    # SIGKILL: a test runner's thread may block SIGTERM, which kill-server sends, and the
    # server would live on with the reader.
    server_pid = tmux("display-message", "-p", "#{pid}").strip()
    tmux("kill-server")
    for victim in ([int(server_pid)] if server_pid.isdigit() else []) + [pid]:
        try:
            os.kill(victim, signal.SIGKILL)
        except ProcessLookupError:
            pass
    os.waitpid(pid, 0)
    os.close(master)
    return bytes(output), marks, [int(n) for n in pane], screen


def check_on(home, failures):
    output, marks, pane, _ = run_in_tmux(home, "on", failures)
    top, left, width = pane
    if left < 30 or width != 60:
        failures.append("on: the reader's pane is at column %d, %d wide" % (left, width))
    first = re.search(rb"\x1b7\x1b\[(\d+);(\d+)H(\x1b_Gq=2,a=t,.*?)\x1b8", output, re.S)
    if first is None:
        failures.append("on: no kitty picture reached the outer terminal (%d bytes)" % len(output))
        return
    row, column, data = int(first.group(1)), int(first.group(2)), first.group(3)
    if column != left + 1 or not top + 2 <= row <= top + 39:
        failures.append("on: the picture at row %d, column %d, not in the pane at column %d" % (row, column, left + 1))
    w, h, colour = tp.kitty(data)
    for (fx, fy), expected in zip([(0.25, 0.25), (0.75, 0.25), (0.25, 0.75), (0.75, 0.75)], tp.COLOURS):
        got = colour(min(w - 1, int(w * fx)), min(h - 1, int(h * fy)))
        if not tp.near(got, expected):
            failures.append("on: %r at (%s, %s), expected %r" % (got, fx, fy, expected))
    print("on: the kitty picture through the passthrough at row %d, column %d, %dx%d" % (row, column, w, h))
    scrolling = output[marks["scrolled"]:marks["left"]]
    places = re.findall(rb"\x1b7\x1b\[(\d+);(\d+)H\x1b_Ga=p,", scrolling)
    if output.count(b"a=t,") != 1 or not places or any(int(c) != left + 1 for _, c in places):
        failures.append("on: scrolling sent the data %d times, %d placements at columns %r"
                        % (output.count(b"a=t,"), len(places), sorted({c for _, c in places})))
    else:
        print("on: scrolling sent %d placements, no data" % len(places))
    image = re.search(rb"a=t,i=(\d+)", output).group(1)
    if b"a=d,d=I,i=" + image not in output[marks["left"]:marks["list"]]:
        failures.append("on: leaving the article did not free image %s" % image.decode())


def check_off(home, failures):
    output, _, _, screen = run_in_tmux(home, "off", failures)
    if b"\x1b_Gi=31," in output or b"_Gq=2" in output:
        failures.append("off: graphics reached the outer terminal")
    # The mosaic's red square, in tmux's copy of the pane.
    colours = set(re.findall(r"\x1b\[[0-9;]*[34]8;2;(\d+);(\d+);(\d+)", screen))
    red = any(int(r) > 200 and int(g) < 60 and int(b) < 60 for r, g, b in colours)
    yellow = any(int(r) > 200 and int(g) > 200 and int(b) < 60 for r, g, b in colours)
    if not (red and yellow and "Before the picture." in screen):
        failures.append("off: no mosaic in the pane (%d colours)" % len(colours))
    else:
        print("off: no answer through tmux, a mosaic in the pane")


def main():
    if not os.path.exists(tp.ZEADER):
        print("missing %s" % tp.ZEADER)
        return 1
    if shutil.which("tmux") is None:
        print("tmux-pictures: skipped, no tmux")
        return 0
    server = tp.serve()
    port = server.server_address[1]
    home = tempfile.mkdtemp(prefix="zeader-tmux-pictures-")
    failures = []
    try:
        base = tp.environment(home, {})
        subprocess.run([tp.ZEADER, "add", "http://127.0.0.1:%d/feed.xml" % port], env=base, check=True,
                       stdout=subprocess.DEVNULL)
        subprocess.run([tp.ZEADER, "refresh"], env=base, check=True, stdout=subprocess.DEVNULL)
        check_on(home, failures)
        shutil.rmtree(home + "/.cache", ignore_errors=True)
        check_off(home, failures)
    finally:
        server.shutdown()
        shutil.rmtree(home, ignore_errors=True)
    for failure in failures:
        print("FAIL " + failure)
    print("tmux-pictures: %d failed" % len(failures))
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
