/*
 * Hello-world server on libh2o (the "C h2o" of the 2017 article), in the
 * style of h2o's examples/libh2o/simple.c, evloop flavour.
 * usage: server PORT THREADS [CERT KEY | h2c]
 *
 *   GET /hello -> 200 "Hello World"
 *   GET /app   -> 200 with 1024 bytes after 95-105 ms
 *   the workloads (workloads.c) from the folder WORKLOADS names, when it is set
 *   the database endpoints (database.c) when DATABASE_URL is set, each loop
 *   with its share of DATABASE_POOL connections
 *
 * THREADS threads each run their own h2o event loop on their own listening
 * socket (SO_REUSEPORT: the kernel spreads the connections); nothing is
 * shared between them but the read-only configuration.
 *
 * Given a certificate and its key (PEM), the same server over TLS, h2o's own
 * (its OpenSSL sockets): one SSL_CTX for every loop, TLS 1.2 and 1.3, ALPN
 * h2 and http/1.1 (h2o serves HTTP/2 when the client picks h2), OpenSSL's
 * server defaults for resumption (session cache and tickets on).
 *
 * Given h2c, cleartext HTTP/2 with prior knowledge: every connection goes to
 * h2o_http2_accept, which expects the client's connection preface first (no
 * Upgrade from HTTP/1.1; an HTTP/1.1 request is refused). In clear text
 * without it, HTTP/1.1 only (h2o's upgrade to HTTP/2 off).
 */
#include <errno.h>
#include <netinet/in.h>
#include <arpa/inet.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>
#include <openssl/err.h>
#include <openssl/ssl.h>
#include "server.h"
#include "h2o/http2.h"

/* A /app request waiting for its timeout; lives in the request's pool. */
struct delayed {
    h2o_timeout_entry_t entry;
    h2o_req_t *req;
};

static h2o_globalconf_t config;
static SSL_CTX *tls; /* NULL: clear text */
static int h2c;      /* in clear text: HTTP/2 with prior knowledge instead of HTTP/1.1 */
static char app_body[1024];

static const char *database_url; /* NULL: no database endpoints */
static int database_connections;  /* per loop */

void respond(h2o_req_t *req, int status, const char *type, const char *body, size_t len)
{
    req->res.status = status;
    req->res.reason = status == 200 ? "OK" : status == 404 ? "Not Found" : "Internal Server Error";
    req->res.content_length = len;
    h2o_add_header(&req->pool, &req->res.headers, H2O_TOKEN_CONTENT_TYPE, NULL, type, strlen(type));
    h2o_send_inline(req, body, len);
}

void respond_json(h2o_req_t *req, yajl_gen g)
{
    const unsigned char *json;
    size_t len;
    yajl_gen_get_buf(g, &json, &len);
    respond(req, 200, "application/json", (const char *)json, len);
    yajl_gen_clear(g);
    yajl_gen_reset(g, NULL);
}

const char *query_param(h2o_req_t *req, const char *name, size_t *len)
{
    if (req->query_at == SIZE_MAX)
        return NULL;
    const char *at = req->path.base + req->query_at + 1, *end = req->path.base + req->path.len;
    size_t name_len = strlen(name);
    while (at < end) {
        const char *pair_end = memchr(at, '&', (size_t)(end - at));
        if (pair_end == NULL)
            pair_end = end;
        if ((size_t)(pair_end - at) > name_len && memcmp(at, name, name_len) == 0 && at[name_len] == '=') {
            *len = (size_t)(pair_end - at) - name_len - 1;
            return at + name_len + 1;
        }
        at = pair_end + 1;
    }
    return NULL;
}

static int on_hello(h2o_handler_t *self, h2o_req_t *req)
{
    (void)self;
    respond(req, 200, "text/plain", H2O_STRLIT("Hello World"));
    return 0;
}

static void on_app_timeout(h2o_timeout_entry_t *entry)
{
    struct delayed *d = H2O_STRUCT_FROM_MEMBER(struct delayed, entry, entry);
    respond(d->req, 200, "text/plain", app_body, sizeof app_body);
}

/* The request is freed (its client went away): its timer must not fire. */
static void on_app_dispose(void *p)
{
    struct delayed *d = p;
    if (h2o_timeout_is_linked(&d->entry))
        h2o_timeout_unlink(&d->entry);
}

static int on_app(h2o_handler_t *self, h2o_req_t *req)
{
    (void)self;
    struct worker *w = (struct worker *)req->conn->ctx;
    struct delayed *d = h2o_mem_alloc_shared(&req->pool, sizeof *d, on_app_dispose);
    memset(d, 0, sizeof *d);
    d->entry.cb = on_app_timeout;
    d->req = req;
    h2o_timeout_link(w->ctx.loop, &w->waits[rand_r(&w->seed) % (WAIT_MAX - WAIT_MIN + 1)], &d->entry);
    return 0; /* handled: the response comes later */
}

static void on_accept(h2o_socket_t *listener, const char *err)
{
    h2o_socket_t *sock;
    if (err != NULL)
        return;
    if ((sock = h2o_evloop_socket_accept(listener)) == NULL)
        return;
    struct worker *w = listener->data;
    if (h2c)
        h2o_http2_accept(&w->accept_ctx, sock, *h2o_get_timestamp(&w->ctx, NULL, NULL));
    else
        h2o_accept(&w->accept_ctx, sock);
}

