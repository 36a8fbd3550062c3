/*
 * Incremental HTTP/1.x request parser (RFC 9112), one byte at a time: a state
 * machine whose whole memory is struct http_parser, so a request may arrive in
 * any number of pieces.  Strict where framing is at stake (Content-Length,
 * Transfer-Encoding, chunk framing, line endings), tolerant where RFC 9112
 * allows it (empty lines before a request, a bare LF ending a line).
 */
#include "parser.h"

#include <string.h>

enum state {
    S_START,        /* before the method; empty lines are skipped */
    S_METHOD,
    S_TARGET,       /* first byte of the request target */
    S_PATH,         /* origin-form path, kept in word[] for routing */
    S_TARGET_REST,  /* the query, or a target that is not a path: skipped */
    S_VERSION,      /* "HTTP/x.y"; pos counts its bytes */
    S_LINE_END,     /* after the version: CR or LF */
    S_LINE_LF,      /* after a CR: LF ends the line */
    S_FIELD,        /* start of a header line, or of the empty line */
    S_NAME,
    S_OWS,          /* whitespace between the colon and the value */
    S_VALUE,
    S_HEAD_LF,      /* CR of the empty line seen */
    S_BODY,         /* bytes of a Content-Length body */
    S_CHUNK_DATA,   /* bytes of a chunk */
    /* a chunked body's framing, not counted as head */
    S_CHUNK_SIZE,
    S_CHUNK_EXT,
    S_CHUNK_SIZE_LF,
    S_CHUNK_DATA_END,  /* CRLF after a chunk's data */
    S_CHUNK_DATA_LF,
    S_TRAILER,         /* start of a trailer line, or of the empty line */
    S_TRAILER_LINE,
    S_TRAILER_LF,
    S_DONE,
    S_ERROR,
};

/* The header fields that matter here; every other one is only checked. */
enum field {
    F_OTHER, F_HOST, F_CONNECTION, F_CONTENT_LENGTH, F_TRANSFER_ENCODING, F_UPGRADE, F_WS_KEY,
};

/* flags */
#define SEEN_LENGTH 1u
#define SEEN_TE 2u
#define CONN_CLOSE 4u
#define CONN_KEEP_ALIVE 8u
#define CHUNKED 16u     /* Transfer-Encoding: chunked, once */
#define TE_OTHER 32u    /* any other transfer coding: 501 */

/* ws_flags: what of a WebSocket upgrade was seen (Sec-WebSocket-Version is not
 * checked: every client sends 13, and its name is longer than word[]) */
#define WS_CONN_UPGRADE 1u  /* upgrade among Connection's tokens */
#define WS_UPGRADE 2u       /* websocket among Upgrade's */
#define WS_KEY 4u           /* one Sec-WebSocket-Key of 24 characters */
#define WS_ALL (WS_CONN_UPGRADE | WS_UPGRADE | WS_KEY)

/* The form being read: a state, and whether its name is "m". */
enum form_state { FORM_NAME_START, FORM_NAME, FORM_VALUE_START, FORM_VALUE, FORM_SKIP };
#define FORM_M 0x10u
#define FORM_STATE 0x0fu

/* A form value beyond this is not a number the workloads sum. */
#define MAX_VALUE 1000000000000000ull

/* Hex digits of a chunk size beyond this would overflow. */
#define MAX_CHUNK_DIGITS 15

#define WORD_MAX sizeof(((struct http_parser *)0)->word)

/* Digits of Content-Length beyond this would overflow. */
#define MAX_LENGTH (UINT64_MAX / 10 - 1)

void http_parser_init(struct http_parser *p)
{
    memset(p, 0, sizeof *p);
    p->state = S_START;
    p->m = 1;
}

static int is_tchar(unsigned char c)
{
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9')
        || (c != 0 && strchr("!#$%&'*+-.^_`|~", c) != NULL);
}

