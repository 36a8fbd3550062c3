/* The floor of a load client's cost: as little as an HTTP/1.1 keep-alive client can do
 * per request on epoll. N connections to 127.0.0.1:PORT, each with one GET in flight;
 * a response ends at Content-Length after its head, then the next GET goes. No parsing
 * beyond that, no timing, no statistics: what remains is the kernel's work (write, read,
 * epoll_wait) and a few comparisons. bench/client-floor runs shootout against it, both
 * pinned to the same core, and compares their CPU time per answered request.
 *
 *   floor-client PORT CONNECTIONS SECONDS PATH   ->  prints the responses it counted
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#define MAX_CONNS 20000
#define BUF 65536

struct conn {
    int fd;
    size_t have;  /* bytes of the current response read so far */
    size_t want;  /* its whole length once the head is in; 0 before */
};

static char request[512];
static size_t request_len;
static struct conn conns[MAX_CONNS];
static char buf[BUF];
static unsigned long long responses;

static double now_s(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return t.tv_sec + t.tv_nsec / 1e9;
}

static void die(const char *what) {
    perror(what);
    exit(1);
}

static int open_conn(int port) {
    int fd = socket(AF_INET, SOCK_STREAM, 0);
    if (fd < 0)
        die("socket");
    int one = 1;
    setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
    struct sockaddr_in a = {.sin_family = AF_INET, .sin_port = htons(port)};
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    if (connect(fd, (struct sockaddr *)&a, sizeof a) < 0)
        die("connect");
    return fd;
}

static void send_request(struct conn *c) {
    if (write(c->fd, request, request_len) != (ssize_t)request_len)
        die("write");
    c->have = 0;
    c->want = 0;
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
        if (c->want && c->have >= c->want) {
            responses++;
            send_request(c);
            return;
        }
    }
}

int main(int argc, char **argv) {
    if (argc != 5) {
        fprintf(stderr, "usage: floor-client PORT CONNECTIONS SECONDS PATH\n");
        return 2;
    }
    int port = atoi(argv[1]), n = atoi(argv[2]);
    double seconds = atof(argv[3]);
    if (n < 1 || n > MAX_CONNS || seconds <= 0)
        die("arguments");
    request_len = snprintf(request, sizeof request,
                           "GET %s HTTP/1.1\r\nHost: 127.0.0.1:%d\r\n\r\n", argv[4], port);
    int ep = epoll_create1(0);
    for (int i = 0; i < n; i++) {
        conns[i].fd = open_conn(port);
        struct epoll_event e = {.events = EPOLLIN, .data.ptr = &conns[i]};
        if (epoll_ctl(ep, EPOLL_CTL_ADD, conns[i].fd, &e) < 0)
            die("epoll_ctl");
        int flags = 1;
        if (ioctl(conns[i].fd, FIONBIO, &flags) < 0)
            die("ioctl");
        send_request(&conns[i]);
    }
    struct epoll_event events[256];
    double end = now_s() + seconds;
    while (now_s() < end) {
        int k = epoll_wait(ep, events, 256, 100);
        for (int i = 0; i < k; i++)
            readable(events[i].data.ptr);
    }
    printf("%llu\n", responses);
    return 0;
}
