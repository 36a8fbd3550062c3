/*
 * c-epoll-tls: c-epoll's design over TLS, as the ceiling of what a TLS server
 * costs on this machine.   usage: server PORT THREADS CERT KEY
 *
 *   GET /hello -> 200 "Hello World"      (no /app here: 404)
 *
 * THREADS event loops, each with its own SO_REUSEPORT listener on
 * 127.0.0.1:PORT, its own edge-triggered epoll set and prebuilt responses
 * (c-epoll's parser.c and responses.c, compiled from its folder).  One server
 * config serves every loop, so a session made on one loop resumes on any.
 *
 * TLS is rustls through its C API (rustls-ffi, built by ./rustls), which
 * does no I/O of its own: this file moves the bytes.  Per pass over a
 * connection: one recv per read the socket fills (a short read means it is
 * drained, so no recv is made to hear EAGAIN), the records decrypted, the
 * answers to all requests in them encrypted as one record, and everything
 * rustls has to send (handshake flight, session ticket, answers,
 * close_notify) in one writev.  So a new client costs two writevs: the
 * server's flight, then its ticket, answer and close_notify together.
 * What the socket does not take stays in rustls until EPOLLOUT, and the
 * connection reads nothing meanwhile.
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
#include <time.h>
#include <unistd.h>

#include "rustls.h"

#include "parser.h"
#include "responses.h"

#define READ_SIZE 16384       /* plaintext taken from rustls at once */
#define OUT_SIZE 16384        /* answers gathered for one rustls write: one record */
#define MAX_EVENTS 512
#define MAX_IOV 1024
#define LISTEN_BACKLOG 4096

struct conn {
    struct rustls_connection *tls; /* NULL: the slot is free */
    struct http_parser p;
    uint32_t gen;                 /* connections this fd has carried: tells stale events */
    uint8_t closing;              /* its last answer is queued: close once it is sent */
    uint8_t blocked;              /* the socket took less than rustls had to send */
    uint8_t watching_out;         /* EPOLLOUT is in its epoll interest */
};

struct loop {
    int epoll;
    int listener;
    int accept_paused;            /* out of fds: listener unwatched, accept retried after the next events */
    const struct rustls_server_config *tls;
    struct conn *conns;           /* indexed by fd */
    int max_fd;
    struct responses resp;
    size_t out_len;               /* answers gathered in out for the connection being read */
    char out[OUT_SIZE];
    uint8_t in[READ_SIZE];
};

/* What a read callback saw: the socket, and whether its last recv came up short. */
struct socket_read {
    int fd;
    int drained;
};

static void die(const char *what)
{
    perror(what);
    exit(1);
}

static void die_tls(const char *what, rustls_result r)
{
    char msg[256];
    size_t n = 0;
    rustls_error(r, msg, sizeof msg, &n);
    fprintf(stderr, "%s: %.*s\n", what, (int)n, msg);
    exit(1);
}

/* ---- the socket, for rustls ---- */

static rustls_io_result read_socket(void *userdata, uint8_t *buf, size_t n, size_t *out_n)
{
    struct socket_read *s = userdata;
    ssize_t got = recv(s->fd, buf, n, 0);
    if (got < 0)
        return errno;
    /* short: the socket is empty now; more input will bring a new edge */
    s->drained = (size_t)got < n;
    *out_n = (size_t)got;
    return 0;
}

static rustls_io_result write_socket(void *userdata, const struct rustls_iovec *iov, size_t count,
                                     size_t *out_n)
{
    int fd = *(const int *)userdata;
    const struct iovec *v = (const struct iovec *)iov;
    /* one record (the usual case at keep-alive) by send: no iovec import, no VFS layer */
    ssize_t w = count == 1 ? send(fd, v[0].iov_base, v[0].iov_len, 0)
                           : writev(fd, v, count > MAX_IOV ? MAX_IOV : (int)count);
    if (w < 0)
        return errno;
    *out_n = (size_t)w;
    return 0;
}

/* ---- closing ---- */

static void conn_close(struct loop *l, int fd)
{
    struct conn *c = &l->conns[fd];
    rustls_connection_free(c->tls);
    c->tls = NULL;
    close(fd);
}

/* Sends what rustls holds for the client.  0 if the connection failed
 * (closed); else c->blocked says whether some had to wait for EPOLLOUT. */
