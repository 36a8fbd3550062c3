/*
 * TechEmpower's database endpoints (shootout's docs/database.md) on libpq in pipeline
 * mode, inside h2o's event loop:
 *
 *   /db          one random World row
 *   /queries?q=N N rows, one SELECT each
 *   /updates?q=N N rows read, then written back with new numbers by one UPDATE of arrays
 *   /fortunes    every Fortune row and one added, sorted, HTML-escaped
 *
 * Each worker (event loop) holds its share of DATABASE_POOL connections, opened and
 * prepared at start, then non-blocking and in pipeline mode; each connection's socket is
 * watched by the worker's loop (an h2o socket that h2o does not read: libpq does). A
 * request's statements go out together in one pipeline ending in a Sync, so N reads cost
 * one round trip; a connection carries one request's pipeline at a time, and requests
 * wait in the worker's queue for a free one.
 */
#include <libpq-fe.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "server.h"

#define ROWS 10000
#define MOST_ASKED 500

enum kind { DB, QUERIES, UPDATES, FORTUNES };

struct fortune {
    long id;
    char *message;
};

/* One request's work, from its statements sent to its answer. */
struct job {
    struct job *next;
    enum kind kind;
    h2o_req_t *req;     /* NULL once the client went away */
    struct link *link;  /* in the request's pool, while the request lives */
    int asked;          /* rows */
    int read;           /* rows read so far */
    int failed;
    int ids[MOST_ASKED];
    int numbers[MOST_ASKED];
    struct fortune *fortunes;
    int fortune_count;
};

/* Lives in the request's memory pool: when the request is freed, the job learns it. */
struct link {
    struct job *job;
};

struct connection {
    PGconn *pg;
    h2o_socket_t *sock;
    struct job *job; /* NULL: free */
    struct database *database;
};

struct database {
    struct worker *worker;
    struct connection *connections;
    int count;
    struct job *head, *tail; /* waiting for a free connection */
};

static void start(struct connection *c, struct job *job);

static void on_link_dispose(void *p)
{
    struct link *link = p;
    if (link->job != NULL)
        link->job->req = NULL;
}

static void free_job(struct job *job)
{
    for (int i = 0; i < job->fortune_count; i++)
        free(job->fortunes[i].message);
    free(job->fortunes);
    free(job);
}

static void respond_rows(h2o_req_t *req, struct job *job)
{
    yajl_gen g = worker_of(req)->json;
    if (job->kind != DB)
        yajl_gen_array_open(g);
    for (int i = 0; i < job->asked; i++) {
        yajl_gen_map_open(g);
        yajl_gen_string(g, (const unsigned char *)"id", 2);
        yajl_gen_integer(g, job->ids[i]);
        yajl_gen_string(g, (const unsigned char *)"randomNumber", 12);
        yajl_gen_integer(g, job->numbers[i]);
        yajl_gen_map_close(g);
    }
    if (job->kind != DB)
        yajl_gen_array_close(g);
    respond_json(req, g);
}

static int by_message(const void *a, const void *b)
{
    return strcmp(((const struct fortune *)a)->message, ((const struct fortune *)b)->message);
}

/* `s` HTML-escaped at `out`; the end of what was written. */
static char *escape(char *out, const char *s)
{
    for (; *s != '\0'; s++) {
        const char *with;
        switch (*s) {
        case '&': with = "&amp;"; break;
        case '<': with = "&lt;"; break;
        case '>': with = "&gt;"; break;
        case '"': with = "&quot;"; break;
        case '\'': with = "&#39;"; break;
        default: *out++ = *s; continue;
        }
        size_t n = strlen(with);
        memcpy(out, with, n);
        out += n;
    }
    return out;
}

