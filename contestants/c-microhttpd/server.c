/*
 * Hello-world server on GNU libmicrohttpd (the "C libmicrohttpd" of the 2017
 * article).  usage: server PORT THREADS
 *
 *   GET /hello -> 200 "Hello World"
 *   GET /app   -> 200 with 1024 bytes after 95-105 ms
 *
 * MHD runs THREADS polling threads of its own (a thread pool, epoll when the
 * library has it).  /app must not sleep in one of them: the request is
 * suspended (MHD_suspend_connection) and a timer thread resumes it when its
 * time is up; MHD then calls the handler again, which answers.  So the
 * process has THREADS MHD threads, one timer thread and the idle main thread.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <microhttpd.h>
#include <netinet/in.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static struct MHD_Response *hello, *app, *not_found;
static char headers_seen;             /* marks a request whose headers were seen */

/* ---- timer thread: a min-heap of suspended /app requests by deadline ---- */

struct wait {
    struct MHD_Connection *conn;
    uint64_t due;                     /* CLOCK_MONOTONIC, ns */
};

static struct wait **heap;
static size_t heap_len, heap_cap;
static pthread_mutex_t heap_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t heap_cond;     /* waits on CLOCK_MONOTONIC */

static uint64_t now_ns(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (uint64_t)t.tv_sec * 1000000000u + (uint64_t)t.tv_nsec;
}

static void heap_swap(size_t a, size_t b)
{
    struct wait *t = heap[a];
    heap[a] = heap[b];
    heap[b] = t;
}

static void heap_push(struct wait *w)
{
    pthread_mutex_lock(&heap_lock);
    if (heap_len == heap_cap) {
        heap_cap = heap_cap ? 2 * heap_cap : 1024;
        heap = realloc(heap, heap_cap * sizeof *heap);
        if (heap == NULL) {
            perror("realloc");
            abort();
        }
    }
    size_t i = heap_len++;
    heap[i] = w;
    for (; i > 0 && heap[(i - 1) / 2]->due > heap[i]->due; i = (i - 1) / 2)
        heap_swap(i, (i - 1) / 2);
    if (i == 0)                       /* new earliest deadline */
        pthread_cond_signal(&heap_cond);
    pthread_mutex_unlock(&heap_lock);
}

/* Removes and returns the earliest entry; heap_lock held, heap not empty. */
static struct wait *heap_pop(void)
{
    struct wait *top = heap[0];
    heap[0] = heap[--heap_len];
    for (size_t i = 0;;) {
        size_t l = 2 * i + 1, r = l + 1, m = i;
        if (l < heap_len && heap[l]->due < heap[m]->due) m = l;
        if (r < heap_len && heap[r]->due < heap[m]->due) m = r;
        if (m == i) break;
        heap_swap(i, m);
        i = m;
    }
    return top;
}

static void *timer_thread(void *arg)
{
    (void)arg;
    pthread_mutex_lock(&heap_lock);
    for (;;) {
        if (heap_len == 0) {
            pthread_cond_wait(&heap_cond, &heap_lock);
            continue;
        }
        uint64_t due = heap[0]->due;
        if (due > now_ns()) {
            struct timespec t = { (time_t)(due / 1000000000u), (long)(due % 1000000000u) };
            pthread_cond_timedwait(&heap_cond, &heap_lock, &t);
            continue;
        }
        struct MHD_Connection *conn = heap_pop()->conn;
        /* resume outside our lock: MHD takes its own */
        pthread_mutex_unlock(&heap_lock);
        MHD_resume_connection(conn);
        pthread_mutex_lock(&heap_lock);
    }
    return NULL;
}

/* ---- HTTP ---- */

static enum MHD_Result on_request(void *cls, struct MHD_Connection *conn,
                                  const char *url, const char *method,
                                  const char *version, const char *upload_data,
                                  size_t *upload_data_size, void **req)
{
    (void)cls, (void)method, (void)version, (void)upload_data, (void)upload_data_size;

    /*
     * MHD calls this once the headers are in, then again once the whole
     * request is: a response queued on the first call makes MHD close the
     * connection after it (a request body might still be on its way).
     */
    if (*req == NULL) {
        *req = &headers_seen;
        return MHD_YES;
    }
    if (strcmp(url, "/hello") == 0)
        return MHD_queue_response(conn, MHD_HTTP_OK, hello);
    if (strcmp(url, "/app") != 0)
        return MHD_queue_response(conn, MHD_HTTP_NOT_FOUND, not_found);

    if (*req != &headers_seen)        /* third call: resumed by the timer */
        return MHD_queue_response(conn, MHD_HTTP_OK, app);

    /* second call: park the connection for 95-105 ms */
    static _Thread_local unsigned seed;
    if (seed == 0)
        seed = (unsigned)now_ns() ^ (unsigned)(uintptr_t)&seed;
    struct wait *w = malloc(sizeof *w);
    if (w == NULL)
        return MHD_NO;
    w->conn = conn;
    w->due = now_ns() + (95000 + (uint64_t)(rand_r(&seed) % 10001)) * 1000u;
    *req = w;                         /* freed in on_completed */
    MHD_suspend_connection(conn);
    heap_push(w);
    return MHD_YES;
}

