/*
 * c-epoll: a hand-written HTTP/1.1 server on edge-triggered epoll, meant as
 * the ceiling of what this machine allows.   usage: server PORT THREADS [ITEMS]
 *
 *   GET /hello -> 200 "Hello World"
 *   GET /app   -> 200 with 1024 bytes after 95-105 ms (a timer, not a sleep)
 *   GET and POST /baseline, GET /json/{count}?m=M: the workloads (workloads.h),
 *   given the dataset ITEMS (the harness's {workloads}/items.json)
 *   GET /ws asking for WebSocket -> 101, then an echo of its frames (ws.h)
 *
 * THREADS event loops, each with its own SO_REUSEPORT listener on
 * 127.0.0.1:PORT (the kernel spreads connections over them), its own epoll
 * set, timers and prebuilt responses; loops share nothing.
 *
 * Per connection there is a parser state (parser.h) and nothing else, unless
 * it must wait: the unsent tail of a partial write, or the input read past a
 * request it cannot answer yet (/app, or output not drained), is copied into
 * a buffer of that connection's own and freed when done.  Input is read into
 * one buffer per loop; the answers to all requests in one read go out in one
 * writev, pointing at the prebuilt responses, and at the workloads' answers,
 * written per request into the loop's answer space.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/uio.h>
#include <unistd.h>

#include "parser.h"
#include "responses.h"
#include "timers.h"
#include "workloads.h"
#include "ws.h"

#define READ_SIZE 16384       /* one read; also bounds the input a paused connection keeps */
#define MAX_IOV 1024          /* answers per writev: a 16 KiB read holds at most ~1000 requests */
#define MAX_EVENTS 512
#define APP_DELAY_NS 95000000u    /* /app waits 95 ms ... */
#define APP_SPREAD_NS 10000001u   /* ... plus 0-10 ms, uniformly */
#define LINGER_NS 1000000000u     /* see conn_finish */
#define LISTEN_BACKLOG 4096
#define ANSWER_SPACE (4 * WORKLOAD_MAX_ANSWER)  /* workload answers queued for one writev */

enum conn_state {
    C_FREE,
    C_OPEN,      /* reading and answering */
    C_WAIT_APP,  /* an /app answer waits for its timer; input waits behind it */
    C_LINGER,    /* answered and shut down for writing; input dropped until the client closes */
    C_WS,        /* upgraded to WebSocket: frames echoed (in: a frame not all read yet) */
};

/* What happens once the output is sent. */
enum close_mode {
    KEEP_OPEN,
    CLOSE_NOW,
    CLOSE_LINGER,  /* input may follow the last answered request: see conn_finish */
};

struct conn {
    struct http_parser p;
    char *out;                    /* unsent output, or NULL */
    char *in;                     /* input read but not parsed yet, or NULL */
    uint32_t out_len, out_sent;
    uint32_t in_len;
    uint32_t gen;                 /* connections this fd has carried: tells stale events and timers */
    uint8_t state;                /* enum conn_state */
    uint8_t closing;              /* enum close_mode */
    uint8_t app_head_only;        /* the /app request was a HEAD */
    const struct response *app;   /* the answer C_WAIT_APP waits to send */
};

struct loop {
    int epoll;
    int listener;
    int accept_paused;            /* out of fds: listener unwatched, accept retried after the next events */
    struct timers timers;
    struct conn *conns;           /* indexed by fd */
    int max_fd;
    uint64_t rng;
    struct responses resp;
    int niov;                     /* answers queued for the connection being read */
    struct iovec iov[MAX_IOV];
    size_t answers_used;          /* of answers[], by the queued workload answers */
    char answers[ANSWER_SPACE];
    char rbuf[READ_SIZE];
    char *ws_out;                 /* WebSocket echoes of one input, grown as needed */
    size_t ws_out_size;
};

static void conn_close(struct loop *l, int fd);
static void conn_read(struct loop *l, int fd, int until_eagain);

static void die(const char *what)
{
    perror(what);
    exit(1);
}

/* ---- output ---- */

static void queue(struct loop *l, const struct response *r, int head_only)
{
    l->iov[l->niov++] = (struct iovec){r->buf, head_only ? r->head_len : r->len};
}

