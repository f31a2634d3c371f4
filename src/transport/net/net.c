/* net.c -- the network transport's life cycle: provider, endpoint, addresses, goodbye.
 * MemPI, BSD-3-Clause (see LICENSE).
 *
 * Ranks on other hosts are reached through one libfabric RDM (reliable datagram) endpoint per
 * process.  Start-up, only in jobs that span hosts:
 *
 *   1. fi_getinfo for an RDM endpoint with FI_MSG and send-after-send ordering.  The provider
 *      is MEMPI_NET_PROVIDER when set, otherwise the best one the library offers, skipping
 *      node-local providers (shm, sm2) and loopback interfaces, which cannot reach another
 *      host; MEMPI_NET_IFACE picks the interface.  On ordinary Ethernet with libfabric 1.17
 *      that is the native "net" RDM endpoint, not rxm layered over it (see preference).
 *   2. Fabric, domain, completion queue, address vector, endpoint; the send and receive
 *      buffer pools (registered when the provider asks for FI_MR_LOCAL); receive buffers for
 *      every remote peer are posted (see net.h for the credit scheme).
 *   3. Each rank puts its endpoint name, in hex, under "mempi-net-<rank>" into the PMI
 *      key-value space; after the fence every rank inserts its remote peers' addresses.
 *
 * Processes of other jobs on other hosts (dynamic processes) join later: mp_net_prepare posts
 * receive buffers of their own for each (a pool per peer), mp_net_attach inserts its address;
 * a job on one host opens its endpoint then (mp_net_address).  Such a peer numbers processes
 * its own way, so our packets to it carry its id of us (peer.wire_src) as their source.  It
 * takes no part in the goodbye below nor in liveness checks: its job ends when it will, and
 * after MPI_Comm_disconnect nothing of ours is in flight to it.
 *
 * Finalize: wait until our sends completed, send BYE to every remote peer (ordered after all
 * our data) and wait for every peer's BYE (so nothing it sent us is still in flight) and its
 * BYE_ACK (so it has our BYE); a BYE is answered with BYE_ACK whenever it arrives.  Those two
 * are the last packets a peer sends us, so when we close nothing is left unread (a socket
 * closed with unread data would reset the connection and could lose our own last packets).
 * Waiting drives the whole progress engine, shm included: a node-local peer still draining
 * its queues towards us in its own finalize must not wait for us.
 *
 * Built without libfabric (no <rdma/fabric.h> at build time, see mk/net.mk) the transport is
 * a stub: a job whose ranks span hosts stops at MPI_Init saying how to get the net transport.
 */
#include "transport/net/net.h"
#include <netinet/in.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>

#ifndef MEMPI_HAVE_LIBFABRIC

mp_transport mp_net_transport = { .name = "net (unavailable)" };

int mp_net_init(void)
{
    if (mp_nodes_nhosts() <= 1)
        return MPI_SUCCESS;
    return mp_error_code(MPI_ERR_OTHER, "this job's ranks are on %d hosts, but MemPI was built "
                         "without libfabric, so it has no network transport (install Debian's "
                         "libfabric-dev and rebuild MemPI)", mp_nodes_nhosts());
}

void mp_net_finalize(void)
{
}

int mp_net_local_address(struct sockaddr_storage *sa, unsigned *len)
{
    (void)sa;
    (void)len;
    return -1;
}

int mp_net_address(unsigned char addr[MP_NET_ADDRESS_MAX], int *len)
{
    (void)addr;
    *len = 0;
    return mp_error_code(MPI_ERR_OTHER, "a process of another job is on another host, but "
                         "MemPI was built without libfabric, so it has no network transport "
                         "(install Debian's libfabric-dev and rebuild MemPI)");
}

int mp_net_prepare(int id)
{
    (void)id;
    return MPI_ERR_INTERN;
}

int mp_net_attach(int id, const unsigned char *addr, int len, int my_id_there)
{
    (void)id, (void)addr, (void)len, (void)my_id_there;
    return MPI_ERR_INTERN;
}

#else

mp_net_state mp_net;

const char *mp_net_peer_name(int world)
{
    static char name[64 + MP_JOB_ID_MAX];
    if (world >= mp_world.size)
        snprintf(name, sizeof name, "rank %d of job %s (another job, on another host)",
                 mp_procs_job_rank(world), mp_procs_job(world));
    else
        snprintf(name, sizeof name, "rank %d (host %d)", world, mp_nodes_host_of(world));
    return name;
}

