'use strict';
// Plain Node.js `http` server, one process, one event loop (the 2012, 2017
// and 2019 "Node" contestant). Usage: node server.js PORT [CERT KEY]
// Given a certificate and its key (PEM files), the same server over TLS: the
// `https` module with Node's defaults (TLS 1.2 and 1.3, session tickets), ALPN
// http/1.1.
const fs = require('fs');
const http = require('http');
const https = require('https');

const port = Number(process.argv[2] || 8080);
const [cert, key] = process.argv.slice(3, 5);
const HELLO = Buffer.from('Hello World');
const APP = Buffer.alloc(1024, 'x');

function send(res, body) {
  res.writeHead(200, {
    'Content-Type': 'text/plain',
    'Content-Length': body.length,
  });
  res.end(body);
}

function handle(req, res) {
  if (req.method === 'GET' && req.url === '/hello') {
    send(res, HELLO);
  } else if (req.method === 'GET' && req.url === '/app') {
    // 100 ms +-5% (uniform 95..105 ms) on a timer: the event loop stays free.
    setTimeout(send, 95 + Math.random() * 10, res, APP);
  } else {
    res.writeHead(404, { 'Content-Length': 0 });
    res.end();
  }
}

const server = cert
  ? https.createServer({
    cert: fs.readFileSync(cert),
    key: fs.readFileSync(key),
    ALPNProtocols: ['http/1.1'],
  }, handle)
  : http.createServer(handle);
// Node's default closes a keep-alive connection idle for 5 s; a load
// generator's connections may sit idle longer, as with most other servers.
server.keepAliveTimeout = 0;
server.listen(port, '127.0.0.1');

function stop() { process.exit(0); }
process.on('SIGTERM', stop);
process.on('SIGINT', stop);
