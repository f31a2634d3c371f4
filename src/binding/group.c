/* group.c -- groups: set operations, inclusion and exclusion, comparison, translation.
 * MemPI, BSD-3-Clause (see LICENSE).
 *
 * The entry points are described in src/binding/group.spec.  Groups are lists of world ranks
 * (src/comm/group.c).  Every operation here checks its arguments completely before building
 * anything, so a failing call allocates nothing.  Results that are empty are
 * MPI_GROUP_EMPTY, as in MPICH.  Rank arrays are checked for range and for duplicates with a
 * "seen" bitmap over the input group.
 */
#include "binding/binding.h"
#include <stdlib.h>
#include <string.h>

/* Hands a new group to the user; empty groups become MPI_GROUP_EMPTY. */
static int give_group(const char *F, mp_group *g, MPI_Group *out)
{
    if (g->size == 0) {
        mp_group_release(g);
        *out = MPI_GROUP_EMPTY;
        return MPI_SUCCESS;
    }
    if (!mp_group_publish(g)) {
        mp_group_release(g);
        return mp_err(F, MPI_ERR_NO_MEM, "too many groups");
    }
    *out = g->handle;
    return MPI_SUCCESS;
}

int mp_do_group_translate_ranks(const char *F, mp_group *g1, int n, const int ranks1[],
                                mp_group *g2, int ranks2[])
{
    for (int i = 0; i < n; i++)
        if (ranks1[i] != MPI_PROC_NULL && (ranks1[i] < 0 || ranks1[i] >= g1->size))
            return mp_err(F, MPI_ERR_RANK, "invalid rank ranks1[%d] = %d in a group of size %d",
                          i, ranks1[i], g1->size);
    if (n == 0)
        return MPI_SUCCESS;
    int *map = mp_group_world_map(g2);
    for (int i = 0; i < n; i++)
        ranks2[i] = ranks1[i] == MPI_PROC_NULL ? MPI_PROC_NULL : map[g1->world[ranks1[i]]];
    free(map);
    return MPI_SUCCESS;
}

int mp_do_group_compare(const char *F, mp_group *g1, mp_group *g2, int *result)
{
    if (g1->size != g2->size) {
        *result = MPI_UNEQUAL;
        return MPI_SUCCESS;
    }
    if (g1->size == 0 || memcmp(g1->world, g2->world, sizeof(int) * (size_t)g1->size) == 0) {
        *result = MPI_IDENT;
        return MPI_SUCCESS;
    }
    int *map = mp_group_world_map(g2);
    *result = MPI_SIMILAR;
    for (int r = 0; r < g1->size; r++)
        if (map[g1->world[r]] == MPI_UNDEFINED) {
            *result = MPI_UNEQUAL;
            break;
        }
    free(map);
    return MPI_SUCCESS;
}

enum { SET_UNION, SET_INTERSECTION, SET_DIFFERENCE };

static int set_op(const char *F, mp_group *g1, mp_group *g2, MPI_Group *out, int op)
{
    int *in2 = mp_group_world_map(g2);
    int *world = mp_malloc(sizeof(int) * (size_t)(g1->size + g2->size + 1));
    int n = 0;
    for (int r = 0; r < g1->size; r++) {
        int member = in2[g1->world[r]] != MPI_UNDEFINED;
        if (op == SET_UNION || (op == SET_INTERSECTION) == member)
            world[n++] = g1->world[r];
    }
    if (op == SET_UNION) {
        int *in1 = mp_group_world_map(g1);
        for (int r = 0; r < g2->size; r++)
            if (in1[g2->world[r]] == MPI_UNDEFINED)
                world[n++] = g2->world[r];
        free(in1);
    }
    free(in2);
    return give_group(F, mp_group_create(n, world), out);
}

int mp_do_group_union(const char *F, mp_group *g1, mp_group *g2, MPI_Group *out)
{
    return set_op(F, g1, g2, out, SET_UNION);
}

int mp_do_group_intersection(const char *F, mp_group *g1, mp_group *g2, MPI_Group *out)
{
    return set_op(F, g1, g2, out, SET_INTERSECTION);
}

int mp_do_group_difference(const char *F, mp_group *g1, mp_group *g2, MPI_Group *out)
{
    return set_op(F, g1, g2, out, SET_DIFFERENCE);
}

/* Checks a list of n distinct ranks of g; marks them in `seen` (g->size entries, zeroed). */
static int check_rank_list(const char *F, const mp_group *g, int n, const int ranks[],
                           char *seen)
{
    for (int i = 0; i < n; i++) {
        int r = ranks[i];
        if (r < 0 || r >= g->size)
            return mp_err(F, MPI_ERR_RANK, "invalid rank ranks[%d] = %d in a group of size %d",
                          i, r, g->size);
        if (seen[r])
            return mp_err(F, MPI_ERR_RANK, "rank %d appears twice in ranks (at %d)", r, i);
        seen[r] = 1;
    }
    return MPI_SUCCESS;
}