static int fi_fail(const char *what, int rc)
{
    return mp_error_code(MPI_ERR_OTHER, "network transport: %s failed: %s", what,
                         fi_strerror(rc < 0 ? -rc : rc));
}

static int node_local_provider(const char *name)
{
    return strcmp(name, "shm") == 0 || strcmp(name, "sm2") == 0 ||
           strncmp(name, "shm;", 4) == 0 || strncmp(name, "sm2;", 4) == 0;
}

/* The MEMPI_NET_* fields of the configuration table (core/config.c has validated them). */
static int read_settings(const char **provider, const char **iface, int *rma)
{
    *provider = mp_cfg.net_provider;
    *iface = mp_cfg.net_iface;
    mp_net_transport.eager_max = mp_cfg.net_eager_max;
    mp_net.buf_size = sizeof(mp_net_wire) + sizeof(mp_hdr) + mp_cfg.net_chunk;
    mp_net_transport.max_payload = mp_cfg.net_chunk;
    mp_net.credits = mp_cfg.net_credits;
    mp_net.window = mp_cfg.net_credits + 1;
    mp_net.coalesce = mp_cfg.net_coalesce;
    mp_net.timeout = (double)mp_cfg.net_timeout;
    *rma = mp_cfg.net_rma;
    mp_net.rma_max = mp_cfg.net_rma_max == MP_CFG_SIZE_AUTO ? MP_NET_RMA_MAX_AUTO
                                                            : mp_cfg.net_rma_max;
    mp_net.async_read = mp_cfg.net_async_read;
    return mp_net_mr_settings();
}

static struct fi_info *get_info(const char *provider, int rma, size_t inject, int *rc)
{
    struct fi_info *hints = fi_allocinfo(), *list = NULL;
    if (hints == NULL) {
        *rc = -FI_ENOMEM;
        return NULL;
    }
    hints->ep_attr->type = FI_EP_RDM;
    hints->caps = FI_MSG | (rma ? FI_RMA : 0);
    hints->mode = FI_CONTEXT;
    hints->domain_attr->mr_mode = FI_MR_LOCAL | FI_MR_VIRT_ADDR | FI_MR_ALLOCATED |
                                  FI_MR_PROV_KEY;
    hints->domain_attr->threading = FI_THREAD_DOMAIN;
    /* With RMA: RWDONE (a send) must not overtake the fi_write before it. */
    hints->tx_attr->msg_order = FI_ORDER_SAS | (rma ? FI_ORDER_SAW : 0);
    hints->rx_attr->msg_order = FI_ORDER_SAS | (rma ? FI_ORDER_SAW : 0);
    hints->tx_attr->inject_size = inject;
    if (provider && *provider)
        hints->fabric_attr->prov_name = strdup(provider);
    *rc = fi_getinfo(FI_VERSION(1, 5), NULL, NULL, 0, hints, &list);
    fi_freeinfo(hints);
    return *rc == 0 ? list : NULL;
}

static const char *domain_name(const struct fi_info *i)
{
    return i->domain_attr && i->domain_attr->name ? i->domain_attr->name : "";
}

static int usable(const struct fi_info *i, const char *provider, const char *iface)
{
    const char *dom = domain_name(i);
    if (!(provider && *provider) && node_local_provider(i->fabric_attr->prov_name))
        return 0;
    return iface && *iface ? strcmp(dom, iface) == 0 : strcmp(dom, "lo") != 0;
}

/* How much we want an entry: a provider the user named is taken as named (an exact name
 * beats a layered one that merely starts with it, as "net;ofi_rxm" does "net").  Otherwise
 * libfabric 1.17's native "net" RDM endpoint comes first, then "net;ofi_rxm", then whatever
 * libfabric lists first (tcp;ofi_rxm).  All three run over TCP sockets; the native endpoint
 * has the lowest latency, tcp;ofi_rxm the highest (its progress engine is woken through a
 * pipe on every send), and rxm's extra layer preallocates bounce buffers (docs/decisions.md,
 * "Provider order").  The native endpoint injects at most 128 bytes, so
 * packets beyond 48 bytes of payload take a buffer and a completion; that is cheaper than
 * rxm's layer.  From libfabric 1.18 on, "net" is gone: it became "tcp", whose RDM endpoint is
 * then native, so a native "tcp" entry ranks with "net" (1.17's "tcp" has no RDM endpoint of
 * its own; the 1.18 case is untested here).  An entry on another interface than the first
 * usable one is never preferred. */
