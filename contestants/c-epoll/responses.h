/*
 * Every response this server sends, built once per event loop: status line,
 * headers and body in one buffer each, so answering is pointing at a buffer.
 * Only the Date header changes, rewritten in place when the second changes.
 */
#ifndef RESPONSES_H
#define RESPONSES_H

#include <stddef.h>
#include <time.h>

#include "parser.h"

enum response_kind {
    /* answers that may keep the connection open */
    RESP_HELLO,
    RESP_APP,
    RESP_NOT_FOUND,
    RESP_NOT_ALLOWED,
    RESP_KEEPABLE,
    /* errors, always with Connection: close */
    RESP_BAD_REQUEST = RESP_KEEPABLE,
    RESP_TOO_LARGE,
    RESP_NOT_IMPLEMENTED,
    RESP_BAD_VERSION,
    RESP_KINDS,
};

/* What the response says about the connection. */
enum connection_header {
    CONN_DEFAULT,     /* nothing: HTTP/1.1 keep-alive */
    CONN_KEEP_ALIVE,  /* "Connection: keep-alive", for an HTTP/1.0 client that asked */
    CONN_CLOSE,       /* "Connection: close" */
    CONN_HEADERS,
};

struct response {
    char *buf;
    size_t len;       /* head and body */
    size_t head_len;  /* head only: the answer to HEAD */
    size_t date_at;   /* offset of the Date value */
};

struct responses {
    struct response keepable[RESP_KEEPABLE][CONN_HEADERS];
    struct response errors[RESP_KINDS - RESP_KEEPABLE];
    time_t date_second;
    char date[30];    /* the Date value of this second, for answers written per request */
};

/* Builds every response for server name `server`; exits if out of memory. */
void responses_init(struct responses *rs, const char *server);

/* Rewrites the Date headers if `now` is a new second. */
void responses_tick(struct responses *rs, time_t now);

/* The response to send: for kinds past RESP_KEEPABLE `conn` is ignored. */
const struct response *response_get(const struct responses *rs, enum response_kind kind,
                                    enum connection_header conn);

/* The header line of `conn` ("" for CONN_DEFAULT). */
const char *connection_line(enum connection_header conn);

/* The answer to a complete request: 404 for a path other than /hello and /app
 * (c-epoll answers its workload routes itself: workloads.h), 405 for a method
 * other than GET and HEAD, else its route; and what to say about the connection. */
void response_for_request(const struct http_parser *p, enum response_kind *kind,
                          enum connection_header *conn);

/* The error response for a parser status (400, 431, 501, 505). */
enum response_kind response_for_error(int status);

#endif