static void respond_fortunes(h2o_req_t *req, struct job *job)
{
    static const char head[] = "<!DOCTYPE html><html><head><title>Fortunes</title></head><body><table>"
                               "<tr><th>id</th><th>message</th></tr>";
    static const char tail[] = "</table></body></html>";
    qsort(job->fortunes, (size_t)job->fortune_count, sizeof *job->fortunes, by_message);
    size_t most = sizeof head + sizeof tail;
    for (int i = 0; i < job->fortune_count; i++)
        most += 64 + 6 * strlen(job->fortunes[i].message); /* "&quot;" is the longest escape */
    char *page = h2o_mem_alloc_pool(&req->pool, most), *at = page;
    at += sprintf(at, "%s", head);
    for (int i = 0; i < job->fortune_count; i++) {
        at += sprintf(at, "<tr><td>%ld</td><td>", job->fortunes[i].id);
        at = escape(at, job->fortunes[i].message);
        at += sprintf(at, "</td></tr>");
    }
    at += sprintf(at, "%s", tail);
    req->res.status = 200;
    req->res.reason = "OK";
    req->res.content_length = (size_t)(at - page);
    h2o_add_header(&req->pool, &req->res.headers, H2O_TOKEN_CONTENT_TYPE, NULL,
                   H2O_STRLIT("text/html; charset=utf-8"));
    static h2o_generator_t generator = {NULL, NULL};
    h2o_start_response(req, &generator);
    h2o_iovec_t body = h2o_iovec_init(page, (size_t)(at - page));
    h2o_send(req, &body, 1, H2O_SEND_STATE_FINAL);
}

/* The job of `c` is done: its answer, then the next waiting job on this connection. */
static void finish(struct connection *c)
{
    struct job *job = c->job;
    c->job = NULL;
    if (job->req != NULL) {
        job->link->job = NULL;
        if (job->failed)
            respond(job->req, 500, "text/plain", H2O_STRLIT("the database failed"));
        else if (job->kind == FORTUNES)
            respond_fortunes(job->req, job);
        else
            respond_rows(job->req, job);
    }
    free_job(job);
    struct database *d = c->database;
    if (d->head != NULL) {
        struct job *next = d->head;
        d->head = next->next;
        if (d->head == NULL)
            d->tail = NULL;
        start(c, next);
    }
}

static void took(struct job *job, PGresult *r)
{
    if (job->kind == FORTUNES) {
        int n = PQntuples(r);
        job->fortunes = calloc((size_t)n + 1, sizeof *job->fortunes);
        if (job->fortunes == NULL) {
            job->failed = 1;
            return;
        }
        for (int i = 0; i < n; i++) {
            job->fortunes[i].id = atol(PQgetvalue(r, i, 0));
            job->fortunes[i].message = strdup(PQgetvalue(r, i, 1));
        }
        job->fortunes[n].id = 0;
        job->fortunes[n].message = strdup("Additional fortune added at request time.");
        job->fortune_count = n + 1;
        return;
    }
    if (PQntuples(r) != 1 || job->read >= job->asked) {
        job->failed = 1;
        return;
    }
    /* /updates answers the numbers it writes, not those it read */
    if (job->kind != UPDATES)
        job->numbers[job->read] = atoi(PQgetvalue(r, 0, 0));
    job->read++;
}

/* Every result libpq has whole; the job ends at its Sync. */
static void take_results(struct connection *c)
{
    while (c->job != NULL && !PQisBusy(c->pg)) {
        PGresult *r = PQgetResult(c->pg);
        if (r == NULL)
            continue; /* one statement's results end; the next's follow */
        switch (PQresultStatus(r)) {
        case PGRES_TUPLES_OK:
            took(c->job, r);
            break;
        case PGRES_COMMAND_OK:
            break;
        case PGRES_PIPELINE_SYNC:
            PQclear(r);
            finish(c);
            continue;
        default:
            c->job->failed = 1;
        }
        PQclear(r);
    }
}

static void on_readable(h2o_socket_t *sock, const char *err)
{
    struct connection *c = sock->data;
    if (err != NULL || !PQconsumeInput(c->pg)) {
        fprintf(stderr, "database: %s\n", err != NULL ? err : PQerrorMessage(c->pg));
        if (c->job != NULL) {
            c->job->failed = 1;
            finish(c);
        }
        return;
    }
    take_results(c);
}

