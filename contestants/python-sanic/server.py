"""Sanic (the 2017 "Python sanic" contestant), with the workload and database endpoints.

GET /hello -> "Hello World"; GET /app -> 1024 bytes after 100 ms +-5%, slept
with asyncio.sleep so that the worker's event loop keeps serving others.
Started with the sanic CLI: sanic server:app --workers N ...

The workloads (shootout's docs/workloads.md), the data read from the folder
WORKLOADS names:
  /baseline  the sum of the query's and the form body's numbers
  /json/N    the first N items of items.json priced by ?m=, by sanic.response.json
             (ujson, which Sanic uses when it is installed)
  /upload    the request body streamed (stream=True) and counted
  /static/F  sanic.response.file of static/F, or of its .br or .gz sibling when the
             client accepts that encoding (Sanic's app.static has no precompressed
             siblings)

/ws is a WebSocket echo on Sanic's own websocket routes (the websockets package under
them): each text or binary message comes back as it came; Sanic answers pings and the
close handshake.

The database endpoints (docs/database.md, TechEmpower's rules) when DATABASE_URL is
set: asyncpg, one pool per worker process, the DATABASE_POOL connections shared out
among the WORKERS processes.
"""
import asyncio
import html
import mimetypes
import os
import random
import time
from email.utils import formatdate
from urllib.parse import parse_qsl

import asyncpg
from sanic import Sanic
from sanic.response import file, json, raw

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


def text(body):
    return raw(body, content_type="text/plain", headers=headers())


@app.get("/hello")
async def hello(request):
    return text(HELLO)


@app.get("/app")
async def app_endpoint(request):
    await asyncio.sleep(random.uniform(0.095, 0.105))
    return text(APP)


@app.websocket("/ws")
async def echo(request, ws):
    # str for a text message, bytes for a binary one: sent back as the same kind.
    async for message in ws:
        await ws.send(message)


# --- workloads --------------------------------------------------------------

WORKLOADS = os.environ.get("WORKLOADS", "")


def _items():
    path = os.path.join(WORKLOADS, "items.json")
    if not WORKLOADS or not os.path.exists(path):
        return []
    import json as std_json

    with open(path, encoding="utf-8") as f:
        return std_json.load(f)


ITEMS = _items()
STATIC = os.path.join(WORKLOADS, "static")
# Served by name only: a name not in the folder is a 404, never a path.
STATIC_NAMES = frozenset(os.listdir(STATIC)) if WORKLOADS and os.path.isdir(STATIC) else frozenset()
mimetypes.add_type("font/woff2", ".woff2")
mimetypes.add_type("text/javascript", ".js")


def _sum(pairs):
    total = 0
    for _, value in pairs:
        try:
            total += int(value)
        except ValueError:
            pass
    return total


@app.route("/baseline", methods=["GET", "POST"])
async def baseline(request):
    total = _sum(parse_qsl(request.query_string))
    if request.body:
        total += _sum(parse_qsl(request.body.decode("latin-1")))
    return text(str(total).encode())


@app.get("/json/<count:int>")
async def json_items(request, count):
    try:
        m = float(request.args.get("m", "1"))
    except ValueError:
        m = 1.0
    items = [
        {
            "id": it["id"],
            "name": it["name"],
            "price": it["price"],
            "quantity": it["quantity"],
            "total": it["price"] * it["quantity"] * m,
        }
        for it in ITEMS[: max(count, 0)]
    ]
    return json({"count": len(items), "items": items}, headers=headers())


@app.post("/upload", stream=True)
async def upload(request):
    read = 0
    while True:
        chunk = await request.stream.read()
        if chunk is None:
            break
        read += len(chunk)
    return text(str(read).encode())


def _accepts(request, encoding):
    header = request.headers.get("accept-encoding", "")
    return any(t.split(";")[0].strip() == encoding for t in header.split(","))


