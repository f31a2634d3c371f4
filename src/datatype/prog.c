/* prog.c -- building and normalising datatype loop programs.  MemPI, BSD-3-Clause (see LICENSE).
 *
 * Constructors (derived.c) build a type's program bottom-up: they import the program of the
 * old type, wrap it in VECTOR or INDEXED nodes and call mp_prog_finish.  The node builders
 * here normalise as they go, so the program the walker (pack.c) interprets is as shallow as
 * the layout allows:
 *
 *   - an empty vector or entry becomes nothing (a zero-size block);
 *   - vector(n, stride == child block size, block) becomes one block;
 *   - vector(n, s, vector(m, s2, X)) with s == m*s2 becomes vector(n*m, s2, X);
 *   - vector(1, ...) is its child shifted by disp;
 *   - indexed entries over contiguous data become raw byte runs, and runs (or entries of the
 *     same child) that abut are merged; an indexed node with one entry becomes a vector, and
 *     one whose entries are equal and evenly spaced becomes vector(vector(...)).
 *
 * Nodes refer to children by index only; finish() drops the nodes that normalisation left
 * unreachable and renumbers, so a program is compact and position independent.
 */
#include "datatype/engine.h"
#include <stdlib.h>
#include <string.h>

void mp_prog_init(mp_dprog *p)
{
    memset(p, 0, sizeof *p);
    p->root = -1;
}

void mp_prog_free(mp_dprog *p)
{
    free(p->nodes);
    free(p->entries);
    mp_prog_init(p);
}

static int32_t add_node(mp_dprog *p, const mp_dnode *n)
{
    if (p->nnodes == p->cap_nodes) {
        p->cap_nodes = p->cap_nodes ? 2 * p->cap_nodes : 8;
        p->nodes = mp_realloc(p->nodes, (size_t)p->cap_nodes * sizeof(mp_dnode));
    }
    p->nodes[p->nnodes] = *n;
    return p->nnodes++;
}

static int64_t add_entries(mp_dprog *p, const mp_dentry *e, int64_t count)
{
    if (p->nentries + count > p->cap_entries) {
        int64_t cap = p->cap_entries ? 2 * p->cap_entries : 8;
        while (cap < p->nentries + count)
            cap *= 2;
        p->entries = mp_realloc(p->entries, (size_t)cap * sizeof(mp_dentry));
        p->cap_entries = cap;
    }
    memcpy(p->entries + p->nentries, e, (size_t)count * sizeof(mp_dentry));
    int64_t first = p->nentries;
    p->nentries += count;
    return first;
}

int32_t mp_prog_block(mp_dprog *p, int64_t disp, int64_t size)
{
    mp_dnode n = { .kind = MP_DN_BLOCK, .disp = disp, .size = size };
    return add_node(p, &n);
}

/* A copy of node `idx` shifted by disp (nodes may be shared, so never edit in place). */
static int32_t shifted(mp_dprog *p, int32_t idx, int64_t disp)
{
    if (disp == 0)
        return idx;
    mp_dnode n = p->nodes[idx];
    n.disp += disp;
    return add_node(p, &n);
}

int32_t mp_prog_vector(mp_dprog *p, int64_t count, int64_t stride, int32_t child, int64_t disp)
{
    const mp_dnode c = p->nodes[child];
    if (count == 0 || c.size == 0)
        return mp_prog_block(p, disp, 0);
    if (count == 1)
        return shifted(p, child, disp);
    if (c.kind == MP_DN_BLOCK && stride == c.size)
        return mp_prog_block(p, disp + c.disp, count * c.size);
    if (c.kind == MP_DN_VECTOR && stride == c.count * c.stride)
        return mp_prog_vector(p, count * c.count, c.stride, c.child, disp + c.disp);
    mp_dnode n = { .kind = MP_DN_VECTOR, .child = child, .disp = disp,
                   .size = count * c.size, .count = count, .stride = stride };
    return add_node(p, &n);
}

int32_t mp_prog_import(mp_dprog *p, const mp_dprog *src)
{
    int32_t nbase = p->nnodes;
    int64_t ebase = p->nentries;
    if (src->nentries)
        add_entries(p, src->entries, src->nentries);
    for (int64_t i = ebase; i < p->nentries; i++)
        p->entries[i].child += nbase;
    for (int32_t i = 0; i < src->nnodes; i++) {
        mp_dnode n = src->nodes[i];
        if (n.kind == MP_DN_VECTOR)
            n.child += nbase;
        else if (n.kind == MP_DN_INDEXED)
            n.first += ebase;
        add_node(p, &n);
    }
    return src->root + nbase;
}

/* Entries over contiguous data (a block child whose instances abut) become byte runs:
 * child = a one-byte block, n = bytes, stride 1.  Runs merge with each other freely. */
static void to_run(const mp_dprog *p, mp_dentry *e, int32_t byte_node)
{
    const mp_dnode *c = &p->nodes[e->child];
    if (c->kind != MP_DN_BLOCK || (e->n > 1 && e->stride != c->size) || e->child == byte_node)
        return;
    e->disp += c->disp;
    e->n *= c->size;
    e->stride = 1;
    e->child = byte_node;
}

