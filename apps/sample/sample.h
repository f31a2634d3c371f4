/* sample.h -- the splitter selection of sample sort that its three forms share.
 * MemPI, BSD-3-Clause (see LICENSE).
 *
 * Sample sort of N 32-bit keys: every rank sorts its block locally (radix sort), takes
 * SAMPLES regularly spaced keys of it, and all ranks see all samples; sorting them gives P-1
 * splitters that cut every rank's sorted block into P pieces, piece q for rank q.  After the
 * all-to-all exchange of the pieces, every rank sorts what it received (the "second local
 * sort", which is why the paper expects at most 50 % parallel efficiency) and holds one
 * globally ordered range of keys; the counts per rank are only roughly equal.
 */
#ifndef APPS_SAMPLE_H
#define APPS_SAMPLE_H

#include <stdint.h>

enum { SAMPLES = 64 };   /* samples per rank */

void sample_pick(const uint32_t *sorted, long n, uint32_t *samples);   /* SAMPLES of them */
/* all: nranks * SAMPLES samples, sorted here (tmp: as large); splitters: nranks - 1 */
void sample_splitters(uint32_t *all, uint32_t *tmp, int nranks, uint32_t *splitters);
/* cut[0] = 0 <= cut[1] <= ... <= cut[nranks] = n: piece q is sorted[cut[q] .. cut[q+1]) */
void sample_cuts(const uint32_t *sorted, long n, const uint32_t *splitters, int nranks, long *cut);

/* The first half of sample sort in the message-passing forms: sort my n keys (tmp: n of
 * scratch), share samples with every rank (MPI_Allgather over MPI_COMM_WORLD), choose the
 * splitters and cut my keys: cut as in sample_cuts. */
void sample_split(uint32_t *keys, long n, uint32_t *tmp, long *cut);

#endif