/* The new group of incl (the n ranks in their order) or excl (the ranks not `seen`). */
static int select_ranks(const char *F, const mp_group *g, int n, const int *ranks,
                        const char *seen, int include, MPI_Group *out)
{
    int *world = mp_malloc(sizeof(int) * (size_t)(g->size + 1));
    int k = 0;
    if (include) {
        for (int i = 0; i < n; i++)
            world[k++] = g->world[ranks[i]];
    } else {
        for (int r = 0; r < g->size; r++)
            if (!seen[r])
                world[k++] = g->world[r];
    }
    return give_group(F, mp_group_create(k, world), out);
}

static int incl_excl(const char *F, mp_group *g, int n, const int ranks[], MPI_Group *out,
                     int include)
{
    int err;
    if (n < 0 || n > g->size)
        return mp_err(F, MPI_ERR_ARG, "invalid count n = %d for a group of size %d", n,
                      g->size);
    if (n > 0 && !ranks)
        return mp_err(F, MPI_ERR_ARG, "ranks is NULL");
    char *seen = mp_calloc((size_t)g->size + 1, 1);
    if ((err = check_rank_list(F, g, n, ranks, seen))) {
        free(seen);
        return err;
    }
    err = select_ranks(F, g, n, ranks, seen, include, out);
    free(seen);
    return err;
}

int mp_do_group_incl(const char *F, mp_group *g, int n, const int ranks[], MPI_Group *out)
{
    return incl_excl(F, g, n, ranks, out, 1);
}

int mp_do_group_excl(const char *F, mp_group *g, int n, const int ranks[], MPI_Group *out)
{
    return incl_excl(F, g, n, ranks, out, 0);
}

/* Expands n (first, last, stride) triplets into a rank list after checking them. */
static int expand_ranges(const char *F, const mp_group *g, int n, int ranges[][3], int **list,
                         int *count)
{
    long total = 0;
    for (int i = 0; i < n; i++) {
        int first = ranges[i][0], last = ranges[i][1], stride = ranges[i][2];
        if (stride == 0)
            return mp_err(F, MPI_ERR_ARG, "stride 0 in ranges[%d]", i);
        if (first < 0 || first >= g->size || last < 0 || last >= g->size)
            return mp_err(F, MPI_ERR_RANK, "invalid range ranges[%d] = (%d, %d, %d) in a group "
                          "of size %d", i, first, last, stride, g->size);
        if ((stride > 0 && first > last) || (stride < 0 && first < last))
            continue;                 /* empty range */
        total += ((long)last - first) / stride + 1;
        if (total > g->size)
            return mp_err(F, MPI_ERR_RANK, "ranges name more than the %d ranks of the group",
                          g->size);
    }
    int *ranks = mp_malloc(sizeof(int) * (size_t)(total + 1));
    int k = 0;
    for (int i = 0; i < n; i++) {
        int first = ranges[i][0], last = ranges[i][1], stride = ranges[i][2];
        for (long r = first; stride > 0 ? r <= last : r >= last; r += stride)
            ranks[k++] = (int)r;
    }
    *list = ranks;
    *count = k;
    return MPI_SUCCESS;
}

static int range_incl_excl(const char *F, mp_group *g, int n, int ranges[][3],
                           MPI_Group *out, int include)
{
    int err, *ranks = NULL, count = 0;
    if ((err = expand_ranges(F, g, n, ranges, &ranks, &count)))
        return err;
    char *seen = mp_calloc((size_t)g->size + 1, 1);
    for (int i = 0; i < count; i++) {
        if (seen[ranks[i]]) {
            int r = ranks[i];
            free(seen);
            free(ranks);
            return mp_err(F, MPI_ERR_RANK, "rank %d appears in more than one range", r);
        }
        seen[ranks[i]] = 1;
    }
    err = select_ranks(F, g, count, ranks, seen, include, out);
    free(seen);
    free(ranks);
    return err;
}

int mp_do_group_range_incl(const char *F, mp_group *g, int n, int ranges[][3], MPI_Group *out)
{
    return range_incl_excl(F, g, n, ranges, out, 1);
}

int mp_do_group_range_excl(const char *F, mp_group *g, int n, int ranges[][3], MPI_Group *out)
{
    return range_incl_excl(F, g, n, ranges, out, 0);
}

/* A group of a communicator for the user: one more reference to it. */
static int publish(const char *F, mp_group *g, MPI_Group *group)
{
    if (!mp_group_publish(g))
        return mp_err(F, MPI_ERR_NO_MEM, "too many groups");
    mp_group_retain(g);
    *group = g->handle;
    return MPI_SUCCESS;
}

int mp_do_comm_group(const char *F, mp_comm *comm, MPI_Group *group)
{
    return publish(F, mp_comm_local_group(comm), group);
}

int mp_do_comm_remote_group(const char *F, mp_comm *comm, MPI_Group *group)
{
    return publish(F, mp_comm_remote_group(comm), group);
}
