"""A tiny WSGI app for gunicorn's gevent worker (the 2017 "Python gunicorn +
gevent" contestant). GET /hello -> "Hello World"; GET /app -> 1024 bytes after
100 ms +-5%, slept with gevent.sleep so that the worker's other greenlets run."""
import random

import gevent

HELLO = b"Hello World"
APP = b"x" * 1024
NOT_FOUND = b"Not Found"


def app(environ, start_response):
    path = environ.get("PATH_INFO", "")
    if environ.get("REQUEST_METHOD") == "GET":
        if path == "/hello":
            body = HELLO
        elif path == "/app":
            gevent.sleep(random.uniform(0.095, 0.105))
            body = APP
        else:
            body = None
        if body is not None:
            start_response("200 OK", [
                ("Content-Type", "text/plain"),
                ("Content-Length", str(len(body))),
            ])
            return [body]
    start_response("404 Not Found", [
        ("Content-Type", "text/plain"),
        ("Content-Length", str(len(NOT_FOUND))),
    ])
    return [NOT_FOUND]