/* Bytes of a request target: visible ASCII. */
static int is_vchar(unsigned char c)
{
    return c > 0x20 && c < 0x7f;
}

/* Bytes of a field value: visible, space, tab, and obs-text (>= 0x80). */
static int is_value_char(unsigned char c)
{
    return c == '\t' || (c >= 0x20 && c != 0x7f);
}

static int lower(unsigned char c)
{
    return c >= 'A' && c <= 'Z' ? c + ('a' - 'A') : c;
}

static enum http_result fail(struct http_parser *p, int status)
{
    p->state = S_ERROR;
    p->error = (uint16_t)status;
    return HTTP_ERROR;
}

/* Appends c to the current token; past word[] only the count grows (so a long
 * token never equals a short word). */
static void keep(struct http_parser *p, unsigned char c)
{
    if (p->pos < WORD_MAX)
        p->word[p->pos] = (char)c;
    if (p->pos <= WORD_MAX)
        p->pos++;
}

static int word_is(const struct http_parser *p, const char *s)
{
    size_t n = strlen(s);
    return p->pos == n && memcmp(p->word, s, n) == 0;
}

/* /json/{count}: the count, 1 to HTTP_MAX_COUNT, in at most three digits;
 * 0 if the path is not one. */
static unsigned json_count(const struct http_parser *p)
{
    if (p->pos <= 6 || p->pos > 9 || memcmp(p->word, "/json/", 6) != 0)
        return 0;
    unsigned n = 0;
    for (unsigned i = 6; i < p->pos; i++) {
        if (p->word[i] < '0' || p->word[i] > '9')
            return 0;
        n = n * 10 + (unsigned)(p->word[i] - '0');
    }
    return n <= HTTP_MAX_COUNT ? n : 0;
}

static void end_path(struct http_parser *p)
{
    unsigned count = json_count(p);
    if (word_is(p, "/hello"))
        p->route = ROUTE_HELLO;
    else if (word_is(p, "/app"))
        p->route = ROUTE_APP;
    else if (word_is(p, "/baseline"))
        p->route = ROUTE_BASELINE;
    else if (word_is(p, "/ws"))
        p->route = ROUTE_WS;
    else if (count > 0)
        p->route = ROUTE_JSON, p->count = (uint8_t)count;
    else
        p->route = ROUTE_NONE;
}

static int reads_form(const struct http_parser *p)
{
    return p->route == ROUTE_BASELINE || p->route == ROUTE_JSON;
}

/* The end of a form's name=value pair: an integer value is summed, and kept
 * as m when its name is m. */
static void form_end(struct http_parser *p)
{
    if ((p->form & FORM_STATE) == FORM_VALUE) {
        p->sum = p->sum + p->value < p->sum ? UINT64_MAX : p->sum + p->value;
        if (p->form & FORM_M)
            p->m = p->value > UINT32_MAX ? UINT32_MAX : (uint32_t)p->value;
    }
    p->form = FORM_NAME_START;
    p->value = 0;
}

/* One byte of an application/x-www-form-urlencoded text (a query or a body):
 * names are only told apart as "m" or not; a value that is not all digits is
 * skipped.  Percent-encoding is not decoded: digits never need it. */
static void form_byte(struct http_parser *p, unsigned char c)
{
    unsigned m = p->form & FORM_M;
    if (c == '&') {
        form_end(p);
        return;
    }
    switch (p->form & FORM_STATE) {
    case FORM_NAME_START:
        p->form = c == '=' ? FORM_VALUE_START : c == 'm' ? (FORM_NAME | FORM_M) : FORM_NAME;
        return;
    case FORM_NAME:
        p->form = c == '=' ? (uint8_t)(FORM_VALUE_START | m) : FORM_NAME;
        return;
    case FORM_VALUE_START:
    case FORM_VALUE:
        if (c >= '0' && c <= '9' && p->value <= MAX_VALUE) {
            p->value = p->value * 10 + (c - '0');
            p->form = (uint8_t)(FORM_VALUE | m);
        } else {
            p->form = FORM_SKIP;
        }
        return;
    default: /* FORM_SKIP, until '&' */
        return;
    }
}

