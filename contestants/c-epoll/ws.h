/*
 * WebSocket (RFC 6455) for c-epoll, by hand: the Accept of the opening
 * handshake (SHA-1 and base64 written out here, libc only) and the echo of a
 * client's frames.  Frames are echoed one by one as they came (a fragmented
 * message comes back in the same fragments), unmasked; a ping is answered
 * with a pong of its payload, a close with the same close, after which the
 * connection ends.  What breaks the protocol is answered with close 1002
 * (1009 for a frame past WS_MAX_PAYLOAD).  Text is not checked as UTF-8: an
 * echo gives back the octets it was given, and the client checks.
 */
#ifndef WS_H
#define WS_H

#include <stddef.h>

/* The longest frame payload accepted (a whole frame is kept until it is in). */
#define WS_MAX_PAYLOAD (16u << 20)

/* Characters of a Sec-WebSocket-Accept: a SHA-1 in base64. */
#define WS_ACCEPT_LEN 28

/* The Accept for a client's key of `len` characters (RFC 6455 section 4.2.2). */
void ws_accept(const char *key, size_t len, char accept[WS_ACCEPT_LEN]);

/* What the connection does after the echo is sent. */
enum ws_after { WS_OPEN, WS_CLOSE };

/*
 * Echoes the whole frames at the front of in[0..len) into out, which has room
 * for len + WS_OUT_SLACK octets: *used says how many octets of in they took
 * (a frame not all there yet is left), *out_len how many were written.
 * WS_CLOSE once a close was answered or the protocol broken: what follows is
 * not read.
 */
#define WS_OUT_SLACK 16
enum ws_after ws_echo(const char *in, size_t len, size_t *used, char *out, size_t *out_len);

#endif