/* Keeps the bytes of iov[0..n) past the first `skip` in c->out, after what is
 * already there; 0 if out of memory. */
static int keep_unsent(struct conn *c, const struct iovec *iov, int n, size_t skip)
{
    size_t total = 0;
    for (int i = 0; i < n; i++)
        total += iov[i].iov_len;
    if (total == skip)
        return 1;
    size_t have = c->out_len - c->out_sent;
    char *buf = malloc(have + total - skip);
    if (buf == NULL)
        return 0;
    if (have)
        memcpy(buf, c->out + c->out_sent, have);
    for (int i = 0; i < n; i++) {
        size_t len = iov[i].iov_len, from = skip < len ? skip : len;
        memcpy(buf + have, (char *)iov[i].iov_base + from, len - from);
        have += len - from;
        skip -= from;
    }
    free(c->out);
    c->out = buf;
    c->out_len = (uint32_t)have;
    c->out_sent = 0;
    return 1;
}

/* Sends iov[0..n) behind any output still pending; what the socket does not
 * take now waits in c->out for EPOLLOUT.  0 if the connection failed (closed). */
static int conn_send(struct loop *l, int fd, struct conn *c, const struct iovec *iov, int n)
{
    size_t sent = 0;
    if (c->out == NULL) {
        /* one answer (the usual case) by send: writev's iovec import and VFS
         * layer are not needed for one buffer */
        ssize_t w;
        do
            w = n == 1 ? send(fd, iov[0].iov_base, iov[0].iov_len, 0) : writev(fd, iov, n);
        while (w < 0 && errno == EINTR);
        if (w < 0 && errno != EAGAIN) {
            conn_close(l, fd);
            return 0;
        }
        sent = w > 0 ? (size_t)w : 0;
    }
    if (!keep_unsent(c, iov, n, sent)) {
        conn_close(l, fd);
        return 0;
    }
    return 1;
}

/* Sends the queued answers; 0 if the connection failed (closed). */
static int flush(struct loop *l, int fd, struct conn *c)
{
    int n = l->niov;
    l->niov = 0;
    /* what the socket did not take is copied to c->out: the space is free again */
    l->answers_used = 0;
    return n == 0 || conn_send(l, fd, c, l->iov, n);
}

/* ---- closing ---- */

static void conn_close(struct loop *l, int fd)
{
    struct conn *c = &l->conns[fd];
    free(c->out);
    free(c->in);
    c->out = c->in = NULL;
    c->state = C_FREE;
    close(fd);
}

/* Drops input until the client closes (or errs); see conn_finish. */
static void linger_read(struct loop *l, int fd)
{
    for (;;) {
        ssize_t n = recv(fd, l->rbuf, READ_SIZE, 0);
        if (n > 0 || (n < 0 && errno == EINTR))
            continue;
        if (n == 0 || errno != EAGAIN)
            conn_close(l, fd);
        return;
    }
}

/* The last answer is sent: close.  If the client may have sent more (after a
 * malformed request, or pipelined behind a Connection: close), close() with
 * unread input would send a RST, which can destroy the answer in the client's
 * receive queue before it reads it.  So send a FIN instead, and drop input
 * until the client closes, for at most LINGER_NS. */
static void conn_finish(struct loop *l, int fd, struct conn *c)
{
    if (c->closing == CLOSE_NOW) {
        conn_close(l, fd);
        return;
    }
    shutdown(fd, SHUT_WR);
    c->state = C_LINGER;
    struct timer t = {now_ns() + LINGER_NS, fd, c->gen, TIMER_LINGER};
    if (timers_add(&l->timers, &t) < 0) {
        conn_close(l, fd);
        return;
    }
    linger_read(l, fd);
}

/* ---- requests ---- */

static uint64_t next_random(struct loop *l)
{
    /* xorshift64: the /app delays need spread, not quality */
    l->rng ^= l->rng << 13;
    l->rng ^= l->rng >> 7;
    l->rng ^= l->rng << 17;
    return l->rng;
}

/* /app: the answer goes out when its timer fires (app_due); until then the
 * connection reads nothing, so later pipelined answers stay behind it. */
