'use strict';
// Express 4 on Node.js http, one process (the 2017 "Node express" contestant).
// Usage: node server.js PORT [WORKLOADS]
// WORKLOADS is the workloads' data folder (items.json, static/). Beside /hello and
// /app: the workloads /baseline, /json/:count, /upload and /static/NAME, and with
// DATABASE_URL TechEmpower's /db, /queries, /fortunes and /updates (node-postgres).
// workload.js and database.js are shared with node-http (contestants/_node), copied
// here at build time.
const path = require('path');
const express = require('express');
const expressStaticGzip = require('express-static-gzip');
const workload = require('./workload.js');
const database = require('./database.js');

const port = Number(process.argv[2] || 8080);
const workloads = process.argv[3];
const APP = Buffer.alloc(1024, 'x');

const app = express();
// Express adds "X-Powered-By: Express" and computes an ETag for every body by
// default; both are kept, as in the 2017 article's plain Express app.

app.get('/hello', (req, res) => {
  res.send('Hello World');
});

app.get('/app', (req, res) => {
  // 100 ms +-5% (uniform 95..105 ms) on a timer: the event loop stays free.
  setTimeout(() => {
    res.type('text/plain').send(APP);
  }, 95 + Math.random() * 10);
});

if (workloads) {
  const items = workload.loadDataset(workloads);

  app.get('/baseline', (req, res) => {
    res.type('text/plain').send(workload.sum(req.query.a, req.query.b));
  });
  app.post('/baseline', express.urlencoded({ extended: false }), (req, res) => {
    res.type('text/plain').send(workload.sum(req.body.a, req.body.b));
  });

  app.get('/json/:count', (req, res, next) => {
    const answer = workload.priced(items, req.params.count, req.query.m);
    if (answer === null) {
      next();
    } else {
      res.json(answer);
    }
  });

  // The number of body bytes read (no body parser: the stream is counted).
  app.post('/upload', (req, res, next) => {
    let n = 0;
    req.on('data', (c) => { n += c.length; });
    req.on('end', () => res.type('text/plain').send(String(n)));
    req.on('error', next);
  });

  // express.static (serve-static) behind express-static-gzip, which serves a file's
  // .br or .gz sibling to a client that accepts it.
  app.use('/static', expressStaticGzip(path.join(workloads, 'static'), {
    enableBrotli: true,
    orderPreference: ['br', 'gzip'],
    index: false,
  }));
}

const pool = database.poolFromEnv();
if (pool !== null) {
  // Express 4 does not catch a handler's rejected promise: hand it to next.
  const answer = (produce, send) => (req, res, next) => {
    produce(req).then((value) => send(res, value), next);
  };
  const json = (res, value) => res.json(value);
  app.get('/db', answer(() => database.row(pool), json));
  app.get('/queries', answer((req) => database.rows(pool, database.count(req.query.q)), json));
  app.get('/updates', answer((req) => database.updates(pool, database.count(req.query.q)), json));
  app.get('/fortunes', answer(() => database.fortunesPage(pool), (res, page) => {
    res.type('text/html; charset=utf-8').send(page);
  }));
}

const server = app.listen(port, '127.0.0.1');
// Node's default closes a keep-alive connection idle for 5 s; a load
// generator's connections may sit idle longer, as with most other servers.
server.keepAliveTimeout = 0;

function stop() { process.exit(0); }
process.on('SIGTERM', stop);
process.on('SIGINT', stop);
