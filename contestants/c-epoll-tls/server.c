/*
 * c-epoll-tls: c-epoll's design over TLS, as the ceiling of what a TLS server
 * costs on this machine.   usage: server PORT THREADS CERT KEY
 *
 *   GET /hello -> 200 "Hello World"      (no /app here: 404)
 *
 * THREADS event loops, each with its own SO_REUSEPORT listener on
 * 127.0.0.1:PORT, its own edge-triggered epoll set and prebuilt responses
 * (c-epoll's parser.c and responses.c, compiled from its folder).  One SSL_CTX
 * serves every loop, so a session ticket made on one loop resumes on any.
 *
 * OpenSSL works non-blocking on the socket itself: SSL_read drives the
 * handshake and is called until it wants more input (OpenSSL may hold
 * decrypted bytes the socket no longer signals); the answers to one read are
 * gathered into one buffer and go out in one SSL_write, one TLS record.  A
 * connection keeps its SSL state and a parser state; SSL_MODE_RELEASE_BUFFERS
 * gives OpenSSL's record buffers back while it is idle, and only output the
 * socket would not take is copied into a buffer of its own.
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
#include <time.h>
#include <unistd.h>

#include <openssl/err.h>
#include <openssl/ssl.h>

#include "parser.h"
#include "responses.h"

#define READ_SIZE 16384       /* one SSL_read: a whole TLS record's plaintext */
#define OUT_SIZE 16384        /* answers gathered for one SSL_write: one record */
#define MAX_EVENTS 512
#define LISTEN_BACKLOG 4096

struct conn {
    SSL *ssl;                     /* NULL: the slot is free */
    struct http_parser p;
    char *out;                    /* answers SSL_write has not taken yet, or NULL */
    uint32_t out_len, out_sent;
    uint32_t gen;                 /* connections this fd has carried: tells stale events */
    uint8_t closing;              /* its last answer is queued: close once it is sent */
};

struct loop {
    int epoll;
    int listener;
    int accept_paused;            /* out of fds: accept again after the next events */
    SSL_CTX *tls;
    struct conn *conns;           /* indexed by fd */
    int max_fd;
    struct responses resp;
    size_t out_len;               /* answers gathered in out for the connection being read */
    char out[OUT_SIZE];
    char in[READ_SIZE];
};

static void die(const char *what)
{
    perror(what);
    exit(1);
}

/* ---- closing ---- */

/* Closes fd; with `notify`, tells the client first (close_notify, not waited for). */
static void conn_close(struct loop *l, int fd, int notify)
{
    struct conn *c = &l->conns[fd];
    if (notify)
        SSL_shutdown(c->ssl);
    SSL_free(c->ssl);
    ERR_clear_error();
    free(c->out);
    c->ssl = NULL;
    c->out = NULL;
    close(fd);
}

/* 1 when an SSL call that returned `ret` only has to wait for the socket. */
static int tls_waits(SSL *ssl, int ret)
{
    int e = SSL_get_error(ssl, ret);
    return e == SSL_ERROR_WANT_READ || e == SSL_ERROR_WANT_WRITE;
}

/* ---- output ---- */

/* Encrypts and sends buf[0..len); what the socket does not take now is kept in
 * c->out for EPOLLOUT (SSL_MODE_ACCEPT_MOVING_WRITE_BUFFER lets the retry come
 * from there).  0 if the connection failed (closed). */
static int conn_send(struct loop *l, int fd, struct conn *c, const char *buf, size_t len)
{
    size_t sent = 0;
    while (sent < len) {
        int w = SSL_write(c->ssl, buf + sent, (int)(len - sent));
        if (w > 0) {
            sent += (size_t)w;
            continue;
        }
        if (!tls_waits(c->ssl, w)) {
            conn_close(l, fd, 0);
            return 0;
        }
        c->out = malloc(len - sent);
        if (c->out == NULL) {
            conn_close(l, fd, 0);
            return 0;
        }
        memcpy(c->out, buf + sent, len - sent);
        c->out_len = (uint32_t)(len - sent);
        c->out_sent = 0;
        return 1;
    }
    return 1;
}

/* Sends the answers gathered for fd; 0 if the connection failed (closed). */
static int flush(struct loop *l, int fd, struct conn *c)
{
    size_t n = l->out_len;
    l->out_len = 0;
    return n == 0 || conn_send(l, fd, c, l->out, n);
}

static int queue(struct loop *l, int fd, struct conn *c, const struct response *r, int head_only)
{
    size_t len = head_only ? r->head_len : r->len;
    if (l->out_len + len > OUT_SIZE && !flush(l, fd, c))
        return 0;
    memcpy(l->out + l->out_len, r->buf, len);
    l->out_len += len;
    return 1;
}

/* ---- requests ---- */

/* Answers the requests in data[0..len); input after a request that ends the
 * connection is dropped.  0 if the connection failed (closed). */
