/*
 * c-uring: the c-epoll server on io_uring (liburing).   usage: server PORT THREADS
 *
 *   GET /hello -> 200 "Hello World"
 *   GET /app   -> 200 with 1024 bytes after 95-105 ms (an IORING_OP_TIMEOUT)
 *
 * THREADS event loops, each with its own ring and SO_REUSEPORT listener on
 * 127.0.0.1:PORT; loops share nothing.  One multishot accept per listener,
 * one multishot recv per connection into a ring of provided buffers (a
 * buffer goes back to the ring as soon as its bytes are parsed), sends as
 * SQEs, and one io_uring_enter per loop iteration for all of it.
 *
 * A connection has at most one send in flight, so that answers cannot
 * overtake each other; answers made meanwhile wait in a buffer of its own.
 * A single answer is sent straight from the prebuilt response; several are
 * copied into one buffer.  Input that arrives while the connection waits
 * (/app, or too much output queued) is kept, up to IN_LIMIT, beyond which
 * the recv is cancelled until the connection catches up.
 *
 * The parser and the prebuilt responses are c-epoll's (parser.c/h,
 * responses.c/h, built from ../c-epoll): only the event loop differs.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <liburing.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/uio.h>
#include <time.h>
#include <unistd.h>

#include "parser.h"
#include "responses.h"

#define RING_ENTRIES 4096
#define CQ_ENTRIES 16384
#define BUF_COUNT 1024            /* provided receive buffers per loop, a power of 2 */
#define BUF_SIZE 4096
#define BUF_GROUP 0
#define MAX_IOV 1024              /* answers made from one receive buffer, at most */
#define IN_LIMIT 16384            /* input kept while waiting, before the recv is cancelled */
#define OUT_LIMIT 65536           /* output queued behind a send, before parsing waits */
#define APP_DELAY_NS 95000000u    /* /app waits 95 ms ... */
#define APP_SPREAD_NS 10000001u   /* ... plus 0-10 ms, uniformly */
#define LINGER_NS 1000000000u     /* see conn_finish */
#define LISTEN_BACKLOG 4096

/* What a completion is for: the top byte of its user_data (see tag). */
enum op { OP_ACCEPT = 1, OP_RECV, OP_SEND, OP_APP, OP_LINGER, OP_CANCEL };

enum conn_state {
    C_FREE,
    C_OPEN,      /* receiving and answering */
    C_WAIT_APP,  /* an /app answer waits for its timeout; input waits behind it */
    C_LINGER,    /* answered and shut down for writing; input dropped until the client closes */
    C_CLOSING,   /* closed for us; the fd is closed once its recv and send have completed */
};

/* What happens once the output is sent. */
enum close_mode {
    KEEP_OPEN,
    CLOSE_NOW,
    CLOSE_LINGER,  /* input may follow the last answered request: see conn_finish */
};

struct conn {
    struct http_parser p;
    const char *tx;               /* bytes of the send in flight, or NULL */
    char *tx_owned;               /* tx's buffer when it is ours to free, else NULL */
    char *queued;                 /* output made while a send was in flight */
    char *in;                     /* input kept while waiting */
    uint32_t tx_len, queued_len, in_len;
    uint32_t gen;                 /* connections this fd has carried: tells stale completions */
    uint8_t state;                /* enum conn_state */
    uint8_t closing;              /* enum close_mode */
    uint8_t receiving;            /* its multishot recv is armed */
    uint8_t eof;                  /* the client shut down its side */
    uint8_t app_head_only;        /* the /app request was a HEAD */
    const struct response *app;   /* the answer C_WAIT_APP waits to send */
    struct __kernel_timespec ts;  /* a timeout's; the kernel reads it when submitted */
};

struct loop {
    struct io_uring ring;
    int port;
    unsigned seed;
    int listener;
    int accept_paused;            /* out of fds: accept again when one closes */
    struct conn *conns;           /* indexed by fd */
    int max_fd;
    struct io_uring_buf_ring *buf_ring;
    char *bufs;                   /* BUF_COUNT buffers of BUF_SIZE */
    uint64_t rng;
    struct responses resp;
    int niov;                     /* answers made for the connection being parsed */
    struct iovec iov[MAX_IOV];
};