static void on_writable(h2o_socket_t *sock, const char *err);

/* What libpq holds of the pipeline goes out; the rest once the socket takes more. */
static void flush(struct connection *c)
{
    if (PQflush(c->pg) == 1)
        h2o_socket_notify_write(c->sock, on_writable);
}

static void on_writable(h2o_socket_t *sock, const char *err)
{
    if (err == NULL)
        flush(sock->data);
}

/* "{1,2,3}": an int[] parameter in text. */
static char *int_array(const int *values, int n)
{
    char *text = malloc((size_t)n * 12 + 3), *at = text;
    if (text == NULL)
        return NULL;
    *at++ = '{';
    for (int i = 0; i < n; i++)
        at += sprintf(at, i == 0 ? "%d" : ",%d", values[i]);
    *at++ = '}';
    *at = '\0';
    return text;
}

static int by_id(const void *a, const void *b)
{
    const int *x = a, *y = b;
    return (x[0] > y[0]) - (x[0] < y[0]);
}

/* The UPDATE of every row of `job`, in id order (so that two updates lock alike). */
static int send_update(PGconn *pg, struct job *job)
{
    int pairs[MOST_ASKED][2], ids[MOST_ASKED], numbers[MOST_ASKED];
    for (int i = 0; i < job->asked; i++) {
        pairs[i][0] = job->ids[i];
        pairs[i][1] = job->numbers[i];
    }
    qsort(pairs, (size_t)job->asked, sizeof pairs[0], by_id);
    for (int i = 0; i < job->asked; i++) {
        ids[i] = pairs[i][0];
        numbers[i] = pairs[i][1];
    }
    char *values[2] = {int_array(ids, job->asked), int_array(numbers, job->asked)};
    int sent = values[0] != NULL && values[1] != NULL &&
               PQsendQueryPrepared(pg, "update", 2, (const char *const *)values, NULL, NULL, 0);
    free(values[0]);
    free(values[1]);
    return sent;
}

/* The statements of `job` on `c`, and a Sync. */
static void start(struct connection *c, struct job *job)
{
    c->job = job;
    int sent = 1;
    if (job->kind == FORTUNES) {
        sent = PQsendQueryPrepared(c->pg, "fortune", 0, NULL, NULL, NULL, 0);
    } else {
        for (int i = 0; i < job->asked && sent; i++) {
            char id[12];
            const char *values[1] = {id};
            snprintf(id, sizeof id, "%d", job->ids[i]);
            sent = PQsendQueryPrepared(c->pg, "world", 1, values, NULL, NULL, 0);
        }
        if (sent && job->kind == UPDATES)
            sent = send_update(c->pg, job);
    }
    if (!sent || !PQpipelineSync(c->pg)) {
        fprintf(stderr, "database: %s\n", PQerrorMessage(c->pg));
        job->failed = 1;
        finish(c);
        return;
    }
    flush(c);
}

static int rows_asked(h2o_req_t *req)
{
    size_t len;
    const char *q = query_param(req, "q", &len);
    long n = 0;
    size_t i = 0;
    if (q == NULL || len == 0)
        return 1;
    int negative = q[0] == '-';
    for (i = (size_t)negative; i < len && q[i] >= '0' && q[i] <= '9'; i++)
        n = n < MOST_ASKED ? n * 10 + (q[i] - '0') : n;
    if (i != len || i == (size_t)negative || negative || n < 1)
        return 1;
    return n > MOST_ASKED ? MOST_ASKED : (int)n;
}