static void start_app(struct loop *l, int fd, struct conn *c, const struct response *r,
                      int head_only)
{
    struct timer t = {now_ns() + APP_DELAY_NS + next_random(l) % APP_SPREAD_NS, fd, c->gen,
                      TIMER_APP};
    if (timers_add(&l->timers, &t) < 0) {
        c->closing = CLOSE_NOW; /* out of memory: no answer, the client sees a close */
        return;
    }
    c->state = C_WAIT_APP;
    c->app = r;
    c->app_head_only = (uint8_t)head_only;
}

/* GET /ws asking for WebSocket: the 101 is queued, and the connection reads
 * frames from now on. */
static void ws_upgrade(struct loop *l, struct conn *c)
{
    char accept[WS_ACCEPT_LEN];
    ws_accept(c->p.ws_key, HTTP_WS_KEY_LEN, accept);
    char *at = l->answers + l->answers_used;
    int n = snprintf(at, WORKLOAD_MAX_ANSWER,
                     "HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\n"
                     "Connection: Upgrade\r\nSec-WebSocket-Accept: %.*s\r\n\r\n",
                     WS_ACCEPT_LEN, accept);
    l->iov[l->niov++] = (struct iovec){at, (size_t)n};
    l->answers_used += (size_t)n;
    c->state = C_WS;
}

/* A complete request: queue its answer (or start its timer). */
static void answer(struct loop *l, int fd, struct conn *c)
{
    const struct http_parser *p = &c->p;
    if (p->route == ROUTE_WS && p->websocket) {
        ws_upgrade(l, c);
        return;
    }
    enum response_kind k;
    enum connection_header h;
    response_for_request(p, &k, &h);
    enum workload w = workload_for_request(p);
    if (!p->keep_alive)
        c->closing = CLOSE_NOW;
    if (w == WORKLOAD_BASELINE || w == WORKLOAD_JSON) {
        struct iovec v = workload_answer(w, p, connection_line(h), l->resp.date,
                                         l->answers + l->answers_used);
        l->answers_used = (size_t)((char *)v.iov_base + v.iov_len - l->answers);
        l->iov[l->niov++] = v;
        return;
    }
    if (w == WORKLOAD_NOT_ALLOWED)
        k = RESP_NOT_ALLOWED;
    const struct response *r = response_get(&l->resp, k, h);
    int head_only = p->method == METHOD_HEAD;

    if (k == RESP_APP)
        start_app(l, fd, c, r, head_only);
    else
        queue(l, r, head_only);
}

/* Parses one request (or part of one) from data; returns the bytes used. */
static size_t parse_one(struct loop *l, int fd, struct conn *c, const char *data, size_t len)
{
    size_t used;
    enum http_result r = http_parse(&c->p, data, len, &used);
    if (r == HTTP_ERROR) {
        queue(l, response_get(&l->resp, response_for_error(c->p.error), CONN_CLOSE), 0);
        /* the rest of a malformed request may still be on its way */
        c->closing = CLOSE_LINGER;
    } else if (r == HTTP_DONE) {
        answer(l, fd, c);
        http_parser_init(&c->p);
    }
    return used;
}

static int paused(const struct conn *c)
{
    return c->state == C_WAIT_APP || c->out != NULL;
}

/* WebSocket input: the frame carried from earlier reads, then data[0..len),
 * echoed; a frame not all in yet is carried.  1 if the connection is open and
 * wants more input. */
static int ws_input(struct loop *l, int fd, struct conn *c, const char *data, size_t len)
{
    char *joined = NULL;
    if (c->in != NULL) {
        joined = realloc(c->in, c->in_len + len);
        if (joined == NULL) {
            conn_close(l, fd);
            return 0;
        }
        memcpy(joined + c->in_len, data, len);
        data = joined;
        len += c->in_len;
        c->in = NULL;
        c->in_len = 0;
    }
    if (l->ws_out_size < len + WS_OUT_SLACK) {
        char *grown = realloc(l->ws_out, len + WS_OUT_SLACK);
        if (grown == NULL) {
            free(joined);
            conn_close(l, fd);
            return 0;
        }
        l->ws_out = grown;
        l->ws_out_size = len + WS_OUT_SLACK;
    }
    size_t used, out_len;
    enum ws_after after = ws_echo(data, len, &used, l->ws_out, &out_len);
    if (after == WS_OPEN && used < len) {
        c->in = malloc(len - used);
        if (c->in == NULL) {
            free(joined);
            conn_close(l, fd);
            return 0;
        }
        memcpy(c->in, data + used, len - used);
        c->in_len = (uint32_t)(len - used);
    }
    free(joined);
    struct iovec iov = {l->ws_out, out_len};
    if (out_len > 0 && !conn_send(l, fd, c, &iov, 1))
        return 0;
    if (after == WS_CLOSE) {
        c->closing = CLOSE_LINGER;
        if (c->out == NULL)
            conn_finish(l, fd, c);
        return 0;
    }
    return c->out == NULL;
}