static void on_completed(void *cls, struct MHD_Connection *conn, void **req,
                         enum MHD_RequestTerminationCode why)
{
    (void)cls, (void)conn, (void)why;
    if (*req != &headers_seen)
        free(*req);
    *req = NULL;
}

/*
 * MHD's error log: printed while starting (why a port cannot be bound...),
 * silent afterwards, when it would print a line per misbehaving client.
 */
static atomic_int started;

static void log_mhd(void *cls, const char *fmt, va_list ap)
{
    (void)cls;
    if (!atomic_load(&started))
        vfprintf(stderr, fmt, ap);
}

static struct MHD_Response *text(const char *body, size_t len)
{
    struct MHD_Response *r = MHD_create_response_from_buffer(
        len, (void *)body, MHD_RESPMEM_PERSISTENT);
    if (r == NULL || MHD_add_response_header(r, "Content-Type", "text/plain") != MHD_YES) {
        fprintf(stderr, "cannot create a response\n");
        exit(1);
    }
    return r;
}

int main(int argc, char **argv)
{
    if (argc != 3 || atoi(argv[1]) <= 0 || atoi(argv[2]) <= 0) {
        fprintf(stderr, "usage: %s PORT THREADS\n", argv[0]);
        return 2;
    }
    unsigned threads = (unsigned)atoi(argv[2]);

    static char app_body[1024];
    memset(app_body, 'x', sizeof app_body);
    hello = text("Hello World", 11);
    app = text(app_body, sizeof app_body);
    not_found = text("Not Found", 9);

    pthread_condattr_t ca;
    pthread_condattr_init(&ca);
    pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
    pthread_cond_init(&heap_cond, &ca);
    pthread_t timer;
    if ((errno = pthread_create(&timer, NULL, timer_thread, NULL)) != 0) {
        perror("pthread_create");
        return 1;
    }

    struct sockaddr_in addr = { .sin_family = AF_INET, .sin_port = htons((uint16_t)atoi(argv[1])) };
    inet_pton(AF_INET, "127.0.0.1", &addr.sin_addr);

    unsigned flags = MHD_USE_INTERNAL_POLLING_THREAD | MHD_ALLOW_SUSPEND_RESUME | MHD_USE_ERROR_LOG;
    flags |= MHD_is_feature_supported(MHD_FEATURE_EPOLL) == MHD_YES ? MHD_USE_EPOLL : MHD_USE_POLL;

    struct MHD_Daemon *d = MHD_start_daemon(
        flags, 0, NULL, NULL, on_request, NULL,
        MHD_OPTION_EXTERNAL_LOGGER, log_mhd, NULL, /* must come first */
        MHD_OPTION_SOCK_ADDR, (struct sockaddr *)&addr,
        /* the default (FD_SETSIZE - 4) is a select() limit; epoll has none */
        MHD_OPTION_CONNECTION_LIMIT, 65536u,
        MHD_OPTION_LISTEN_BACKLOG_SIZE, 4096u,
        MHD_OPTION_NOTIFY_COMPLETED, on_completed, NULL,
        /* last: with 1 thread this ends the list (MHD warns about a pool of 1) */
        threads > 1 ? MHD_OPTION_THREAD_POOL_SIZE : MHD_OPTION_END, threads,
        MHD_OPTION_END);
    if (d == NULL) {
        fprintf(stderr, "MHD_start_daemon failed on 127.0.0.1:%s\n", argv[1]);
        return 1;
    }
    atomic_store(&started, 1);
    printf("libmicrohttpd %s on 127.0.0.1:%s, %u threads, %s\n", MHD_get_version(),
           argv[1], threads, (flags & MHD_USE_EPOLL) ? "epoll" : "poll");
    fflush(stdout);

    for (;;)                          /* SIGTERM ends the process */
        pause();
}
