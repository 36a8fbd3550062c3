'use strict';
// Plain Node.js `http` server, one process, one event loop (the 2012, 2017
// and 2019 "Node" contestant). Usage: node server.js PORT [CERT KEY | h2c]
// Given a certificate and its key (PEM files), the same server over TLS: the
// `http2` module's secure server with Node's TLS defaults (TLS 1.2 and 1.3,
// session tickets), ALPN h2 and http/1.1; allowHTTP1 hands an http/1.1
// connection to the `http` module's own connection handling, as `https` does.
// Given h2c, the same over cleartext HTTP/2 with prior knowledge (the `http2`
// module's createServer: HTTP/2 only on the port). The handler is the same for
// both: over HTTP/2 it gets the module's compatibility request and response.
const fs = require('fs');
const http = require('http');
const http2 = require('http2');

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
s.listen(port, '127.0.0.1');

function stop() { process.exit(0); }
process.on('SIGTERM', stop);
process.on('SIGINT', stop);
