#!/usr/bin/env python3
"""Records a sync service's answers, then answers from the recording: zeader's CPU measured
without the service's on the same cores (scripts/sync-scale.sh, REPLAY=).

    sync-replay.py record UPSTREAM PORT FILE   forwards to UPSTREAM (http://127.0.0.1:PORT of the
                                               service), keeps each answer under its request
                                               (method, path, body); FILE is written on SIGTERM
    sync-replay.py replay PORT FILE            answers each request with what was recorded for it
                                               (the same request asked again: the next answer
                                               recorded for it, round and round); 599 if none

Loopback only (127.0.0.1). Every answer closes its connection, as Tiny Tiny RSS's and
FreshRSS's PHP servers do, so that a replayed sync opens as many connections as a live one.
"""
import collections
import http.server
import pickle
import signal
import socketserver
import sys
import threading
import urllib.error
import urllib.request

mode = sys.argv[1]
lock = threading.Lock()
if mode == "record":
    upstream, port, path = sys.argv[2].rstrip("/"), int(sys.argv[3]), sys.argv[4]
    book = collections.defaultdict(list)
    opener = urllib.request.build_opener(urllib.request.ProxyHandler({}))
elif mode == "replay":
    port, path = int(sys.argv[2]), sys.argv[3]
    with open(path, "rb") as f:
        book = pickle.load(f)
    served = collections.Counter()
else:
    sys.exit(__doc__)


class Handler(http.server.BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def log_message(self, *args):
        pass

    def answer(self, method):
        length = int(self.headers.get("Content-Length") or 0)
        body = self.rfile.read(length) if length else b""
        key = (method, self.path, body)
        if mode == "record":
            request = urllib.request.Request(upstream + self.path, data=body if method == "POST" else None, method=method)
            for name in ("Content-Type", "Authorization"):
                if self.headers.get(name):
                    request.add_header(name, self.headers[name])
            try:
                with opener.open(request, timeout=300) as response:
                    status, kind, data = response.status, response.headers.get("Content-Type", ""), response.read()
            except urllib.error.HTTPError as error:
                status, kind, data = error.code, error.headers.get("Content-Type", ""), error.read()
            with lock:
                book[key].append((status, kind, data))
        else:
            with lock:
                answers = book.get(key)
                if answers:
                    status, kind, data = answers[served[key] % len(answers)]
                    served[key] += 1
                else:
                    status, kind, data = 599, "text/plain", b"not recorded"
                    print("not recorded:", method, self.path, body[:200], file=sys.stderr, flush=True)
        self.send_response(status)
        if kind:
            self.send_header("Content-Type", kind)
        self.send_header("Content-Length", str(len(data)))
        self.send_header("Connection", "close")
        self.end_headers()
        self.wfile.write(data)
        self.close_connection = True

    def do_GET(self):
        self.answer("GET")

    def do_POST(self):
        self.answer("POST")


class Server(socketserver.ThreadingMixIn, http.server.HTTPServer):
    daemon_threads = True


def stop(*_):
    if mode == "record":
        with lock, open(path, "wb") as f:
            pickle.dump(dict(book), f)
    sys.exit(0)


signal.signal(signal.SIGTERM, stop)
signal.signal(signal.SIGINT, stop)
Server(("127.0.0.1", port), Handler).serve_forever()