static int preference(const struct fi_info *i, const char *provider)
{
    const char *name = i->fabric_attr->prov_name;
    if (provider && *provider)
        return strcmp(name, provider) == 0 ? 2 : 1;
    if (strcmp(name, "net") == 0 || strcmp(name, "tcp") == 0)
        return 3;
    return strcmp(name, "net;ofi_rxm") == 0 ? 2 : 1;
}

/* The most preferred usable entry of list on the interface named in domain (a buffer of
 * MP_NET_DOMAIN_MAX bytes; when empty, the first usable entry's interface is written into
 * it).  Among equals the first listed wins. */
#define MP_NET_DOMAIN_MAX 256
static struct fi_info *pick_info(struct fi_info *list, const char *provider, const char *iface,
                                 char *domain)
{
    struct fi_info *best = NULL;
    for (struct fi_info *i = list; i; i = i->next) {
        if (!usable(i, provider, iface))
            continue;
        if (domain[0] == '\0')
            snprintf(domain, MP_NET_DOMAIN_MAX, "%s", domain_name(i));
        if (strcmp(domain_name(i), domain) != 0)
            continue;
        if (best == NULL || preference(i, provider) > preference(best, provider))
            best = i;
    }
    return best;
}

/* The provider with FI_RMA when it has it (single copy), else with messages only.  Each is
 * asked first with an inject size of MP_NET_INJECT (rxm then lets small messages go without a
 * buffer or a completion; it offers 64 bytes by default, less than one header) and then with
 * none (the native net endpoint allows at most 128); the most preferred entry of both answers
 * wins, the one with the larger inject size among equals. */
static int choose_provider(const char *provider, const char *iface, int want_rma)
{
    struct fi_info *pick = NULL;
    char domain[MP_NET_DOMAIN_MAX] = "";
    int rc = 0, listed = 0;
    for (int attempt = want_rma ? 0 : 2; attempt < 4; attempt++) {
        struct fi_info *list = get_info(provider, attempt < 2, attempt % 2 ? 0 : MP_NET_INJECT,
                                        &rc);
        listed |= list != NULL;
        struct fi_info *found = list ? pick_info(list, provider, iface, domain) : NULL;
        if (found && (pick == NULL || preference(found, provider) > preference(pick, provider))) {
            fi_freeinfo(pick);
            pick = fi_dupinfo(found);
            if (pick == NULL) {
                fi_freeinfo(list);
                return mp_error_code(MPI_ERR_NO_MEM, "fi_dupinfo failed");
            }
        }
        fi_freeinfo(list);
        if (pick && attempt % 2 == 1)
            break;              /* the RMA pair answered: do not fall back to messages only */
    }
    if (!listed)
        return mp_error_code(MPI_ERR_OTHER, "network transport: no libfabric provider%s%s offers "
                             "a reliable datagram endpoint with ordered messages (%s)",
                             provider && *provider ? " named " : "",
                             provider && *provider ? provider : "", fi_strerror(-rc));
    if (pick == NULL)
        return mp_error_code(MPI_ERR_OTHER, "network transport: no provider%s%s on interface "
                             "%s reaches other hosts (set MEMPI_NET_PROVIDER / MEMPI_NET_IFACE)",
                             provider && *provider ? " named " : "",
                             provider && *provider ? provider : "",
                             iface && *iface ? iface : "(any but loopback)");
    mp_net.info = pick;
    return MPI_SUCCESS;
}

int mp_net_post_recv(mp_net_buf *b)
{
    ssize_t rc;
    unsigned spins = 0;
    /* The provider may briefly refuse while its queues drain; the buffer must go back.  A
     * wait inside the packet handler: it keeps the big lock. */
    while ((rc = fi_recv(mp_net.ep, b->data, mp_net.buf_size, b->desc, FI_ADDR_UNSPEC,
                         &b->ctx)) == -FI_EAGAIN)
        mp_idle_nested(&spins);
    if (rc != 0)
        mp_fatal("network transport: posting a receive buffer failed: %s", fi_strerror((int)-rc));
    return 0;
}

