"""Sanic hello world (the 2017 "Python sanic" contestant).

GET /hello -> "Hello World"; GET /app -> 1024 bytes after 100 ms +-5%, slept
with asyncio.sleep so that the worker's event loop keeps serving others.
Started with the sanic CLI: sanic server:app --workers N ..."""
import asyncio
import random
import time
from email.utils import formatdate

from sanic import Sanic
from sanic.response import raw

HELLO = b"Hello World"
APP = b"x" * 1024

app = Sanic("shootout")
app.config.ACCESS_LOG = False
app.config.MOTD = False

# Sanic sends no Date header of its own; HTTP/1.1 servers must. Formatted at
# most once a second.
_date = [0, ""]


def headers():
    now = int(time.time())
    if now != _date[0]:
        _date[0] = now
        _date[1] = formatdate(now, usegmt=True)
    return {"date": _date[1]}


@app.get("/hello")
async def hello(request):
    return raw(HELLO, content_type="text/plain", headers=headers())


@app.get("/app")
async def app_endpoint(request):
    await asyncio.sleep(random.uniform(0.095, 0.105))
    return raw(APP, content_type="text/plain", headers=headers())