/* Answers the requests in data[0..len), keeping what it cannot parse yet when
 * the connection pauses.  1 if the connection is open and wants more input. */
static int conn_input(struct loop *l, int fd, const char *data, size_t len)
{
    struct conn *c = &l->conns[fd];
    size_t used = 0;

    if (c->state == C_WS)
        return ws_input(l, fd, c, data, len);
    while (used < len && c->closing == KEEP_OPEN && !paused(c) && c->state != C_WS) {
        int full = l->niov == MAX_IOV || ANSWER_SPACE - l->answers_used < WORKLOAD_MAX_ANSWER;
        if (full && !flush(l, fd, c))
            return 0;
        if (!paused(c))
            used += parse_one(l, fd, c, data + used, len - used);
    }
    if (c->state == C_WS) /* upgraded: the 101 first, then the frames behind it */
        return flush(l, fd, c) && ws_input(l, fd, c, data + used, len - used);
    if (used < len && c->closing != KEEP_OPEN) {
        c->closing = CLOSE_LINGER; /* input past the last answered request */
    } else if (used < len) {
        c->in = malloc(len - used);
        if (c->in == NULL) {
            l->niov = 0;
            conn_close(l, fd);
            return 0;
        }
        memcpy(c->in, data + used, len - used);
        c->in_len = (uint32_t)(len - used);
    }
    if (!flush(l, fd, c))
        return 0;
    if (c->closing != KEEP_OPEN && c->state == C_OPEN && c->out == NULL) {
        conn_finish(l, fd, c);
        return 0;
    }
    return c->closing == KEEP_OPEN && !paused(c);
}

/* Reads and answers until the socket is drained or the connection pauses or
 * closes.  A short read means the socket was drained, and later data brings a
 * new edge; but a FIN that came with the data (EPOLLRDHUP) brings none, so
 * then, and when resuming after a pause, read on until EAGAIN. */
static void conn_read(struct loop *l, int fd, int until_eagain)
{
    for (;;) {
        ssize_t n = recv(fd, l->rbuf, READ_SIZE, 0);
        if (n > 0) {
            if (!conn_input(l, fd, l->rbuf, (size_t)n))
                return;
            if (n < READ_SIZE && !until_eagain)
                return;
        } else if (n == 0 || (errno != EINTR && errno != EAGAIN)) {
            conn_close(l, fd);
            return;
        } else if (errno == EAGAIN) {
            return;
        }
    }
}

/* Takes up input again after a pause: first what was kept, then the socket,
 * which may hold more than edge-triggered epoll will announce again. */
static void conn_resume(struct loop *l, int fd)
{
    struct conn *c = &l->conns[fd];
    char *in = c->in;
    size_t len = c->in_len;
    c->in = NULL;
    c->in_len = 0;
    int more = in == NULL || conn_input(l, fd, in, len);
    free(in);
    if (more)
        conn_read(l, fd, 1);
}

/* EPOLLOUT with output pending. */
static void conn_write_pending(struct loop *l, int fd, struct conn *c)
{
    while (c->out_sent < c->out_len) {
        ssize_t w = send(fd, c->out + c->out_sent, c->out_len - c->out_sent, 0);
        if (w < 0 && errno == EINTR)
            continue;
        if (w < 0 && errno == EAGAIN)
            return;
        if (w < 0) {
            conn_close(l, fd);
            return;
        }
        c->out_sent += (uint32_t)w;
    }
    free(c->out);
    c->out = NULL;
    c->out_len = c->out_sent = 0;
    if (c->state == C_WAIT_APP)
        return;
    if (c->closing != KEEP_OPEN)
        conn_finish(l, fd, c);
    else
        conn_resume(l, fd);
}

