/*
 * libFuzzer target for the C request parser that c-epoll and c-uring share
 * (contestants/c-epoll/parser.c), built by scripts/fuzz-c-parser.
 *
 * The input is a connection's byte stream.  It is parsed twice, as a server
 * does (request after request until the end or an error): once in one piece,
 * and once cut into pieces whose sizes come from a hash of the input.  Both
 * must give the same requests, at the same offsets, with the same fields, and
 * end in the same parser state: the parser keeps everything in struct
 * http_parser, so where a read happens to split the stream must not matter.
 * ASan and UBSan catch what goes wrong inside.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "parser.h"

#define MAX_EVENTS 4096

/* One request answered (HTTP_DONE) or refused (HTTP_ERROR). */
struct event {
    size_t end;  /* stream offset just past the bytes the parser took */
    int result;
    int method, route, minor, keep_alive, error, count, websocket;
    uint32_t m;
    uint64_t sum;
    char ws_key[HTTP_WS_KEY_LEN];  /* the key of a WebSocket upgrade, else zeros */
};

struct run {
    struct event ev[MAX_EVENTS];
    size_t n;
    int stopped;  /* an error ends the stream */
    struct http_parser p;
};

static void check(int ok, const char *what)
{
    if (!ok) {
        fprintf(stderr, "fuzz_parser: %s\n", what);
        abort();
    }
}

static void record(struct run *r, size_t end, enum http_result res)
{
    const struct http_parser *p = &r->p;
    if (res == HTTP_ERROR)
        check(p->error == 400 || p->error == 431 || p->error == 501 || p->error == 505,
              "unexpected error status");
    else
        check(p->method <= METHOD_OTHER && p->route <= ROUTE_WS && p->minor <= 1
                  && p->count <= HTTP_MAX_COUNT
                  && p->keep_alive <= 1 && p->head_len <= HTTP_MAX_HEAD
                  && p->websocket <= 1 && p->ws_key_len <= HTTP_WS_KEY_LEN + 1
                  && (!p->websocket || (p->route == ROUTE_WS && p->method == METHOD_GET
                                        && p->ws_key_len == HTTP_WS_KEY_LEN)),
              "result fields out of range");
    if (r->n < MAX_EVENTS) {
        struct event *e = &r->ev[r->n++];
        *e = (struct event){end, res, p->method, p->route, p->minor, p->keep_alive, p->error,
                            p->count, p->websocket, p->m, p->sum, {0}};
        if (res == HTTP_DONE && p->websocket)
            memcpy(e->ws_key, p->ws_key, sizeof e->ws_key);
    }
}

/* Feeds data[from..to) of the stream, as one read. */
static void feed(struct run *r, const uint8_t *data, size_t from, size_t to)
{
    size_t at = from;
    while (!r->stopped && at < to) {
        size_t used = (size_t)-1;
        enum http_result res = http_parse(&r->p, (const char *)data + at, to - at, &used);
        check(used <= to - at, "used more bytes than given");
        at += used;
        if (res == HTTP_MORE) {
            check(at == to, "HTTP_MORE left bytes unused");
        } else if (res == HTTP_DONE) {
            record(r, at, res);
            http_parser_init(&r->p);
        } else {
            record(r, at, res);
            r->stopped = 1;
            size_t again = 1;
            check(http_parse(&r->p, (const char *)data + at, to - at, &again) == HTTP_ERROR
                      && again == 0,
                  "a failed parser did not stay failed");
        }
    }
}

static uint64_t hash(const uint8_t *data, size_t size)
{
    uint64_t h = 1469598103934665603u; /* FNV-1a */
    for (size_t i = 0; i < size; i++)
        h = (h ^ data[i]) * 1099511628211u;
    return h | 1;
}

static int same_events(const struct run *a, const struct run *b)
{
    if (a->n != b->n)
        return 0;
    for (size_t i = 0; i < a->n; i++) {
        const struct event *x = &a->ev[i], *y = &b->ev[i];
        if (x->end != y->end || x->result != y->result || x->method != y->method
            || x->route != y->route || x->minor != y->minor || x->keep_alive != y->keep_alive
            || x->error != y->error || x->count != y->count || x->m != y->m
            || x->sum != y->sum || x->websocket != y->websocket
            || memcmp(x->ws_key, y->ws_key, sizeof x->ws_key) != 0)
            return 0;
    }
    return 1;
}

/* Field by field: padding bytes may differ. */
static int same_state(const struct http_parser *a, const struct http_parser *b)
{
    return a->body_left == b->body_left && a->head_len == b->head_len && a->error == b->error
        && a->state == b->state && a->flags == b->flags && a->hosts == b->hosts
        && a->field == b->field && a->pos == b->pos
        && memcmp(a->word, b->word, sizeof a->word) == 0 && a->method == b->method
        && a->route == b->route && a->minor == b->minor && a->keep_alive == b->keep_alive
        && a->value == b->value && a->count == b->count && a->form == b->form && a->m == b->m
        && a->sum == b->sum && a->websocket == b->websocket && a->ws_flags == b->ws_flags
        && a->ws_key_len == b->ws_key_len
        && memcmp(a->ws_key, b->ws_key, sizeof a->ws_key) == 0;
}

static struct run whole, pieces;

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    whole.n = pieces.n = 0;
    whole.stopped = pieces.stopped = 0;
    http_parser_init(&whole.p);
    http_parser_init(&pieces.p);

    feed(&whole, data, 0, size);

    /* piece sizes: mostly tiny (1-8 bytes), sometimes up to 1 KiB */
    uint64_t rng = hash(data, size);
    for (size_t at = 0; at < size;) {
        rng ^= rng << 13;
        rng ^= rng >> 7;
        rng ^= rng << 17;
        size_t len = (rng & 3) ? 1 + (rng >> 8) % 8 : 1 + (rng >> 8) % 1024;
        size_t to = size - at < len ? size : at + len;
        feed(&pieces, data, at, to);
        at = to;
    }

    check(same_events(&whole, &pieces), "different requests when split");
    check(same_state(&whole.p, &pieces.p), "different parser state when split");
    return 0;
}