/* Equal entries at evenly spaced displacements: returns the spacing through *step. */
static int evenly_spaced(const mp_dentry *e, int64_t count, int64_t *step)
{
    if (count < 2)
        return 0;
    *step = e[1].disp - e[0].disp;
    for (int64_t i = 1; i < count; i++)
        if (e[i].n != e[0].n || e[i].stride != e[0].stride || e[i].child != e[0].child ||
            e[i].disp - e[i - 1].disp != *step)
            return 0;
    return 1;
}

int32_t mp_prog_indexed(mp_dprog *p, int64_t count, const mp_dentry *in, int64_t disp)
{
    int32_t byte_node = -1;
    mp_dentry *e = mp_malloc((size_t)(count ? count : 1) * sizeof *e);
    int64_t m = 0, bytes = 0;
    for (int64_t i = 0; i < count; i++) {
        mp_dentry cur = in[i];
        const mp_dnode *c = &p->nodes[cur.child];
        if (cur.n == 0 || c->size == 0)
            continue;
        if (c->kind == MP_DN_BLOCK) {
            if (byte_node < 0)
                byte_node = mp_prog_block(p, 0, 1);
            to_run(p, &cur, byte_node);
        }
        mp_dentry *prev = m ? &e[m - 1] : NULL;
        if (prev && prev->child == cur.child && prev->stride == cur.stride &&
            prev->disp + prev->n * prev->stride == cur.disp) {
            prev->n += cur.n;
        } else {
            cur.pre = bytes;
            e[m++] = cur;
        }
        bytes += cur.n * p->nodes[cur.child].size;
    }
    int32_t result;
    int64_t step;
    if (m == 0) {
        result = mp_prog_block(p, disp, 0);
    } else if (m == 1) {
        result = mp_prog_vector(p, e[0].n, e[0].stride, (int32_t)e[0].child, disp + e[0].disp);
    } else if (evenly_spaced(e, m, &step)) {
        int32_t inner = mp_prog_vector(p, e[0].n, e[0].stride, (int32_t)e[0].child, 0);
        result = mp_prog_vector(p, m, step, inner, disp + e[0].disp);
    } else {
        mp_dnode n = { .kind = MP_DN_INDEXED, .disp = disp, .size = bytes, .count = m };
        n.first = add_entries(p, e, m);
        result = add_node(p, &n);
    }
    free(e);
    return result;
}

/* Depth-first renumbering of the nodes reachable from root (children before parents). */
static void keep(const mp_dprog *p, int32_t idx, int32_t *map, mp_dprog *out)
{
    if (map[idx] >= 0)
        return;
    mp_dnode n = p->nodes[idx];
    if (n.kind == MP_DN_VECTOR) {
        keep(p, n.child, map, out);
        n.child = map[n.child];
    } else if (n.kind == MP_DN_INDEXED) {
        for (int64_t i = 0; i < n.count; i++)
            keep(p, (int32_t)p->entries[n.first + i].child, map, out);
        n.first = add_entries(out, p->entries + n.first, n.count);
        for (int64_t i = 0; i < n.count; i++)
            out->entries[n.first + i].child = map[out->entries[n.first + i].child];
    }
    map[idx] = add_node(out, &n);
}

void mp_prog_finish(mp_dprog *p, int32_t root)
{
    int32_t *map = mp_malloc((size_t)p->nnodes * sizeof(int32_t));
    for (int32_t i = 0; i < p->nnodes; i++)
        map[i] = -1;
    mp_dprog out;
    mp_prog_init(&out);
    keep(p, root, map, &out);
    out.root = map[root];
    free(map);
    mp_prog_free(p);
    *p = out;
}

int mp_prog_depth(const mp_dprog *p, int32_t idx)
{
    const mp_dnode *n = &p->nodes[idx];
    if (n->kind == MP_DN_VECTOR)
        return 1 + mp_prog_depth(p, n->child);
    if (n->kind == MP_DN_INDEXED) {
        int d = 0;
        for (int64_t i = 0; i < n->count; i++) {
            int c = mp_prog_depth(p, (int32_t)p->entries[n->first + i].child);
            d = c > d ? c : d;
        }
        return 1 + d;
    }
    return 1;
}

static void dump_node(const mp_dprog *p, int32_t idx, int indent, FILE *f)
{
    const mp_dnode *n = &p->nodes[idx];
    fprintf(f, "%*s#%d ", indent, "", idx);
    switch (n->kind) {
    case MP_DN_BLOCK:
        fprintf(f, "block disp=%ld size=%ld\n", (long)n->disp, (long)n->size);
        break;
    case MP_DN_VECTOR:
        fprintf(f, "vector disp=%ld count=%ld stride=%ld size=%ld\n", (long)n->disp,
                (long)n->count, (long)n->stride, (long)n->size);
        dump_node(p, n->child, indent + 2, f);
        break;
    case MP_DN_INDEXED:
        fprintf(f, "indexed disp=%ld count=%ld size=%ld\n", (long)n->disp, (long)n->count,
                (long)n->size);
        for (int64_t i = 0; i < n->count && i < 16; i++) {
            const mp_dentry *e = &p->entries[n->first + i];
            fprintf(f, "%*s[%ld] disp=%ld n=%ld stride=%ld pre=%ld\n", indent + 2, "", (long)i,
                    (long)e->disp, (long)e->n, (long)e->stride, (long)e->pre);
            dump_node(p, (int32_t)e->child, indent + 4, f);
        }
        break;
    }
}

void mp_prog_dump(const mp_dprog *p, FILE *f)
{
    if (p->root >= 0)
        dump_node(p, p->root, 0, f);
}