static int conn_flush(struct loop *l, int fd, struct conn *c)
{
    c->blocked = 0;
    while (rustls_connection_wants_write(c->tls)) {
        size_t n;
        rustls_io_result e = rustls_connection_write_tls_vectored(c->tls, write_socket, &fd, &n);
        if (e == EINTR)
            continue;
        if (e == EAGAIN) {
            c->blocked = 1;
            break;
        }
        if (e != 0) {
            conn_close(l, fd);
            return 0;
        }
    }
    if (c->blocked && !c->watching_out) {
        struct epoll_event ev = {
            .events = EPOLLIN | EPOLLOUT | EPOLLRDHUP | EPOLLET,
            .data.u64 = (uint64_t)c->gen << 32 | (uint32_t)fd,
        };
        if (epoll_ctl(l->epoll, EPOLL_CTL_MOD, fd, &ev) < 0) {
            conn_close(l, fd);
            return 0;
        }
        c->watching_out = 1;
    }
    return 1;
}

/* Its last answer is queued: close_notify behind it, send, and close once
 * all is sent (what the socket does not take now goes out on EPOLLOUT,
 * conn_write_pending). */
static void conn_finish(struct loop *l, int fd, struct conn *c)
{
    rustls_connection_send_close_notify(c->tls);
    if (conn_flush(l, fd, c) && !c->blocked)
        conn_close(l, fd);
}

/* ---- requests ---- */

/* Hands the gathered answers to rustls, encrypted as one record; 0 if it
 * failed (the connection is closed). */
static int seal_answers(struct loop *l, int fd, struct conn *c)
{
    size_t done = 0;
    while (done < l->out_len) {
        size_t n = 0;
        if (rustls_connection_write(c->tls, (const uint8_t *)l->out + done, l->out_len - done,
                                    &n) != RUSTLS_RESULT_OK || n == 0) {
            l->out_len = 0;
            conn_close(l, fd);
            return 0;
        }
        done += n;
    }
    l->out_len = 0;
    return 1;
}

static int queue(struct loop *l, int fd, struct conn *c, const struct response *r, int head_only)
{
    size_t len = head_only ? r->head_len : r->len;
    if (l->out_len + len > OUT_SIZE && !seal_answers(l, fd, c))
        return 0;
    memcpy(l->out + l->out_len, r->buf, len);
    l->out_len += len;
    return 1;
}

/* Answers the requests in data[0..len); input after a request that ends the
 * connection is dropped.  0 if the connection failed (closed). */
static int conn_input(struct loop *l, int fd, struct conn *c, const uint8_t *data, size_t len)
{
    size_t used = 0;
    while (used < len && !c->closing) {
        size_t n;
        enum http_result r = http_parse(&c->p, (const char *)data + used, len - used, &n);
        used += n;
        const struct response *answer;
        int head_only = 0;
        if (r == HTTP_MORE)
            continue;
        if (r == HTTP_ERROR) {
            answer = response_get(&l->resp, response_for_error(c->p.error), CONN_CLOSE);
            c->closing = 1;
        } else {
            enum response_kind k;
            enum connection_header h;
            response_for_request(&c->p, &k, &h);
            /* no /app: this ceiling serves /hello only */
            answer = response_get(&l->resp, k == RESP_APP ? RESP_NOT_FOUND : k, h);
            head_only = c->p.method == METHOD_HEAD;
            c->closing = !c->p.keep_alive;
            http_parser_init(&c->p);
        }
        if (!queue(l, fd, c, answer, head_only))
            return 0;
    }
    return 1;
}

/* Takes the plaintext rustls has decrypted and answers it.  0 if the
 * connection failed or ended (closed, or closing); -1 at the client's
 * close_notify. */
static int conn_plaintext(struct loop *l, int fd, struct conn *c)
{
    for (;;) {
        size_t n = 0;
        rustls_result r = rustls_connection_read(c->tls, l->in, READ_SIZE, &n);
        if (r == RUSTLS_RESULT_PLAINTEXT_EMPTY)
            return 1;
        if (r != RUSTLS_RESULT_OK) {
            conn_close(l, fd); /* the TCP stream ended without close_notify */
            return 0;
        }
        if (n == 0)
            return -1;
        if (!conn_input(l, fd, c, l->in, n))
            return 0;
    }
}

/* Reads, decrypts and answers until the socket is drained, the connection
 * waits for its output to drain, or it closes; also moves the handshake
 * along.  A short recv means drained (later input brings a new edge), but a
 * FIN that came with the data (EPOLLRDHUP) brings none: then, and when
 * resuming after a wait, read on until EAGAIN or the end. */
