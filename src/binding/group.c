/* group.c -- MPI_Group_* entry points and MPI_Comm_group.  MemPI, BSD-3-Clause (see LICENSE). */
/*
 * Groups are lists of world ranks (src/comm/group.c).  Every operation here checks its
 * arguments completely before building anything, so a failing call allocates nothing.
 * Results that are empty are MPI_GROUP_EMPTY, as in MPICH.  Rank arrays are checked for
 * range and for duplicates with a "seen" bitmap over the input group.
 */
#include "binding/binding.h"
#include <stdlib.h>
#include <string.h>

static int arg_group(const char *F, MPI_Group h, const char *name, mp_group **out)
{
    mp_group *g = h == MPI_GROUP_NULL ? NULL : mp_group_get(h);
    if (!g)
        return mp_error(NULL, MPI_ERR_GROUP, F, "invalid group %s 0x%x%s", name, (unsigned)h,
                        h == MPI_GROUP_NULL ? " (MPI_GROUP_NULL)" : "");
    *out = g;
    return MPI_SUCCESS;
}

static int arg_ptr(const char *F, const void *p, const char *name)
{
    return p ? MPI_SUCCESS : mp_error(NULL, MPI_ERR_ARG, F, "%s is NULL", name);
}

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
        return mp_error(NULL, MPI_ERR_NO_MEM, F, "too many groups");
    }
    *out = g->handle;
    return MPI_SUCCESS;
}

int PMPI_Group_size(MPI_Group h, int *size)
{
    static const char *const F = "MPI_Group_size";
    mp_group *g = NULL;
    int err;
    if ((err = arg_group(F, h, "group", &g)) || (err = arg_ptr(F, size, "size")))
        return err;
    *size = g->size;
    return MPI_SUCCESS;
}
#pragma weak MPI_Group_size = PMPI_Group_size

int PMPI_Group_rank(MPI_Group h, int *rank)
{
    static const char *const F = "MPI_Group_rank";
    mp_group *g = NULL;
    int err;
    if ((err = arg_group(F, h, "group", &g)) || (err = arg_ptr(F, rank, "rank")))
        return err;
    *rank = g->size ? g->rank : MPI_UNDEFINED;
    return MPI_SUCCESS;
}
#pragma weak MPI_Group_rank = PMPI_Group_rank

int PMPI_Group_free(MPI_Group *h)
{
    static const char *const F = "MPI_Group_free";
    mp_group *g = NULL;
    int err;
    if ((err = arg_ptr(F, h, "group")) || (err = arg_group(F, *h, "group", &g)))
        return err;
    mp_group_release(g);
    *h = MPI_GROUP_NULL;
    return MPI_SUCCESS;
}
#pragma weak MPI_Group_free = PMPI_Group_free

int PMPI_Group_translate_ranks(MPI_Group h1, int n, const int ranks1[], MPI_Group h2,
                               int ranks2[])
{
    static const char *const F = "MPI_Group_translate_ranks";
    mp_group *g1 = NULL, *g2 = NULL;
    int err;
    if ((err = arg_group(F, h1, "group1", &g1)) || (err = arg_group(F, h2, "group2", &g2)))
        return err;
    if (n < 0)
        return mp_error(NULL, MPI_ERR_ARG, F, "invalid count n = %d", n);
    if (n > 0 && ((err = arg_ptr(F, ranks1, "ranks1")) || (err = arg_ptr(F, ranks2, "ranks2"))))
        return err;
    for (int i = 0; i < n; i++)
        if (ranks1[i] != MPI_PROC_NULL && (ranks1[i] < 0 || ranks1[i] >= g1->size))
            return mp_error(NULL, MPI_ERR_RANK, F,
                            "invalid rank ranks1[%d] = %d in a group of size %d", i, ranks1[i],
                            g1->size);
    if (n == 0)
        return MPI_SUCCESS;
    int *map = mp_group_world_map(g2);
    for (int i = 0; i < n; i++)
        ranks2[i] = ranks1[i] == MPI_PROC_NULL ? MPI_PROC_NULL : map[g1->world[ranks1[i]]];
    free(map);
    return MPI_SUCCESS;
}
#pragma weak MPI_Group_translate_ranks = PMPI_Group_translate_ranks

