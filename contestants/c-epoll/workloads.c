#include "workloads.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define NAME_MAX_LEN 40
#define HEAD_ROOM 256   /* the head is written just before the body */
#define MAX_PRICE_CENTS 1000000000ull
#define MAX_QUANTITY 1000000u

struct item {
    uint32_t id, quantity;
    uint64_t price_cents;
    uint8_t name_len;
    char name[NAME_MAX_LEN];
};

/* Read once at start, then only read: shared by every loop. */
static struct item items[HTTP_MAX_COUNT];
static unsigned item_count;

/* ---- the dataset ---- */

/* Just past `"key":` and the spaces after it in obj[..end), or NULL. */
static const char *after_key(const char *obj, const char *end, const char *key)
{
    char quoted[32];
    int n = snprintf(quoted, sizeof quoted, "\"%s\"", key);
    for (const char *p = obj; p + n <= end; p++) {
        if (memcmp(p, quoted, (size_t)n) != 0)
            continue;
        p += n;
        while (p < end && (*p == ' ' || *p == ':'))
            p++;
        return p;
    }
    return NULL;
}

static int read_u64(const char *p, const char *end, uint64_t max, uint64_t *out, const char **next)
{
    uint64_t v = 0;
    const char *start = p;
    for (; p < end && *p >= '0' && *p <= '9'; p++)
        if ((v = v * 10 + (uint64_t)(*p - '0')) > max)
            return -1;
    *out = v;
    *next = p;
    return p > start ? 0 : -1;
}

/* A price with at most two decimals, in cents. */
static int read_cents(const char *p, const char *end, uint64_t *cents)
{
    uint64_t whole, frac = 0;
    if (read_u64(p, end, MAX_PRICE_CENTS / 100, &whole, &p) < 0)
        return -1;
    int digits = 0;
    if (p < end && *p == '.') {
        for (p++; p < end && *p >= '0' && *p <= '9'; p++, digits++) {
            if (digits == 2)
                return -1;
            frac = frac * 10 + (uint64_t)(*p - '0');
        }
    }
    *cents = whole * 100 + (digits == 1 ? frac * 10 : frac);
    return 0;
}

/* One item from the object text obj[..end); -1 if a field is missing or odd. */
static int read_item(const char *obj, const char *end, struct item *it)
{
    const char *id = after_key(obj, end, "id"), *name = after_key(obj, end, "name");
    const char *price = after_key(obj, end, "price"), *qty = after_key(obj, end, "quantity");
    uint64_t v, q;
    const char *rest;
    if (!id || !name || !price || !qty || *name != '"')
        return -1;
    if (read_u64(id, end, UINT32_MAX, &v, &rest) < 0 || read_u64(qty, end, MAX_QUANTITY, &q, &rest) < 0)
        return -1;
    it->id = (uint32_t)v;
    it->quantity = (uint32_t)q;
    if (read_cents(price, end, &it->price_cents) < 0)
        return -1;
    /* names are written as they are: no escapes, nothing to escape */
    size_t n = 0;
    for (name++; name + n < end && name[n] != '"'; n++)
        if (n == NAME_MAX_LEN || name[n] == '\\' || (unsigned char)name[n] < 0x20)
            return -1;
    memcpy(it->name, name, n);
    it->name_len = (uint8_t)n;
    return 0;
}

int workloads_load(const char *path)
{
    FILE *f = fopen(path, "rb");
    static char text[1 << 20];
    size_t len = f ? fread(text, 1, sizeof text - 1, f) : 0;
    if (f == NULL || ferror(f)) {
        perror(path);
        return -1;
    }
    fclose(f);
    text[len] = 0;
    for (char *p = text; (p = strchr(p, '{')) != NULL && item_count < HTTP_MAX_COUNT;) {
        char *end = strchr(p, '}');
        if (end == NULL || read_item(p, end, &items[item_count]) < 0) {
            fprintf(stderr, "%s: item %u is not {\"id\", \"name\", \"price\", \"quantity\"}\n",
                    path, item_count + 1);
            return -1;
        }
        item_count++;
        p = end + 1;
    }
    return 0;
}

/* ---- answers ---- */

enum workload workload_for_request(const struct http_parser *p)
{
    int get = p->method == METHOD_GET || p->method == METHOD_HEAD;
    if (p->route == ROUTE_BASELINE)
        return get || p->method == METHOD_POST ? WORKLOAD_BASELINE : WORKLOAD_NOT_ALLOWED;
    if (p->route == ROUTE_JSON && item_count > 0)
        return get ? WORKLOAD_JSON : WORKLOAD_NOT_ALLOWED;
    return WORKLOAD_NONE;
}

static char *put(char *p, const char *s, size_t n)
{
    memcpy(p, s, n);
    return p + n;
}

#define PUT(p, literal) put(p, literal, sizeof literal - 1)

static char *put_u128(char *p, unsigned __int128 v)
{
    char digits[40];
    int n = 0;
    do
        digits[n++] = (char)('0' + (int)(v % 10));
    while ((v /= 10) != 0);
    while (n > 0)
        *p++ = digits[--n];
    return p;
}

static char *put_cents(char *p, unsigned __int128 cents)
{
    p = put_u128(p, cents / 100);
    *p++ = '.';
    *p++ = (char)('0' + (int)(cents / 10 % 10));
    *p++ = (char)('0' + (int)(cents % 10));
    return p;
}

/* The body of /json/{count}?m=M at p. */
static char *json_body(char *p, unsigned count, uint32_t m)
{
    count = count < item_count ? count : item_count;
    p = PUT(p, "{\"count\":");
    p = put_u128(p, count);
    p = PUT(p, ",\"items\":[");
    for (unsigned i = 0; i < count; i++) {
        const struct item *it = &items[i];
        if (i > 0)
            *p++ = ',';
        p = PUT(p, "{\"id\":");
        p = put_u128(p, it->id);
        p = PUT(p, ",\"name\":\"");
        p = put(p, it->name, it->name_len);
        p = PUT(p, "\",\"price\":");
        p = put_cents(p, it->price_cents);
        p = PUT(p, ",\"quantity\":");
        p = put_u128(p, it->quantity);
        p = PUT(p, ",\"total\":");
        p = put_cents(p, (unsigned __int128)it->price_cents * it->quantity * m);
        *p++ = '}';
    }
    return PUT(p, "]}");
}

struct iovec workload_answer(enum workload w, const struct http_parser *p, const char *connection,
                             const char *date, char *out)
{
    char *body = out + HEAD_ROOM;
    char *end = w == WORKLOAD_JSON ? json_body(body, p->count, p->m) : put_u128(body, p->sum);
    char head[HEAD_ROOM], *h = head;
    h = PUT(h, "HTTP/1.1 200 OK\r\nServer: c-epoll\r\nContent-Type: ");
    h = w == WORKLOAD_JSON ? PUT(h, "application/json") : PUT(h, "text/plain");
    h = PUT(h, "\r\nContent-Length: ");
    h = put_u128(h, (unsigned __int128)(end - body));
    h = PUT(h, "\r\n");
    h = put(h, connection, strlen(connection));
    h = PUT(h, "Date: ");
    h = put(h, date, strlen(date));
    h = PUT(h, "\r\n\r\n");
    size_t head_len = (size_t)(h - head);
    memcpy(body - head_len, head, head_len);
    size_t len = head_len + (p->method == METHOD_HEAD ? 0 : (size_t)(end - body));
    return (struct iovec){body - head_len, len};
}
