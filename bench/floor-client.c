/* The floor of a load client's cost: as little as an HTTP/1.1 keep-alive client can do
 * per request on epoll. N connections to 127.0.0.1:PORT, each with one GET in flight;
 * a response ends at Content-Length after its head, then the next GET goes. No parsing
 * beyond that, no timing, no statistics: what remains is the kernel's work (write, read,
 * epoll_wait) and a few comparisons. bench/client-floor runs shootout against it, both
 * pinned to the same core, and compares their CPU time per answered request.
 *
 * With BODY_BYTES, each request is a POST of that many bytes (Content-Length), the rest of
 * it offered to each write (from one buffer of its size) as the socket takes it:
 * the kernel's copy and nothing more, the floor bench/upload-cost sets a large upload
 * against; a large response is read into one 256 KiB buffer, as shootout's epoll loop
 * reads (io_uring's receives fill at most 128 KiB).
 *
 *   floor-client PORT CONNECTIONS SECONDS PATH [BODY_BYTES]
 *       -> prints the responses it counted
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "floor.h"

#define MAX_CONNS 20000
#define BUF (256 * 1024)

struct conn {
    int fd;
    size_t have;  /* bytes of the current response read so far */
    size_t want;  /* its whole length once the head is in; 0 before */
    size_t sent;  /* bytes of the current request written so far */
    int answered; /* its response is whole (it may come before the body is all sent) */
    uint32_t events; /* what epoll waits for on it */
};

static char request[512];
static size_t request_len;
static size_t body_len;    /* the request's body: body_len bytes after the head */
static char *body; /* body_len bytes, each page its own (see main) */
static int ep;
static struct conn conns[MAX_CONNS];
static char buf[BUF];
static unsigned long long responses;

static void next_if_done(struct conn *c);

/* Writes what the socket takes of the request; returns once it is all written (then waits
 * for the response only) or the socket is full (then also for room to write more). */
static void write_request(struct conn *c) {
    size_t total = request_len + body_len;
    while (c->sent < total) {
        const char *from =
            c->sent < request_len ? request + c->sent : body + (c->sent - request_len);
        size_t left = c->sent < request_len ? request_len - c->sent : total - c->sent;
        ssize_t n = write(c->fd, from, left);
        if (n < 0 && errno == EAGAIN)
            break;
        if (n <= 0)
            die("write");
        c->sent += n;
    }
    uint32_t events = c->sent < total ? EPOLLIN | EPOLLOUT : EPOLLIN;
    if (events != c->events) {
        struct epoll_event e = {.events = events, .data.ptr = c};
        if (epoll_ctl(ep, EPOLL_CTL_MOD, c->fd, &e) < 0)
            die("epoll_ctl");
        c->events = events;
    }
    next_if_done(c);
}

static void send_request(struct conn *c) {
    c->have = 0;
    c->want = 0;
    c->sent = 0;
    c->answered = 0;
    write_request(c);
}

/* The next request goes once the response is whole and the request all written. */
static void next_if_done(struct conn *c) {
    if (c->answered && c->sent == request_len + body_len) {
        responses++;
        send_request(c);
    }
}

/* The response's whole length, once its head is in `head[0..n]`; 0 before. */
static size_t response_len(const char *head, size_t n) {
    const char *end = memmem(head, n, "\r\n\r\n", 4);
    if (!end)
        return 0;
    const char *cl = memmem(head, end - head, "Content-Length: ", 16);
    if (!cl)
        cl = memmem(head, end - head, "content-length: ", 16);
    size_t body = cl ? strtoul(cl + 16, NULL, 10) : 0;
    return (end - head) + 4 + body;
}

/* Reads what arrived on `c`; a response is whole when its length is read. The head of a
 * response arrives in one read here (a few hundred bytes on loopback). */
static void readable(struct conn *c) {
    for (;;) {
        ssize_t n = read(c->fd, buf, sizeof buf);
        if (n < 0 && errno == EAGAIN)
            return;
        if (n <= 0)
            die("read");
        if (c->want == 0)
            c->want = response_len(buf, n);
        c->have += n;
        if (c->want && c->have >= c->want && !c->answered) {
            c->answered = 1;
            next_if_done(c);
            return;
        }
    }
}

int main(int argc, char **argv) {
    if (argc != 5 && argc != 6) {
        fprintf(stderr, "usage: floor-client PORT CONNECTIONS SECONDS PATH [BODY_BYTES]\n");
        return 2;
    }
    int port = atoi(argv[1]), n = atoi(argv[2]);
    double seconds = atof(argv[3]);
    body_len = argc == 6 ? strtoull(argv[5], NULL, 10) : 0;
    if (n < 1 || n > MAX_CONNS || seconds <= 0)
        die("arguments");
    /* Written to, not left as calloc gives it: untouched pages all map the one zero page,
     * which a write would copy from cache, not from memory as a real body is. */
    body = malloc(body_len ? body_len : 1);
    if (!body)
        die("malloc");
    memset(body, 'x', body_len);
    if (body_len)
        request_len = snprintf(request, sizeof request,
                               "POST %s HTTP/1.1\r\nHost: 127.0.0.1:%d\r\n"
                               "Content-Length: %zu\r\n\r\n", argv[4], port, body_len);
    else
        request_len = snprintf(request, sizeof request,
                               "GET %s HTTP/1.1\r\nHost: 127.0.0.1:%d\r\n\r\n", argv[4], port);
    ep = epoll_create1(0);
    for (int i = 0; i < n; i++) {
        conns[i].fd = open_conn(port);
        struct epoll_event e = {.events = EPOLLIN, .data.ptr = &conns[i]};
        if (epoll_ctl(ep, EPOLL_CTL_ADD, conns[i].fd, &e) < 0)
            die("epoll_ctl");
        conns[i].events = EPOLLIN;
        int flags = 1;
        if (ioctl(conns[i].fd, FIONBIO, &flags) < 0)
            die("ioctl");
        send_request(&conns[i]);
    }
    struct epoll_event events[256];
    double end = now_s() + seconds;
    while (now_s() < end) {
        int k = epoll_wait(ep, events, 256, 100);
        for (int i = 0; i < k; i++) {
            struct conn *c = events[i].data.ptr;
            if (events[i].events & EPOLLOUT)
                write_request(c);
            if (events[i].events & (EPOLLIN | EPOLLERR | EPOLLHUP))
                readable(c);
        }
    }
    printf("%llu\n", responses);
    return 0;
}
