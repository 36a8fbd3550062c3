#include "timers.h"

#include <stdlib.h>
#include <sys/timerfd.h>
#include <time.h>
#include <unistd.h>

uint64_t now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

int timers_init(struct timers *t)
{
    *t = (struct timers){0};
    t->fd = timerfd_create(CLOCK_MONOTONIC, TFD_NONBLOCK | TFD_CLOEXEC);
    return t->fd < 0 ? -1 : 0;
}

static void arm(struct timers *t, uint64_t due)
{
    struct itimerspec its = {
        .it_value = {.tv_sec = (time_t)(due / 1000000000u), .tv_nsec = (long)(due % 1000000000u)},
    };
    /* due 0 disarms (an all-zero it_value); a due time in the past fires at once */
    timerfd_settime(t->fd, TFD_TIMER_ABSTIME, &its, NULL);
    t->armed = due;
}

static void swap(struct timer *a, struct timer *b)
{
    struct timer x = *a;
    *a = *b;
    *b = x;
}

int timers_add(struct timers *t, const struct timer *e)
{
    if (t->len == t->cap) {
        size_t cap = t->cap ? 2 * t->cap : 256;
        struct timer *h = realloc(t->heap, cap * sizeof *h);
        if (h == NULL)
            return -1;
        t->heap = h;
        t->cap = cap;
    }
    size_t i = t->len++;
    t->heap[i] = *e;
    for (; i > 0 && t->heap[(i - 1) / 2].due > t->heap[i].due; i = (i - 1) / 2)
        swap(&t->heap[i], &t->heap[(i - 1) / 2]);
    if (t->armed == 0 || e->due < t->armed)
        arm(t, e->due);
    return 0;
}

static void sift_down(struct timers *t)
{
    size_t i = 0;
    for (;;) {
        size_t l = 2 * i + 1, r = l + 1, m = i;
        if (l < t->len && t->heap[l].due < t->heap[m].due)
            m = l;
        if (r < t->len && t->heap[r].due < t->heap[m].due)
            m = r;
        if (m == i)
            return;
        swap(&t->heap[i], &t->heap[m]);
        i = m;
    }
}

int timers_pop_due(struct timers *t, uint64_t now, struct timer *e)
{
    if (t->len == 0 || t->heap[0].due > now)
        return 0;
    *e = t->heap[0];
    t->heap[0] = t->heap[--t->len];
    sift_down(t);
    return 1;
}

void timers_rearm(struct timers *t)
{
    uint64_t expirations;
    /* nonblocking: EAGAIN when it has not fired since the last read */
    (void)!read(t->fd, &expirations, sizeof expirations);
    arm(t, t->len ? t->heap[0].due : 0);
}
