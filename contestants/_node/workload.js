'use strict';
// The json and baseline workloads' answers for the Node contestants (node-http,
// node-express), which copy this file beside their server.js at build time: the
// dataset, read once at start from {workloads}/items.json, priced per request.
const fs = require('fs');
const path = require('path');

/** The items of `dir`/items.json, in order. */
function loadDataset(dir) {
  return JSON.parse(fs.readFileSync(path.join(dir, 'items.json'), 'utf8'));
}

/**
 * The answer to GET /json/{count}?m=M: the first `count` items (at most all), each
 * with total = price * quantity * m; null when count is not a number. A missing or
 * bad m counts as 1.
 */
function priced(items, count, m) {
  if (!/^\d+$/.test(count)) {
    return null;
  }
  const n = Number(count);
  let factor = Number.parseFloat(m);
  if (Number.isNaN(factor)) {
    factor = 1;
  }
  const first = items.slice(0, n).map((item) => ({
    id: item.id,
    name: item.name,
    price: item.price,
    quantity: item.quantity,
    total: item.price * item.quantity * factor,
  }));
  return { count: first.length, items: first };
}

/** The baseline's answer: a + b as text; one missing or not a number counts as 0. */
function sum(a, b) {
  return String((Number.parseInt(a, 10) || 0) + (Number.parseInt(b, 10) || 0));
}

/** Media types by extension, for the corpus's kinds (as a server's mime table says them). */
const TYPES = {
  '.html': 'text/html; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.json': 'application/json',
  '.txt': 'text/plain; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.jpg': 'image/jpeg',
  '.woff2': 'font/woff2',
};

/** The codings an Accept-Encoding value accepts: its tokens without a q of 0. */
function accepted(header) {
  return new Set(String(header || '').split(',').map((part) => {
    const [coding, ...params] = part.trim().toLowerCase().split(';');
    const q = params.map((p) => p.trim()).find((p) => p.startsWith('q='));
    return q !== undefined && Number.parseFloat(q.slice(2)) === 0 ? '' : coding;
  }));
}

/**
 * GET /static/NAME with the http module alone, as its users serve files: the file of
 * `dir` streamed (fs.createReadStream), or its precompressed .br or .gz sibling when the
 * request accepts that coding; the type by extension; `notFound` for a name that is not
 * a file there (or would leave it).
 */
function serveStatic(dir, name, acceptEncoding, res, notFound) {
  const type = TYPES[path.extname(name)];
  if (!/^[A-Za-z0-9][A-Za-z0-9._-]*$/.test(name) || type === undefined) {
    notFound(res);
    return;
  }
  const file = path.join(dir, name);
  const codings = accepted(acceptEncoding);
  const tries = [['br', '.br'], ['gzip', '.gz']].filter(([coding]) => codings.has(coding));
  tries.push([null, '']);
  const next = () => {
    const [coding, suffix] = tries.shift();
    fs.stat(file + suffix, (err, stat) => {
      if (err || !stat.isFile()) {
        if (coding === null) {
          notFound(res);
        } else {
          next();
        }
        return;
      }
      const head = { 'Content-Type': type, 'Content-Length': stat.size, Vary: 'Accept-Encoding' };
      if (coding !== null) {
        head['Content-Encoding'] = coding;
      }
      res.writeHead(200, head);
      fs.createReadStream(file + suffix).pipe(res);
    });
  };
  next();
}

module.exports = { loadDataset, priced, sum, serveStatic };
