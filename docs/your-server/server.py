"""Your server, for docs/your-server.md: GET /greet answers "hi", POST /echo answers
the body it was sent. `--nodelay` sends each response without waiting for the
client's acknowledgement of the last (TCP_NODELAY): http.server writes a response's
head and body apart, which Nagle's algorithm holds back."""

import sys
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer


class Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"  # keep-alive, each body framed by Content-Length
    disable_nagle_algorithm = "--nodelay" in sys.argv

    def answer(self, status, body):
        self.send_response(status)
        self.send_header("Content-Type", "text/plain")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def do_GET(self):
        if self.path == "/greet":
            self.answer(200, b"hi")
        else:
            self.answer(404, b"not found")

    def do_POST(self):
        body = self.rfile.read(int(self.headers.get("Content-Length", 0)))
        self.answer(200 if self.path == "/echo" else 404, body)

    def log_message(self, *args):
        pass


if __name__ == "__main__":
    ThreadingHTTPServer(("127.0.0.1", int(sys.argv[1])), Handler).serve_forever()
