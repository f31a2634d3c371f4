/* engine.h -- private representation of datatypes (loop programs).  MemPI, BSD-3-Clause (see LICENSE).
 *
 * Every type owns a small flat "program": an array of nodes that refer to each other by index
 * (never by pointer), plus an array of entries used by indexed nodes.  Both arrays are plain
 * integers, so a program can be copied byte for byte to another process.
 *
 * A node describes the data of ONE instance of something, relative to an origin address:
 *
 *   BLOCK    `size` contiguous bytes at origin + disp.
 *   VECTOR   `count` instances of node `child`, instance k at origin + disp + k * stride.
 *            (contiguous, vector, hvector and the dimensions of subarray/darray all become
 *            VECTOR nodes: a vector of a million blocks is one node, not a million entries.)
 *   INDEXED  `count` entries; entry i is entries[i].n instances of node entries[i].child
 *            at origin + disp + entries[i].disp + j * entries[i].stride.  Entries also carry
 *            `pre`, the packed bytes before them, so a byte offset finds its entry by binary
 *            search.  Indexed, hindexed, indexed_block and struct all become INDEXED nodes.
 *
 * Every node records `size`, the packed bytes of one instance; a byte offset into the packed
 * stream is therefore turned into a position arithmetically (offset / child size) at each
 * level, which is what makes pack/unpack resumable at any offset without walking from the
 * start.  Children always have lower indices than their parents; `root` names the top node.
 *
 * Normalisation at construction keeps programs small: a vector whose child is a block with
 * stride == block size becomes one block, nested vectors that tile become one vector, and
 * entries of contiguous data that abut are merged.
 */
#ifndef MP_DATATYPE_ENGINE_H
#define MP_DATATYPE_ENGINE_H

#include "datatype/datatype.h"

enum { MP_DN_BLOCK = 1, MP_DN_VECTOR = 2, MP_DN_INDEXED = 3 };

typedef struct mp_dnode {
    int32_t kind;
    int32_t child;                    /* VECTOR: child node */
    int64_t disp;                     /* offset of this node's data from its origin */
    int64_t size;                     /* packed bytes of one instance */
    int64_t count;                    /* VECTOR: instances; INDEXED: entries */
    int64_t stride;                   /* VECTOR: bytes between instances */
    int64_t first;                    /* INDEXED: index of the first entry in prog.entries */
} mp_dnode;

typedef struct mp_dentry {
    int64_t disp;                     /* relative to the node's origin + disp */
    int64_t n;                        /* instances of child */
    int64_t stride;                   /* bytes between instances (the child type's extent) */
    int64_t child;                    /* node index */
    int64_t pre;                      /* packed bytes of the entries before this one */
} mp_dentry;

typedef struct mp_dprog {
    int32_t nnodes, root;
    int64_t nentries;
    mp_dnode *nodes;
    mp_dentry *entries;
    int32_t cap_nodes;
    int64_t cap_entries;
} mp_dprog;

/* Everything the datatype layer keeps about a type beyond struct mp_datatype. */
typedef struct mp_dtinfo {
    mp_dprog prog;
    int combiner;                     /* MPI_COMBINER_* */
    int nints, naints, ntypes;        /* contents, exactly as MPI_Type_get_contents returns */
    int *ints;
    MPI_Aint *aints;
    mp_datatype **types;              /* retained */
    int nlarge;                       /* large counts (MPI_Type_get_contents_c), recorded only
                                         by _c constructors with a value beyond int */
    MPI_Count *large;
    int has_lb, has_ub;               /* explicit (sticky) MPI_LB / MPI_UB markers or resized */
    MPI_Aint align;                   /* alignment used to pad struct extents */
    atomic_int user_refs;             /* handles the user owns (creation, get_contents); the
                                         handle is invalid for the user when this is 0 */
    int pair;                         /* builtin pair types: size of the value part */
    int swap;                         /* builtins: byte-swap unit for external32 (0 = none) */
    const char *builtin_name;
} mp_dtinfo;

static inline mp_dtinfo *mp_dt_info(const mp_datatype *dt) { return (mp_dtinfo *)dt->engine; }

/* Program building (prog.c). */
void    mp_prog_init(mp_dprog *p);
void    mp_prog_free(mp_dprog *p);
int32_t mp_prog_block(mp_dprog *p, int64_t disp, int64_t size);
int32_t mp_prog_vector(mp_dprog *p, int64_t count, int64_t stride, int32_t child, int64_t disp);
/* Copies the nodes of src into p, returns the index src's root got in p. */
int32_t mp_prog_import(mp_dprog *p, const mp_dprog *src);
/* Indexed node from n entries (disp, n, stride, child already indices in p); merges and
 * drops empty entries; may return a simpler node. */
int32_t mp_prog_indexed(mp_dprog *p, int64_t count, const mp_dentry *e, int64_t disp);
/* Makes `root` the root and drops nodes that are no longer reachable. */
void    mp_prog_finish(mp_dprog *p, int32_t root);
int     mp_prog_depth(const mp_dprog *p, int32_t node);
void    mp_prog_dump(const mp_dprog *p, FILE *f);

/* The generic walker (pack.c). */
enum { MP_WALK_PACK = 0, MP_WALK_UNPACK = 1, MP_WALK_SEGMENTS = 2 };

/* Builtins (builtin.c). */
extern mp_table mp_datatype_table;
mp_datatype *mp_datatype_builtin(MPI_Datatype handle);
/* Allocates a fresh, uncommitted derived type object with an empty program. */
mp_datatype *mp_datatype_alloc(void);
/* Finishes a derived type: inserts it into the handle table; returns MPI_SUCCESS or error. */
int mp_datatype_register(mp_datatype *dt, MPI_Datatype *handle);

static inline int mp_dt_user_valid(const mp_datatype *dt)
{
    return dt->is_builtin || atomic_load_explicit(&mp_dt_info(dt)->user_refs,
                                                  memory_order_relaxed) > 0;
}

#endif