int PMPI_Group_compare(MPI_Group h1, MPI_Group h2, int *result)
{
    static const char *const F = "MPI_Group_compare";
    mp_group *g1 = NULL, *g2 = NULL;
    int err;
    if ((err = arg_group(F, h1, "group1", &g1)) || (err = arg_group(F, h2, "group2", &g2)) ||
        (err = arg_ptr(F, result, "result")))
        return err;
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
#pragma weak MPI_Group_compare = PMPI_Group_compare

enum { SET_UNION, SET_INTERSECTION, SET_DIFFERENCE };

static int set_op(const char *F, MPI_Group h1, MPI_Group h2, MPI_Group *out, int op)
{
    MP_OUT_NULL(out, MPI_GROUP_NULL);
    mp_group *g1 = NULL, *g2 = NULL;
    int err;
    if ((err = arg_group(F, h1, "group1", &g1)) || (err = arg_group(F, h2, "group2", &g2)) ||
        (err = arg_ptr(F, out, "newgroup")))
        return err;
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

int PMPI_Group_union(MPI_Group h1, MPI_Group h2, MPI_Group *out)
{
    return set_op("MPI_Group_union", h1, h2, out, SET_UNION);
}
#pragma weak MPI_Group_union = PMPI_Group_union

int PMPI_Group_intersection(MPI_Group h1, MPI_Group h2, MPI_Group *out)
{
    return set_op("MPI_Group_intersection", h1, h2, out, SET_INTERSECTION);
}
#pragma weak MPI_Group_intersection = PMPI_Group_intersection

int PMPI_Group_difference(MPI_Group h1, MPI_Group h2, MPI_Group *out)
{
    return set_op("MPI_Group_difference", h1, h2, out, SET_DIFFERENCE);
}
#pragma weak MPI_Group_difference = PMPI_Group_difference

/* Checks a list of n distinct ranks of g; marks them in `seen` (g->size entries, zeroed). */
static int check_rank_list(const char *F, const mp_group *g, int n, const int ranks[],
                           char *seen)
{
    for (int i = 0; i < n; i++) {
        int r = ranks[i];
        if (r < 0 || r >= g->size)
            return mp_error(NULL, MPI_ERR_RANK, F,
                            "invalid rank ranks[%d] = %d in a group of size %d", i, r, g->size);
        if (seen[r])
            return mp_error(NULL, MPI_ERR_RANK, F, "rank %d appears twice in ranks (at %d)",
                            r, i);
        seen[r] = 1;
    }
    return MPI_SUCCESS;
}

static int incl_excl(const char *F, MPI_Group h, int n, const int ranks[], MPI_Group *out,
                     int include)
{
    MP_OUT_NULL(out, MPI_GROUP_NULL);
    mp_group *g = NULL;
    int err;
    if ((err = arg_group(F, h, "group", &g)) || (err = arg_ptr(F, out, "newgroup")))
        return err;
    if (n < 0 || n > g->size)
        return mp_error(NULL, MPI_ERR_ARG, F, "invalid count n = %d for a group of size %d",
                        n, g->size);
    if (n > 0 && (err = arg_ptr(F, ranks, "ranks")))
        return err;
    char *seen = mp_calloc((size_t)g->size + 1, 1);
    if ((err = check_rank_list(F, g, n, ranks, seen))) {
        free(seen);
        return err;
    }
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
    free(seen);
    return give_group(F, mp_group_create(k, world), out);
}

int PMPI_Group_incl(MPI_Group h, int n, const int ranks[], MPI_Group *out)
{
    return incl_excl("MPI_Group_incl", h, n, ranks, out, 1);
}
#pragma weak MPI_Group_incl = PMPI_Group_incl

int PMPI_Group_excl(MPI_Group h, int n, const int ranks[], MPI_Group *out)
{
    return incl_excl("MPI_Group_excl", h, n, ranks, out, 0);
}
#pragma weak MPI_Group_excl = PMPI_Group_excl

/* Expands n (first, last, stride) triplets into a rank list after checking them. */
static int expand_ranges(const char *F, const mp_group *g, int n, int ranges[][3], int **list,
                         int *count)
{
    long total = 0;
    for (int i = 0; i < n; i++) {
        int first = ranges[i][0], last = ranges[i][1], stride = ranges[i][2];
        if (stride == 0)
            return mp_error(NULL, MPI_ERR_ARG, F, "stride 0 in ranges[%d]", i);
        if (first < 0 || first >= g->size || last < 0 || last >= g->size)
            return mp_error(NULL, MPI_ERR_RANK, F,
                            "invalid range ranges[%d] = (%d, %d, %d) in a group of size %d", i,
                            first, last, stride, g->size);
        if ((stride > 0 && first > last) || (stride < 0 && first < last))
            continue;                 /* empty range */
        total += ((long)last - first) / stride + 1;
        if (total > g->size)
            return mp_error(NULL, MPI_ERR_RANK, F,
                            "ranges name more than the %d ranks of the group", g->size);
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

static int range_incl_excl(const char *F, MPI_Group h, int n, int ranges[][3], MPI_Group *out,
                           int include)
{
    MP_OUT_NULL(out, MPI_GROUP_NULL);
    mp_group *g = NULL;
    int err, *ranks = NULL, count = 0;
    if ((err = arg_group(F, h, "group", &g)) || (err = arg_ptr(F, out, "newgroup")))
        return err;
    if (n < 0)
        return mp_error(NULL, MPI_ERR_ARG, F, "invalid count n = %d", n);
    if (n > 0 && (err = arg_ptr(F, ranges, "ranges")))
        return err;
    if ((err = expand_ranges(F, g, n, ranges, &ranks, &count)))
        return err;
    char *seen = mp_calloc((size_t)g->size + 1, 1);
    for (int i = 0; i < count; i++) {
        if (seen[ranks[i]]) {
            int r = ranks[i];
            free(seen);
            free(ranks);
            return mp_error(NULL, MPI_ERR_RANK, F, "rank %d appears in more than one range", r);
        }
        seen[ranks[i]] = 1;
    }
    int *world = mp_malloc(sizeof(int) * (size_t)(g->size + 1));
    int k = 0;
    if (include) {
        for (int i = 0; i < count; i++)
            world[k++] = g->world[ranks[i]];
    } else {
        for (int r = 0; r < g->size; r++)
            if (!seen[r])
                world[k++] = g->world[r];
    }
    free(seen);
    free(ranks);
    return give_group(F, mp_group_create(k, world), out);
}

int PMPI_Group_range_incl(MPI_Group h, int n, int ranges[][3], MPI_Group *out)
{
    return range_incl_excl("MPI_Group_range_incl", h, n, ranges, out, 1);
}
#pragma weak MPI_Group_range_incl = PMPI_Group_range_incl

int PMPI_Group_range_excl(MPI_Group h, int n, int ranges[][3], MPI_Group *out)
{
    return range_incl_excl("MPI_Group_range_excl", h, n, ranges, out, 0);
}
#pragma weak MPI_Group_range_excl = PMPI_Group_range_excl

int PMPI_Comm_group(MPI_Comm comm_h, MPI_Group *group)
{
    static const char *const F = "MPI_Comm_group";
    MP_OUT_NULL(group, MPI_GROUP_NULL);
    mp_comm *comm;
    int err;
    if ((err = mp_arg_comm(F, comm_h, &comm)))
        return err;
    if (!group)
        return mp_error(comm, MPI_ERR_ARG, F, "group is NULL");
    mp_group *g = mp_comm_local_group(comm);
    if (!mp_group_publish(g))
        return mp_error(comm, MPI_ERR_NO_MEM, F, "too many groups");
    mp_group_retain(g);
    *group = g->handle;
    return MPI_SUCCESS;
}
#pragma weak MPI_Comm_group = PMPI_Comm_group

int PMPI_Comm_remote_group(MPI_Comm comm_h, MPI_Group *group)
{
    static const char *const F = "MPI_Comm_remote_group";
    MP_OUT_NULL(group, MPI_GROUP_NULL);
    mp_comm *comm;
    int err;
    if ((err = mp_arg_comm(F, comm_h, &comm)))
        return err;
    if (!comm->is_inter)
        return mp_error(comm, MPI_ERR_COMM, F, "communicator is not an intercommunicator");
    if (!group)
        return mp_error(comm, MPI_ERR_ARG, F, "group is NULL");
    mp_group *g = mp_comm_remote_group(comm);
    if (!mp_group_publish(g))
        return mp_error(comm, MPI_ERR_NO_MEM, F, "too many groups");
    mp_group_retain(g);
    *group = g->handle;
    return MPI_SUCCESS;
}
#pragma weak MPI_Comm_remote_group = PMPI_Comm_remote_group
