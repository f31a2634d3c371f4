/* keys.h -- integer keys for the two sorting applications, RADIX and SAMPLE: data, local radix sort, verification.
 * MemPI, BSD-3-Clause (see LICENSE).
 *
 * Keys are 32-bit unsigned integers drawn from a hash of their global index, so every rank
 * count sorts the same N keys.  The local sort is a least-significant-digit radix sort by
 * counting (histogram, prefix sum, stable scatter), the building block of both
 * applications.  Verification is collective: the output must be sorted within each rank and
 * across rank boundaries, and its fingerprint -- count, sum of keys and sum of hashed keys,
 * all modulo 2^64 and independent of order -- must equal the input's.
 */
#ifndef APPS_KEYS_H
#define APPS_KEYS_H

#include <stdint.h>

enum { KEY_BITS = 32 };

void keys_generate(uint32_t *k, long first, long count);
/* hist[d] = number of keys whose digit (k >> shift) & (2^bits - 1) is d */
void keys_histogram(const uint32_t *k, long n, int shift, int bits, long *hist);
/* one stable counting-sort pass: out[next[d]++] = key for every key of digit d */
void keys_scatter(const uint32_t *k, long n, int shift, int bits, long *next, uint32_t *out);
void keys_sort(uint32_t *k, long n, uint32_t *tmp);   /* local radix sort, 8-bit digits */

/* The run of both sorting applications: app.reps repetitions, each generating this rank's
 * block of the N keys into `input` and calling sort() -- the timed part -- which returns
 * this rank's part of the output; then the verification of the last output.  Returns the
 * run's description for app_finish. */
typedef struct keys_part { uint32_t *k; long n; } keys_part;
const char *keys_run(long nkeys, uint32_t *input, keys_part (*sort)(void), const char *detail);

#endif