@app.get("/static/<name>")
async def static(request, name):
    if name not in STATIC_NAMES:
        return raw(b"Not Found", status=404, content_type="text/plain", headers=headers())
    mime = mimetypes.guess_type(name)[0] or "application/octet-stream"
    for encoding, ext in (("br", ".br"), ("gzip", ".gz")):
        if name + ext in STATIC_NAMES and _accepts(request, encoding):
            extra = {**headers(), "content-encoding": encoding, "vary": "Accept-Encoding"}
            return await file(os.path.join(STATIC, name + ext), mime_type=mime, headers=extra)
    return await file(os.path.join(STATIC, name), mime_type=mime, headers=headers())


# --- database ---------------------------------------------------------------

DATABASE_URL = os.environ.get("DATABASE_URL")
READ_ROW = 'SELECT "randomnumber" FROM "world" WHERE "id" = $1'
WRITE_ROW = 'UPDATE "world" SET "randomnumber" = $1 WHERE "id" = $2'
FORTUNES = 'SELECT "id", "message" FROM "fortune"'
ADDITIONAL = "Additional fortune added at request time."


@app.before_server_start
async def open_pool(app, _):
    if not DATABASE_URL:
        return
    total = int(os.environ.get("DATABASE_POOL", "16"))
    workers = max(int(os.environ.get("WORKERS", "1")), 1)
    size = max(total // workers, 1)
    app.ctx.pool = await asyncpg.create_pool(DATABASE_URL, min_size=size, max_size=size)


@app.after_server_stop
async def close_pool(app, _):
    pool = getattr(app.ctx, "pool", None)
    if pool is not None:
        await pool.close()


def _rows_asked(request):
    """q by TechEmpower's rule: missing or not a number is 1, clamped to 1..500."""
    try:
        q = int(request.args.get("q", "1"))
    except ValueError:
        q = 1
    return min(max(q, 1), 500)


def _ids(n):
    return random.sample(range(1, 10001), n)


async def db(request):
    id_ = random.randint(1, 10000)
    async with app.ctx.pool.acquire() as conn:
        number = await conn.fetchval(READ_ROW, id_)
    return json({"id": id_, "randomNumber": number}, headers=headers())


async def queries(request):
    ids = _ids(_rows_asked(request))
    async with app.ctx.pool.acquire() as conn:
        read = await conn.prepare(READ_ROW)
        rows = [{"id": i, "randomNumber": await read.fetchval(i)} for i in ids]
    return json(rows, headers=headers())


async def updates(request):
    ids = sorted(_ids(_rows_asked(request)))  # in id order: concurrent updates take locks alike
    async with app.ctx.pool.acquire() as conn:
        read = await conn.prepare(READ_ROW)
        for i in ids:
            await read.fetchval(i)
        rows = [(random.randint(1, 10000), i) for i in ids]
        await conn.executemany(WRITE_ROW, rows)
    return json([{"id": i, "randomNumber": n} for n, i in rows], headers=headers())


async def fortunes(request):
    async with app.ctx.pool.acquire() as conn:
        rows = [(r["id"], r["message"]) for r in await conn.fetch(FORTUNES)]
    rows.append((0, ADDITIONAL))
    rows.sort(key=lambda r: r[1])
    page = ["<!DOCTYPE html><html><head><title>Fortunes</title></head><body><table>"
            "<tr><th>id</th><th>message</th></tr>"]
    page.extend(f"<tr><td>{i}</td><td>{html.escape(m)}</td></tr>" for i, m in rows)
    page.append("</table></body></html>")
    return raw("".join(page).encode(), content_type="text/html; charset=utf-8", headers=headers())


# Without DATABASE_URL the server serves the rest, and these are 404s.
if DATABASE_URL:
    for handler, path in ((db, "/db"), (queries, "/queries"), (updates, "/updates"), (fortunes, "/fortunes")):
        app.add_route(handler, path, methods=["GET"])