static int open_endpoint(void)
{
    struct fi_info *info = mp_net.info;
    int rc;
    if ((rc = fi_fabric(info->fabric_attr, &mp_net.fabric, NULL)))
        return fi_fail("fi_fabric", rc);
    if ((rc = fi_domain(mp_net.fabric, info, &mp_net.domain, NULL)))
        return fi_fail("fi_domain", rc);
    struct fi_cq_attr cq_attr = { .format = FI_CQ_FORMAT_DATA,
                                  .size = (size_t)(mp_net.nsend + mp_net.nrecv) + 64,
                                  .wait_obj = FI_WAIT_NONE };
    if ((rc = fi_cq_open(mp_net.domain, &cq_attr, &mp_net.cq, NULL)))
        return fi_fail("fi_cq_open", rc);
    struct fi_av_attr av_attr = { .type = FI_AV_TABLE, .count = (size_t)mp_world.size };
    if ((rc = fi_av_open(mp_net.domain, &av_attr, &mp_net.av, NULL)))
        return fi_fail("fi_av_open", rc);
    if ((rc = fi_endpoint(mp_net.domain, info, &mp_net.ep, NULL)))
        return fi_fail("fi_endpoint", rc);
    if ((rc = fi_ep_bind(mp_net.ep, &mp_net.cq->fid, FI_TRANSMIT | FI_RECV)))
        return fi_fail("binding the completion queue", rc);
    if ((rc = fi_ep_bind(mp_net.ep, &mp_net.av->fid, 0)))
        return fi_fail("binding the address vector", rc);
    if ((rc = fi_enable(mp_net.ep)))
        return fi_fail("fi_enable", rc);
    mp_net.inject_size = info->tx_attr->inject_size;
    return MPI_SUCCESS;
}

static int make_buffers(void)
{
    mp_net.nsend = 2 * mp_net.credits + 8;
    mp_net.nrecv = mp_net.nremote * (mp_net.credits + MP_NET_RESERVE);
    int nbufs = mp_net.nsend + mp_net.nrecv;
    mp_net.buf_size = (mp_net.buf_size + 63) & ~(size_t)63;
    mp_net.pool_size = (size_t)nbufs * mp_net.buf_size;
    if (posix_memalign((void **)&mp_net.pool, 4096, mp_net.pool_size) != 0)
        return mp_error_code(MPI_ERR_NO_MEM, "network transport: cannot allocate %zu bytes of "
                             "buffers", mp_net.pool_size);
    mp_net.bufs = mp_calloc((size_t)nbufs, sizeof(mp_net_buf));
    mp_net.send_free = mp_calloc((size_t)mp_net.nsend, sizeof(mp_net_buf *));
    for (int i = 0; i < nbufs; i++) {
        mp_net.bufs[i].data = mp_net.pool + (size_t)i * mp_net.buf_size;
        mp_net.bufs[i].kind = i >= mp_net.nsend ? MP_NET_K_RECV : MP_NET_K_SEND;
        if (i < mp_net.nsend)
            mp_net.send_free[mp_net.nsend_free++] = &mp_net.bufs[i];
    }
    return MPI_SUCCESS;
}

static int register_buffers(void)
{
    if (!(mp_net.info->domain_attr->mr_mode & FI_MR_LOCAL))
        return MPI_SUCCESS;
    int rc = fi_mr_reg(mp_net.domain, mp_net.pool, mp_net.pool_size, FI_SEND | FI_RECV, 0, 0, 0,
                       &mp_net.mr, NULL);
    if (rc)
        return fi_fail("registering the buffer pool", rc);
    mp_net.desc = fi_mr_desc(mp_net.mr);
    for (int i = mp_net.nsend; i < mp_net.nsend + mp_net.nrecv; i++)
        mp_net.bufs[i].desc = mp_net.desc;
    return MPI_SUCCESS;
}

static void to_hex(const unsigned char *in, size_t n, char *out)
{
    static const char digits[] = "0123456789abcdef";
    for (size_t i = 0; i < n; i++) {
        out[2 * i] = digits[in[i] >> 4];
        out[2 * i + 1] = digits[in[i] & 15];
    }
    out[2 * n] = '\0';
}

static int from_hex(const char *in, unsigned char *out, size_t max, size_t *n)
{
    size_t len = strlen(in);
    if (len % 2 || len / 2 > max)
        return -1;
    for (size_t i = 0; i < len / 2; i++) {
        unsigned v = 0;
        for (int k = 0; k < 2; k++) {
            char c = in[2 * i + (size_t)k];
            v <<= 4;
            if (c >= '0' && c <= '9') v |= (unsigned)(c - '0');
            else if (c >= 'a' && c <= 'f') v |= (unsigned)(c - 'a' + 10);
            else return -1;
        }
        out[i] = (unsigned char)v;
    }
    *n = len / 2;
    return 0;
}

#define MP_NET_ADDR_MAX 256

