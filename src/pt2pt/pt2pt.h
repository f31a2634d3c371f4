/* pt2pt.h -- the point-to-point layer's interface, used by comm, coll and the bindings.
 * MemPI, BSD-3-Clause (see LICENSE).
 *
 * Requests carry (buffer, count, type, peer, tag, communicator, context).  `ctx_offset` selects
 * the traffic class on a communicator: 0 for user point-to-point, 1 for collectives, so a
 * collective's internal messages never match a user's receive.  Ranks are ranks of the
 * communicator (for intercommunicators: ranks of the remote group).  None of these functions
 * print or invoke error handlers: they return MPI error codes and the binding layer reports.
 */
#ifndef MP_PT2PT_H
#define MP_PT2PT_H

#include "core/core.h"
#include "datatype/datatype.h"

#define MP_CTX_PT2PT 0
#define MP_CTX_COLL  1

int mp_isend(const void *buf, MPI_Aint count, mp_datatype *dt, int dest, int tag,
             mp_comm *comm, int ctx_offset, int mode, mp_request **out);
int mp_irecv(void *buf, MPI_Aint count, mp_datatype *dt, int source, int tag,
             mp_comm *comm, int ctx_offset, mp_request **out);

/* MPI_Isend: mp_isend in standard mode on the user's context, except that a message the fast
 * path hands over at the call completes there and gets the shared completed send request
 * (mp_request_done_send) instead of a request of its own. */
int mp_isend_user(const void *buf, MPI_Aint count, mp_datatype *dt, int dest, int tag,
                  mp_comm *comm, mp_request **out);

/* The fast paths of MPI_Send and MPI_Recv (fast.c) for a lane (binding/lane.c): the caller
 * is inside a lane and holds mp_lane_stripe_of(comm), the stripe of the communicator's
 * point-to-point track; MP_LANE_GIVE_UP, having changed nothing, when the call needs the
 * general path under the big lock. */
#define MP_LANE_GIVE_UP 1
unsigned mp_lane_stripe_of(const mp_comm *comm);
unsigned mp_lane_stripe_of_request(const mp_request *req);   /* a send's or receive's */
int mp_send_fast_in_lane(const void *buf, MPI_Aint count, mp_datatype *dt, int dest, int tag,
                         mp_comm *comm, unsigned stripe);
int mp_recv_in_lane(void *buf, MPI_Aint count, mp_datatype *dt, int source, int tag,
                    mp_comm *comm, MPI_Status *status, unsigned stripe);
/* MPI_Irecv in a lane (lane.c): the receive, complete or posted, in *out; the caller makes
 * its handle. */
int mp_irecv_in_lane(void *buf, MPI_Aint count, mp_datatype *dt, int source, int tag,
                     mp_comm *comm, unsigned stripe, mp_request **out);
/* Completes the posted receives of the stripe's contexts that the packets at the head of
 * world's ring fill (lane.c): how many it took, or -1 when the head needs the big lock. */
int mp_drain_in_lane(int world, unsigned stripe);

/* Blocking conveniences (progress until complete; status may be MPI_STATUS_IGNORE). */
int mp_send(const void *buf, MPI_Aint count, mp_datatype *dt, int dest, int tag,
            mp_comm *comm, int ctx_offset, int mode);
int mp_recv(void *buf, MPI_Aint count, mp_datatype *dt, int source, int tag,
            mp_comm *comm, int ctx_offset, MPI_Status *status);
int mp_sendrecv(const void *sbuf, MPI_Aint scount, mp_datatype *sdt, int dest, int stag,
                void *rbuf, MPI_Aint rcount, mp_datatype *rdt, int source, int rtag,
                mp_comm *comm, int ctx_offset, MPI_Status *status);

/* Waits for a request, copies its status out, frees it (non-persistent).  Returns the
 * request's error (MPI_SUCCESS, MPI_ERR_TRUNCATE, ...). */
int mp_wait(mp_request *req, MPI_Status *status);
int mp_waitall(int n, mp_request **reqs, MPI_Status *statuses);
/* mp_wait inside an exchange (sendrecv, collective schedules): it never offers this rank's
 * core to a peer's copy (transport/shm/split.c), since the rank copies its own share. */
int mp_wait_exchange(mp_request *req, MPI_Status *status);
/* Whether a rank blocked on `nsends` sends and `nrecvs` receives (nothing else) may offer its
 * core to a peer's large copy while it waits (mp_split_offer; the rule is in pt2pt.c). */
