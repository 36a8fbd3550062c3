#include "responses.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define DATE_LEN 29 /* "Sun, 06 Nov 1994 08:49:37 GMT" */
#define APP_BODY_LEN 1024

struct spec {
    const char *status;
    const char *extra; /* more header lines, or "" */
    const char *body;
};

static const struct spec specs[RESP_KINDS] = {
    [RESP_HELLO] = {"200 OK", "", "Hello World"},
    [RESP_APP] = {"200 OK", "", NULL /* APP_BODY_LEN letters */},
    [RESP_NOT_FOUND] = {"404 Not Found", "", "Not Found"},
    [RESP_NOT_ALLOWED] = {"405 Method Not Allowed", "Allow: GET, HEAD\r\n", "Method Not Allowed"},
    [RESP_BAD_REQUEST] = {"400 Bad Request", "", "Bad Request"},
    [RESP_TOO_LARGE] = {"431 Request Header Fields Too Large", "", "Request Header Fields Too Large"},
    [RESP_NOT_IMPLEMENTED] = {"501 Not Implemented", "", "Not Implemented"},
    [RESP_BAD_VERSION] = {"505 HTTP Version Not Supported", "", "HTTP Version Not Supported"},
};

static const char *const connection_lines[CONN_HEADERS] = {
    [CONN_DEFAULT] = "",
    [CONN_KEEP_ALIVE] = "Connection: keep-alive\r\n",
    [CONN_CLOSE] = "Connection: close\r\n",
};

static void build(struct response *r, const char *server, const struct spec *s,
                  const char *connection)
{
    char app[APP_BODY_LEN + 1] = {0};
    for (size_t i = 0; i < APP_BODY_LEN; i++)
        app[i] = (char)('a' + i % 26);
    const char *body = s->body ? s->body : app;
    char head[512];
    int n = snprintf(head, sizeof head,
                     "HTTP/1.1 %s\r\nServer: %s\r\nContent-Type: text/plain\r\n"
                     "Content-Length: %zu\r\n%s%sDate: ",
                     s->status, server, strlen(body), s->extra, connection);
    if (n < 0 || (size_t)n + DATE_LEN + 4 >= sizeof head) {
        fprintf(stderr, "response head too long\n");
        exit(1);
    }
    r->date_at = (size_t)n;
    /* the Date value is filled in by responses_tick */
    n += snprintf(head + n, sizeof head - (size_t)n, "%*s\r\n\r\n", DATE_LEN, "");
    r->head_len = (size_t)n;
    r->len = r->head_len + strlen(body);
    r->buf = malloc(r->len);
    if (r->buf == NULL) {
        perror("malloc");
        exit(1);
    }
    memcpy(r->buf, head, r->head_len);
    memcpy(r->buf + r->head_len, body, r->len - r->head_len);
}

void responses_init(struct responses *rs, const char *server)
{
    for (int k = 0; k < RESP_KEEPABLE; k++)
        for (int c = 0; c < CONN_HEADERS; c++)
            build(&rs->keepable[k][c], server, &specs[k], connection_lines[c]);
    for (int k = RESP_KEEPABLE; k < RESP_KINDS; k++)
        build(&rs->errors[k - RESP_KEEPABLE], server, &specs[k], connection_lines[CONN_CLOSE]);
    rs->date_second = -1;
    responses_tick(rs, time(NULL));
}

void responses_tick(struct responses *rs, time_t now)
{
    if (now == rs->date_second)
        return;
    rs->date_second = now;
    struct tm tm;
    char date[DATE_LEN + 1];
    gmtime_r(&now, &tm);
    strftime(date, sizeof date, "%a, %d %b %Y %H:%M:%S GMT", &tm);
    for (int k = 0; k < RESP_KEEPABLE; k++)
        for (int c = 0; c < CONN_HEADERS; c++)
            memcpy(rs->keepable[k][c].buf + rs->keepable[k][c].date_at, date, DATE_LEN);
    for (int k = 0; k < RESP_KINDS - RESP_KEEPABLE; k++)
        memcpy(rs->errors[k].buf + rs->errors[k].date_at, date, DATE_LEN);
    memcpy(rs->date, date, DATE_LEN + 1);
}

const char *connection_line(enum connection_header conn)
{
    return connection_lines[conn];
}

const struct response *response_get(const struct responses *rs, enum response_kind kind,
                                    enum connection_header conn)
{
    if (kind >= RESP_KEEPABLE)
        return &rs->errors[kind - RESP_KEEPABLE];
    return &rs->keepable[kind][conn];
}

void response_for_request(const struct http_parser *p, enum response_kind *kind,
                          enum connection_header *conn)
{
    *conn = !p->keep_alive ? CONN_CLOSE : p->minor == 0 ? CONN_KEEP_ALIVE : CONN_DEFAULT;
    *kind = p->route != ROUTE_HELLO && p->route != ROUTE_APP ? RESP_NOT_FOUND
          : p->method != METHOD_GET && p->method != METHOD_HEAD ? RESP_NOT_ALLOWED
          : p->route == ROUTE_HELLO ? RESP_HELLO : RESP_APP;
}

enum response_kind response_for_error(int status)
{
    switch (status) {
    case 431:
        return RESP_TOO_LARGE;
    case 501:
        return RESP_NOT_IMPLEMENTED;
    case 505:
        return RESP_BAD_VERSION;
    default:
        return RESP_BAD_REQUEST;
    }
}