static int exchange_addresses(void)
{
    unsigned char addr[MP_NET_ADDR_MAX];
    char hex[2 * MP_NET_ADDR_MAX + 1], key[48];
    size_t len = sizeof addr;
    int rc = fi_getname(&mp_net.ep->fid, addr, &len);
    if (rc)
        return fi_fail("fi_getname", rc);
    to_hex(addr, len, hex);
    snprintf(key, sizeof key, "mempi-net-%d", mp_world.rank);
    if (mp_pmi_put(key, hex) != 0 || mp_pmi_fence() != 0)
        return mp_error_code(MPI_ERR_OTHER, "network transport: PMI exchange of endpoint "
                             "addresses failed: %s", mp_pmi_error());
    for (int w = 0; w < mp_world.size; w++) {
        if (!mp_net.peers[w].remote)
            continue;
        snprintf(key, sizeof key, "mempi-net-%d", w);
        if (mp_pmi_get(key, hex, sizeof hex) != 0)
            return mp_error_code(MPI_ERR_OTHER, "network transport: no endpoint address from "
                                 "rank %d: %s", w, mp_pmi_error());
        if (from_hex(hex, addr, sizeof addr, &len) != 0)
            return mp_error_code(MPI_ERR_OTHER, "network transport: rank %d published a "
                                 "malformed endpoint address '%s'", w, hex);
        if (fi_av_insert(mp_net.av, addr, 1, &mp_net.peers[w].addr, 0, NULL) != 1)
            return mp_error_code(MPI_ERR_OTHER, "network transport: the provider rejected the "
                                 "endpoint address of rank %d", w);
    }
    return MPI_SUCCESS;
}

int mp_net_local_address(struct sockaddr_storage *sa, unsigned *len)
{
    size_t n = sizeof *sa;
    memset(sa, 0, sizeof *sa);
    if (!mp_net.active || fi_getname(&mp_net.ep->fid, sa, &n) != 0 || n > sizeof *sa)
        return -1;
    if (sa->ss_family == AF_INET)
        ((struct sockaddr_in *)sa)->sin_port = 0;
    else if (sa->ss_family == AF_INET6)
        ((struct sockaddr_in6 *)sa)->sin6_port = 0;
    else
        return -1;                    /* not an IP fabric: no TCP port beside it */
    *len = (unsigned)n;
    return 0;
}

/* Which rendezvous messages fi_read/fi_write move; larger ones take the CTS+FRAG pipeline.
 * MEMPI_NET_RMA_MAX=auto: over TCP sockets (libfabric's net, tcp, udp and sockets providers,
 * alone or under rxm/rxd), none while the machine has a core per rank, all when its ranks
 * outnumber its cores.  Over sockets the kernel copies the data in and out either way, so
 * "single copy" gains nothing and the pipeline through posted receive buffers is faster with a
 * core per rank; oversubscribed, the pipeline's copies and its need for both sides to run cost
 * more (docs/decisions.md, "Rendezvous over TCP sockets").  Other providers (RDMA hardware)
 * move every rendezvous by RMA. */
size_t mp_net_rma_limit(void)
{
    if (mp_net.rma_max != MP_NET_RMA_MAX_AUTO)
        return mp_net.rma_max;
    return mp_net.over_sockets && !mp_wait_oversubscribed() ? 0 : SIZE_MAX;
}

static int over_sockets(const char *prov_name)
{
    static const char *const sockets[] = { "net", "tcp", "udp", "sockets", NULL };
    size_t core = strcspn(prov_name, ";");
    for (int i = 0; sockets[i]; i++)
        if (strlen(sockets[i]) == core && strncmp(prov_name, sockets[i], core) == 0)
            return 1;
    return 0;
}

