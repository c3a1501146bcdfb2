#!/usr/bin/env python3
"""tui_pictures.py - the real reader on a pseudo-terminal made here, with a picture in an
article: the terminal's answers to the reader's queries are simulated per protocol, and what
the reader writes is decoded back. The test picture is four coloured squares (red, green /
blue, yellow); each protocol's picture must show each colour in its quarter.

  kitty    TERM=xterm-kitty, answers the graphics query OK (and DA1)
  sixel    TERM=xterm, DA1 lists attribute 4 (xterm -ti vt340)
  iterm    TERM_PROGRAM=iTerm.app, DA1 without sixel
  symbols  DA1 without sixel: colour mosaics
  silent   a terminal that answers nothing: the wait ends at its bound, then symbols
  none     image-display none: no picture is sent at all

kitty, sixel and iterm then scroll until the picture's top 6 of its 8 rows are above the
window: kitty sends placements only (its data went once), the last one its bottom 2 rows cut
from the picture, and frees the image on leaving the article; sixel and iTerm2 draw the
encoding of those 2 rows (blue and yellow only).

The feed and the picture come from an HTTP server on 127.0.0.1 started here.
usage: Tests/e2e/tui_pictures.py    env: ZEADER=.build/debug/zeader
"""
import base64
import fcntl
import http.server
import os
import re
import select
import shutil
import signal
import struct
import subprocess
import sys
import tempfile
import termios
import threading
import time
import zlib

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
ZEADER = os.path.realpath(os.environ.get("ZEADER", os.path.join(ROOT, ".build/debug/zeader")))
BOUND = 20.0
COLOURS = [(255, 0, 0), (0, 255, 0), (0, 0, 255), (255, 255, 0)]


