'use strict';
// Node.js `cluster` + `http`: a primary process forks WORKERS worker processes
// that share the listening socket (the 2012 and 2019 "Node cluster" contestant;
// the 2012 article ran NumCPU-1 workers). Usage: node server.js PORT WORKERS
const cluster = require('cluster');
const http = require('http');

const port = Number(process.argv[2] || 8080);
const workers = Math.max(1, Number(process.argv[3] || 1));

if (cluster.isPrimary) {
  // The primary only forks and, with Node's default round-robin scheduling on
  // Linux, accepts connections and hands them to the workers.
  for (let i = 0; i < workers; i++) cluster.fork();
  let stopping = false;
  const stop = (code) => {
    if (stopping) return;
    stopping = true;
    // Stop the workers and wait for them, so that they are reaped here and
    // nothing outlives the primary; give up after 3 s.
    for (const id in cluster.workers) cluster.workers[id].process.kill('SIGTERM');
    const done = () => {
      if (Object.keys(cluster.workers).length === 0) process.exit(code);
    };
    cluster.on('exit', done);
    done();
    setTimeout(() => process.exit(code), 3000).unref();
  };
  // A benchmark must not hide a crash by re-forking: one worker gone ends it.
  cluster.on('exit', () => stop(1));
  process.on('SIGTERM', () => stop(0));
  process.on('SIGINT', () => stop(0));
} else {
  const HELLO = Buffer.from('Hello World');
  const APP = Buffer.alloc(1024, 'x');

  const send = (res, body) => {
    res.writeHead(200, {
      'Content-Type': 'text/plain',
      'Content-Length': body.length,
    });
    res.end(body);
  };

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
  // The primary gone (killed, crashed): go too, leave no orphan behind.
  process.on('disconnect', () => process.exit(0));
  process.on('SIGTERM', () => process.exit(0));
}