static enum http_result version_byte(struct http_parser *p, unsigned char c)
{
    static const char http[] = "HTTP/";
    unsigned i = p->pos++;

    if (i < 5)
        return c == (unsigned char)http[i] ? HTTP_MORE : fail(p, 400);
    if (i == 5) /* major */
        return c == '1' ? HTTP_MORE : c >= '0' && c <= '9' ? fail(p, 505) : fail(p, 400);
    if (i == 6)
        return c == '.' ? HTTP_MORE : fail(p, 400);
    /* minor: 1.1 and any later 1.x are spoken as 1.1 */
    if (c < '0' || c > '9')
        return fail(p, 400);
    p->minor = c != '0';
    p->state = S_LINE_END;
    return HTTP_MORE;
}

/* A header name ended (at its colon): which field, and set up for its value. */
static enum http_result start_value(struct http_parser *p)
{
    p->field = F_OTHER;
    if (word_is(p, "host")) {
        p->field = F_HOST;
        if (p->hosts < 2)
            p->hosts++;
    } else if (word_is(p, "connection")) {
        p->field = F_CONNECTION;
    } else if (word_is(p, "content-length")) {
        /* a second one, even equal, is refused rather than reconciled */
        if (p->flags & SEEN_LENGTH)
            return fail(p, 400);
        p->flags |= SEEN_LENGTH;
        p->field = F_CONTENT_LENGTH;
    } else if (word_is(p, "transfer-encoding")) {
        p->flags |= SEEN_TE;
        p->field = F_TRANSFER_ENCODING;
    } else if (p->route == ROUTE_WS && word_is(p, "upgrade")) {
        p->field = F_UPGRADE;
    } else if (p->route == ROUTE_WS && word_is(p, "sec-websocket-key")) {
        /* a second key makes the request no upgrade */
        p->field = F_WS_KEY;
        p->ws_key_len = (p->ws_flags & WS_KEY) ? HTTP_WS_KEY_LEN + 1 : 0;
    }
    p->pos = 0;
    p->state = S_OWS;
    return HTTP_MORE;
}

/* Content-Length: digits, then only whitespace.  pos: 0 none yet, 1 in the
 * digits, 2 after them. */
static enum http_result length_byte(struct http_parser *p, unsigned char c)
{
    if (c >= '0' && c <= '9' && p->pos < 2) {
        if (p->body_left > MAX_LENGTH)
            return fail(p, 400);
        p->body_left = p->body_left * 10 + (c - '0');
        p->pos = 1;
        return HTTP_MORE;
    }
    if (c == ' ' || c == '\t') {
        p->pos = 2;
        return HTTP_MORE;
    }
    return fail(p, 400);
}

/* Connection: a comma-separated list of tokens, of which close and
 * keep-alive matter. */
static void end_connection_token(struct http_parser *p)
{
    if (word_is(p, "close"))
        p->flags |= CONN_CLOSE;
    else if (word_is(p, "keep-alive"))
        p->flags |= CONN_KEEP_ALIVE;
    else if (word_is(p, "upgrade"))
        p->ws_flags |= WS_CONN_UPGRADE;
    p->pos = 0;
}

/* Upgrade: a comma-separated list of protocols, of which websocket matters. */
static void end_upgrade_token(struct http_parser *p)
{
    if (word_is(p, "websocket"))
        p->ws_flags |= WS_UPGRADE;
    p->pos = 0;
}

/* Sec-WebSocket-Key: kept as it is, but for trailing whitespace. */
static void ws_key_byte(struct http_parser *p, unsigned char c)
{
    if (c == ' ' || c == '\t')
        return;
    if (p->ws_key_len < HTTP_WS_KEY_LEN)
        p->ws_key[p->ws_key_len] = (char)c;
    if (p->ws_key_len <= HTTP_WS_KEY_LEN)
        p->ws_key_len++;
}

