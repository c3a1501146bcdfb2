"""serve_static.py DIR SECONDS - serves DIR on 127.0.0.1 and a free port for the e2e scripts.

Prints "serving on 127.0.0.1 port N" and stops by itself after SECONDS (a timer of its own:
under `swift test` a script may inherit a blocked SIGTERM, which `timeout` cannot get
through); SIGTERM is unblocked and made fatal again so that the script's kill ends it.
"""
import functools
import http.server
import signal
import sys
import threading

signal.pthread_sigmask(signal.SIG_UNBLOCK, {signal.SIGTERM, signal.SIGINT})
signal.signal(signal.SIGTERM, signal.SIG_DFL)
handler = functools.partial(http.server.SimpleHTTPRequestHandler, directory=sys.argv[1])
server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
print("serving on 127.0.0.1 port", server.server_address[1], flush=True)
threading.Timer(float(sys.argv[2]), server.shutdown).start()
server.serve_forever()
