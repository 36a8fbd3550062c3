'use strict';
// Express 4 on Node.js http, one process (the 2017 "Node express" contestant).
// Usage: node server.js PORT
const express = require('express');

const port = Number(process.argv[2] || 8080);
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

const server = app.listen(port, '127.0.0.1');
// Node's default closes a keep-alive connection idle for 5 s; a load
// generator's connections may sit idle longer, as with most other servers.
server.keepAliveTimeout = 0;

function stop() { process.exit(0); }
process.on('SIGTERM', stop);
process.on('SIGINT', stop);