static enum http_result value_byte(struct http_parser *p, unsigned char c)
{
    if (!is_value_char(c))
        return fail(p, 400);
    if (p->field == F_CONTENT_LENGTH)
        return length_byte(p, c);
    if (p->field == F_CONNECTION) {
        if (is_tchar(c))
            keep(p, (unsigned char)lower(c));
        else
            end_connection_token(p);
    }
    if (p->field == F_TRANSFER_ENCODING && is_tchar(c))
        keep(p, (unsigned char)lower(c));
    if (p->field == F_UPGRADE) {
        if (is_tchar(c))
            keep(p, (unsigned char)lower(c));
        else
            end_upgrade_token(p);
    }
    if (p->field == F_WS_KEY)
        ws_key_byte(p, c);
    return HTTP_MORE;
}

/* Transfer-Encoding: chunked alone is taken; anything else is 501. */
static void end_transfer_encoding(struct http_parser *p)
{
    if (word_is(p, "chunked") && !(p->flags & CHUNKED))
        p->flags |= CHUNKED;
    else
        p->flags |= TE_OTHER;
}

/* A header line ended (at its CR or LF). */
static enum http_result end_value(struct http_parser *p, enum state next)
{
    if (p->field == F_CONTENT_LENGTH && p->pos == 0)
        return fail(p, 400);
    if (p->field == F_CONNECTION)
        end_connection_token(p);
    if (p->field == F_TRANSFER_ENCODING)
        end_transfer_encoding(p);
    if (p->field == F_UPGRADE)
        end_upgrade_token(p);
    if (p->field == F_WS_KEY && p->ws_key_len == HTTP_WS_KEY_LEN)
        p->ws_flags |= WS_KEY;
    else if (p->field == F_WS_KEY)
        p->ws_flags &= (uint8_t)~WS_KEY;
    p->state = next;
    return HTTP_MORE;
}

/* The empty line after the headers: is the request acceptable, and is there
 * a body to skip? */
static enum http_result end_head(struct http_parser *p)
{
    /* Request bodies are taken with Content-Length or chunked; closing the
     * connection after the 501 keeps a body in another coding from being read
     * as requests.  Both framings at once, or chunked on HTTP/1.0, is a
     * faulty framing (RFC 9112 section 6.1). */
    if (p->flags & TE_OTHER)
        return fail(p, 501);
    if ((p->flags & CHUNKED) && ((p->flags & SEEN_LENGTH) || p->minor == 0))
        return fail(p, 400);
    if (p->hosts > 1 || (p->minor == 1 && p->hosts == 0))
        return fail(p, 400);
    if (p->flags & CONN_CLOSE)
        p->keep_alive = 0;
    else
        p->keep_alive = p->minor == 1 || (p->flags & CONN_KEEP_ALIVE);
    /* RFC 6455 section 4.1: a GET of HTTP/1.1 or later, without a body */
    p->websocket = p->route == ROUTE_WS && p->method == METHOD_GET && p->minor == 1
                && p->keep_alive && (p->ws_flags & WS_ALL) == WS_ALL
                && !(p->flags & (CHUNKED | SEEN_LENGTH));
    if (p->flags & CHUNKED) {
        p->pos = 0;
        p->state = S_CHUNK_SIZE;
        return HTTP_MORE;
    }
    if (p->body_left > 0) {
        p->state = S_BODY;
        return HTTP_MORE;
    }
    p->state = S_DONE;
    return HTTP_DONE;
}

/* The request, body and all, is complete. */
static enum http_result done(struct http_parser *p)
{
    if (p->route == ROUTE_BASELINE)
        form_end(p);
    p->state = S_DONE;
    return HTTP_DONE;
}