static void conn_close(struct loop *l, int fd, struct conn *c);
static void resume(struct loop *l, int fd, struct conn *c);

static void die(const char *what, int err)
{
    fprintf(stderr, "%s: %s\n", what, strerror(err));
    exit(1);
}

/* ---- submissions ---- */

static uint64_t tag(enum op op, int fd, uint32_t gen)
{
    return (uint64_t)op << 56 | (uint64_t)(gen & 0xffffff) << 32 | (uint32_t)fd;
}

static struct io_uring_sqe *sqe_get(struct loop *l)
{
    struct io_uring_sqe *sqe = io_uring_get_sqe(&l->ring);
    if (sqe == NULL) { /* the queue is full: hand it to the kernel now */
        io_uring_submit(&l->ring);
        sqe = io_uring_get_sqe(&l->ring);
    }
    if (sqe == NULL)
        die("io_uring_get_sqe", EBUSY);
    return sqe;
}

static void arm_accept(struct loop *l)
{
    struct io_uring_sqe *sqe = sqe_get(l);
    io_uring_prep_multishot_accept(sqe, l->listener, NULL, NULL, SOCK_CLOEXEC);
    io_uring_sqe_set_data64(sqe, tag(OP_ACCEPT, l->listener, 0));
}

static void arm_recv(struct loop *l, int fd, struct conn *c)
{
    struct io_uring_sqe *sqe = sqe_get(l);
    io_uring_prep_recv_multishot(sqe, fd, NULL, 0, 0);
    sqe->flags |= IOSQE_BUFFER_SELECT;
    sqe->buf_group = BUF_GROUP;
    io_uring_sqe_set_data64(sqe, tag(OP_RECV, fd, c->gen));
    c->receiving = 1;
}

/* Ends the recv early; its last completion (-ECANCELED) clears c->receiving. */
static void cancel_recv(struct loop *l, int fd, struct conn *c)
{
    struct io_uring_sqe *sqe = sqe_get(l);
    io_uring_prep_cancel64(sqe, tag(OP_RECV, fd, c->gen), 0);
    sqe->flags |= IOSQE_CQE_SKIP_SUCCESS;
    io_uring_sqe_set_data64(sqe, tag(OP_CANCEL, fd, c->gen));
}

static void submit_send(struct loop *l, int fd, struct conn *c)
{
    struct io_uring_sqe *sqe = sqe_get(l);
    io_uring_prep_send(sqe, fd, c->tx, c->tx_len, MSG_NOSIGNAL);
    io_uring_sqe_set_data64(sqe, tag(OP_SEND, fd, c->gen));
}

/* A timeout, told from a stale one by the generation in its tag. */
static void add_timeout(struct loop *l, int fd, struct conn *c, uint64_t ns, enum op op)
{
    c->ts = (struct __kernel_timespec){.tv_sec = (long long)(ns / 1000000000u),
                                       .tv_nsec = (long long)(ns % 1000000000u)};
    struct io_uring_sqe *sqe = sqe_get(l);
    io_uring_prep_timeout(sqe, &c->ts, 0, 0);
    io_uring_sqe_set_data64(sqe, tag(op, fd, c->gen));
}

static void recycle(struct loop *l, unsigned bid)
{
    io_uring_buf_ring_add(l->buf_ring, l->bufs + (size_t)bid * BUF_SIZE, BUF_SIZE,
                          (unsigned short)bid, io_uring_buf_ring_mask(BUF_COUNT), 0);
    io_uring_buf_ring_advance(l->buf_ring, 1);
}

/* ---- output ---- */

static void queue(struct loop *l, const struct response *r, int head_only)
{
    l->iov[l->niov++] = (struct iovec){r->buf, head_only ? r->head_len : r->len};
}

