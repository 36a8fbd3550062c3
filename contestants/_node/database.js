'use strict';
// TechEmpower's database tests for the Node contestants (node-http, node-express),
// which copy this file beside their server.js at build time: node-postgres (`pg`) and
// its Pool, sized by DATABASE_POOL; fortunes escaped by `escape-html`. The contestants
// wrap these in their own handlers.
const { Pool } = require('pg');
const escapeHtml = require('escape-html');

const WORLD_ROWS = 10000;
const MOST_QUERIES = 500;
const DEFAULT_POOL = 16;

// Named statements: node-postgres prepares each once per connection (by the protocol,
// so that pg_stat_statements counts every execution), then only binds and executes.
const SELECT_WORLD = 'SELECT id, randomnumber FROM world WHERE id = $1';
const UPDATE_WORLD = 'UPDATE world SET randomnumber = $1 WHERE id = $2';
const SELECT_FORTUNES = 'SELECT id, message FROM fortune';

/** The pool DATABASE_URL names, or null when it is not set (no database tests then). */
function poolFromEnv() {
  const url = process.env.DATABASE_URL;
  if (!url) {
    return null;
  }
  const size = process.env.DATABASE_POOL || String(DEFAULT_POOL);
  const max = Number.parseInt(size, 10);
  if (!(max >= 1)) {
    throw new Error(`DATABASE_POOL ${JSON.stringify(size)}: not a positive number`);
  }
  return new Pool({ connectionString: url, max });
}

/** The rows `q` asks for, by TechEmpower's rule: missing, not a number or below 1 is 1; above 500 is 500. */
function count(q) {
  const n = Number.parseInt(q, 10);
  if (Number.isNaN(n)) {
    return 1;
  }
  return Math.min(Math.max(n, 1), MOST_QUERIES);
}

function randomNumber() {
  return 1 + Math.floor(Math.random() * WORLD_ROWS);
}

/** One random World row, as `{id, randomNumber}`. */
async function row(pool) {
  const result = await pool.query({ name: 'world', text: SELECT_WORLD, values: [randomNumber()] });
  const r = result.rows[0];
  return { id: r.id, randomNumber: r.randomnumber };
}

/** `n` random World rows, each by its own SELECT, all at once on the pool's connections. */
function rows(pool, n) {
  return Promise.all(Array.from({ length: n }, () => row(pool)));
}

/**
 * `n` random World rows read as `rows` reads them, each given a new random number that
 * is written back: one single-row UPDATE each, all at once, each its own transaction (so
 * two requests never wait on each other's rows).
 */
async function updates(pool, n) {
  const read = await rows(pool, n);
  for (const r of read) {
    r.randomNumber = randomNumber();
  }
  await Promise.all(read.map((r) => pool.query({
    name: 'update', text: UPDATE_WORLD, values: [r.randomNumber, r.id],
  })));
  return read;
}

/** The fortunes page: every Fortune row and one added now, sorted by message, escaped. */
async function fortunesPage(pool) {
  const result = await pool.query({ name: 'fortunes', text: SELECT_FORTUNES });
  const fortunes = result.rows;
  fortunes.push({ id: 0, message: 'Additional fortune added at request time.' });
  // By code unit, as TechEmpower sorts (not by locale).
  fortunes.sort((a, b) => (a.message < b.message ? -1 : a.message > b.message ? 1 : 0));
  const table = fortunes
    .map((f) => `<tr><td>${f.id}</td><td>${escapeHtml(f.message)}</td></tr>\n`)
    .join('');
  return '<!DOCTYPE html>\n<html>\n<head><title>Fortunes</title></head>\n<body>\n<table>\n'
    + `<tr><th>id</th><th>message</th></tr>\n${table}</table>\n</body>\n</html>\n`;
}

module.exports = { poolFromEnv, count, row, rows, updates, fortunesPage };
