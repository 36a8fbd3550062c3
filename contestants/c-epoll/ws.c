#include "ws.h"

#include <stdint.h>
#include <string.h>

/* ---- the opening handshake's Accept: SHA-1 (FIPS 180-4) and base64 ---- */

static uint32_t rol(uint32_t x, int n)
{
    return x << n | x >> (32 - n);
}

static void sha1_block(uint32_t h[5], const unsigned char *b)
{
    uint32_t w[80];
    for (int i = 0; i < 16; i++)
        w[i] = (uint32_t)b[4 * i] << 24 | (uint32_t)b[4 * i + 1] << 16
             | (uint32_t)b[4 * i + 2] << 8 | b[4 * i + 3];
    for (int i = 16; i < 80; i++)
        w[i] = rol(w[i - 3] ^ w[i - 8] ^ w[i - 14] ^ w[i - 16], 1);
    uint32_t a = h[0], bb = h[1], c = h[2], d = h[3], e = h[4];
    for (int i = 0; i < 80; i++) {
        uint32_t f, k;
        if (i < 20)
            f = (bb & c) | (~bb & d), k = 0x5A827999;
        else if (i < 40)
            f = bb ^ c ^ d, k = 0x6ED9EBA1;
        else if (i < 60)
            f = (bb & c) | (bb & d) | (c & d), k = 0x8F1BBCDC;
        else
            f = bb ^ c ^ d, k = 0xCA62C1D6;
        uint32_t t = rol(a, 5) + f + e + k + w[i];
        e = d, d = c, c = rol(bb, 30), bb = a, a = t;
    }
    h[0] += a, h[1] += bb, h[2] += c, h[3] += d, h[4] += e;
}

/* SHA-1 of msg[0..len), len < 120 (a key and the GUID fit in two blocks). */
static void sha1(const unsigned char *msg, size_t len, unsigned char digest[20])
{
    uint32_t h[5] = {0x67452301, 0xEFCDAB89, 0x98BADCFE, 0x10325476, 0xC3D2E1F0};
    unsigned char padded[128] = {0};
    memcpy(padded, msg, len);
    padded[len] = 0x80;
    size_t total = len + 9 <= 64 ? 64 : 128;
    uint64_t bits = (uint64_t)len * 8;
    for (int i = 0; i < 8; i++)
        padded[total - 1 - i] = (unsigned char)(bits >> (8 * i));
    for (size_t at = 0; at < total; at += 64)
        sha1_block(h, padded + at);
    for (int i = 0; i < 20; i++)
        digest[i] = (unsigned char)(h[i / 4] >> (24 - 8 * (i % 4)));
}

static void base64(const unsigned char *in, size_t len, char *out)
{
    static const char abc[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    for (size_t i = 0; i < len; i += 3) {
        uint32_t v = (uint32_t)in[i] << 16 | (i + 1 < len ? (uint32_t)in[i + 1] << 8 : 0)
                   | (i + 2 < len ? in[i + 2] : 0);
        *out++ = abc[v >> 18 & 63];
        *out++ = abc[v >> 12 & 63];
        *out++ = i + 1 < len ? abc[v >> 6 & 63] : '=';
        *out++ = i + 2 < len ? abc[v & 63] : '=';
    }
}

void ws_accept(const char *key, size_t len, char accept[WS_ACCEPT_LEN])
{
    static const char guid[] = "258EAFA5-E914-47DA-95CA-C5AB0DC85B11";
    unsigned char msg[64 + sizeof guid];
    if (len > 64)
        len = 64;
    memcpy(msg, key, len);
    memcpy(msg + len, guid, sizeof guid - 1);
    unsigned char digest[20];
    sha1(msg, len + sizeof guid - 1, digest);
    base64(digest, sizeof digest, accept);
}

/* ---- frames ---- */

enum { OP_CONTINUATION = 0, OP_TEXT = 1, OP_BINARY = 2, OP_CLOSE = 8, OP_PING = 9, OP_PONG = 10 };

/* A server frame's header for `len` octets of `first` (FIN, opcode); its size. */
static size_t header(char *out, unsigned char first, uint64_t len)
{
    out[0] = (char)first;
    if (len < 126) {
        out[1] = (char)len;
        return 2;
    }
    if (len <= 0xffff) {
        out[1] = 126;
        out[2] = (char)(len >> 8), out[3] = (char)len;
        return 4;
    }
    out[1] = 127;
    for (int i = 0; i < 8; i++)
        out[2 + i] = (char)(len >> (56 - 8 * i));
    return 10;
}

/* A close with `code` and no reason; its size. */
static size_t close_with(char *out, unsigned code)
{
    out[0] = (char)(0x80 | OP_CLOSE), out[1] = 2;
    out[2] = (char)(code >> 8), out[3] = (char)code;
    return 4;
}

/* Does a client frame with this header break RFC 6455?  0 if not, else the
 * close code to fail the connection with. */
static unsigned broken(unsigned char b0, unsigned char b1, uint64_t len)
{
    unsigned op = b0 & 0x0f;
    int fin = b0 & 0x80, control = op & 8;
    if ((b0 & 0x70) || !(b1 & 0x80))
        return 1002; /* reserved bits (no extension), or not masked */
    if (op > OP_BINARY && op != OP_CLOSE && op != OP_PING && op != OP_PONG)
        return 1002;
    if (control && (!fin || len > 125))
        return 1002;
    return len > WS_MAX_PAYLOAD ? 1009 : 0;
}

enum ws_after ws_echo(const char *in, size_t len, size_t *used, char *out, size_t *out_len)
{
    const unsigned char *p = (const unsigned char *)in;
    size_t at = 0, o = 0;
    enum ws_after after = WS_OPEN;
    while (after == WS_OPEN && len - at >= 2) {
        unsigned char b0 = p[at], b1 = p[at + 1];
        size_t head = 2;
        uint64_t n = b1 & 0x7f;
        if (n == 126) {
            if (len - at < 4)
                break;
            n = (uint64_t)p[at + 2] << 8 | p[at + 3];
            head = 4;
        } else if (n == 127) {
            if (len - at < 10)
                break;
            n = 0;
            for (int i = 0; i < 8; i++)
                n = n << 8 | p[at + 2 + i];
            head = 10;
        }
        unsigned code = broken(b0, b1, n);
        if (code) {
            o += close_with(out + o, code);
            after = WS_CLOSE;
            break;
        }
        if (len - at < head + 4 + n)
            break; /* not all in yet */
        const unsigned char *mask = p + at + head, *payload = mask + 4;
        unsigned op = b0 & 0x0f;
        if (op == OP_PONG) {
            at += head + 4 + n;
            continue;
        }
        /* a ping's pong; a close's close (the same payload: its code), then the end */
        unsigned char first = op == OP_PING ? (0x80 | OP_PONG) : b0;
        o += header(out + o, first, n);
        for (uint64_t i = 0; i < n; i++)
            out[o + i] = (char)(payload[i] ^ mask[i & 3]);
        o += n;
        at += head + 4 + n;
        if (op == OP_CLOSE)
            after = WS_CLOSE;
    }
    *used = at;
    *out_len = o;
    return after;
}
