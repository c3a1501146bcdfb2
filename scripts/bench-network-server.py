#!/usr/bin/env python3
"""bench-network-server.py - loopback (127.0.0.1) HTTP server for scripts/bench-network.sh.

  /slow/N.xml    a small RSS feed (5 items, unique to N), answered after --delay seconds
  /big.xml       the file given with --big (Content-Length, no compression)
  /endless       200, no length, a body that never ends (as fast as the client reads)
  /gzip-bomb     200, Content-Encoding: gzip, ~1 MB on the wire that decodes to 1 GiB of zeros

  bench-network-server.py --port-file F [--delay 2] [--big FILE] [--hosts 1] [--max-seconds 900]
With --hosts N it answers on 127.0.0.1 ... 127.0.0.N, same port (distinct hosts for per-host
connection limits). Stops by itself after --max-seconds, or on SIGTERM.
"""
import argparse
import http.server
import os
import signal
import socketserver
import sys
import threading
import time
import zlib

ARGS = None
BOMB = b""


def make_bomb():
    """1 GiB of zeros, gzip level 9: about 1 MB."""
    comp = zlib.compressobj(9, zlib.DEFLATED, 31)
    block = bytes(1 << 20)
    parts = [comp.compress(block) for _ in range(1024)]
    parts.append(comp.flush())
    return b"".join(parts)


def slow_feed(n):
    items = "".join(
        "<item><title>Feed %d item %d</title><link>http://example.org/%d/%d</link>"
        "<guid>urn:slow:%d:%d</guid><description>Text %d of feed %d.</description></item>"
        % (n, i, n, i, n, i, i, n) for i in range(5))
    return ('<?xml version="1.0" encoding="utf-8"?><rss version="2.0"><channel>'
            "<title>Slow feed %d</title><link>http://example.org/%d</link>"
            "<description>answers late</description>%s</channel></rss>" % (n, n, items)).encode()


class Handler(http.server.BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def log_message(self, *args):
        pass

    def send_body(self, body, ctype="application/rss+xml; charset=utf-8", extra=()):
        self.send_response(200)
        self.send_header("Content-Type", ctype)
        self.send_header("Content-Length", str(len(body)))
        for name, value in extra:
            self.send_header(name, value)
        self.end_headers()
        self.wfile.write(body)

    def do_GET(self):
        path = self.path.split("?", 1)[0]
        try:
            if path.startswith("/slow/") and path.endswith(".xml"):
                time.sleep(ARGS.delay)
                self.send_body(slow_feed(int(path[6:-4])))
            elif path == "/big.xml" and ARGS.big:
                with open(ARGS.big, "rb") as fh:
                    self.send_body(fh.read())
            elif path == "/endless":
                self.send_response(200)
                self.send_header("Content-Type", "application/rss+xml")
                self.send_header("Connection", "close")
                self.end_headers()
                chunk = b"<item><title>more</title></item>\n" * 2000
                while True:
                    self.wfile.write(chunk)
            elif path == "/gzip-bomb":
                self.send_body(BOMB, "application/rss+xml", [("Content-Encoding", "gzip")])
            else:
                self.send_error(404)
        except (BrokenPipeError, ConnectionResetError):
            self.close_connection = True


class Server(socketserver.ThreadingMixIn, http.server.HTTPServer):
    daemon_threads = True
    request_queue_size = 256


def main():
    global ARGS, BOMB
    ap = argparse.ArgumentParser()
    ap.add_argument("--port-file", required=True)
    ap.add_argument("--delay", type=float, default=2.0)
    ap.add_argument("--big")
    ap.add_argument("--hosts", type=int, default=1)
    ap.add_argument("--max-seconds", type=float, default=900)
    ARGS = ap.parse_args()
    BOMB = make_bomb()
    server = Server(("127.0.0.1", 0), Handler)
    port = server.server_address[1]
    for host in range(2, ARGS.hosts + 1):
        other = Server(("127.0.0.%d" % host, port), Handler)
        threading.Thread(target=other.serve_forever, daemon=True).start()
    threading.Timer(ARGS.max_seconds, lambda: os.kill(os.getpid(), signal.SIGTERM)).start()
    signal.signal(signal.SIGTERM, lambda *_: os._exit(0))
    tmp = ARGS.port_file + ".tmp"
    with open(tmp, "w") as fh:
        fh.write(str(port))
    os.replace(tmp, ARGS.port_file)
    server.serve_forever()


if __name__ == "__main__":
    main()