/* ---- timers ---- */

static void app_due(struct loop *l, int fd)
{
    struct conn *c = &l->conns[fd];
    if (c->state != C_WAIT_APP)
        return;
    c->state = C_OPEN;
    struct iovec iov = {c->app->buf, c->app_head_only ? c->app->head_len : c->app->len};
    if (!conn_send(l, fd, c, &iov, 1) || c->out != NULL)
        return; /* closed, or the rest goes out on EPOLLOUT */
    if (c->closing != KEEP_OPEN)
        conn_finish(l, fd, c);
    else
        conn_resume(l, fd);
}

static void on_timers(struct loop *l)
{
    uint64_t now = now_ns();
    struct timer t;
    while (timers_pop_due(&l->timers, now, &t)) {
        struct conn *c = &l->conns[t.fd];
        if (c->state == C_FREE || c->gen != t.gen)
            continue; /* that connection is gone */
        if (t.kind == TIMER_APP)
            app_due(l, t.fd);
        else if (c->state == C_LINGER)
            conn_close(l, t.fd);
    }
    timers_rearm(&l->timers);
}

/* ---- connections ---- */

static void conn_open(struct loop *l, int fd)
{
    if (fd >= l->max_fd) {
        close(fd);
        return;
    }
    struct conn *c = &l->conns[fd];
    *c = (struct conn){.gen = c->gen + 1, .state = C_OPEN};
    http_parser_init(&c->p);
    /* The listener defers accept until the request arrives (TCP_DEFER_ACCEPT),
     * so read at once; a connection answered and closed right here never
     * enters the epoll set. */
    conn_read(l, fd, 0);
    if (c->state == C_FREE)
        return;
    /* Registered once, for both directions: no epoll_ctl per request.
     * Readiness that came since the read is reported at once. */
    struct epoll_event ev = {
        .events = EPOLLIN | EPOLLOUT | EPOLLRDHUP | EPOLLET,
        .data.u64 = (uint64_t)c->gen << 32 | (uint32_t)fd,
    };
    if (epoll_ctl(l->epoll, EPOLL_CTL_ADD, fd, &ev) < 0)
        conn_close(l, fd);
}

/* The listener is level-triggered and one connection is taken per report: at
 * a few thousand new connections a second each report holds one, and an accept
 * loop would spend an accept4 per report only to hear EAGAIN; when more wait,
 * the next epoll_wait reports the listener again at once. */
static void listener_watch(struct loop *l, uint32_t events)
{
    struct epoll_event ev = {.events = events, .data.u64 = (uint32_t)l->listener};
    if (epoll_ctl(l->epoll, EPOLL_CTL_MOD, l->listener, &ev) < 0)
        die("epoll_ctl");
}

static void accept_one(struct loop *l)
{
    int fd = accept4(l->listener, NULL, NULL, SOCK_NONBLOCK | SOCK_CLOEXEC);
    int out_of_fds = fd < 0 && (errno == EMFILE || errno == ENFILE || errno == ENOBUFS ||
                                errno == ENOMEM);
    if (out_of_fds != l->accept_paused) {
        /* out of fds, a level-triggered listener would be reported again at
         * once: unwatched, it is retried after the next events instead */
        l->accept_paused = out_of_fds;
        listener_watch(l, out_of_fds ? 0 : EPOLLIN);
    }
    if (fd >= 0)
        conn_open(l, fd);
    /* else EAGAIN, EINTR, ECONNABORTED: reported again if more wait */
}

static void on_event(struct loop *l, const struct epoll_event *e)
{
    int fd = (int)(uint32_t)e->data.u64;
    if (fd == l->listener) {
        accept_one(l);
        return;
    }
    if (fd == l->timers.fd) {
        on_timers(l);
        return;
    }
    struct conn *c = &l->conns[fd];
    if (c->state == C_FREE || c->gen != (uint32_t)(e->data.u64 >> 32))
        return; /* for a connection closed earlier in this batch */
    if (e->events & (EPOLLERR | EPOLLHUP))
        conn_close(l, fd);
    else if (c->state == C_LINGER)
        linger_read(l, fd);
    else if ((e->events & EPOLLOUT) && c->out != NULL)
        conn_write_pending(l, fd, c);
    else if ((e->events & EPOLLIN) && !paused(c))
        conn_read(l, fd, (e->events & EPOLLRDHUP) != 0);
}