static void describe(void)
{
    if (!mp_cfg.verbose || mp_world.rank != 0)
        return;
    char cache[96] = "unused";
    if (mp_net.rma)
        mp_net_mr_describe(cache, sizeof cache);
    char rxm[96] = "";
    if (strstr(mp_net.info->fabric_attr->prov_name, "ofi_rxm"))
        snprintf(rxm, sizeof rxm, ", rxm buffer %s bytes, SAR limit %s",
                 getenv("FI_OFI_RXM_BUFFER_SIZE"), getenv("FI_OFI_RXM_SAR_LIMIT"));
    char rndv[128] = "CTS+FRAG pipeline";
    if (mp_net.rma && mp_net.rma_max == MP_NET_RMA_MAX_AUTO && mp_net.over_sockets)
        snprintf(rndv, sizeof rndv, "CTS+FRAG pipeline (fi_read/fi_write while the machine's "
                 "ranks outnumber its cores)");
    else if (mp_net.rma && (mp_net.rma_max == MP_NET_RMA_MAX_AUTO || mp_net.rma_max == SIZE_MAX))
        snprintf(rndv, sizeof rndv, "fi_read/fi_write");
    else if (mp_net.rma && mp_net.rma_max > mp_net_transport.eager_max)
        snprintf(rndv, sizeof rndv, "fi_read/fi_write up to %zu bytes, CTS+FRAG pipeline above",
                 mp_net.rma_max);
    fprintf(stderr, "MemPI: net transport: provider %s on %s, %d remote peer(s), %d credits of "
            "%zu bytes each, eager up to %zu bytes, inject %zu bytes, rendezvous by %s, "
            "registration cache %s%s\n",
            mp_net.info->fabric_attr->prov_name, mp_net.info->domain_attr->name, mp_net.nremote,
            mp_net.credits, mp_net_transport.max_payload, mp_net_transport.eager_max,
            mp_net.inject_size, rndv, cache, rxm);
}

/* Defaults for the rxm layer (ofi_rxm, which gives "tcp" and "net" their RDM endpoints), set
 * before libfabric is loaded and only where the user did not set them (docs/decisions.md,
 * "rxm buffer sizes"):
 *  - rxm copies a send of up to its buffer size (16384 bytes, rxm's header included) through
 *    one bounce buffer; a 16 KiB message plus our headers must fit, or every such message
 *    takes rxm's slow path.  The buffer pool grows with this size (about 2000 buffers per
 *    process), so it is not raised to the whole eager size.
 *  - Between that and its SAR limit rxm cuts a send into bounce-buffer segments, slower than
 *    its rendezvous by fi_read.  SAR limit 0: rendezvous above the buffer. */
static void tune_rxm(void)
{
    char size[32];
    snprintf(size, sizeof size, "%zu", (size_t)16384 + 512);
    setenv("FI_OFI_RXM_BUFFER_SIZE", size, 0);
    setenv("FI_OFI_RXM_SAR_LIMIT", "0", 0);
}

/* Provider, endpoint, buffers, posted receives: everything but the exchange of addresses. */
static int open_transport(void)
{
    const char *provider, *iface;
    int err, rma = 0;
    tune_rxm();
    if ((err = mp_fabric_load()))
        return err;
    if ((err = read_settings(&provider, &iface, &rma)))
        return err;
    mp_net.npeers = mp_world.size;
    mp_net.peers = mp_calloc((size_t)mp_world.size, sizeof(mp_net_peer));
    mp_net.owed_list = mp_calloc((size_t)mp_world.size, sizeof(int));
    for (int w = 0; w < mp_world.size; w++) {
        mp_net.peers[w].remote = mp_nodes_host_of(w) != mp_world.host;
        mp_net.peers[w].wire_src = mp_world.rank;
        mp_net.peers[w].reachable = 1;
        mp_net.peers[w].credits = mp_net.credits;
        if (mp_net.peers[w].remote) {
            mp_net.peers[w].held = mp_calloc((size_t)mp_net.window, sizeof(mp_net_buf *));
            mp_net.peers[w].held_len = mp_calloc((size_t)mp_net.window, sizeof(size_t));
        }
        mp_net.nremote += mp_net.peers[w].remote;
    }
    if ((err = choose_provider(provider, iface, rma)) || (err = make_buffers()) ||
        (err = open_endpoint()) || (err = register_buffers()))
        return err;
    mp_net.over_sockets = over_sockets(mp_net.info->fabric_attr->prov_name);
    mp_net_rma_init();
    mp_net.active = 1;
    for (int i = mp_net.nsend; i < mp_net.nsend + mp_net.nrecv; i++)
        mp_net_post_recv(&mp_net.bufs[i]);
    mp_net.last_check = mp_net.last_beat = mp_wtime();
    for (int w = 0; w < mp_world.size; w++)
        mp_net.peers[w].last_heard = mp_net.last_check, mp_net.peers[w].may_beat = 1;
    return MPI_SUCCESS;
}

int mp_net_init(void)
{
    if (mp_nodes_nhosts() <= 1)
        return MPI_SUCCESS;           /* every rank shares our memory: no network needed */
    int err;
    if ((err = open_transport()) || (err = exchange_addresses()))
        return err;
    describe();
    return MPI_SUCCESS;
}