static void conn_read(struct loop *l, int fd, int until_eagain)
{
    struct conn *c = &l->conns[fd];
    struct socket_read s = {fd, 0};
    int ended = 0;
    while (!c->closing && !ended) {
        size_t n = 0;
        rustls_io_result e = rustls_connection_read_tls(c->tls, read_socket, &s, &n);
        if (e == EINTR)
            continue;
        if (e == EAGAIN)
            break;
        if (e != 0) {
            conn_close(l, fd);
            return;
        }
        ended = n == 0; /* the client's FIN */
        if (rustls_connection_process_new_packets(c->tls) != RUSTLS_RESULT_OK) {
            /* rustls queued the alert that says why */
            if (conn_flush(l, fd, c))
                conn_close(l, fd);
            return;
        }
        int more = conn_plaintext(l, fd, c);
        if (more == 0)
            return;
        if (!seal_answers(l, fd, c))
            return;
        if (more < 0)
            c->closing = 1; /* answered with our close_notify */
        if (c->closing)
            break; /* the answers go out with the close_notify, in one writev */
        if (!conn_flush(l, fd, c))
            return;
        if (c->blocked)
            return; /* reads again once the output has drained */
        if (s.drained && !until_eagain)
            break;
    }
    if (c->closing)
        conn_finish(l, fd, c);
    else if (ended)
        conn_close(l, fd);
    else
        conn_flush(l, fd, c);
}

/* EPOLLOUT while rustls holds output: send it, then take up input again. */
static void conn_write_pending(struct loop *l, int fd, struct conn *c)
{
    if (!conn_flush(l, fd, c) || c->blocked)
        return;
    if (c->closing)
        conn_close(l, fd);
    else
        conn_read(l, fd, 1);
}

/* ---- connections ---- */

static void conn_open(struct loop *l, int fd)
{
    struct conn *c = fd < l->max_fd ? &l->conns[fd] : NULL;
    struct rustls_connection *tls = NULL;
    if (c == NULL || rustls_server_connection_new(l->tls, &tls) != RUSTLS_RESULT_OK) {
        close(fd);
        return;
    }
    *c = (struct conn){.tls = tls, .gen = c->gen + 1};
    http_parser_init(&c->p);
    /* The listener defers accept until the ClientHello is in (TCP_DEFER_ACCEPT):
     * answer it at once. */
    conn_read(l, fd, 0);
    if (c->tls == NULL)
        return;
    /* Registered once; EPOLLOUT only if a write has to wait (conn_flush), so
     * a socket that takes every write never reports it. */
    struct epoll_event ev = {
        .events = EPOLLIN | EPOLLRDHUP | EPOLLET | (c->blocked ? EPOLLOUT : 0),
        .data.u64 = (uint64_t)c->gen << 32 | (uint32_t)fd,
    };
    c->watching_out = c->blocked;
    if (epoll_ctl(l->epoll, EPOLL_CTL_ADD, fd, &ev) < 0)
        conn_close(l, fd);
}

/* The listener is level-triggered and one connection is taken per report (as
 * in c-epoll): no accept4 per report only to hear EAGAIN. */
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
        /* out of fds: unwatched, retried after the next events */
        l->accept_paused = out_of_fds;
        listener_watch(l, out_of_fds ? 0 : EPOLLIN);
    }
    if (fd >= 0)
        conn_open(l, fd);
}

