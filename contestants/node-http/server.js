'use strict';
// Plain Node.js `http` server, one process, one event loop (the 2012, 2017
// and 2019 "Node" contestant). Usage: node server.js PORT WORKLOADS [CERT KEY | h2c]
// WORKLOADS is the workloads' data folder (items.json, static/), or "-" for none.
// Given a certificate and its key (PEM files), the same server over TLS: the
// `http2` module's secure server with Node's TLS defaults (TLS 1.2 and 1.3,
// session tickets), ALPN h2 and http/1.1; allowHTTP1 hands an http/1.1
// connection to the `http` module's own connection handling, as `https` does.
// Given h2c, the same over cleartext HTTP/2 with prior knowledge (the `http2`
// module's createServer: HTTP/2 only on the port). The handler is the same for
// both: over HTTP/2 it gets the module's compatibility request and response.
//
// Beside /hello and /app: the workloads /baseline, /json/{count}, /upload and
// /static/NAME (fs streams, the precompressed sibling the client accepts), and
// with DATABASE_URL TechEmpower's /db, /queries, /fortunes and /updates (node-postgres).
// workload.js and database.js are shared with node-express (contestants/_node), copied
// here at build time.
// In clear text, /ws is a WebSocket echo (the `ws` package, as Node's users pick it):
// each text or binary message comes back as it came, and ws answers pings and the
// close handshake itself; a GET of /ws without Upgrade reaches handle() and gets a 404.
const fs = require('fs');
const http = require('http');
const http2 = require('http2');
const { WebSocketServer } = require('ws');
const workload = require('./workload.js');
const database = require('./database.js');

const port = Number(process.argv[2] || 8080);
const workloads = process.argv[3] || '-';
const [cert, key] = process.argv.slice(4, 6);
const HELLO = Buffer.from('Hello World');
const APP = Buffer.alloc(1024, 'x');
const items = workloads === '-' ? [] : workload.loadDataset(workloads);
const staticDir = require('path').join(workloads, 'static');
const pool = database.poolFromEnv();

function send(res, body, type = 'text/plain', status = 200) {
  res.writeHead(status, {
    'Content-Type': type,
    'Content-Length': Buffer.byteLength(body),
  });
  res.end(body);
}

function sendJSON(res, value) {
  send(res, JSON.stringify(value), 'application/json');
}

/** The request's body as text, to `done`. */
function readBody(req, done) {
  const chunks = [];
  req.on('data', (c) => chunks.push(c));
  req.on('end', () => done(Buffer.concat(chunks).toString()));
}

/** a + b from the query (GET) or the form body (POST, by length or chunked). */
function baseline(req, res, query) {
  if (req.method === 'POST') {
    readBody(req, (body) => {
      const form = new URLSearchParams(body);
      send(res, workload.sum(form.get('a'), form.get('b')));
    });
  } else {
    send(res, workload.sum(query.get('a'), query.get('b')));
  }
}

/** The number of body bytes read. */
function upload(req, res) {
  let n = 0;
  req.on('data', (c) => { n += c.length; });
  req.on('end', () => send(res, String(n)));
}

function priced(res, count, query) {
  const answer = workload.priced(items, count, query.get('m'));
  if (answer === null) {
    notFound(res);
  } else {
    sendJSON(res, answer);
  }
}

/** A database answer: `value`'s JSON, or a 500 that says what failed. */
function fromDatabase(res, promise, answer = sendJSON) {
  promise.then((value) => answer(res, value), (err) => send(res, String(err), 'text/plain', 500));
}

function notFound(res) {
  send(res, 'not found', 'text/plain', 404);
}

const GET = {
  '/hello': (req, res) => send(res, HELLO),
  // 100 ms +-5% (uniform 95..105 ms) on a timer: the event loop stays free.
  '/app': (req, res) => setTimeout(send, 95 + Math.random() * 10, res, APP),
  '/baseline': (req, res, query) => baseline(req, res, query),
};
const POST = {
  '/baseline': (req, res, query) => baseline(req, res, query),
  '/upload': (req, res) => upload(req, res),
};
if (pool !== null) {
  Object.assign(GET, {
    '/db': (req, res) => fromDatabase(res, database.row(pool)),
    '/queries': (req, res, query) => fromDatabase(res, database.rows(pool, database.count(query.get('q')))),
    '/updates': (req, res, query) => fromDatabase(res, database.updates(pool, database.count(query.get('q')))),
    '/fortunes': (req, res) => fromDatabase(res, database.fortunesPage(pool), (r, page) => {
      send(r, page, 'text/html; charset=utf-8');
    }),
  });
}

function handle(req, res) {
  const at = req.url.indexOf('?');
  const path = at < 0 ? req.url : req.url.slice(0, at);
  const query = new URLSearchParams(at < 0 ? '' : req.url.slice(at + 1));
  const routes = req.method === 'POST' ? POST : GET;
  const route = Object.hasOwn(routes, path) ? routes[path] : null;
  if (route !== null) {
    route(req, res, query);
  } else if (req.method === 'GET' && path.startsWith('/json/')) {
    priced(res, path.slice('/json/'.length), query);
  } else if (req.method === 'GET' && path.startsWith('/static/') && workloads !== '-') {
    const name = path.slice('/static/'.length);
    workload.serveStatic(staticDir, name, req.headers['accept-encoding'], res, notFound);
  } else {
    notFound(res);
  }
}

function server() {
  if (cert === 'h2c') {
    return http2.createServer(handle);
  }
  if (cert) {
    return http2.createSecureServer({
      cert: fs.readFileSync(cert),
      key: fs.readFileSync(key),
      // ALPN h2, and http/1.1 with allowHTTP1 (the module sets the list itself)
      allowHTTP1: true,
    }, handle);
  }
  return http.createServer(handle);
}

const s = server();
// Node's default closes a keep-alive connection idle for 5 s; a load
// generator's connections may sit idle longer, as with most other servers.
// (An HTTP/2 server has no such timeout unless one is set.)
s.keepAliveTimeout = 0;
if (!cert) {
  // perMessageDeflate is off by default in ws 8: no extension is offered back.
  const wss = new WebSocketServer({ server: s, path: '/ws' });
  wss.on('connection', (ws) => {
    ws.on('message', (data, isBinary) => ws.send(data, { binary: isBinary }));
  });
}
s.listen(port, '127.0.0.1');

function stop() { process.exit(0); }
process.on('SIGTERM', stop);
process.on('SIGINT', stop);