/* ---- processes of other jobs on other hosts (dynamic processes) ---------------------- */

int mp_net_address(unsigned char addr[MP_NET_ADDRESS_MAX], int *len)
{
    int err;
    if (!mp_net.active) {             /* a job on one host: its first peer on another host */
        if ((err = open_transport()))
            return err;
        mp_transport_net_started();
    }
    size_t n = MP_NET_ADDRESS_MAX;
    int rc = fi_getname(&mp_net.ep->fid, addr, &n);
    if (rc)
        return fi_fail("fi_getname", rc);
    *len = (int)n;
    return MPI_SUCCESS;
}

/* Receive buffers for one more remote peer: a pool of their own, registered if need be. */
static int add_receive_buffers(void)
{
    int nb = mp_net.credits + MP_NET_RESERVE;
    size_t size = (size_t)nb * mp_net.buf_size;
    char *pool;
    struct fid_mr *mr = NULL;
    if (posix_memalign((void **)&pool, 4096, size) != 0)
        return mp_error_code(MPI_ERR_NO_MEM, "network transport: cannot allocate %zu bytes of "
                             "buffers", size);
    if (mp_net.info->domain_attr->mr_mode & FI_MR_LOCAL) {
        int rc = fi_mr_reg(mp_net.domain, pool, size, FI_RECV, 0, 0, 0, &mr, NULL);
        if (rc) {
            free(pool);
            return fi_fail("registering receive buffers", rc);
        }
    }
    mp_net.extra = mp_realloc(mp_net.extra, sizeof *mp_net.extra * (size_t)(mp_net.nextra + 1));
    mp_net_buf *bufs = mp_calloc((size_t)nb, sizeof *bufs);
    mp_net.extra[mp_net.nextra].pool = pool;
    mp_net.extra[mp_net.nextra].bufs = bufs;
    mp_net.extra[mp_net.nextra++].mr = mr;
    /* the deferred ring holds every receive buffer: grow it, oldest entry first */
    int total = mp_net.nrecv + nb;
    if (mp_net.rma) {
        __typeof__(mp_net.deferred) d = mp_calloc((size_t)total, sizeof *d);
        for (int i = 0; i < mp_net.ndeferred; i++)
            d[i] = mp_net.deferred[(mp_net.deferred_head + i) % mp_net.nrecv];
        free(mp_net.deferred);
        mp_net.deferred = d;
        mp_net.deferred_head = 0;
    }
    mp_net.nrecv = total;
    for (int i = 0; i < nb; i++) {
        bufs[i].data = pool + (size_t)i * mp_net.buf_size;
        bufs[i].kind = MP_NET_K_RECV;
        bufs[i].desc = mr ? fi_mr_desc(mr) : NULL;
        mp_net_post_recv(&bufs[i]);
    }
    return MPI_SUCCESS;
}

int mp_net_prepare(int id)
{
    if (id >= mp_net.npeers) {
        int n = mp_world.nprocs > id ? mp_world.nprocs : id + 1;
        mp_net.peers = mp_realloc(mp_net.peers, sizeof(mp_net_peer) * (size_t)n);
        memset(&mp_net.peers[mp_net.npeers], 0, sizeof(mp_net_peer) * (size_t)(n - mp_net.npeers));
        mp_net.owed_list = mp_realloc(mp_net.owed_list, sizeof(int) * (size_t)n);
        mp_net.npeers = n;
    }
    mp_net_peer *p = &mp_net.peers[id];
    int err = add_receive_buffers();
    if (err)
        return err;
    p->remote = p->foreign = 1;
    p->credits = mp_net.credits;
    p->held = mp_calloc((size_t)mp_net.window, sizeof(mp_net_buf *));
    p->held_len = mp_calloc((size_t)mp_net.window, sizeof(size_t));
    p->last_heard = mp_wtime();
    p->may_beat = 1;
    mp_world.procs[id].tp = &mp_net_transport;
    return MPI_SUCCESS;
}

int mp_net_attach(int id, const unsigned char *addr, int len, int my_id_there)
{
    mp_net_peer *p = &mp_net.peers[id];
    (void)len;
    if (fi_av_insert(mp_net.av, addr, 1, &p->addr, 0, NULL) != 1)
        return mp_error_code(MPI_ERR_OTHER, "network transport: the provider rejected the "
                             "endpoint address of %s", mp_net_peer_name(id));
    p->wire_src = my_id_there;
    p->reachable = 1;
    return MPI_SUCCESS;
}

