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
// Every row of one request in one statement, in id order: two requests' statements lock
// their rows in the same order and never wait on each other crosswise (a deadlock).
const UPDATE_WORLDS = 'UPDATE world SET randomnumber = w.randomnumber FROM '
  + '(SELECT unnest($1::int[]) AS id, unnest($2::int[]) AS randomnumber ORDER BY 1) AS w '
  + 'WHERE world.id = w.id';
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
 * is written back: all in one UPDATE (TechEmpower allows batching the writes), ids and
 * numbers as two arrays. An id read twice is written once, with either number.
 */
async function updates(pool, n) {
  const read = await rows(pool, n);
  for (const r of read) {
    r.randomNumber = randomNumber();
  }
  await pool.query({
    name: 'updates',
    text: UPDATE_WORLDS,
    values: [read.map((r) => r.id), read.map((r) => r.randomNumber)],
  });
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