static enum http_result request_line_byte(struct http_parser *p, unsigned char c)
{
    switch (p->state) {
    case S_START:
        if (c == '\r' || c == '\n')
            return HTTP_MORE;
        if (!is_tchar(c))
            return fail(p, 400);
        keep(p, c);
        p->state = S_METHOD;
        return HTTP_MORE;
    case S_METHOD:
        if (c == ' ') {
            p->method = word_is(p, "GET") ? METHOD_GET
                      : word_is(p, "HEAD") ? METHOD_HEAD
                      : word_is(p, "POST") ? METHOD_POST : METHOD_OTHER;
            p->pos = 0;
            p->state = S_TARGET;
            return HTTP_MORE;
        }
        if (!is_tchar(c))
            return fail(p, 400);
        keep(p, c);
        return HTTP_MORE;
    case S_TARGET:
        /* absolute-form and "*" are accepted but route nowhere (404) */
        if (!is_vchar(c))
            return fail(p, 400);
        p->state = c == '/' ? S_PATH : S_TARGET_REST;
        keep(p, c);
        return HTTP_MORE;
    case S_PATH:
        if (c == ' ' || c == '?') {
            end_path(p);
            p->pos = 0;
            p->state = c == ' ' ? S_VERSION : S_TARGET_REST;
            return HTTP_MORE;
        }
        if (!is_vchar(c))
            return fail(p, 400);
        keep(p, c);
        return HTTP_MORE;
    case S_TARGET_REST:
        if (c == ' ') {
            if (reads_form(p))
                form_end(p);
            p->pos = 0;
            p->state = S_VERSION;
            return HTTP_MORE;
        }
        if (!is_vchar(c))
            return fail(p, 400);
        if (reads_form(p))
            form_byte(p, c);
        return HTTP_MORE;
    case S_VERSION:
        return version_byte(p, c);
    default: /* S_LINE_END */
        if (c == '\r')
            p->state = S_LINE_LF;
        else if (c == '\n')
            p->state = S_FIELD;
        else
            return fail(p, 400);
        return HTTP_MORE;
    }
}

static enum http_result header_byte(struct http_parser *p, unsigned char c)
{
    switch (p->state) {
    case S_LINE_LF:
        if (c != '\n')
            return fail(p, 400);
        p->state = S_FIELD;
        return HTTP_MORE;
    case S_FIELD:
        if (c == '\r') {
            p->state = S_HEAD_LF;
            return HTTP_MORE;
        }
        if (c == '\n')
            return end_head(p);
        /* also refuses obs-fold (a line starting with whitespace) */
        if (!is_tchar(c))
            return fail(p, 400);
        p->pos = 0;
        keep(p, (unsigned char)lower(c));
        p->state = S_NAME;
        return HTTP_MORE;
    case S_NAME:
        if (c == ':')
            return start_value(p);
        if (!is_tchar(c)) /* also whitespace before the colon */
            return fail(p, 400);
        keep(p, (unsigned char)lower(c));
        return HTTP_MORE;
    case S_OWS:
    case S_VALUE:
        if (c == '\r')
            return end_value(p, S_LINE_LF);
        if (c == '\n')
            return end_value(p, S_FIELD);
        if (p->state == S_OWS && (c == ' ' || c == '\t'))
            return HTTP_MORE;
        p->state = S_VALUE;
        return value_byte(p, c);
    default: /* S_HEAD_LF */
        return c == '\n' ? end_head(p) : fail(p, 400);
    }
}

/* The end of a chunk-size line: a chunk's data follows, or the last chunk's
 * trailer section. */
static enum http_result chunk_size_end(struct http_parser *p)
{
    p->state = p->body_left > 0 ? S_CHUNK_DATA : S_TRAILER;
    return HTTP_MORE;
}

static int hex_value(unsigned char c)
{
    return c >= '0' && c <= '9' ? c - '0'
         : c >= 'a' && c <= 'f' ? c - 'a' + 10
         : c >= 'A' && c <= 'F' ? c - 'A' + 10 : -1;
}

/* A byte of a chunked body's framing (RFC 9112 section 7.1): size lines
 * with extensions skipped, the CRLF after each chunk's data, the trailer
 * section skipped. */
