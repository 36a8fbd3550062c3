/*
 * What the server's parts share: a worker (one thread, one h2o event loop) and how an
 * answer is sent.
 */
#ifndef SERVER_H
#define SERVER_H

#define H2O_USE_LIBUV 0 /* h2o's own event loop (epoll), not libuv */

#include <pthread.h>
#include <yajl/yajl_gen.h>
#include "h2o.h"

#define WAIT_MIN 95 /* ms, /app waits WAIT_MIN..WAIT_MAX */
#define WAIT_MAX 105

struct database;

/*
 * An h2o_timeout_t has one fixed duration, so each loop has one per whole
 * millisecond of the range and /app picks one at random.
 */
struct worker {
    h2o_context_t ctx; /* first: a request's conn->ctx leads back here */
    h2o_accept_ctx_t accept_ctx;
    h2o_timeout_t waits[WAIT_MAX - WAIT_MIN + 1];
    unsigned seed;
    int fd;
    pthread_t thread;
    yajl_gen json;            /* this loop's JSON generator, cleared for each answer */
    struct database *database; /* NULL without DATABASE_URL */
};

/* The worker whose loop serves `req`. */
static inline struct worker *worker_of(h2o_req_t *req)
{
    return (struct worker *)req->conn->ctx;
}

/* `len` bytes of `body` as `type` with `status` (h2o adds Date and Server). */
void respond(h2o_req_t *req, int status, const char *type, const char *body, size_t len);

/* The JSON `g` holds as the answer to `req`; `g` is cleared for the next. */
void respond_json(h2o_req_t *req, yajl_gen g);

/* `on_req` handles the requests under `path` of `host`. */
void register_handler(h2o_hostconf_t *host, const char *path, int (*on_req)(h2o_handler_t *, h2o_req_t *));

/* The value of `name` in the query of `req`, and its length; NULL when absent. */
const char *query_param(h2o_req_t *req, const char *name, size_t *len);

/* The workloads (workloads.c): the dataset from `dir`, and their handlers on `host`. */
int workloads_load(const char *dir);
void workloads_register(h2o_hostconf_t *host, const char *dir);

/* The database endpoints (database.c). */
void database_register(h2o_hostconf_t *host);
struct database *database_open(struct worker *w, const char *url, int connections);

#endif