static void on_event(struct loop *l, const struct epoll_event *e)
{
    int fd = (int)(uint32_t)e->data.u64;
    if (fd == l->listener) {
        accept_one(l);
        return;
    }
    struct conn *c = &l->conns[fd];
    if (c->tls == NULL || c->gen != (uint32_t)(e->data.u64 >> 32))
        return; /* for a connection closed earlier in this batch */
    if (e->events & (EPOLLERR | EPOLLHUP))
        conn_close(l, fd);
    else if (c->blocked)
        conn_write_pending(l, fd, c);
    else if (e->events & EPOLLIN)
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

static char *read_file(const char *path, size_t *len)
{
    FILE *f = fopen(path, "rb");
    if (f == NULL)
        die(path);
    char *buf = NULL;
    size_t size = 0;
    *len = 0;
    for (;;) {
        if (*len == size) {
            size = size ? 2 * size : 8192;
            buf = realloc(buf, size);
            if (buf == NULL)
                die("realloc");
        }
        size_t n = fread(buf + *len, 1, size - *len, f);
        if (n == 0)
            break;
        *len += n;
    }
    if (ferror(f))
        die(path);
    fclose(f);
    return buf;
}

/* TLS 1.3 and 1.2 on aws-lc-rs (rustls-ffi's default provider, the one
 * rust-hyper's rustls uses), ALPN http/1.1, one TLS 1.3 session ticket per
 * handshake (rustls sends two by default; each resumption brings a fresh one).
 * rustls-ffi has no ticketer: its tickets name sessions kept in rustls's
 * in-memory cache (256 of them), shared by every loop. */
static const struct rustls_server_config *tls_config(const char *cert, const char *key)
{
    size_t cert_len, key_len;
    char *cert_pem = read_file(cert, &cert_len);
    char *key_pem = read_file(key, &key_len);
    const struct rustls_certified_key *certified = NULL;
    rustls_result r = rustls_certified_key_build((const uint8_t *)cert_pem, cert_len,
                                                 (const uint8_t *)key_pem, key_len, &certified);
    if (r != RUSTLS_RESULT_OK)
        die_tls(cert, r);
    free(cert_pem);
    free(key_pem);
    struct rustls_server_config_builder *b = rustls_server_config_builder_new();
    static const struct rustls_slice_bytes alpn[] = {{(const uint8_t *)"http/1.1", 8}};
    const struct rustls_server_config *config = NULL;
    if ((r = rustls_server_config_builder_set_certified_keys(b, &certified, 1)) != RUSTLS_RESULT_OK ||
        (r = rustls_server_config_builder_set_alpn_protocols(b, alpn, 1)) != RUSTLS_RESULT_OK ||
        (r = rustls_server_config_builder_set_send_tls13_tickets(b, 1)) != RUSTLS_RESULT_OK ||
        (r = rustls_server_config_builder_build(b, &config)) != RUSTLS_RESULT_OK)
        die_tls("the TLS configuration", r);
    rustls_certified_key_free(certified);
    return config;
}

static int listener_open(int port)
{
    int fd = socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
    if (fd < 0)
        die("socket");
    int one = 1, defer_seconds = 1;
    setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
    if (setsockopt(fd, SOL_SOCKET, SO_REUSEPORT, &one, sizeof one) < 0)
        die("SO_REUSEPORT");
    setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
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

static void loop_init(struct loop *l, int port, int max_fd, const struct rustls_server_config *tls)
{
    l->max_fd = max_fd;
    l->tls = tls;
    l->conns = calloc((size_t)max_fd, sizeof *l->conns);
    if (l->conns == NULL)
        die("calloc");
    responses_init(&l->resp, "c-epoll-tls");
    l->epoll = epoll_create1(EPOLL_CLOEXEC);
    if (l->epoll < 0)
        die("epoll_create1");
    l->listener = listener_open(port);
    struct epoll_event ev = {.events = EPOLLIN, .data.u64 = (uint32_t)l->listener};
    if (epoll_ctl(l->epoll, EPOLL_CTL_ADD, l->listener, &ev) < 0)
        die("epoll_ctl");
}

int main(int argc, char **argv)
{
    int port = argc == 5 ? atoi(argv[1]) : 0;
    int threads = argc == 5 ? atoi(argv[2]) : 0;
    if (port <= 0 || port > 65535 || threads <= 0 || threads > 1024) {
        fprintf(stderr, "usage: %s PORT THREADS CERT KEY\n", argv[0]);
        return 2;
    }
    signal(SIGPIPE, SIG_IGN);
    const struct rustls_server_config *tls = tls_config(argv[3], argv[4]);
    struct rlimit rl;
    if (getrlimit(RLIMIT_NOFILE, &rl) < 0)
        die("getrlimit");
    int max_fd = rl.rlim_cur > (1u << 20) ? 1 << 20 : (int)rl.rlim_cur;

    struct loop *loops = calloc((size_t)threads, sizeof *loops);
    if (loops == NULL)
        die("calloc");
    for (int i = 0; i < threads; i++)
        loop_init(&loops[i], port, max_fd, tls);
    for (int i = 1; i < threads; i++) {
        pthread_t t;
        if (pthread_create(&t, NULL, loop_run, &loops[i]) != 0)
            die("pthread_create");
    }
    loop_run(&loops[0]);
    return 0;
}
