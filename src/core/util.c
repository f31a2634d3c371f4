/* util.c -- time, memory and randomness helpers.  MemPI, BSD-3-Clause (see LICENSE).
 *
 * Allocation failures inside the library are not recoverable in any useful way (a request
 * half-built, a queue entry lost), so mp_malloc and friends end the job with one clear line
 * instead of returning NULL into code paths that cannot report it.
 */
#include "core/core.h"
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <sys/random.h>

double mp_wtime(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

void *mp_malloc(size_t n)
{
    void *p = malloc(n ? n : 1);
    if (p == NULL)
        mp_fatal("out of memory allocating %zu bytes", n);
    return p;
}

void *mp_calloc(size_t n, size_t m)
{
    void *p = calloc(n ? n : 1, m ? m : 1);
    if (p == NULL)
        mp_fatal("out of memory allocating %zu x %zu bytes", n, m);
    return p;
}

void *mp_realloc(void *p, size_t n)
{
    void *q = realloc(p, n ? n : 1);
    if (q == NULL)
        mp_fatal("out of memory reallocating %zu bytes", n);
    return q;
}

char *mp_strdup(const char *s)
{
    size_t n = strlen(s) + 1;
    return memcpy(mp_malloc(n), s, n);
}

int mp_random_bytes(void *buf, size_t n)
{
    unsigned char *p = buf;
    while (n > 0) {
        ssize_t got = getrandom(p, n, 0);
        if (got < 0)
            return -1;
        p += got;
        n -= (size_t)got;
    }
    return 0;
}