static int on_request(h2o_req_t *req, enum kind kind)
{
    struct worker *w = worker_of(req);
    struct database *d = w->database;
    if (d == NULL)
        return -1; /* no DATABASE_URL: not handled, h2o answers 404 */
    struct job *job = calloc(1, sizeof *job);
    if (job == NULL)
        return -1;
    job->kind = kind;
    job->req = req;
    job->asked = kind == DB ? 1 : kind == FORTUNES ? 0 : rows_asked(req);
    for (int i = 0; i < job->asked; i++) {
        job->ids[i] = (int)(rand_r(&w->seed) % ROWS) + 1;
        job->numbers[i] = (int)(rand_r(&w->seed) % ROWS) + 1; /* written by /updates */
    }
    job->link = h2o_mem_alloc_shared(&req->pool, sizeof *job->link, on_link_dispose);
    job->link->job = job;
    for (int i = 0; i < d->count; i++)
        if (d->connections[i].job == NULL) {
            start(&d->connections[i], job);
            return 0;
        }
    if (d->tail != NULL)
        d->tail->next = job;
    else
        d->head = job;
    d->tail = job;
    return 0;
}

/* An h2o handler that knows which endpoint it serves. */
struct endpoint {
    h2o_handler_t super;
    enum kind kind;
};

static int on_endpoint(h2o_handler_t *self, h2o_req_t *req)
{
    return on_request(req, ((struct endpoint *)self)->kind);
}

void database_register(h2o_hostconf_t *host)
{
    static const struct {
        const char *path;
        enum kind kind;
    } endpoints[] = {{"/db", DB}, {"/queries", QUERIES}, {"/updates", UPDATES}, {"/fortunes", FORTUNES}};
    for (size_t i = 0; i < sizeof endpoints / sizeof endpoints[0]; i++) {
        h2o_pathconf_t *pathconf = h2o_config_register_path(host, endpoints[i].path, 0);
        struct endpoint *e = (struct endpoint *)h2o_create_handler(pathconf, sizeof *e);
        e->super.on_req = on_endpoint;
        e->kind = endpoints[i].kind;
    }
}

static int prepare(PGconn *pg, const char *name, const char *sql, int params)
{
    PGresult *r = PQprepare(pg, name, sql, params, NULL);
    int ok = PQresultStatus(r) == PGRES_COMMAND_OK;
    if (!ok)
        fprintf(stderr, "database: preparing %s: %s", name, PQerrorMessage(pg));
    PQclear(r);
    return ok;
}

/* One connection to `url`, its statements prepared, then non-blocking and pipelined. */
static int connect_one(struct database *d, struct connection *c, const char *url)
{
    c->database = d;
    c->pg = PQconnectdb(url);
    if (PQstatus(c->pg) != CONNECTION_OK) {
        fprintf(stderr, "database: %s", PQerrorMessage(c->pg));
        return -1;
    }
    if (!prepare(c->pg, "world", "SELECT randomnumber FROM world WHERE id = $1", 1) ||
        !prepare(c->pg, "fortune", "SELECT id, message FROM fortune", 0) ||
        !prepare(c->pg, "update",
                 "UPDATE world SET randomnumber = new.rn FROM unnest($1::int[], $2::int[]) AS new(id, rn) "
                 "WHERE world.id = new.id",
                 2))
        return -1;
    if (PQsetnonblocking(c->pg, 1) != 0 || PQenterPipelineMode(c->pg) != 1) {
        fprintf(stderr, "database: pipeline mode: %s", PQerrorMessage(c->pg));
        return -1;
    }
    c->sock = h2o_evloop_socket_create(d->worker->ctx.loop, PQsocket(c->pg), H2O_SOCKET_FLAG_DONT_READ);
    c->sock->data = c;
    h2o_socket_read_start(c->sock, on_readable);
    return 0;
}

struct database *database_open(struct worker *w, const char *url, int connections)
{
    struct database *d = calloc(1, sizeof *d);
    if (d == NULL || (d->connections = calloc((size_t)connections, sizeof *d->connections)) == NULL)
        return NULL;
    d->worker = w;
    d->count = connections;
    for (int i = 0; i < connections; i++)
        if (connect_one(d, &d->connections[i], url) != 0)
            return NULL;
    return d;
}
