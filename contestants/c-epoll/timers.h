/*
 * Deadlines of one event loop: a min-heap ordered by due time, and a timerfd
 * armed for the earliest one (the loop polls the timerfd with the sockets).
 * An entry names its connection by fd and generation, never by pointer: when
 * the connection closed meanwhile, the generation no longer matches and the
 * entry is dropped, so a closed connection needs no cancelling.
 */
#ifndef TIMERS_H
#define TIMERS_H

#include <stddef.h>
#include <stdint.h>

enum timer_kind { TIMER_APP, TIMER_LINGER };

struct timer {
    uint64_t due;   /* CLOCK_MONOTONIC, ns */
    int fd;
    uint32_t gen;
    int kind;       /* enum timer_kind */
};

struct timers {
    int fd;          /* the timerfd */
    uint64_t armed;  /* due time it is armed for; 0: disarmed */
    struct timer *heap;
    size_t len, cap;
};

uint64_t now_ns(void);

/* Creates the timerfd; -1 on failure (errno set). */
int timers_init(struct timers *t);

/* Adds an entry, arming the timerfd if it is the earliest; -1 if out of memory. */
int timers_add(struct timers *t, const struct timer *e);

/* Removes the earliest entry due by `now` into *e; 0 if none is due. */
int timers_pop_due(struct timers *t, uint64_t now, struct timer *e);

/* After popping: consumes the timerfd's expiry and arms it for the new earliest entry. */
void timers_rearm(struct timers *t);

#endif
