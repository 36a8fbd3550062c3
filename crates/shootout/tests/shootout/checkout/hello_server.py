# The made-up contestants' server, shared by the tests that drive the `shootout` binary:
# a keep-alive HTTP/1.1 server on 127.0.0.1 with /hello (404 elsewhere), as a contestant
# must have. A separate Python process on purpose: those tests exercise contestant
# manifests (a toolchain, `requires.commands`, a start command the harness runs, stops
# and watches), and a user's own server is a command like this one.
#
# server.py PORT [MARK] [--nodelay]
#   MARK: created when a connection carries its 4th request. Verification sends at most 3
#     requests on a connection, so the 4th is a load's, and its client (closed loop, no
#     pipelining) sent it only after it had counted the answers to the first 3: the load
#     has measured something.
#   --nodelay: send at once. Without it, the head and the body wait on a delayed ACK
#     (about 44 requests/s a connection), which keeps the server from saturating a core.
import sys
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

args = [a for a in sys.argv[1:] if a != "--nodelay"]


class H(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    disable_nagle_algorithm = "--nodelay" in sys.argv[1:]
    served = 0

    def do_GET(self):
        # One handler per connection: this counts the connection's requests.
        self.served += 1
        if self.served == 4 and len(args) > 1:
            open(args[1], "a").close()
        body = b"Hello World" if self.path == "/hello" else b"no"
        self.send_response(200 if self.path == "/hello" else 404)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, *a):
        pass


ThreadingHTTPServer(("127.0.0.1", int(args[0])), H).serve_forever()