static int conn_input(struct loop *l, int fd, struct conn *c, const char *data, size_t len)
{
    size_t used = 0;
    while (used < len && !c->closing) {
        size_t n;
        enum http_result r = http_parse(&c->p, data + used, len - used, &n);
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
    return flush(l, fd, c);
}

/* Reads and answers until OpenSSL wants the socket, the connection waits for
 * its output to drain, or it closes.  Also moves the handshake along. */
static void conn_read(struct loop *l, int fd)
{
    struct conn *c = &l->conns[fd];
    while (c->out == NULL) {
        if (c->closing) {
            conn_close(l, fd, 1);
            return;
        }
        int n = SSL_read(c->ssl, l->in, READ_SIZE);
        if (n > 0) {
            if (!conn_input(l, fd, c, l->in, (size_t)n))
                return;
        } else if (tls_waits(c->ssl, n)) {
            return;
        } else {
            /* the client's close_notify is answered with ours; errors are not */
            conn_close(l, fd, SSL_get_error(c->ssl, n) == SSL_ERROR_ZERO_RETURN);
            return;
        }
    }
}

/* EPOLLOUT with output pending: send it, then take up input again. */
static void conn_write_pending(struct loop *l, int fd, struct conn *c)
{
    while (c->out_sent < c->out_len) {
        int w = SSL_write(c->ssl, c->out + c->out_sent, (int)(c->out_len - c->out_sent));
        if (w > 0) {
            c->out_sent += (uint32_t)w;
        } else if (tls_waits(c->ssl, w)) {
            return;
        } else {
            conn_close(l, fd, 0);
            return;
        }
    }
    free(c->out);
    c->out = NULL;
    conn_read(l, fd);
}

/* ---- connections ---- */

static void conn_open(struct loop *l, int fd)
{
    struct conn *c = fd < l->max_fd ? &l->conns[fd] : NULL;
    SSL *ssl = c ? SSL_new(l->tls) : NULL;
    if (ssl == NULL || !SSL_set_fd(ssl, fd)) {
        SSL_free(ssl);
        close(fd);
        return;
    }
    SSL_set_accept_state(ssl);
    *c = (struct conn){.ssl = ssl, .gen = c->gen + 1};
    http_parser_init(&c->p);
    /* The listener defers accept until the ClientHello is in (TCP_DEFER_ACCEPT):
     * answer it at once. */
    conn_read(l, fd);
    if (c->ssl == NULL)
        return;
    /* Registered once, for both directions: OpenSSL may want either. */
    struct epoll_event ev = {
        .events = EPOLLIN | EPOLLOUT | EPOLLRDHUP | EPOLLET,
        .data.u64 = (uint64_t)c->gen << 32 | (uint32_t)fd,
    };
    if (epoll_ctl(l->epoll, EPOLL_CTL_ADD, fd, &ev) < 0)
        conn_close(l, fd, 0);
}

static void accept_all(struct loop *l)
{
    l->accept_paused = 0;
    for (;;) {
        int fd = accept4(l->listener, NULL, NULL, SOCK_NONBLOCK | SOCK_CLOEXEC);
        if (fd >= 0) {
            conn_open(l, fd);
        } else if (errno == EMFILE || errno == ENFILE || errno == ENOBUFS || errno == ENOMEM) {
            l->accept_paused = 1;
            return;
        } else if (errno != EINTR && errno != ECONNABORTED) {
            return; /* EAGAIN: all accepted */
        }
    }
}

static void on_event(struct loop *l, const struct epoll_event *e)
{
    int fd = (int)(uint32_t)e->data.u64;
    if (fd == l->listener) {
        accept_all(l);
        return;
    }
    struct conn *c = &l->conns[fd];
    if (c->ssl == NULL || c->gen != (uint32_t)(e->data.u64 >> 32))
        return; /* for a connection closed earlier in this batch */
    if (e->events & (EPOLLERR | EPOLLHUP))
        conn_close(l, fd, 0);
    else if (c->out != NULL)
        conn_write_pending(l, fd, c);
    else
        conn_read(l, fd);
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
            accept_all(l);
    }
    return NULL;
}

/* ---- setup ---- */

/* ALPN: HTTP/1.1 when the client offers it; else no ALPN at all. */
static int alpn_select(SSL *ssl, const unsigned char **out, unsigned char *outlen,
                       const unsigned char *in, unsigned int inlen, void *arg)
{
    static const unsigned char http11[] = "\x08http/1.1";
    (void)ssl;
    (void)arg;
    if (SSL_select_next_proto((unsigned char **)out, outlen, http11, sizeof http11 - 1, in,
                              inlen) == OPENSSL_NPN_NEGOTIATED)
        return SSL_TLSEXT_ERR_OK;
    return SSL_TLSEXT_ERR_NOACK;
}

static SSL_CTX *tls_context(const char *cert, const char *key)
{
    SSL_CTX *ctx = SSL_CTX_new(TLS_server_method());
    if (ctx == NULL || SSL_CTX_set_min_proto_version(ctx, TLS1_2_VERSION) != 1 ||
        SSL_CTX_use_certificate_chain_file(ctx, cert) != 1 ||
        SSL_CTX_use_PrivateKey_file(ctx, key, SSL_FILETYPE_PEM) != 1) {
        fprintf(stderr, "TLS with %s and %s:\n", cert, key);
        ERR_print_errors_fp(stderr);
        exit(1);
    }
    SSL_CTX_set_mode(ctx, SSL_MODE_RELEASE_BUFFERS | SSL_MODE_ENABLE_PARTIAL_WRITE |
                              SSL_MODE_ACCEPT_MOVING_WRITE_BUFFER);
    /* Session tickets are on by default (stateless, keys made here, shared by every
     * loop); the session cache, for TLS 1.2 session ids, stays OpenSSL's default.
     * One TLS 1.3 ticket per handshake, not OpenSSL's two: each resumption brings
     * a fresh one, and every ticket costs an encryption. */
    SSL_CTX_set_num_tickets(ctx, 1);
    SSL_CTX_set_options(ctx, SSL_OP_NO_RENEGOTIATION);
    SSL_CTX_set_alpn_select_cb(ctx, alpn_select, NULL);
    return ctx;
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

static void loop_init(struct loop *l, int port, int max_fd, SSL_CTX *tls)
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
    struct epoll_event ev = {.events = EPOLLIN | EPOLLET, .data.u64 = (uint32_t)l->listener};
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
    SSL_CTX *tls = tls_context(argv[3], argv[4]);
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
