#!/usr/bin/env python3
"""pictures_open_bench.py - how long the reader takes to show its first screen and to show an
article's text with a picture in it, on a pseudo-terminal that answers as kitty (or as a
terminal without pictures), with image-display auto and none; and the same inside tmux with
its passthrough on and off. Prints the median and range of ROUNDS runs of each, in ms: the
start is from the reader's launch to its feed list, the open from ENTER on the item to the
article's last paragraph before the picture's place.

usage: Tests/e2e/pictures_open_bench.py [ROUNDS]    env: ZEADER=.build/debug/zeader
"""
import fcntl
import os
import select
import shutil
import signal
import statistics
import struct
import subprocess
import sys
import tempfile
import termios
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import tui_pictures as tp  # noqa: E402


def once(env, argv, kitty):
    """(start, open) in seconds for one run of `argv` on a new pty."""
    master, slave = os.openpty()
    fcntl.ioctl(slave, termios.TIOCSWINSZ, struct.pack("HHHH", 40, 100, 600, 800))
    launched = time.monotonic()
    pid = os.fork()
    if pid == 0:
        os.close(master)
        os.setsid()
        fcntl.ioctl(slave, termios.TIOCSCTTY, 0)
        for fd in (0, 1, 2):
            os.dup2(slave, fd)
        os.execve(argv[0], argv, env)
    os.close(slave)
    output = bytearray()
    start = opened = None
    pressed = None
    deadline = launched + 20
    while time.monotonic() < deadline and opened is None:
        ready, _, _ = select.select([master], [], [], 0.01)
        if ready:
            try:
                data = os.read(master, 65536)
            except OSError:
                break
            output += data
            if b"\x1b_Gi=31," in data:
                os.write(master, b"\x1b_Gi=31;OK\x1b\\" if kitty else b"")
            if b"\x1b[5n" in data:
                os.write(master, b"\x1b[0n")
            if b"\x1b[c" in data:
                os.write(master, b"\x1b[?62;22c")
        if start is None and b"Pictures" in output:
            start = time.monotonic() - launched
            time.sleep(0.3)
            os.write(master, b"\r")
            time.sleep(0.3)
            output.clear()
            pressed = time.monotonic()
            os.write(master, b"\r")
        if pressed is not None and b"Before the picture." in output:
            opened = time.monotonic() - pressed
    os.write(master, b"qq")
    time.sleep(0.2)
    try:
        os.kill(pid, signal.SIGKILL)
    except ProcessLookupError:
        pass
    os.waitpid(pid, 0)
    os.close(master)
    return start, opened


def main():
    rounds = int(sys.argv[1]) if len(sys.argv) > 1 else 7
    server = tp.serve()
    port = server.server_address[1]
    home = tempfile.mkdtemp(prefix="zeader-open-bench-")
    try:
        env = tp.environment(home, {"KITTY_WINDOW_ID": "1"})
        subprocess.run([tp.ZEADER, "add", "http://127.0.0.1:%d/feed.xml" % port], env=env, check=True,
                       stdout=subprocess.DEVNULL)
        subprocess.run([tp.ZEADER, "refresh"], env=env, check=True, stdout=subprocess.DEVNULL)
        config = home + "/.config/zeader/config"
        os.makedirs(os.path.dirname(config), exist_ok=True)
        tmux_conf = home + "/tmux.conf"
        cases = [("kitty terminal, auto", "auto", True, None), ("kitty terminal, none", "none", True, None),
                 ("no pictures terminal, auto", "auto", False, None)]
        if shutil.which("tmux"):
            cases += [("tmux, passthrough on, auto", "auto", True, "on"),
                      ("tmux, passthrough off, auto", "auto", True, "off")]
        for name, display, kitty, passthrough in cases:
            with open(config, "w") as f:
                f.write("image-display %s\n" % display)
            argv = [tp.ZEADER]
            if passthrough:
                with open(tmux_conf, "w") as f:
                    f.write("set -g allow-passthrough %s\nset -g status off\n" % passthrough)
                argv = [shutil.which("tmux"), "-S", home + "/tmux.sock", "-f", tmux_conf, "new-session", tp.ZEADER]
            starts, opens = [], []
            for _ in range(rounds):
                shutil.rmtree(home + "/.cache", ignore_errors=True)
                start, opened = once(env, argv, kitty)
                if start is not None and opened is not None:
                    starts.append(start * 1000)
                    opens.append(opened * 1000)
                if passthrough:
                    subprocess.run(["tmux", "-S", home + "/tmux.sock", "kill-server"], env=env,
                                   stderr=subprocess.DEVNULL)
            if not starts:
                print("%-30s no run finished" % name)
                continue
            print("%-30s start %6.0f ms (%.0f-%.0f)   open %5.0f ms (%.0f-%.0f)   %d runs" % (
                name, statistics.median(starts), min(starts), max(starts), statistics.median(opens), min(opens),
                max(opens), len(starts)))
    finally:
        server.shutdown()
        shutil.rmtree(home, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