static enum http_result chunk_byte(struct http_parser *p, unsigned char c)
{
    switch (p->state) {
    case S_CHUNK_SIZE:
        if (hex_value(c) >= 0 && p->pos < MAX_CHUNK_DIGITS) {
            p->body_left = p->body_left * 16 + (uint64_t)hex_value(c);
            p->pos++;
            return HTTP_MORE;
        }
        if (p->pos == 0)
            return fail(p, 400);
        if (c == ';') {
            p->state = S_CHUNK_EXT;
            return HTTP_MORE;
        }
        if (c == '\r') {
            p->state = S_CHUNK_SIZE_LF;
            return HTTP_MORE;
        }
        return c == '\n' ? chunk_size_end(p) : fail(p, 400);
    case S_CHUNK_EXT:
        if (c == '\r')
            p->state = S_CHUNK_SIZE_LF;
        else if (c == '\n')
            return chunk_size_end(p);
        else if (!is_value_char(c))
            return fail(p, 400);
        return HTTP_MORE;
    case S_CHUNK_SIZE_LF:
        return c == '\n' ? chunk_size_end(p) : fail(p, 400);
    case S_CHUNK_DATA_END:
    case S_CHUNK_DATA_LF:
        if (c == '\r' && p->state == S_CHUNK_DATA_END) {
            p->state = S_CHUNK_DATA_LF;
            return HTTP_MORE;
        }
        if (c != '\n')
            return fail(p, 400);
        p->pos = 0;
        p->state = S_CHUNK_SIZE;
        return HTTP_MORE;
    case S_TRAILER:
        if (c == '\r')
            p->state = S_TRAILER_LF;
        else if (c == '\n')
            return done(p);
        else if (!is_value_char(c))
            return fail(p, 400);
        else
            p->state = S_TRAILER_LINE;
        return HTTP_MORE;
    case S_TRAILER_LINE:
        if (c == '\n')
            p->state = S_TRAILER;
        else if (c != '\r' && !is_value_char(c))
            return fail(p, 400);
        return HTTP_MORE;
    default: /* S_TRAILER_LF */
        return c == '\n' ? done(p) : fail(p, 400);
    }
}

/* Takes body bytes (of a Content-Length body or of a chunk): folded into the
 * form for /baseline, else skipped. */
static enum http_result take_body(struct http_parser *p, const char *buf, size_t avail,
                                  size_t *i)
{
    size_t n = avail < p->body_left ? avail : (size_t)p->body_left;
    if (p->route == ROUTE_BASELINE)
        for (size_t k = 0; k < n; k++)
            form_byte(p, (unsigned char)buf[*i + k]);
    *i += n;
    p->body_left -= n;
    if (p->body_left > 0)
        return HTTP_MORE;
    if (p->state == S_CHUNK_DATA) {
        p->state = S_CHUNK_DATA_END;
        return HTTP_MORE;
    }
    return done(p);
}

enum http_result http_parse(struct http_parser *p, const char *buf, size_t len, size_t *used)
{
    enum http_result r = HTTP_MORE;
    size_t i = 0;

    if (p->state == S_ERROR || p->state == S_DONE) {
        *used = 0;
        return p->state == S_ERROR ? HTTP_ERROR : HTTP_DONE;
    }
    while (r == HTTP_MORE && i < len) {
        if (p->state == S_BODY || p->state == S_CHUNK_DATA) {
            r = take_body(p, buf, len - i, &i);
            continue;
        }
        if (p->state < S_BODY && ++p->head_len > HTTP_MAX_HEAD) {
            r = fail(p, 431);
            break;
        }
        unsigned char c = (unsigned char)buf[i++];
        r = p->state < S_LINE_LF ? request_line_byte(p, c)
          : p->state < S_BODY ? header_byte(p, c) : chunk_byte(p, c);
    }
    *used = i;
    return r;
}
