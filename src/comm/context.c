/* context.c -- context ids: a bitmask of free ids agreed with a bitwise AND.  MemPI, BSD-3-Clause (see LICENSE). */
/*
 * Each process keeps a mask of MP_CTX_IDS ids, bit set = free here.  Id i means wire contexts
 * 2i (point-to-point) and 2i+1 (collectives); id 0 is MPI_COMM_WORLD and id 1 MPI_COMM_SELF.
 * To create a communicator the participants AND their masks (mp_xfer_reduce_and to index 0),
 * index 0 picks the lowest free id(s) and broadcasts them, and every member clears them.  With
 * 32768 ids, tens of thousands of communicators can be live at once.
 *
 * Concurrency.  Between contributing its mask and learning the result a process must not
 * hand the same id to another creation, so an agreement "holds" the mask for that whole
 * round.  A creation that finds the mask held by another (another thread, or an outstanding
 * nonblocking creation) contributes all zeros and a 0 in the extra "had the mask" word; the
 * AND then tells every participant to retry, so nobody claims an id that some member could
 * not vouch for.  Holders release the mask after every round, and a process waits for the
 * mask to be released before retrying.  Concurrent creations on overlapping groups from
 * single-threaded processes never contend: MPI orders them per process, and the messages
 * name their source explicitly (see xfer.c).
 *
 * Locking: ctx_lock protects the mask, the holder flag and the live count; it is never held
 * while communicating.
 */
#include "comm/comm.h"
#include <sched.h>
#include <stdlib.h>
#include <string.h>

#define NWORDS (MP_CTX_IDS / 32)
enum { PICK_RETRY = -1, PICK_EXHAUSTED = -2 };

static uint32_t free_mask[NWORDS];
static int mask_held;
static int live_ids;
static pthread_mutex_t ctx_lock = PTHREAD_MUTEX_INITIALIZER;


void mp_ctx_init(void)
{
    memset(free_mask, 0xff, sizeof free_mask);
    free_mask[0] &= ~3u;              /* ids 0 and 1: MPI_COMM_WORLD, MPI_COMM_SELF */
    mask_held = 0;
    live_ids = 2;
}

/* Takes the mask and copies it into words[0..NWORDS-1] with words[NWORDS] = 1, or, if
 * another creation holds it, fills zeros.  Returns whether the mask was taken. */
int mp_ctx_contribute(uint32_t *words)
{
    pthread_mutex_lock(&ctx_lock);
    int took = !mask_held;
    if (took) {
        mask_held = 1;
        memcpy(words, free_mask, sizeof free_mask);
    } else {
        memset(words, 0, sizeof free_mask);
    }
    words[NWORDS] = (uint32_t)took;
    pthread_mutex_unlock(&ctx_lock);
    return took;
}

/* Picks the `count` lowest free ids in an agreed mask (ids[i] = PICK_RETRY if some member
 * lacked the mask, PICK_EXHAUSTED if not enough are free). */
void mp_ctx_pick(const uint32_t *words, int count, int *ids)
{
    if (!words[NWORDS]) {
        ids[0] = PICK_RETRY;
        return;
    }
    int got = 0;
    for (int w = 0; w < NWORDS && got < count; w++) {
        uint32_t bits = words[w];
        while (bits && got < count) {
            int b = __builtin_ctz(bits);
            bits &= bits - 1;
            ids[got++] = w * 32 + b;
        }
    }
    if (got < count)
        ids[0] = PICK_EXHAUSTED;
}

/* Ends a round: claims the picked ids (when `claim`), releases the mask if we held it. */
void mp_ctx_finish(int took, const int *ids, int count, int claim)
{
    pthread_mutex_lock(&ctx_lock);
    if (claim && ids[0] >= 0)
        for (int i = 0; i < count; i++) {
            free_mask[ids[i] / 32] &= ~(1u << (ids[i] % 32));
            live_ids++;
        }
    if (took)
        mask_held = 0;
    pthread_mutex_unlock(&ctx_lock);
}

/* Waits a little before a retry, letting the holder's communication progress. */
void mp_ctx_backoff(void)
{
    mp_progress();
    sched_yield();
}

int mp_ctx_exhausted_error(void)
{
    return mp_error_code(MPI_ERR_OTHER, "out of context ids: %d communicators are live "
                         "(at most %d)", mp_ctx_live(), MP_CTX_IDS);
}

int mp_ctx_agree_ex(mp_comm *parent, const int *ranks, int n, int me, int tag, int count,
                    int claim, int *ctx_out)
{
    uint32_t *words = mp_malloc(sizeof(uint32_t) * (NWORDS + 1));
    int ids[2] = { PICK_RETRY, PICK_RETRY }, err;
    for (;;) {
        int took = mp_ctx_contribute(words);
        err = mp_xfer_reduce_and(parent, ranks, n, me, tag, words, NWORDS + 1);
        if (!err && me == 0)
            mp_ctx_pick(words, count, ids);
        if (!err)
            err = mp_xfer_bcast(parent, ranks, n, me, tag, ids, sizeof ids);
        mp_ctx_finish(took, ids, count, claim && !err);
        if (err)
            break;
        if (ids[0] == PICK_RETRY) {
            mp_ctx_backoff();
            continue;
        }
        if (ids[0] == PICK_EXHAUSTED)
            err = mp_ctx_exhausted_error();
        break;
    }
    free(words);
    if (!err)
        for (int i = 0; i < count; i++)
            ctx_out[i] = 2 * ids[i];
    return err;
}

int mp_ctx_agree(mp_comm *parent, const int *ranks, int n, int me, int tag, int count,
                 int *ctx_out)
{
    return mp_ctx_agree_ex(parent, ranks, n, me, tag, count, 1, ctx_out);
}

void mp_ctx_claim(int ctx)
{
    int id = ctx / 2;
    pthread_mutex_lock(&ctx_lock);
    if (free_mask[id / 32] & (1u << (id % 32))) {
        free_mask[id / 32] &= ~(1u << (id % 32));
        live_ids++;
    }
    pthread_mutex_unlock(&ctx_lock);
}

void mp_ctx_release(int ctx)
{
    int id = ctx / 2;
    if (id < 2 || id >= MP_CTX_IDS)
        return;
    pthread_mutex_lock(&ctx_lock);
    if (!(free_mask[id / 32] & (1u << (id % 32)))) {
        free_mask[id / 32] |= 1u << (id % 32);
        live_ids--;
    }
    pthread_mutex_unlock(&ctx_lock);
}

int mp_ctx_live(void)
{
    pthread_mutex_lock(&ctx_lock);
    int n = live_ids;
    pthread_mutex_unlock(&ctx_lock);
    return n;
}
