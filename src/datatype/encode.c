/* encode.c -- flat wire encoding of a datatype's layout.  MemPI, BSD-3-Clause (see LICENSE).
 *
 * A receiver that posts a non-contiguous buffer can describe it to the sender (send-request
 * protocol, rendezvous, one-sided targets) by sending its type's loop program.  Programs hold
 * no pointers -- nodes and entries refer to each other by index -- so the encoding is just a
 * small header followed by the node and entry arrays, and decoding is a copy plus bounds
 * checks.  The decoded type is an internal object (no handle, committed) that mp_pack,
 * mp_unpack and mp_segments accept; mp_segments on it with the peer's buffer address yields
 * the peer's (address, length) list for process_vm_writev.
 *
 * Both ends run the same MemPI build on the same architecture, so the arrays are sent in
 * native byte order; the header's magic and version catch anything else.
 */
#include "datatype/engine.h"
#include <stdlib.h>
#include <string.h>

#define MP_DT_MAGIC 0x4d504454u       /* "MPDT" */

typedef struct wire_header {
    uint32_t magic;
    int32_t nnodes, root;
    int32_t is_contig;
    int64_t nentries;
    int64_t size, extent, lb, true_lb, true_ub;
    int32_t basic, pad;
} wire_header;

size_t mp_datatype_encode(const mp_datatype *dt, void *buf, size_t cap)
{
    const mp_dprog *p = &mp_dt_info(dt)->prog;
    size_t need = sizeof(wire_header) + (size_t)p->nnodes * sizeof(mp_dnode) +
                  (size_t)p->nentries * sizeof(mp_dentry);
    if (buf == NULL || cap < need)
        return need;
    wire_header h = { .magic = MP_DT_MAGIC, .nnodes = p->nnodes, .root = p->root,
                      .is_contig = dt->is_contig, .nentries = p->nentries, .size = dt->size,
                      .extent = dt->extent, .lb = dt->lb, .true_lb = dt->true_lb,
                      .true_ub = dt->true_ub, .basic = dt->basic };
    char *out = buf;
    memcpy(out, &h, sizeof h);
    out += sizeof h;
    memcpy(out, p->nodes, (size_t)p->nnodes * sizeof(mp_dnode));
    out += (size_t)p->nnodes * sizeof(mp_dnode);
    if (p->nentries)
        memcpy(out, p->entries, (size_t)p->nentries * sizeof(mp_dentry));
    return need;
}

/* Every index must point backwards (children before parents) and inside the arrays, so a
 * corrupt or hostile encoding cannot make the walker loop or read out of bounds. */
static int valid(const mp_dprog *p)
{
    if (p->root < 0 || p->root >= p->nnodes)
        return 0;
    for (int32_t i = 0; i < p->nnodes; i++) {
        const mp_dnode *n = &p->nodes[i];
        if (n->size < 0)
            return 0;
        if (n->kind == MP_DN_VECTOR) {
            if (n->child < 0 || n->child >= i || n->count < 0 || p->nodes[n->child].size <= 0)
                return 0;
        } else if (n->kind == MP_DN_INDEXED) {
            if (n->first < 0 || n->count < 1 || n->first + n->count > p->nentries)
                return 0;
            for (int64_t k = 0; k < n->count; k++) {
                const mp_dentry *e = &p->entries[n->first + k];
                if (e->child < 0 || e->child >= i || e->n < 0 || p->nodes[e->child].size <= 0)
                    return 0;
            }
        } else if (n->kind != MP_DN_BLOCK) {
            return 0;
        }
    }
    return 1;
}

mp_datatype *mp_datatype_decode(const void *buf, size_t len)
{
    wire_header h;
    if (len < sizeof h)
        return NULL;
    memcpy(&h, buf, sizeof h);
    if (h.magic != MP_DT_MAGIC || h.nnodes <= 0 || h.nentries < 0 ||
        len != sizeof h + (size_t)h.nnodes * sizeof(mp_dnode) +
               (size_t)h.nentries * sizeof(mp_dentry))
        return NULL;
    mp_datatype *dt = mp_datatype_alloc();
    mp_dtinfo *info = mp_dt_info(dt);
    mp_dprog *p = &info->prog;
    const char *in = (const char *)buf + sizeof h;
    p->nodes = mp_malloc((size_t)h.nnodes * sizeof(mp_dnode));
    p->nnodes = p->cap_nodes = h.nnodes;
    memcpy(p->nodes, in, (size_t)h.nnodes * sizeof(mp_dnode));
    in += (size_t)h.nnodes * sizeof(mp_dnode);
    if (h.nentries) {
        p->entries = mp_malloc((size_t)h.nentries * sizeof(mp_dentry));
        memcpy(p->entries, in, (size_t)h.nentries * sizeof(mp_dentry));
    }
    p->nentries = p->cap_entries = h.nentries;
    p->root = h.root;
    if (!valid(p) || p->nodes[p->root].size != h.size) {
        mp_datatype_release(dt);
        return NULL;
    }
    dt->size = h.size;
    dt->extent = h.extent;
    dt->lb = h.lb;
    dt->ub = h.lb + h.extent;
    dt->true_lb = h.true_lb;
    dt->true_ub = h.true_ub;
    dt->is_contig = h.is_contig;
    dt->basic = h.basic;
    dt->committed = 1;
    return dt;
}