static void *run_loop(void *arg)
{
    struct worker *w = arg;
    h2o_context_init(&w->ctx, h2o_evloop_create(), &config);
    w->accept_ctx.ctx = &w->ctx;
    w->accept_ctx.hosts = config.hosts;
    w->accept_ctx.ssl_ctx = tls;
    for (int i = 0; i <= WAIT_MAX - WAIT_MIN; i++)
        h2o_timeout_init(w->ctx.loop, &w->waits[i], WAIT_MIN + i);
    w->json = yajl_gen_alloc(NULL);
    if (database_url != NULL && (w->database = database_open(w, database_url, database_connections)) == NULL) {
        fprintf(stderr, "cannot open the database's connections\n");
        exit(1);
    }

    h2o_socket_t *listener = h2o_evloop_socket_create(w->ctx.loop, w->fd, H2O_SOCKET_FLAG_DONT_READ);
    listener->data = w;
    h2o_socket_read_start(listener, on_accept);

    while (h2o_evloop_run(w->ctx.loop, INT32_MAX) == 0)
        ;
    return NULL;
}

/*
 * The protocols offered by ALPN, HTTP/2 first (the list ends with an empty entry):
 * h2o_accept's handshake callback hands a connection that picked h2 to its
 * HTTP/2 side (h2o_http2_alpn_protocols holds h2), any other to HTTP/1.1.
 * h2o's own h2o_alpn_protocols would offer the drafts h2-14 and h2-16 too.
 */
static const h2o_iovec_t alpn_protocols[] = {{H2O_STRLIT("h2")}, {H2O_STRLIT("http/1.1")}, {NULL, 0}};

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
    h2o_ssl_register_alpn_protocols(ctx, alpn_protocols);
    return ctx;
}

static int listen_on(const char *port)
{
    struct sockaddr_in addr = { .sin_family = AF_INET, .sin_port = htons((uint16_t)atoi(port)) };
    int fd, on = 1;
    inet_pton(AF_INET, "127.0.0.1", &addr.sin_addr);
    if ((fd = socket(AF_INET, SOCK_STREAM, 0)) == -1 ||
        setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &on, sizeof on) != 0 ||
        setsockopt(fd, SOL_SOCKET, SO_REUSEPORT, &on, sizeof on) != 0 ||
        bind(fd, (struct sockaddr *)&addr, sizeof addr) != 0 || listen(fd, 4096) != 0) {
        fprintf(stderr, "cannot listen on 127.0.0.1:%s: %s\n", port, strerror(errno));
        exit(1);
    }
    return fd;
}

void register_handler(h2o_hostconf_t *host, const char *path, int (*on_req)(h2o_handler_t *, h2o_req_t *))
{
    h2o_pathconf_t *pathconf = h2o_config_register_path(host, path, 0);
    h2o_create_handler(pathconf, sizeof(h2o_handler_t))->on_req = on_req;
}

int main(int argc, char **argv)
{
    h2c = argc == 4 && strcmp(argv[3], "h2c") == 0;
    if ((argc != 3 && argc != 5 && !h2c) || atoi(argv[1]) <= 0 || atoi(argv[2]) <= 0) {
        fprintf(stderr, "usage: %s PORT THREADS [CERT KEY | h2c]\n", argv[0]);
        return 2;
    }
    tls = argc == 5 ? tls_context(argv[3], argv[4]) : NULL;
    int threads = atoi(argv[2]);
    signal(SIGPIPE, SIG_IGN);
    memset(app_body, 'x', sizeof app_body);

    h2o_config_init(&config);
    config.http1.upgrade_to_http2 = 0; /* HTTP/1.1 only: HTTP/2 is asked for by h2c or ALPN */
    h2o_hostconf_t *host = h2o_config_register_host(&config, h2o_iovec_init(H2O_STRLIT("default")), 65535);
    register_handler(host, "/hello", on_hello);
    register_handler(host, "/app", on_app);
    const char *workloads = getenv("WORKLOADS");
    if (workloads != NULL && *workloads != '\0') {
        if (workloads_load(workloads) != 0)
            return 1;
        workloads_register(host, workloads);
    }
    database_url = getenv("DATABASE_URL");
    if (database_url != NULL && *database_url != '\0') {
        const char *pool = getenv("DATABASE_POOL");
        int total = pool != NULL && atoi(pool) > 0 ? atoi(pool) : 16;
        database_connections = total / threads > 0 ? total / threads : 1;
        database_register(host);
    } else {
        database_url = NULL;
    }

    struct worker *workers = calloc((size_t)threads, sizeof *workers);
    if (workers == NULL)
        return 1;
    /* every socket listens before any loop runs: the port answers once ready */
    for (int i = 0; i < threads; i++) {
        workers[i].fd = listen_on(argv[1]);
        workers[i].seed = (unsigned)time(NULL) + (unsigned)i;
    }
    for (int i = 0; i < threads; i++)
        if ((errno = pthread_create(&workers[i].thread, NULL, run_loop, &workers[i])) != 0) {
            perror("pthread_create");
            return 1;
        }
    printf("h2o %s on 127.0.0.1:%s, %d event loops%s\n", H2O_VERSION, argv[1], threads,
           tls ? ", TLS (ALPN h2, http/1.1)" : h2c ? ", h2c (prior knowledge)" : "");
    fflush(stdout);
    for (int i = 0; i < threads; i++)
        pthread_join(workers[i].thread, NULL);
    return 0;
}