/* Appends iov[0..n) to the malloc'd buffer *buf of *len bytes; 0 if out of memory. */
static int append(char **buf, uint32_t *len, const struct iovec *iov, int n)
{
    size_t total = *len;
    for (int i = 0; i < n; i++)
        total += iov[i].iov_len;
    char *b = realloc(*buf, total);
    if (b == NULL)
        return 0;
    for (int i = 0; i < n; i++) {
        memcpy(b + *len, iov[i].iov_base, iov[i].iov_len);
        *len += (uint32_t)iov[i].iov_len;
    }
    *buf = b;
    return 1;
}

/* Sends the answers made: straight from the prebuilt response if it is one
 * and no send is in flight, else copied (behind the send in flight). */
static void flush(struct loop *l, int fd, struct conn *c)
{
    int n = l->niov;
    l->niov = 0;
    if (n == 0)
        return;
    if (c->tx != NULL) {
        if (!append(&c->queued, &c->queued_len, l->iov, n))
            conn_close(l, fd, c);
        return;
    }
    if (n == 1) {
        c->tx = l->iov[0].iov_base;
        c->tx_len = (uint32_t)l->iov[0].iov_len;
    } else {
        c->tx_len = 0;
        if (!append(&c->tx_owned, &c->tx_len, l->iov, n)) {
            conn_close(l, fd, c);
            return;
        }
        c->tx = c->tx_owned;
    }
    submit_send(l, fd, c);
}

/* ---- closing ---- */

/* The fd is closed only when no recv or send on it is in flight: until then
 * its number (and so its conns[] slot) cannot be reused. */
static void close_if_idle(struct loop *l, int fd, struct conn *c)
{
    if (c->state != C_CLOSING || c->receiving || c->tx != NULL)
        return;
    close(fd);
    c->state = C_FREE;
    if (l->accept_paused) {
        l->accept_paused = 0;
        arm_accept(l);
    }
}

static void conn_close(struct loop *l, int fd, struct conn *c)
{
    free(c->in);
    free(c->queued);
    c->in = c->queued = NULL;
    c->in_len = c->queued_len = 0;
    if (c->tx != NULL) /* a send to a client that does not read would never end */
        shutdown(fd, SHUT_RDWR);
    if (c->receiving)
        cancel_recv(l, fd, c);
    c->state = C_CLOSING;
    close_if_idle(l, fd, c);
}

/* The last answer is sent: close.  If the client may have sent more (after a
 * malformed request, or pipelined behind a Connection: close), close() with
 * unread input would send a RST, which can destroy the answer in the client's
 * receive queue before it reads it.  So send a FIN instead, and drop input
 * until the client closes, for at most LINGER_NS. */