/* Liveness (MEMPI_NET_TIMEOUT=T > 0).  A TCP connection whose link went down fails only after
 * many minutes of retransmissions, and a rank waiting for a message has nothing in flight to
 * fail at all, so without this a cut link is a hang.  While a rank polls it sends every remote
 * peer a CREDIT packet every T/4 seconds as a heartbeat, and a peer from which nothing arrived
 * for T seconds of our polling ends the job with a message naming it.  (A peer gets its next
 * heartbeat only after we heard from it, so one that is busy elsewhere has at most one
 * waiting in its receive buffers.)  A gap in our own
 * polling (we were computing) restarts the clocks, since silence we did not watch proves
 * nothing; a peer that computes longer than T without calling MPI looks dead, hence the
 * variable.  Peers that said BYE are no longer watched. */
void mp_net_check_liveness(void)
{
    double now = mp_wtime();
    if (now - mp_net.last_check < mp_net.timeout / 16)
        return;
    int was_away = now - mp_net.last_check > mp_net.timeout / 4;
    mp_net.last_check = now;
    int beat = now - mp_net.last_beat >= mp_net.timeout / 4;
    if (beat)
        mp_net.last_beat = now;
    for (int w = 0; w < mp_world.size; w++) {     /* not other jobs': they leave at will */
        mp_net_peer *p = &mp_net.peers[w];
        if (!p->remote || p->bye)
            continue;
        if (p->heard || was_away) {
            p->heard = 0;
            p->last_heard = now;
        } else if (now - p->last_heard > mp_net.timeout) {
            mp_fatal("network transport: nothing heard from %s for %.0f seconds: the link to "
                     "its node is down or the rank is stuck outside MPI (MEMPI_NET_TIMEOUT=%g)",
                     mp_net_peer_name(w), now - p->last_heard, mp_net.timeout);
        }
        if (beat && p->may_beat && !mp_net.closing && mp_net_send_ctrl(w, MP_NET_CREDIT) == 0)
            p->may_beat = 0;
    }
}

/* Progress until done() is true. */
static void drive(int (*done)(void))
{
    unsigned spins = 0;
    while (!done())
        if (mp_progress() == 0)
            mp_idle(&spins);
}

/* Our sends completed, and our rendezvous reads (read_start): their FIN is the sender's last
 * word on that message, so it goes out before our BYE. */
static int sends_done(void)
{
    return mp_net.nsend_free == mp_net.nsend && mp_net.async_pending == 0;
}
static int byes_done(void)
{
    return mp_net.byes == mp_net.nremote && mp_net.bye_acks == mp_net.nremote &&
           mp_net.acks_pending == 0 && sends_done();
}

void mp_net_finalize(void)
{
    if (!mp_net.active)
        return;
    drive(sends_done);
    mp_net.closing = 1;
    for (int w = 0; w < mp_world.size; w++) {
        unsigned spins = 0;
        while (mp_net.peers[w].remote && mp_net_send_ctrl(w, MP_NET_BYE) == MP_AGAIN)
            if (mp_progress() == 0)
                mp_idle(&spins);
    }
    drive(byes_done);
    mp_net.active = 0;
    if (mp_cfg.verbose && mp_world.rank == 0)
        fprintf(stderr, "MemPI: net transport: rank 0 made %llu asynchronous rendezvous "
                "read(s) (MEMPI_NET_ASYNC_READ)\n", (unsigned long long)mp_net.async_reads);
    fi_close(&mp_net.ep->fid);
    mp_net_rma_finalize();
    if (mp_net.mr)
        fi_close(&mp_net.mr->fid);
    for (int i = 0; i < mp_net.nextra; i++) {
        if (mp_net.extra[i].mr)
            fi_close(&mp_net.extra[i].mr->fid);
        free(mp_net.extra[i].pool);
        free(mp_net.extra[i].bufs);
    }
    free(mp_net.extra);
    fi_close(&mp_net.av->fid);
    fi_close(&mp_net.cq->fid);
    fi_close(&mp_net.domain->fid);
    fi_close(&mp_net.fabric->fid);
    fi_freeinfo(mp_net.info);
    free(mp_net.pool);
    free(mp_net.bufs);
    free(mp_net.send_free);
    for (int w = 0; w < mp_net.npeers; w++) {
        free(mp_net.peers[w].held);
        free(mp_net.peers[w].held_len);
    }
    free(mp_net.peers);
    free(mp_net.owed_list);
    memset(&mp_net, 0, sizeof mp_net);
}
#endif
