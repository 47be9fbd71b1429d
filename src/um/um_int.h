/*
** Internals shared by the migrator and the PMCs (um.h): the message
** types and a FIFO of messages a port refused.
*/
#ifndef MGS_UM_UM_INT_H
#define MGS_UM_UM_INT_H

#include <stdlib.h>

#include "mgsim/errors.h"
#include "sim/port.h"
#include "um/um.h"
#include "util/xmalloc.h"

enum um_msg_type {
    UM_MIGRATE = 300,
    UM_DATA,
    UM_FILLED,
    UM_RELEASED
};

#define UM_F_SHOOTDOWN 1u     /* coh[0] of UM_MIGRATE: a GPU mapped it */
#define UM_F_VIA_HOST 2u      /* coh[0] of UM_MIGRATE: data over the host */
#define UM_F_KEEP 4u          /* esi: the source keeps its copy (no flush) */
#define UM_F_NO_DATA 8u       /* esi: nothing to send; the copy just goes */
#define UM_CTL_BYTES 32u      /* assumed: addresses + ids of a command */
#define UM_DATA_HEADER 16u    /* assumed: address + id ahead of the line */

/* Messages waiting for one port, in order. */
typedef struct um_queue {
    mem_msg **v;
    uint32_t head, n, cap;
} um_queue;

static inline void um_queue_push(um_queue *q, mem_msg *m)
{
    if (q->n == q->cap) {
        uint32_t cap = q->cap ? 2 * q->cap : 16;
        mem_msg **v = mgs_xcalloc(cap, sizeof *v);
        for (uint32_t i = 0; i < q->n; i++)
            v[i] = q->v[(q->head + i) % q->cap];
        free(q->v);
        q->v = v;
        q->cap = cap;
        q->head = 0;
    }
    q->v[(q->head + q->n) % q->cap] = m;
    q->n++;
}

/* Sends from the front while the port takes them; true if any went. */
static inline bool um_queue_drain(um_queue *q, sim_port *port)
{
    bool sent = false;
    while (q->n && port_send(port, &q->v[q->head]->base) == MGS_OK) {
        q->head = (q->head + 1) % q->cap;
        q->n--;
        sent = true;
    }
    return sent;
}

static inline void um_queue_free(um_queue *q, mem_pool *pool)
{
    for (uint32_t i = 0; i < q->n; i++)
        mem_msg_release(pool, q->v[(q->head + i) % q->cap]);
    free(q->v);
    q->v = NULL;
    q->n = q->cap = q->head = 0;
}

#endif