def squares_png(side=64):
    rows = []
    for y in range(2 * side):
        row = bytearray(b"\x00")
        for x in range(2 * side):
            row += bytes(COLOURS[(y // side) * 2 + x // side])
        rows.append(bytes(row))

    def chunk(kind, data):
        return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data) & 0xFFFFFFFF)

    header = struct.pack(">IIBBBBB", 2 * side, 2 * side, 8, 2, 0, 0, 0)
    return (b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", header) + chunk(b"IDAT", zlib.compress(b"".join(rows)))
            + chunk(b"IEND", b""))


def serve():
    png = squares_png()

    class Handler(http.server.BaseHTTPRequestHandler):
        def do_GET(self):
            if self.path == "/squares.png":
                body, kind = png, "image/png"
            elif self.path == "/feed.xml":
                port = self.server.server_address[1]
                html = ("&lt;p&gt;Before the picture.&lt;/p&gt;&lt;p&gt;&lt;img src=\"http://127.0.0.1:%d/squares.png\" "
                        "alt=\"Squares\" width=\"128\" height=\"128\"&gt;&lt;/p&gt;&lt;p&gt;After the picture.&lt;/p&gt;" % port
                        + "&lt;p&gt;More text.&lt;/p&gt;" * 60)
                body = ("<?xml version=\"1.0\"?><rss version=\"2.0\"><channel><title>Pictures</title>"
                        "<link>http://127.0.0.1:%d/</link><item><guid>p1</guid><title>Squares</title>"
                        "<link>http://127.0.0.1:%d/p1</link><description>%s</description></item></channel></rss>"
                        % (port, port, html)).encode()
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


def environment(home, extra):
    env = {k: v for k, v in os.environ.items() if not k.lower().endswith("_proxy")}
    for name in ("TMUX", "TERM_PROGRAM", "KITTY_WINDOW_ID", "NO_COLOR"):
        env.pop(name, None)
    env.update(HOME=home, XDG_CONFIG_HOME=home + "/.config", XDG_DATA_HOME=home + "/.local/share",
               XDG_CACHE_HOME=home + "/.cache", TERM="xterm-256color", LC_ALL="C.UTF-8")
    env.update(extra)
    return env


def spawn_on_pty(argv, env, pixels=(600, 800)):
    """`argv` (its program found on PATH) on a new pty of 40 rows and 100 columns, `pixels`
    wide and high (the pixel size is what kitty and iTerm2 follow): its pid and the pty's
    master end."""
    master, slave = os.openpty()
    fcntl.ioctl(slave, termios.TIOCSWINSZ, struct.pack("HHHH", 40, 100, pixels[0], pixels[1]))
    pid = os.fork()
    if pid == 0:
        os.close(master)
        os.setsid()
        fcntl.ioctl(slave, termios.TIOCSCTTY, 0)
        for fd in (0, 1, 2):
            os.dup2(slave, fd)
        os.execve(shutil.which(argv[0]) or argv[0], argv, env)
    os.close(slave)
    return pid, master


def run_reader(env, answers, scroll=0):
    """The reader on a new pty (40 rows, 100 columns): answers its queries with `answers`,
    opens the first item, and returns what it wrote until a picture came (or BOUND), then
    scrolled down one line at a time until the picture's top `scroll` rows were above the
    window, then left the article and quit; with the offsets in it where the scrolling, the
    leaving and the quitting began."""
    pid, master = spawn_on_pty([ZEADER], env)
    output = bytearray()
    marks = {}

    def read_for(seconds):
        end = time.monotonic() + seconds
        while time.monotonic() < end:
            ready, _, _ = select.select([master], [], [], 0.05)
            if ready:
                try:
                    data = os.read(master, 65536)
                except OSError:
                    return
                output.extend(data)

    answered = opened = False
    start = time.monotonic()
    picture_seen = None
    while time.monotonic() - start < BOUND:
        ready, _, _ = select.select([master], [], [], 0.1)
        if ready:
            try:
                data = os.read(master, 65536)
            except OSError:
                break
            if not data:
                break
            output += data
        if not answered and b"\x1b[c" in output:
            answered = True
            if answers:
                os.write(master, answers)
        if not opened and b"Pictures" in output and time.monotonic() - start > 0.5:
            opened = True
            os.write(master, b"\r")
            time.sleep(0.3)
            os.write(master, b"\r")
        if opened and picture_seen is None and picture_start(output) is not None:
            picture_seen = time.monotonic()
        if picture_seen is not None and time.monotonic() - picture_seen > 1.0:
            break
    marks["scrolled"] = len(output)
    placed = picture(output)
    # Down until the picture's top `scroll` rows are above the window's first row, the
    # screen's second (the picture's top was at 1-based row `placed[0]`).
    steps = placed[0] - 2 + scroll if scroll and placed else 0
    for _ in range(steps):
        os.write(master, b"\x1bOB")
        read_for(0.1)
    if steps:
        read_for(1.5)
    marks["left"] = len(output)
    os.write(master, b"q")
    read_for(0.5)
    marks["list"] = len(output)
    os.write(master, b"q")
    deadline = time.monotonic() + 5
    while time.monotonic() < deadline:
        done, _ = os.waitpid(pid, os.WNOHANG)
        if done:
            break
        ready, _, _ = select.select([master], [], [], 0.1)
        if ready:
            try:
                output += os.read(master, 65536)
            except OSError:
                pass
    else:
        os.kill(pid, signal.SIGKILL)
        os.waitpid(pid, 0)
    os.close(master)
    return bytes(output), marks


def picture_start(output):
    """The offset of the reader's picture: the cursor saved, then a cursor position."""
    match = re.search(rb"\x1b7\x1b\[(\d+);(\d+)H", output)
    return match.start() if match else None


def picture(output):
    """(row, column, bytes) of the first picture, its rows up to the cursor restored."""
    match = re.search(rb"\x1b7\x1b\[(\d+);(\d+)H(.*?)\x1b\[0m\x1b8", output, re.S)
    return (int(match.group(1)), int(match.group(2)), match.group(3)) if match else None


def kitty(data):
    keys, payload = {}, b""
    for chunk in re.findall(rb"\x1b_G(.*?)\x1b\\", data, re.S):
        control, _, body = chunk.partition(b";")
        for pair in control.split(b","):
            k, _, v = pair.partition(b"=")
            keys.setdefault(k.decode(), v.decode())
        payload += base64.b64decode(body) if body else b""
    width, height = int(keys["s"]), int(keys["v"])
    stride = 3 if keys.get("f") == "24" else 4
    return width, height, lambda x, y: tuple(payload[(y * width + x) * stride:(y * width + x) * stride + 3])


def sixel(data):
    start = data.index(b"q") + 1
    palette, drawn, x, band, colour = {}, {}, 0, 0, (0, 0, 0)
    i = start
    while i < len(data):
        c = data[i:i + 1]
        if c == b"#":
            m = re.match(rb"#(\d+)(?:;2;(\d+);(\d+);(\d+))?", data[i:])
            n = int(m.group(1))
            if m.group(2):
                palette[n] = tuple(round(int(m.group(k)) * 255 / 100) for k in (2, 3, 4))
            colour = palette.get(n, (0, 0, 0))
            i += m.end()
        elif c == b"!":
            m = re.match(rb"!(\d+)(.)", data[i:], re.S)
            for _ in range(int(m.group(1))):
                put(drawn, m.group(2)[0], x, band, colour)
                x += 1
            i += m.end()
        elif c == b"$":
            x, i = 0, i + 1
        elif c == b"-":
            x, band, i = 0, band + 1, i + 1
        elif c == b'"':
            i += re.match(rb'"[\d;]*', data[i:]).end()
        elif 0x3F <= data[i] <= 0x7E:
            put(drawn, data[i], x, band, colour)
            x, i = x + 1, i + 1
        else:
            i += 1
    width = max(px for px, _ in drawn) + 1
    height = max(py for _, py in drawn) + 1
    return width, height, lambda px, py: drawn.get((px, py))


def put(drawn, sixel_char, x, band, colour):
    bits = sixel_char - 0x3F
    for bit in range(6):
        if bits & (1 << bit):
            drawn[(x, band * 6 + bit)] = colour


def iterm(data):
    body = re.search(rb"\x1b\]1337;File=[^:]*:([A-Za-z0-9+/=]+)", data).group(1)
    b = base64.b64decode(body)
    order = "<" if b[:2] == b"II" else ">"
    u16 = lambda o: struct.unpack(order + "H", b[o:o + 2])[0]
    u32 = lambda o: struct.unpack(order + "I", b[o:o + 4])[0]
    ifd = u32(4)
    tags = {}
    for n in range(u16(ifd)):
        e = ifd + 2 + n * 12
        tag, kind, count = u16(e), u16(e + 2), u32(e + 4)
        size = 2 if kind == 3 else 4
        base = u32(e + 8) if count * size > 4 else e + 8
        tags[tag] = [u16(base + k * 2) if kind == 3 else u32(base + k * 4) for k in range(count)]
    width, height, samples, offset = tags[256][0], tags[257][0], tags.get(277, [3])[0], tags[273][0]
    return width, height, lambda x, y: tuple(b[offset + (y * width + x) * samples:offset + (y * width + x) * samples + 3])


def symbols(data):
    rows = re.split(rb"\x1b\[\d+;\d+H", data)
    grid = []
    for row in rows:
        cells, fg, bg, reverse = [], None, None, False
        text = row.decode("utf-8", "replace")
        i = 0
        while i < len(text):
            m = re.match(r"\x1b\[([\d;]*)m", text[i:])
            if m:
                params = [int(p) if p else 0 for p in m.group(1).split(";")]
                k = 0
                while k < len(params):
                    p = params[k]
                    if p == 0:
                        fg, bg, reverse = None, None, False
                    elif p == 7:
                        reverse = True
                    elif p in (38, 48) and k + 4 < len(params) and params[k + 1] == 2:
                        value = tuple(params[k + 2:k + 5])
                        if p == 38:
                            fg = value
                        else:
                            bg = value
                        k += 4
                    k += 1
                i += m.end()
                continue
            space = text[i] == " "
            cells.append(bg if space != reverse else fg)
            i += 1
        if cells:
            grid.append(cells)
    width = max(len(r) for r in grid)
    return width, len(grid), lambda x, y: grid[y][x] if x < len(grid[y]) else None


def near(a, b, tolerance=40):
    return a is not None and all(abs(p - q) <= tolerance for p, q in zip(a, b))


def check(name, output, decode, failures):
    placed = picture(output)
    if placed is None:
        failures.append("%s: no picture in %d bytes of output" % (name, len(output)))
        return
    row, column, data = placed
    width, height, colour = decode(data)
    for (fx, fy), expected in zip([(0.25, 0.25), (0.75, 0.25), (0.25, 0.75), (0.75, 0.75)], COLOURS):
        got = colour(min(width - 1, int(width * fx)), min(height - 1, int(height * fy)))
        if not near(got, expected):
            failures.append("%s: %r at (%s, %s) of %dx%d, expected %r" % (name, got, fx, fy, width, height, expected))
    text = output[:output.index(b"\x1b7\x1b[")].decode("utf-8", "replace")
    if "Before the picture." not in text or "After the picture." not in text:
        failures.append("%s: the text was not drawn before the picture" % name)
    if not 2 <= row <= 39 or column != 1:
        failures.append("%s: picture at row %d, column %d" % (name, row, column))
    if name in ("kitty", "iterm") and (width, height) != (16 * 6, 8 * 20):
        failures.append("%s: %dx%d pixels, not the 16 x 8 cells of 6 x 20 pixels the terminal reports" % (name, width, height))
    print("%s: picture at row %d, %dx%d, colours checked" % (name, row, width, height))


def check_kitty_scrolled(name, output, marks, decode, failures):
    """Scrolled until the picture's top 6 of 8 rows were above the window: only placements
    were sent (the picture's data once, before), the last one its bottom 2 rows from the
    window's first row; leaving the article freed the image."""
    scrolling = output[marks["scrolled"]:marks["left"]]
    sent = output.count(b"a=t,")
    if sent != 1 or re.search(rb"\x1b_G[^\x1b]*;[A-Za-z0-9+/]", scrolling):
        failures.append("%s: the picture's data went %d times, %s while scrolling"
                        % (name, sent, "some" if re.search(rb"\x1b_G[^\x1b]*;", scrolling) else "none"))
    places = re.findall(rb"\x1b7\x1b\[(\d+);1H\x1b_Ga=p,([^\x1b]*)\x1b\\", scrolling)
    if not places:
        failures.append("%s: no placement while scrolling" % name)
        return
    row, keys = places[-1]
    keys = dict(pair.split(b"=") for pair in keys.split(b","))
    # 8 rows of 20 pixels: the bottom two are pixels 120 to 160.
    if (int(row), keys.get(b"y"), keys.get(b"h"), keys.get(b"r")) != (2, b"120", b"40", b"2"):
        failures.append("%s: the last placement at row %s shows %r, not rows 6 and 7 at row 2" % (name, row, keys))
    image = re.search(rb"a=t,i=(\d+)", output).group(1)
    if b"a=d,d=I,i=" + image not in output[marks["left"]:marks["list"]]:
        failures.append("%s: leaving the article did not free image %s" % (name, image.decode()))
    print("%s: scrolled by %d placements, no data sent again, freed on leaving" % (name, len(places)))


def check_part_scrolled(name, output, marks, decode, failures):
    """Scrolled until the picture's top 6 of 8 rows were above the window: its bottom 2 rows,
    blue and yellow, drawn from the window's first row."""
    parts = re.findall(rb"\x1b7\x1b\[(\d+);(\d+)H(.*?)\x1b\[0m\x1b8", output[marks["scrolled"]:marks["left"]], re.S)
    if not parts:
        failures.append("%s: nothing drawn of the picture partly on screen" % name)
        return
    row, _, data = parts[-1]
    width, height, colour = decode(data)
    if int(row) != 2 or not 34 <= height <= 46:
        failures.append("%s: the visible part at row %s is %d pixels high, not 2 rows at row 2" % (name, row, height))
    for fy in (0.1, 0.5, 0.8):
        for fx, expected in ((0.25, COLOURS[2]), (0.75, COLOURS[3])):
            got = colour(min(width - 1, int(width * fx)), min(height - 1, int(height * fy)))
            if not near(got, expected):
                failures.append("%s: part %r at (%s, %s), expected %r" % (name, got, fx, fy, expected))
    print("%s: the visible part, %dx%d, at row %s" % (name, width, height, row.decode()))


def main():
    if not os.path.exists(ZEADER):
        print("missing %s" % ZEADER)
        return 1
    server = serve()
    port = server.server_address[1]
    home = tempfile.mkdtemp(prefix="zeader-pictures-")
    failures = []
    try:
        base = environment(home, {})
        subprocess.run([ZEADER, "add", "http://127.0.0.1:%d/feed.xml" % port], env=base, check=True,
                       stdout=subprocess.DEVNULL)
        subprocess.run([ZEADER, "refresh"], env=base, check=True, stdout=subprocess.DEVNULL)
        da1_plain = b"\x1b[?62;22c"
        cases = [
            ("kitty", {"KITTY_WINDOW_ID": "1"}, b"\x1b_Gi=31;OK\x1b\\" + da1_plain, kitty),
            ("sixel", {"TERM": "xterm"}, b"\x1b[?63;1;2;4;6;9;15;22c", sixel),
            ("iterm", {"TERM_PROGRAM": "iTerm.app"}, da1_plain, iterm),
            ("symbols", {}, da1_plain, symbols),
            ("silent", {}, b"", symbols),
        ]
        scrolled = {"kitty": check_kitty_scrolled, "sixel": check_part_scrolled, "iterm": check_part_scrolled}
        for name, extra, answers, decode in cases:
            shutil.rmtree(home + "/.cache", ignore_errors=True)
            output, marks = run_reader(environment(home, extra), answers, scroll=6 if name in scrolled else 0)
            check(name, output, decode, failures)
            if name in scrolled:
                scrolled[name](name, output, marks, decode, failures)
        os.makedirs(home + "/.config/zeader", exist_ok=True)
        with open(home + "/.config/zeader/config", "w") as config:
            config.write("image-display none\n")
        output, _ = run_reader(environment(home, {}), da1_plain)
        if picture(output) is not None or b"\x1b[c" in output:
            failures.append("none: a picture or a query was sent")
        else:
            print("none: no query, no picture")
    finally:
        server.shutdown()
        shutil.rmtree(home, ignore_errors=True)
    for failure in failures:
        print("FAIL " + failure)
    print("pictures: %d checks, %d failed" % (9, len(failures)))
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
