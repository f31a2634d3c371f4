/* transport.c -- the transport registry: who reaches whom, start-up, polling, hand-over.
 * MemPI, BSD-3-Clause (see LICENSE).
 *
 * Every rank of this host is reached through shared memory, every other one through the
 * network: that choice is made once, at MPI_Init, from the node layout (core/nodes.c), and
 * stored in mp_world.procs[].tp.  The transports in use register their poll functions with the
 * progress engine, so the engine polls exactly the transports this job has, and nothing else
 * names them: the shm transport is always there (a single-rank job maps anonymous memory),
 * the network one only in jobs that span hosts.
 *
 * The shm transport also provides the engine's sleeper (a futex in the node segment).  A rank
 * may sleep only if every packet that could end its wait rings that futex, which is true when
 * all its peers are reached through a transport that `wakes_sleepers`.
 *
 * Arrived packets go to the handler registered for their class; a class nobody registered is
 * a protocol error (a peer speaks a layer this process did not start), reported loudly.
 */
#include "transport/transport.h"
#include "transport/shm/shm.h"
#include "transport/net/net.h"

static void no_handler(int world_src, const mp_hdr *hdr, const void *payload)
{
    (void)payload;
    mp_fatal("protocol error: packet type %d from rank %d has no handler", hdr->type, world_src);
}

mp_packet_handler mp_packet_handlers[MP_PKT_CLASSES] = {
    no_handler, no_handler, no_handler, no_handler
};
_Static_assert(MP_PKT_CLASSES == 4, "one initialiser per packet class");

int mp_transport_has_handler(int cls)
{
    return mp_packet_handlers[cls] != no_handler;
}

void mp_transport_set_handler(int cls, mp_packet_handler handler)
{
    mp_packet_handlers[cls] = handler ? handler : no_handler;
}

int mp_transports_init(void)
{
    int remote = 0;
    for (int w = 0; w < mp_world.size; w++) {
        int here = mp_nodes_host_of(w) == mp_world.host;
        mp_world.procs[w].tp = here ? &mp_shm_transport : &mp_net_transport;
        remote |= !here;
    }
    int err = mp_shm_init();
    if (err)
        return err;
    mp_progress_add_source(mp_shm_transport.poll);
    if ((err = mp_net_init()))
        return err;
    if (remote)
        mp_progress_add_source(mp_net_transport.poll);
    int wakes = 1;
    for (int w = 0; w < mp_world.size; w++)
        wakes &= mp_transport_of(w)->wakes_sleepers;
    mp_shm_sleeper.complete = wakes;
    mp_progress_set_sleeper(&mp_shm_sleeper);
    return MPI_SUCCESS;
}

void mp_transport_net_started(void)
{
    mp_progress_add_source(mp_net_transport.poll);
    mp_shm_sleeper.complete = 0;      /* packets over the network ring no futex */
}

void mp_transports_finalize(void)
{
    mp_net_finalize();
    mp_node_barrier();
    mp_conn_finalize();
    mp_shm_finalize();
}

void mp_transports_abandon(void)
{
    mp_conn_finalize();
    mp_shm_abandon();
}
