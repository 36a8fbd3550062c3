/*
 * Incremental HTTP/1.x request parser.
 *
 * It takes the bytes of a connection in pieces of any size, split anywhere, and
 * keeps no copy of them: what it needs (the method, the path for routing, the
 * values of Content-Length and Connection) is folded into this small struct
 * byte by byte.  So a connection needs no read buffer of its own.  For the
 * workload routes (/baseline, /json/{count}) the form of the query and of the
 * body (Content-Length or chunked) is folded the same way: the sum of its
 * integer values, and the value of m.  For GET /ws the WebSocket upgrade's
 * fields are folded too, and its key (24 characters) kept.
 */
#ifndef PARSER_H
#define PARSER_H

#include <stddef.h>
#include <stdint.h>

/* Longest request head (request line + header lines) accepted; longer is 431. */
#define HTTP_MAX_HEAD 8192

enum http_result {
    HTTP_MORE,    /* every byte given was used; the request is not complete yet */
    HTTP_DONE,    /* one request complete (head and body); read the fields below */
    HTTP_ERROR,   /* malformed: answer `error` and close the connection */
};

enum http_method { METHOD_GET, METHOD_HEAD, METHOD_POST, METHOD_OTHER };
enum http_route { ROUTE_NONE, ROUTE_HELLO, ROUTE_APP, ROUTE_BASELINE, ROUTE_JSON, ROUTE_WS };

/* Characters of a Sec-WebSocket-Key: 16 octets in base64. */
#define HTTP_WS_KEY_LEN 24

/* The most items GET /json/{count} asks for. */
#define HTTP_MAX_COUNT 100

struct http_parser {
    uint64_t body_left;  /* Content-Length, then the body bytes still to skip; of a
                            chunked body, the current chunk's */
    uint64_t value;      /* the form value being read (the workloads' query or body) */
    uint16_t head_len;   /* bytes of the head so far */
    uint16_t error;      /* status to answer on HTTP_ERROR: 400, 431, 501 or 505 */
    uint8_t state;
    uint8_t flags;       /* headers seen, see parser.c */
    uint8_t hosts;       /* Host fields seen (1.1 needs exactly one) */
    uint8_t field;       /* the header whose value is being read */
    uint8_t pos;         /* bytes of the current token (saturates past word[]) */
    char word[17];       /* start of the current token: method, path, name, value */
    /* results, valid after HTTP_DONE */
    uint8_t method;      /* enum http_method */
    uint8_t route;       /* enum http_route: /hello, /app or anything else */
    uint8_t minor;       /* HTTP/1.0 -> 0, HTTP/1.1 (or a later 1.x) -> 1 */
    uint8_t keep_alive;  /* 1 if the connection stays open after the response */
    uint8_t count;       /* /json/{count}: 1 to HTTP_MAX_COUNT */
    uint8_t form;        /* where the form being read is, see parser.c */
    uint32_t m;          /* the form's value of m (1 when it has none) */
    uint64_t sum;        /* the sum of the form's integer values: query and body */
    /* GET /ws asking for WebSocket (Upgrade: websocket, upgrade among Connection's
     * tokens, a key of 24 characters): the client's key, for the Accept */
    uint8_t websocket;   /* 1 when the request is such an upgrade */
    uint8_t ws_flags;    /* what of it was seen, see parser.c */
    uint8_t ws_key_len;  /* characters of the key (HTTP_WS_KEY_LEN + 1: too many) */
    char ws_key[HTTP_WS_KEY_LEN];
};

/* Prepares `p` for a new request (also after HTTP_DONE, for the next one). */
void http_parser_init(struct http_parser *p);

/*
 * Feeds buf[0..len).  Stops after the byte that completes a request (HTTP_DONE)
 * or makes it invalid (HTTP_ERROR); *used says how many bytes it took.  After
 * HTTP_DONE call http_parser_init before feeding the rest; after HTTP_ERROR
 * every call returns HTTP_ERROR again and uses nothing.
 */
enum http_result http_parse(struct http_parser *p, const char *buf, size_t len, size_t *used);

#endif
