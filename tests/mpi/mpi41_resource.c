/* mempi-test: np=1,2,3,5 timeout=120 */
/* mempi-test: np=3,5 timeout=120 env=MEMPI_NODE_SIZE=2 */
/* mpi41_resource.c -- MPI 4.1's MPI_COMM_TYPE_RESOURCE_GUIDED and MPI_Get_hw_resource_info,
 * and the per-node process sets of sessions.  MemPI, BSD-3-Clause (see LICENSE).
 *
 *   - RESOURCE_GUIDED without info, with an info lacking the keys, or with a level nobody
 *     knows gives MPI_COMM_NULL everywhere;
 *   - mpi_hw_resource_type=mpi_shared_memory gives the same group as MPI_COMM_TYPE_SHARED and
 *     names the level in the new communicator's info; so does HW_GUIDED;
 *   - MPI_Get_hw_resource_info has mpi_shared_memory=true; for every hwloc level it lists,
 *     a split by that level (as "hwloc://Level" and as the bare name) gives a communicator
 *     inside the node's exactly where the value is "true" and MPI_COMM_NULL where "false";
 *   - mpi_pset_name: mpi://WORLD gives all ranks, mpi://SELF one, mpix://SHARED the node's
 *     group, and exactly one of mpix://NODE/0..n-1 the node's group at each rank;
 *   - a session lists mpi://WORLD, mpi://SELF, mpix://SHARED and one mpix://NODE/k per node
 *     (their mpi_size infos add up to the world size over the nodes), and groups from them
 *     match the node communicator; an unknown node number is an error (MPI_ERR_ARG).
 * Run with MEMPI_NODE_SIZE=2 too, for several (simulated) nodes.  MPICH 4.0.2 has no
 * RESOURCE_GUIDED (MPI 4.1) and no per-node process sets: no cross-check.
 */
#include <mpi.h>
#include "check.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static MPI_Comm split(int type, const char *key, const char *value)
{
    MPI_Info info = MPI_INFO_NULL;
    if (key) {
        MPI_Info_create(&info);
        MPI_Info_set(info, key, value);
    }
    MPI_Comm c;
    CHECK_MPI(MPI_Comm_split_type(MPI_COMM_WORLD, type, 0, info, &c));
    if (key)
        MPI_Info_free(&info);
    return c;
}

static int same_group(MPI_Comm a, MPI_Comm b)
{
    MPI_Group ga, gb;
    int r;
    MPI_Comm_group(a, &ga);
    MPI_Comm_group(b, &gb);
    MPI_Group_compare(ga, gb, &r);
    MPI_Group_free(&ga);
    MPI_Group_free(&gb);
    return r == MPI_IDENT;
}

