/* The floor of a WebSocket load client's cost: as little as a client can do per echoed
 * message on epoll. N connections to 127.0.0.1:PORT/PATH, each upgraded before the clock
 * starts (a fixed key; the 101 is checked, its Accept not), then each keeps K messages of
 * 32 octets in flight: frames masked once, ahead of time, with one key, and written again
 * as they are. A server's echo of such a message is one unmasked frame of 34 bytes (no
 * extension is offered), so an echo is counted by length alone, and each echo sends the
 * next frame. No parsing beyond that, no timing, no statistics: what remains is the
 * kernel's work (write, read, epoll_wait) and a few sums. bench/ws-client-cost sets
 * shootout against it, both pinned to the same core, by CPU time per echoed message.
 *
 *   ws-floor-client PORT PATH CONNECTIONS IN_FLIGHT SECONDS
 *       -> prints the echoes it counted
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "floor.h"

#define MAX_CONNS 20000
#define MAX_IN_FLIGHT 1024
#define PAYLOAD 32
#define FRAME (6 + PAYLOAD) /* FIN|text, MASK|length, the key, the masked payload */
#define ECHO (2 + PAYLOAD)  /* FIN|text, length, the payload */

struct conn {
    int fd;
    size_t partial; /* bytes of an echo read so far */
};

static struct conn conns[MAX_CONNS];
static char frames[MAX_IN_FLIGHT * FRAME];
static char buf[256 * 1024];
static unsigned long long echoes;

/* Writes `len` bytes of frames whole: a few frames always fit an empty-enough socket. */
static void send_frames(int fd, size_t count) {
    size_t len = count * FRAME, sent = 0;
    while (sent < len) {
        ssize_t n = write(fd, frames + sent, len - sent);
        if (n < 0 && errno == EAGAIN)
            continue;
        if (n <= 0)
            die("write");
        sent += n;
    }
}

/* A blocking connect and upgrade; the socket is then made non-blocking. */
static int open_upgraded(int port, const char *path) {
    int fd = open_conn(port);
    char req[512];
    int len = snprintf(req, sizeof req,
                       "GET %s HTTP/1.1\r\nHost: 127.0.0.1:%d\r\nUpgrade: websocket\r\n"
                       "Connection: Upgrade\r\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\n"
                       "Sec-WebSocket-Version: 13\r\n\r\n",
                       path, port);
    if (write(fd, req, len) != len)
        die("write upgrade");
    char head[2048];
    size_t have = 0;
    while (have < sizeof head - 1) {
        ssize_t n = read(fd, head + have, 1); /* byte by byte: nothing past the head */
        if (n <= 0)
            die("read upgrade");
        have += n;
        head[have] = 0;
        if (have >= 4 && !memcmp(head + have - 4, "\r\n\r\n", 4))
            break;
    }
    if (strncmp(head, "HTTP/1.1 101", 12)) {
        fprintf(stderr, "no 101: %.80s\n", head);
        exit(1);
    }
    fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK);
    return fd;
}

/* Counts the whole echoes `n` bytes complete and sends as many frames again. */
static void on_read(struct conn *c) {
    for (;;) {
        ssize_t n = read(c->fd, buf, sizeof buf);
        if (n < 0 && errno == EAGAIN)
            return;
        if (n <= 0)
            die("read");
        size_t whole = (c->partial + n) / ECHO;
        c->partial = (c->partial + n) % ECHO;
        echoes += whole;
        for (size_t left = whole; left > 0;) {
            size_t now = left < MAX_IN_FLIGHT ? left : MAX_IN_FLIGHT;
            send_frames(c->fd, now);
            left -= now;
        }
    }
}

int main(int argc, char **argv) {
    if (argc != 6) {
        fprintf(stderr, "usage: ws-floor-client PORT PATH CONNECTIONS IN_FLIGHT SECONDS\n");
        return 2;
    }
    int port = atoi(argv[1]), nconns = atoi(argv[3]), depth = atoi(argv[4]);
    double seconds = atof(argv[5]);
    if (nconns < 1 || nconns > MAX_CONNS || depth < 1 || depth > MAX_IN_FLIGHT)
        return 2;
    unsigned char key[4] = {0x37, 0xfa, 0x21, 0x3d};
    for (int i = 0; i < MAX_IN_FLIGHT; i++) {
        unsigned char *f = (unsigned char *)frames + i * FRAME;
        f[0] = 0x81;
        f[1] = 0x80 | PAYLOAD;
        memcpy(f + 2, key, 4);
        for (int j = 0; j < PAYLOAD; j++)
            f[6 + j] = (unsigned char)('a' + j % 26) ^ key[j % 4];
    }
    int ep = epoll_create1(0);
    for (int i = 0; i < nconns; i++) {
        conns[i].fd = open_upgraded(port, argv[2]);
        struct epoll_event e = {.events = EPOLLIN | EPOLLET, .data.ptr = &conns[i]};
        if (epoll_ctl(ep, EPOLL_CTL_ADD, conns[i].fd, &e) < 0)
            die("epoll_ctl");
    }
    for (int i = 0; i < nconns; i++)
        send_frames(conns[i].fd, depth);
    struct epoll_event events[256];
    double end = now_s() + seconds;
    while (now_s() < end) {
        int n = epoll_wait(ep, events, 256, 100);
        for (int i = 0; i < n; i++)
            on_read(events[i].data.ptr);
    }
    printf("%llu\n", echoes);
    return 0;
}
