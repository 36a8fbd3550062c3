/*
 * The workload endpoints c-epoll serves beside /hello and /app, written by
 * hand to stay the ceiling:
 *
 *   GET /baseline?a=A&b=B, POST /baseline with a=A&b=B as its body (by
 *   Content-Length or chunked)  -> the sum, as text
 *   GET /json/{count}?m=M  -> {"count":N,"items":[...]}: the dataset's first
 *   count items, each with total = price * quantity * M, formatted per request
 *
 * The parser folds the query and the body as they arrive (parser.h), so an
 * answer is written from a few numbers into the loop's answer space.
 */
#ifndef WORKLOADS_H
#define WORKLOADS_H

#include <sys/uio.h>

#include "parser.h"

/* The most bytes one answer takes of the space it is written into. */
#define WORKLOAD_MAX_ANSWER 20480

enum workload { WORKLOAD_NONE, WORKLOAD_BASELINE, WORKLOAD_JSON, WORKLOAD_NOT_ALLOWED };

/* Reads the json dataset (contestants/_data/items.json as the harness writes
 * it to {workloads}); -1 after saying why on stderr. */
int workloads_load(const char *items_path);

/* Which workload a complete request asks for: none (another route, or /json
 * with no dataset loaded), one, or a method it does not take (405). */
enum workload workload_for_request(const struct http_parser *p);

/* Writes the answer to `p` into out[0..WORKLOAD_MAX_ANSWER), saying
 * `connection` (a header line or "") and `date`: its bytes (the head only for
 * HEAD). */
struct iovec workload_answer(enum workload w, const struct http_parser *p, const char *connection,
                             const char *date, char *out);

#endif