static void conn_finish(struct loop *l, int fd, struct conn *c)
{
    if (c->closing == CLOSE_NOW || c->eof) {
        conn_close(l, fd, c);
        return;
    }
    shutdown(fd, SHUT_WR);
    free(c->in);
    c->in = NULL;
    c->in_len = 0;
    c->state = C_LINGER;
    add_timeout(l, fd, c, LINGER_NS, OP_LINGER);
    if (!c->receiving)
        arm_recv(l, fd, c);
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

/* /app: the answer goes out when its timeout completes (on_app); until then
 * the connection parses nothing, so later pipelined answers stay behind it. */
static void start_app(struct loop *l, int fd, struct conn *c, const struct response *r,
                      int head_only)
{
    add_timeout(l, fd, c, APP_DELAY_NS + next_random(l) % APP_SPREAD_NS, OP_APP);
    c->state = C_WAIT_APP;
    c->app = r;
    c->app_head_only = (uint8_t)head_only;
}

/* A complete request: queue its answer (or start its timeout). */
static void answer(struct loop *l, int fd, struct conn *c)
{
    const struct http_parser *p = &c->p;
    enum response_kind k;
    enum connection_header h;
    response_for_request(p, &k, &h);
    const struct response *r = response_get(&l->resp, k, h);
    int head_only = p->method == METHOD_HEAD;

    if (!p->keep_alive)
        c->closing = CLOSE_NOW;
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
    return c->state == C_WAIT_APP || c->queued_len > OUT_LIMIT;
}

/* Keeps input that cannot be parsed yet; past IN_LIMIT, stops receiving. */
static void keep_input(struct loop *l, int fd, struct conn *c, const char *data, size_t len)
{
    const struct iovec iov = {(void *)data, len};
    if (!append(&c->in, &c->in_len, &iov, 1)) {
        conn_close(l, fd, c);
        return;
    }
    if (c->in_len > IN_LIMIT && c->receiving)
        cancel_recv(l, fd, c);
}

/* Answers the requests in data[0..len), keeping what it cannot parse yet. */
static void conn_input(struct loop *l, int fd, struct conn *c, const char *data, size_t len)
{
    size_t used = 0;
    while (used < len && c->closing == KEEP_OPEN && !paused(c) && l->niov < MAX_IOV)
        used += parse_one(l, fd, c, data + used, len - used);
    if (used < len && c->closing != KEEP_OPEN)
        c->closing = CLOSE_LINGER; /* input past the last answered request */
    else if (used < len)
        keep_input(l, fd, c, data + used, len - used);
    if (c->state == C_CLOSING) {
        l->niov = 0;
        return;
    }
    flush(l, fd, c);
    if (c->closing != KEEP_OPEN && c->state == C_OPEN && c->tx == NULL)
        conn_finish(l, fd, c);
}

/* Takes up input again after a wait: first what was kept, then the socket. */
static void resume(struct loop *l, int fd, struct conn *c)
{
    char *in = c->in;
    size_t len = c->in_len;
    c->in = NULL;
    c->in_len = 0;
    if (in != NULL)
        conn_input(l, fd, c, in, len);
    free(in);
    if (c->state != C_OPEN || c->closing != KEEP_OPEN || paused(c))
        return;
    if (c->eof) {
        if (c->tx == NULL)
            conn_close(l, fd, c);
    } else if (!c->receiving) {
        arm_recv(l, fd, c);
    }
}

/* ---- completions ---- */

static void on_recv(struct loop *l, int fd, struct conn *c, const struct io_uring_cqe *cqe)
{
    if (!(cqe->flags & IORING_CQE_F_MORE))
        c->receiving = 0;
    if (cqe->res > 0) {
        unsigned bid = cqe->flags >> IORING_CQE_BUFFER_SHIFT;
        const char *data = l->bufs + (size_t)bid * BUF_SIZE;
        if (c->state == C_OPEN && c->in == NULL && !paused(c))
            conn_input(l, fd, c, data, (size_t)cqe->res);
        else if (c->state == C_OPEN || c->state == C_WAIT_APP)
            keep_input(l, fd, c, data, (size_t)cqe->res);
        /* else lingering or closing: dropped */
        recycle(l, bid);
    } else if (cqe->res == 0) {
        c->eof = 1;
    } else if (cqe->res != -ENOBUFS && cqe->res != -ECANCELED) {
        conn_close(l, fd, c);
        return;
    }
    if (c->state == C_CLOSING)
        close_if_idle(l, fd, c);
    else if (c->state == C_LINGER && c->eof)
        conn_close(l, fd, c);
    else if (c->state == C_LINGER && !c->receiving)
        arm_recv(l, fd, c);
    else if (c->state == C_OPEN && !c->receiving)
        resume(l, fd, c); /* EOF, no buffer was free, or the multishot ended */
}

static void on_send(struct loop *l, int fd, struct conn *c, int res)
{
    if (res < 0 || c->state == C_CLOSING) {
        free(c->tx_owned);
        c->tx = c->tx_owned = NULL;
        if (c->state == C_CLOSING)
            close_if_idle(l, fd, c);
        else
            conn_close(l, fd, c);
        return;
    }
    if ((uint32_t)res < c->tx_len) { /* partial: send the rest */
        if (c->tx_owned == NULL) {
            /* a prebuilt response: copy the rest, its Date may change meanwhile */
            const struct iovec rest = {(void *)(c->tx + res), c->tx_len - (uint32_t)res};
            c->tx_len = 0;
            if (!append(&c->tx_owned, &c->tx_len, &rest, 1)) {
                c->tx = NULL;
                conn_close(l, fd, c);
                return;
            }
            c->tx = c->tx_owned;
        } else {
            c->tx += res;
            c->tx_len -= (uint32_t)res;
        }
        submit_send(l, fd, c);
        return;
    }
    free(c->tx_owned);
    c->tx = c->tx_owned = NULL;
    if (c->queued != NULL) {
        c->tx = c->tx_owned = c->queued;
        c->tx_len = c->queued_len;
        c->queued = NULL;
        c->queued_len = 0;
        submit_send(l, fd, c);
    }
    if (c->state != C_OPEN)
        return;
    if (c->closing != KEEP_OPEN) {
        if (c->tx == NULL)
            conn_finish(l, fd, c);
        return;
    }
    resume(l, fd, c);
}

static void on_app(struct loop *l, int fd, struct conn *c)
{
    if (c->state != C_WAIT_APP)
        return;
    c->state = C_OPEN;
    queue(l, c->app, c->app_head_only);
    flush(l, fd, c);
    if (c->state == C_OPEN && c->closing == KEEP_OPEN)
        resume(l, fd, c);
    /* with Connection: close, on_send finishes once the answer is out */
}

static void conn_open(struct loop *l, int fd)
{
    if (fd >= l->max_fd) {
        close(fd);
        return;
    }
    struct conn *c = &l->conns[fd];
    *c = (struct conn){.gen = c->gen + 1, .state = C_OPEN};
    http_parser_init(&c->p);
    arm_recv(l, fd, c);
}

static void on_accept(struct loop *l, const struct io_uring_cqe *cqe)
{
    if (cqe->res >= 0)
        conn_open(l, cqe->res);
    if (cqe->flags & IORING_CQE_F_MORE)
        return;
    if (cqe->res == -EMFILE || cqe->res == -ENFILE || cqe->res == -ENOBUFS
        || cqe->res == -ENOMEM)
        l->accept_paused = 1; /* re-armed by close_if_idle */
    else
        arm_accept(l);
}

static void on_cqe(struct loop *l, const struct io_uring_cqe *cqe)
{
    enum op op = (enum op)(cqe->user_data >> 56);
    int fd = (int)(uint32_t)cqe->user_data;
    uint32_t gen = (uint32_t)(cqe->user_data >> 32) & 0xffffff;

    if (op == OP_ACCEPT) {
        on_accept(l, cqe);
        return;
    }
    struct conn *c = &l->conns[fd];
    if (c->state == C_FREE || (c->gen & 0xffffff) != gen) {
        /* a timeout (or failed cancel) of a connection gone since; a recv or
         * send cannot outlive its connection (close_if_idle) */
        return;
    }
    switch (op) {
    case OP_RECV:
        on_recv(l, fd, c, cqe);
        break;
    case OP_SEND:
        on_send(l, fd, c, cqe->res);
        break;
    case OP_APP:
        on_app(l, fd, c);
        break;
    case OP_LINGER:
        if (c->state == C_LINGER)
            conn_close(l, fd, c);
        break;
    default: /* OP_CANCEL that found nothing: the recv had ended already */
        break;
    }
}

/* ---- setup ---- */

static int listener_open(int port)
{
    int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (fd < 0)
        die("socket", errno);
    int one = 1, defer_seconds = 1;
    setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
    if (setsockopt(fd, SOL_SOCKET, SO_REUSEPORT, &one, sizeof one) < 0)
        die("SO_REUSEPORT", errno);
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
        die("bind", errno);
    if (listen(fd, LISTEN_BACKLOG) < 0)
        die("listen", errno);
    return fd;
}

static void buffers_init(struct loop *l)
{
    size_t ring_bytes = BUF_COUNT * sizeof(struct io_uring_buf);
    l->buf_ring = mmap(NULL, ring_bytes, PROT_READ | PROT_WRITE, MAP_ANONYMOUS | MAP_PRIVATE,
                       -1, 0);
    l->bufs = malloc((size_t)BUF_COUNT * BUF_SIZE);
    if (l->buf_ring == MAP_FAILED || l->bufs == NULL)
        die("buffers", ENOMEM);
    struct io_uring_buf_reg reg = {
        .ring_addr = (uint64_t)(uintptr_t)l->buf_ring,
        .ring_entries = BUF_COUNT,
        .bgid = BUF_GROUP,
    };
    int err = io_uring_register_buf_ring(&l->ring, &reg, 0);
    if (err < 0)
        die("io_uring_register_buf_ring", -err);
    io_uring_buf_ring_init(l->buf_ring);
    for (unsigned i = 0; i < BUF_COUNT; i++)
        recycle(l, i);
}

/* In the loop's own thread: a SINGLE_ISSUER ring belongs to its creator. */
static void loop_init(struct loop *l)
{
    l->conns = calloc((size_t)l->max_fd, sizeof *l->conns);
    if (l->conns == NULL)
        die("calloc", ENOMEM);
    l->rng = (uint64_t)time(NULL) * 2654435761u + l->seed + 1;
    responses_init(&l->resp, "c-uring");
    /* DEFER_TASKRUN: the kernel does the ring's deferred work (a send retried
     * when the socket has room, a completion) only inside io_uring_enter, in
     * batches: never while the loop runs, so never while responses_tick
     * rewrites a Date that a send in flight points at */
    struct io_uring_params p = {
        .flags = IORING_SETUP_SINGLE_ISSUER | IORING_SETUP_DEFER_TASKRUN | IORING_SETUP_CQSIZE,
        .cq_entries = CQ_ENTRIES,
    };
    int err = io_uring_queue_init_params(RING_ENTRIES, &l->ring, &p);
    if (err < 0)
        die("io_uring_queue_init_params", -err);
    buffers_init(l);
    l->listener = listener_open(l->port);
    arm_accept(l);
}

static void *loop_run(void *arg)
{
    struct loop *l = arg;
    loop_init(l);
    for (;;) {
        int err = io_uring_submit_and_wait(&l->ring, 1);
        /* EBUSY/EAGAIN: completions overflowed; reaping them below makes room */
        if (err < 0 && err != -EINTR && err != -EBUSY && err != -EAGAIN)
            die("io_uring_submit_and_wait", -err);
        responses_tick(&l->resp, time(NULL));
        struct io_uring_cqe *cqe;
        unsigned head, n = 0;
        io_uring_for_each_cqe(&l->ring, head, cqe) {
            on_cqe(l, cqe);
            n++;
        }
        io_uring_cq_advance(&l->ring, n);
    }
    return NULL;
}

int main(int argc, char **argv)
{
    int port = argc == 3 ? atoi(argv[1]) : 0;
    int threads = argc == 3 ? atoi(argv[2]) : 0;
    if (port <= 0 || port > 65535 || threads <= 0 || threads > 1024) {
        fprintf(stderr, "usage: %s PORT THREADS\n", argv[0]);
        return 2;
    }
    struct rlimit rl;
    if (getrlimit(RLIMIT_NOFILE, &rl) < 0)
        die("getrlimit", errno);
    int max_fd = rl.rlim_cur > (1u << 20) ? 1 << 20 : (int)rl.rlim_cur;

    struct loop *loops = calloc((size_t)threads, sizeof *loops);
    if (loops == NULL)
        die("calloc", ENOMEM);
    for (int i = 0; i < threads; i++) {
        loops[i].port = port;
        loops[i].max_fd = max_fd;
        loops[i].seed = (unsigned)i;
    }
    for (int i = 1; i < threads; i++) {
        pthread_t t;
        int err = pthread_create(&t, NULL, loop_run, &loops[i]);
        if (err != 0)
            die("pthread_create", err);
    }
    loop_run(&loops[0]);
    return 0;
}