int mp_wait_may_offer(int nsends, int nrecvs);
void mp_wait_offer(int on);   /* 1 before such a wait, 0 after it */

/* Probe: returns 1 and fills status if a matching message has arrived. */
int mp_iprobe(int source, int tag, mp_comm *comm, int ctx_offset, MPI_Status *status);

/* Matched probe: removes a matching arrived message and returns it as a message request
 * (kind MP_REQ_PROBE); 0 if none.  mp_imrecv receives it (and frees the message request). */
int mp_improbe(int source, int tag, mp_comm *comm, int ctx_offset, mp_request **msg,
               MPI_Status *status);
int mp_imrecv(void *buf, MPI_Aint count, mp_datatype *dt, mp_request *msg, mp_request **out);

/* Cancel a receive, or a send that is not matched yet (completion shows the outcome). */
int mp_cancel(mp_request *req);

/* Persistent requests: kind MP_REQ_PSEND / MP_REQ_PRECV, started with mp_start; the active
 * operation is req->inner. */
mp_request *mp_persistent_new(int kind, void *buf, MPI_Aint count, mp_datatype *dt, int peer,
                              int tag, mp_comm *comm, int mode);
int  mp_start(mp_request *req);
void mp_persistent_free(mp_request *req);

/* Partitioned communication (part.c): kind MP_REQ_PART, a persistent request whose data moves
 * as one message per unit of the receiver's partitions, each as soon as the sender's
 * partitions under it are ready.  The binding checks arguments and state
 * (active, partition in range, not ready twice) before calling these. */
int  mp_part_init(int is_send, void *buf, int partitions, MPI_Aint count, mp_datatype *dt,
                  int peer, int tag, mp_comm *comm, mp_request **out);
int  mp_part_start(mp_request *req);
int  mp_part_ready(mp_request *req, int partition);
int  mp_part_is_send(const mp_request *req);
int  mp_part_partitions(const mp_request *req);
int  mp_part_active(const mp_request *req);       /* started, not yet completed */
int  mp_part_is_ready(const mp_request *req, int partition);
int  mp_part_done(const mp_request *req);         /* inactive counts as done */
int  mp_part_arrived(const mp_request *req, int partition); /* its data is in the buffer */
int  mp_part_finish(mp_request *req, MPI_Status *status);   /* complete: back to inactive */
void mp_part_status(const mp_request *req, MPI_Status *status); /* of a complete request */
void mp_part_free(mp_request *req);

/* Buffered sends (bsend.c): through the communicator's buffer, else its session's, else the
 * process's (MPI 4.1 3.6).  A buffer's `buf` may be MPI_BUFFER_AUTOMATIC.  Errors are codes
 * no handler has seen. */
mp_bbuf *mp_bbuf_process(void);                  /* MPI_Buffer_attach's */
mp_bbuf *mp_bbuf_new(void);                      /* nothing attached yet */
void     mp_bbuf_free(mp_bbuf *b);               /* waits for its messages; NULL is fine */
int      mp_bbuf_attached(const mp_bbuf *b);     /* NULL: no */
int      mp_bbuf_attach(mp_bbuf *b, void *buf, size_t size);
int      mp_bbuf_detach(mp_bbuf *b, void **buf, size_t *size); /* waits for messages to leave */
int      mp_bbuf_flush(mp_bbuf *b);              /* waits for the messages buffered so far */
int      mp_bbuf_iflush(mp_bbuf *b, mp_request **out);   /* the same as a request */
int mp_bsend_attach(void *buf, size_t size);
int mp_bsend_detach(void **buf, size_t *size);   /* nothing attached: NULL and 0 */
int mp_ibsend(const void *buf, MPI_Aint count, mp_datatype *dt, int dest, int tag,
              mp_comm *comm, mp_request **out);

/* A send and a receive as one request (MPI_Isendrecv); owned_tmp is freed at completion. */
int mp_isendrecv(const void *sbuf, MPI_Aint scount, mp_datatype *sdt, int dest, int stag,
                 void *rbuf, MPI_Aint rcount, mp_datatype *rdt, int source, int rtag,
                 mp_comm *comm, void *owned_tmp, mp_request **out);

int mp_pt2pt_init(void);
void mp_pt2pt_finalize(void);

#endif
