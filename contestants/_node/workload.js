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

module.exports = { loadDataset, priced, sum };