static void check_level_info(MPI_Comm c, const char *expect)
{
    MPI_Info used;
    char v[MPI_MAX_INFO_VAL + 1];
    int flag;
    MPI_Comm_get_info(c, &used);
    MPI_Info_get(used, "mpi_hw_resource_type", MPI_MAX_INFO_VAL, v, &flag);
    CHECK(flag && strcmp(v, expect) == 0, "info of the split: %s, expected %s",
          flag ? v : "(none)", expect);
    MPI_Info_free(&used);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    MPI_Comm node;
    MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &node);
    int nsize, nrank, is_leader, nnodes;
    MPI_Comm_size(node, &nsize);
    MPI_Comm_rank(node, &nrank);
    is_leader = nrank == 0;
    MPI_Allreduce(&is_leader, &nnodes, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);

    MPI_Comm c = split(MPI_COMM_TYPE_RESOURCE_GUIDED, NULL, NULL);
    CHECK(c == MPI_COMM_NULL, "RESOURCE_GUIDED without info gave a communicator");
    c = split(MPI_COMM_TYPE_RESOURCE_GUIDED, "foo", "bar");
    CHECK(c == MPI_COMM_NULL, "RESOURCE_GUIDED without its keys gave a communicator");
    c = split(MPI_COMM_TYPE_RESOURCE_GUIDED, "mpi_hw_resource_type", "@no-such-level@");
    CHECK(c == MPI_COMM_NULL, "an unknown level gave a communicator");

    int types[] = { MPI_COMM_TYPE_RESOURCE_GUIDED, MPI_COMM_TYPE_HW_GUIDED };
    for (int t = 0; t < 2; t++) {
        c = split(types[t], "mpi_hw_resource_type", "mpi_shared_memory");
        CHECK(c != MPI_COMM_NULL && same_group(c, node), "mpi_shared_memory (type %d) is not "
              "the node", types[t]);
        check_level_info(c, "mpi_shared_memory");
        MPI_Comm_free(&c);
    }

    MPI_Info hw;
    CHECK_MPI(MPI_Get_hw_resource_info(&hw));
    char v[MPI_MAX_INFO_VAL + 1], key[MPI_MAX_INFO_KEY + 1];
    int flag, nkeys, levels = 0;
    MPI_Info_get(hw, "mpi_shared_memory", MPI_MAX_INFO_VAL, v, &flag);
    CHECK(flag && strcmp(v, "true") == 0, "mpi_shared_memory is %s", flag ? v : "absent");
    MPI_Info_get_nkeys(hw, &nkeys);
    static const char *const names[] = { "Package", "L3Cache", "NUMANode", "Core" };
    for (int l = 0; l < 4; l++) {
        /* Every rank must take part in every split: whether the key exists is per rank. */
        snprintf(key, sizeof key, "hwloc://%s", names[l]);
        MPI_Info_get(hw, key, MPI_MAX_INFO_VAL, v, &flag);
        int restricted = flag && strcmp(v, "true") == 0;
        levels += flag;
        for (int form = 0; form < 2; form++) {
            c = split(MPI_COMM_TYPE_RESOURCE_GUIDED, "mpi_hw_resource_type",
                      form ? names[l] : key);
            CHECK((c != MPI_COMM_NULL) == restricted, "%s: communicator %s, info says %s",
                  form ? names[l] : key, c != MPI_COMM_NULL ? "given" : "null",
                  flag ? v : "absent");
            if (c != MPI_COMM_NULL) {
                MPI_Group gc, gn, inter;
                int isize, csize;
                MPI_Comm_group(c, &gc);
                MPI_Comm_group(node, &gn);
                MPI_Group_intersection(gc, gn, &inter);
                MPI_Group_size(inter, &isize);
                MPI_Comm_size(c, &csize);
                CHECK(isize == csize, "%s: the communicator leaves the node", key);
                MPI_Group_free(&gc);
                MPI_Group_free(&gn);
                MPI_Group_free(&inter);
                MPI_Comm_free(&c);
            }
        }
    }
    CHECK(nkeys == 1 + levels, "hw info has %d keys, expected %d", nkeys, 1 + levels);
    MPI_Info_free(&hw);

    c = split(MPI_COMM_TYPE_RESOURCE_GUIDED, "mpi_pset_name", "mpi://WORLD");
    int csize;
    CHECK(c != MPI_COMM_NULL && same_group(c, MPI_COMM_WORLD), "mpi://WORLD split");
    MPI_Comm_free(&c);
    c = split(MPI_COMM_TYPE_RESOURCE_GUIDED, "mpi_pset_name", "mpi://SELF");
    CHECK(c != MPI_COMM_NULL, "mpi://SELF split gave no communicator");
    MPI_Comm_size(c, &csize);
    CHECK(csize == 1, "mpi://SELF split of size %d", csize);
    MPI_Comm_free(&c);
    c = split(MPI_COMM_TYPE_RESOURCE_GUIDED, "mpi_pset_name", "mpix://SHARED");
    CHECK(c != MPI_COMM_NULL && same_group(c, node), "mpix://SHARED split is not the node");
    MPI_Comm_free(&c);
    int hits = 0;
    for (int k = 0; k < nnodes; k++) {
        char name[64];
        snprintf(name, sizeof name, "mpix://NODE/%d", k);
        c = split(MPI_COMM_TYPE_RESOURCE_GUIDED, "mpi_pset_name", name);
        if (c != MPI_COMM_NULL) {
            hits++;
            CHECK(same_group(c, node), "%s split is not this rank's node", name);
            MPI_Comm_free(&c);
        }
    }
    CHECK(hits == 1, "%d of the %d node process sets hold this rank", hits, nnodes);

    /* The same sets through a session. */
    MPI_Session s;
    CHECK_MPI(MPI_Session_init(MPI_INFO_NULL, MPI_ERRORS_RETURN, &s));
    int npsets;
    CHECK_MPI(MPI_Session_get_num_psets(s, MPI_INFO_NULL, &npsets));
    CHECK(npsets == 3 + nnodes, "%d process sets for %d nodes", npsets, nnodes);
    int total = 0, seen_shared = 0;
    for (int i = 0; i < npsets; i++) {
        char name[MPI_MAX_PSET_NAME_LEN];
        int len = sizeof name;
        CHECK_MPI(MPI_Session_get_nth_pset(s, MPI_INFO_NULL, i, &len, name));
        MPI_Info info;
        CHECK_MPI(MPI_Session_get_pset_info(s, name, &info));
        MPI_Info_get(info, "mpi_size", MPI_MAX_INFO_VAL, v, &flag);
        CHECK(flag, "%s: no mpi_size", name);
        MPI_Info_free(&info);
        MPI_Group g;
        CHECK_MPI(MPI_Group_from_session_pset(s, name, &g));
        int gsize, grank;
        MPI_Group_size(g, &gsize);
        MPI_Group_rank(g, &grank);
        CHECK(gsize == atoi(v), "%s: group of %d, mpi_size %s", name, gsize, v);
        if (strncmp(name, "mpix://NODE/", 12) == 0) {
            total += gsize;
            CHECK(grank == MPI_UNDEFINED || (gsize == nsize && grank == nrank),
                  "%s: rank %d of %d, node %d of %d", name, grank, gsize, nrank, nsize);
        }
        if (strcmp(name, "mpix://SHARED") == 0) {
            seen_shared = 1;
            CHECK(gsize == nsize && grank == nrank, "mpix://SHARED: %d/%d, node %d/%d", grank,
                  gsize, nrank, nsize);
        }
        MPI_Group_free(&g);
    }
    CHECK(total == size && seen_shared, "node sets hold %d of %d ranks", total, size);
    MPI_Group g;
    char bad[64];
    snprintf(bad, sizeof bad, "mpix://NODE/%d", nnodes);
    CHECK_CLASS(MPI_Group_from_session_pset(s, bad, &g), MPI_ERR_ARG);
    CHECK_MPI(MPI_Session_finalize(&s));

    MPI_Comm_free(&node);
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == 0)
        printf("mpi41_resource: ok (%d ranks, %d nodes, %d hwloc levels)\n", size, nnodes,
               levels);
    MPI_Finalize();
    return 0;
}
