/* output.c -- forward ranks' stdout/stderr, and our stdin to rank 0.  MemPI, BSD-3-Clause (see LICENSE). */

/*
 * Untagged output is copied through as soon as it arrives, in whatever
 * pieces the rank wrote it, so interactive and progress output stays prompt.
 *
 * With --tag-output every line becomes "[rank] line\n" and is written with a
 * single writev, and a rank's partial line waits in its stream buffer until
 * its '\n' arrives; since this process is the only writer, lines of
 * different ranks can never interleave.  A "line" longer than TAG_LINE_MAX
 * is cut into tagged pieces rather than buffered without bound (a '\n' that
 * comes right after a cut only ends that piece, so no empty tagged line
 * appears), and an unterminated last line is completed at end of file.
 *
 * A closed stdout of ours (EPIPE, e.g. `mpiexec ... | head`) stops copying
 * but not the job.  Stdin is read only when the buffer for rank 0 has room,
 * so a rank that never reads cannot make us buffer without bound.
 */
#include "mpiexec.h"

#include <errno.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/uio.h>
#include <unistd.h>

#define TAG_LINE_MAX (64 * 1024)

static int *broken_flag(mp_job *job, int target)
{
    return target == 1 ? &job->stdout_broken : &job->stderr_broken;
}

/* Blocking copy to our fd 1 or 2 even if someone made it non-blocking. */
static void write_out(mp_job *job, int target, struct iovec *iov, int iovcnt)
{
    int *broken = broken_flag(job, target);
    while (!*broken && iovcnt > 0) {
        ssize_t n = writev(target, iov, iovcnt);
        if (n < 0 && errno == EINTR)
            continue;
        if (n < 0 && errno == EAGAIN) {
            struct pollfd p = { .fd = target, .events = POLLOUT };
            poll(&p, 1, 100);
            continue;
        }
        if (n < 0) {
            *broken = 1;   /* EPIPE and friends: nobody is listening any more */
            return;
        }
        while (iovcnt > 0 && (size_t)n >= iov->iov_len) {
            n -= (ssize_t)iov->iov_len;
            iov++;
            iovcnt--;
        }
        if (iovcnt > 0) {
            iov->iov_base = (char *)iov->iov_base + n;
            iov->iov_len -= (size_t)n;
        }
    }
}

static void emit_tagged(mp_job *job, mp_rank *r, mp_stream *s, const char *p, size_t len,
                        int add_newline)
{
    char tag[32];
    int tlen = snprintf(tag, sizeof tag, "[%d] ", r->rank);
    struct iovec iov[3] = { { tag, (size_t)tlen }, { (void *)p, len }, { "\n", 1 } };
    write_out(job, s->target, iov, add_newline ? 3 : 2);
}

static int stream_reserve(mp_stream *s, size_t need)
{
    if (s->cap >= need)
        return 0;
    size_t cap = s->cap ? s->cap : 4096;
    while (cap < need)
        cap *= 2;
    char *b = realloc(s->buf, cap);
    if (b == NULL)
        return -1;
    s->buf = b;
    s->cap = cap;
    return 0;
}

/* Emits every complete line held, and the held bytes if they are too many. */
static void flush_lines(mp_job *job, mp_rank *r, mp_stream *s)
{
    size_t start = 0;
    for (;;) {
        char *nl = memchr(s->buf + start, '\n', s->len - start);
        if (nl == NULL)
            break;
        size_t len = (size_t)(nl - (s->buf + start)) + 1;
        emit_tagged(job, r, s, s->buf + start, len, 0);
        start += len;
    }
    if (s->len - start >= TAG_LINE_MAX) {
        emit_tagged(job, r, s, s->buf + start, s->len - start, 1);
        start = s->len;
        s->cut = 1;
    }
    s->len -= start;
    memmove(s->buf, s->buf + start, s->len);
}

void mp_output_readable(mp_job *job, mp_rank *r, mp_stream *s)
{
    char chunk[65536];
    for (;;) {
        ssize_t n = read(s->fd, chunk, sizeof chunk);
        if (n < 0 && errno == EINTR)
            continue;
        if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK))
            return;
        if (n <= 0) {
            mp_output_close(job, r, s);
            return;
        }
        if (!job->opt->tag_output) {
            struct iovec iov = { chunk, (size_t)n };
            write_out(job, s->target, &iov, 1);
        } else if (stream_reserve(s, s->len + (size_t)n) == 0) {
            size_t skip = s->cut && s->len == 0 && chunk[0] == '\n';   /* ends the cut piece */
            s->cut = 0;
            memcpy(s->buf + s->len, chunk + skip, (size_t)n - skip);
            s->len += (size_t)n - skip;
            flush_lines(job, r, s);
        } else {
            emit_tagged(job, r, s, chunk, (size_t)n, 1);   /* no memory: still tagged */
        }
        if ((size_t)n < sizeof chunk)
            return;   /* drained for now; poll tells us about the rest */
    }
}

void mp_output_close(mp_job *job, mp_rank *r, mp_stream *s)
{
    if (s->fd < 0)
        return;
    if (s->len > 0)
        emit_tagged(job, r, s, s->buf, s->len, 1);
    free(s->buf);
    s->buf = NULL;
    s->len = s->cap = 0;
    close(s->fd);
    s->fd = -1;
}

/* ---- stdin -> rank 0 ---------------------------------------------------- */

void mp_stdin_close(mp_job *job)
{
    if (job->stdin_pipe >= 0)
        close(job->stdin_pipe);
    job->stdin_pipe = -1;
    job->stdin_open = 0;
    job->stdin_len = 0;
}

void mp_stdin_readable(mp_job *job)
{
    /* fd 0 stays blocking (its file description may be shared with a shell);
     * poll said it is readable, so this read does not block. */
    ssize_t n;
    do
        n = read(0, job->stdin_buf + job->stdin_len, sizeof job->stdin_buf - job->stdin_len);
    while (n < 0 && errno == EINTR);
    if (n > 0) {
        job->stdin_len += (size_t)n;
        mp_stdin_writable(job);
    } else if (n == 0 || (errno != EAGAIN && errno != EWOULDBLOCK)) {
        job->stdin_open = 0;     /* EOF: close rank 0's stdin once drained */
        if (job->stdin_len == 0)
            mp_stdin_close(job);
    }
}

void mp_stdin_writable(mp_job *job)
{
    while (job->stdin_pipe >= 0 && job->stdin_len > 0) {
        ssize_t n = write(job->stdin_pipe, job->stdin_buf, job->stdin_len);
        if (n < 0 && errno == EINTR)
            continue;
        if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK))
            return;
        if (n <= 0) {
            mp_stdin_close(job);   /* rank 0 closed its stdin or exited */
            return;
        }
        job->stdin_len -= (size_t)n;
        memmove(job->stdin_buf, job->stdin_buf + n, job->stdin_len);
    }
    if (!job->stdin_open && job->stdin_len == 0)
        mp_stdin_close(job);
}
