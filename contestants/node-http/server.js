'use strict';
// Plain Node.js `http` server, one process, one event loop (the 2012, 2017
// and 2019 "Node" contestant). Usage: node server.js PORT
const http = require('http');

const port = Number(process.argv[2] || 8080);
const HELLO = Buffer.from('Hello World');
const APP = Buffer.alloc(1024, 'x');

function send(res, body) {
  res.writeHead(200, {
    'Content-Type': 'text/plain',
    'Content-Length': body.length,
  });
  res.end(body);
}

const server = http.createServer((req, res) => {
  if (req.method === 'GET' && req.url === '/hello') {
    send(res, HELLO);
  } else if (req.method === 'GET' && req.url === '/app') {
    // 100 ms +-5% (uniform 95..105 ms) on a timer: the event loop stays free.
    setTimeout(send, 95 + Math.random() * 10, res, APP);
  } else {
    res.writeHead(404, { 'Content-Length': 0 });
    res.end();
  }
});
// Node's default closes a keep-alive connection idle for 5 s; a load
// generator's connections may sit idle longer, as with most other servers.
server.keepAliveTimeout = 0;
server.listen(port, '127.0.0.1');

function stop() { process.exit(0); }
process.on('SIGTERM', stop);
process.on('SIGINT', stop);