static void *loop_run(void *arg)
{
    struct loop *l = arg;
    struct epoll_event ev[MAX_EVENTS];
    for (;;) {
        int n = epoll_wait(l->epoll, ev, MAX_EVENTS, -1);
        if (n < 0 && errno != EINTR)
            die("epoll_wait");
        responses_tick(&l->resp, time(NULL));
        for (int i = 0; i < n; i++)
            on_event(l, &ev[i]);
        if (l->accept_paused)
            accept_one(l);
    }
    return NULL;
}

/* ---- setup ---- */

static int listener_open(int port)
{
    int fd = socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
    if (fd < 0)
        die("socket");
    int one = 1, defer_seconds = 1;
    setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
    if (setsockopt(fd, SOL_SOCKET, SO_REUSEPORT, &one, sizeof one) < 0)
        die("SO_REUSEPORT");
    /* accepted sockets inherit TCP_NODELAY from the listener */
    setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
    /* accept only once the client has sent something (else after ~1 s) */
    setsockopt(fd, IPPROTO_TCP, TCP_DEFER_ACCEPT, &defer_seconds, sizeof defer_seconds);
    struct sockaddr_in a = {
        .sin_family = AF_INET,
        .sin_port = htons((uint16_t)port),
        .sin_addr.s_addr = htonl(INADDR_LOOPBACK),
    };
    if (bind(fd, (struct sockaddr *)&a, sizeof a) < 0)
        die("bind");
    if (listen(fd, LISTEN_BACKLOG) < 0)
        die("listen");
    return fd;
}

static void watch(struct loop *l, int fd, uint32_t events)
{
    struct epoll_event ev = {.events = events, .data.u64 = (uint32_t)fd};
    if (epoll_ctl(l->epoll, EPOLL_CTL_ADD, fd, &ev) < 0)
        die("epoll_ctl");
}

static void loop_init(struct loop *l, int port, int max_fd, unsigned seed)
{
    l->max_fd = max_fd;
    l->conns = calloc((size_t)max_fd, sizeof *l->conns);
    if (l->conns == NULL)
        die("calloc");
    l->rng = now_ns() * 2654435761u + seed + 1;
    responses_init(&l->resp, "c-epoll");
    l->epoll = epoll_create1(EPOLL_CLOEXEC);
    if (l->epoll < 0)
        die("epoll_create1");
    if (timers_init(&l->timers) < 0)
        die("timerfd_create");
    l->listener = listener_open(port);
    watch(l, l->listener, EPOLLIN);
    watch(l, l->timers.fd, EPOLLIN | EPOLLET);
}

int main(int argc, char **argv)
{
    int given = argc == 3 || argc == 4;
    int port = given ? atoi(argv[1]) : 0;
    int threads = given ? atoi(argv[2]) : 0;
    if (port <= 0 || port > 65535 || threads <= 0 || threads > 1024) {
        fprintf(stderr, "usage: %s PORT THREADS [ITEMS]\n", argv[0]);
        return 2;
    }
    if (argc == 4 && workloads_load(argv[3]) < 0)
        return 1;
    /* a peer that went away makes write fail with EPIPE, not kill us */
    signal(SIGPIPE, SIG_IGN);
    struct rlimit rl;
    if (getrlimit(RLIMIT_NOFILE, &rl) < 0)
        die("getrlimit");
    int max_fd = rl.rlim_cur > (1u << 20) ? 1 << 20 : (int)rl.rlim_cur;

    struct loop *loops = calloc((size_t)threads, sizeof *loops);
    if (loops == NULL)
        die("calloc");
    for (int i = 0; i < threads; i++)
        loop_init(&loops[i], port, max_fd, (unsigned)i);
    for (int i = 1; i < threads; i++) {
        pthread_t t;
        if (pthread_create(&t, NULL, loop_run, &loops[i]) != 0)
            die("pthread_create");
    }
    loop_run(&loops[0]);
    return 0;
}
