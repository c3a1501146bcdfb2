#!/usr/bin/env python3
"""pictures_memory.py - the reader's peak RSS (VmHWM) on an article of 50 pictures of
1024 x 1024 pixels, paged through to its end on a pseudo-terminal, with image-display symbols
and sixel and with none. Prints one line per mode and the differences; exits 1 when a mode's
peak exceeds none's by more than 40 MB.

usage: Tests/e2e/pictures_memory.py    env: ZEADER=.build/debug/zeader
"""
import http.server
import os
import select
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time
import zlib

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import tui_pictures  # noqa: E402

PICTURES = 50


def serve():
    png = tui_pictures.squares_png(side=512)

    class Handler(http.server.BaseHTTPRequestHandler):
        def do_GET(self):
            port = self.server.server_address[1]
            if self.path.startswith("/p") and self.path.endswith(".png"):
                body, kind = png, "image/png"
            elif self.path == "/feed.xml":
                html = "".join("&lt;p&gt;Paragraph %d.&lt;/p&gt;&lt;p&gt;&lt;img src=\"http://127.0.0.1:%d/p%d.png\" "
                               "alt=\"P%d\"&gt;&lt;/p&gt;" % (n, port, n, n) for n in range(PICTURES))
                body = ("<?xml version=\"1.0\"?><rss version=\"2.0\"><channel><title>Pictures</title>"
                        "<item><guid>p1</guid><title>Fifty</title><description>%s</description></item>"
                        "</channel></rss>" % html).encode()
                kind = "application/rss+xml"
            else:
                self.send_error(404)
                return
            self.send_response(200)
            self.send_header("Content-Type", kind)
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def log_message(self, *args):
            pass

    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return server


def peak_rss(env):
    pid, master = tui_pictures.spawn_on_pty([tui_pictures.ZEADER], env, pixels=(800, 800))
    peak = 0
    start = time.monotonic()
    steps = [(1.0, b"\r"), (1.5, b"\r")] + [(3.0 + 0.8 * n, b"\x1b[6~") for n in range(60)]
    answered = False
    output = bytearray()
    while time.monotonic() - start < 3.0 + 0.8 * 60 + 3:
        ready, _, _ = select.select([master], [], [], 0.05)
        if ready:
            try:
                output += os.read(master, 1 << 20)
                del output[:-256]
            except OSError:
                break
        if not answered and b"\x1b[c" in output:
            answered = True
            os.write(master, b"\x1b[?63;1;2;4;22c")
        elapsed = time.monotonic() - start
        while steps and steps[0][0] <= elapsed:
            os.write(master, steps.pop(0)[1])
        try:
            for line in open("/proc/%d/status" % pid):
                if line.startswith("VmHWM:"):
                    peak = max(peak, int(line.split()[1]))
        except OSError:
            break
    os.write(master, b"qqq")
    time.sleep(1)
    try:
        os.kill(pid, signal.SIGKILL)
    except ProcessLookupError:
        pass
    os.waitpid(pid, 0)
    os.close(master)
    return peak


def main():
    server = serve()
    port = server.server_address[1]
    home = tempfile.mkdtemp(prefix="zeader-memory-")
    try:
        env = tui_pictures.environment(home, {})
        subprocess.run([tui_pictures.ZEADER, "add", "http://127.0.0.1:%d/feed.xml" % port], env=env, check=True,
                       stdout=subprocess.DEVNULL)
        subprocess.run([tui_pictures.ZEADER, "refresh"], env=env, check=True, stdout=subprocess.DEVNULL)
        os.makedirs(home + "/.config/zeader", exist_ok=True)
        peaks = {}
        for mode in ("none", "symbols", "sixel"):
            with open(home + "/.config/zeader/config", "w") as config:
                config.write("image-display %s\n" % mode)
            shutil.rmtree(home + "/.cache", ignore_errors=True)
            peaks[mode] = peak_rss(env)
            cache = home + "/.cache/zeader/images"
            fetched = len(os.listdir(cache)) if os.path.isdir(cache) else 0
            print("%-8s peak RSS %6.1f MB, %d pictures fetched" % (mode, peaks[mode] / 1024, fetched))
    finally:
        server.shutdown()
        shutil.rmtree(home, ignore_errors=True)
    worst = max(peaks[m] - peaks["none"] for m in ("symbols", "sixel")) / 1024
    print("pictures-memory: %d pictures of 1024 x 1024, at most %.1f MB over none" % (PICTURES, worst))
    return 0 if worst <= 40 else 1


if __name__ == "__main__":
    sys.exit(main())
