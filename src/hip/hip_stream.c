/*
** libmgsim-hip streams and events.
**
** Streams: each created stream is a stream of the runtime (mgs_launch.
** stream, mgs_memcpy_*_stream; docs/runtime.md "Streams"). In timing mode
** with DMA copies, launches and host-device hipMemcpyAsync on a stream
** are queued in issue order and run at the next blocking call together
** with the other streams' queues, so a copy on one stream overlaps a
** kernel on another stream of the same device. The null stream and
** hipStreamPerThread are the runtime's stream 0, which never overlaps the
** device's other streams (the legacy null stream's implicit
** synchronisation, also for hipStreamNonBlocking streams: a legal, more
** ordered schedule). In emu mode everything runs at once, in issue order.
** A stream remembers its device; launches on it run on that device's GPU.
** The null stream and hipStreamPerThread mean the current device.
**
** Events: hipEventRecord waits for the simulated device to finish the work
** issued so far and stamps the event with the simulated time, kernels and
** copies together (mgs_rt_totals.sim_time_ps + copy_time_ps: the runtime
** runs them one after another), so hipEventElapsedTime reports simulated
** milliseconds, also around a hipMemcpy. Emu mode has no time model:
** events get an estimate from the work done at peak rates
** (hip_estimate.c, docs/hip.md), never 0 across a kernel or a copy.
*/
#include <stdlib.h>

#include "hip/hip_internal.h"
#include "mgsim/errors.h"
#include "util/xmalloc.h"

bool mhip_stream_valid(hipStream_t s)
{
    if (s == NULL || s == hipStreamPerThread) return true;
    for (struct ihipStream_t *p = mhip_g.streams; p; p = p->next)
        if (p == s) return true;
    return false;
}

uint32_t mhip_stream_id(hipStream_t s)
{
    return s == NULL || s == hipStreamPerThread ? 0 : s->id;
}

int mhip_stream_device(hipStream_t s)
{
    if (s == NULL || s == hipStreamPerThread) return mhip_current_device();
    return s->device;
}

void mhip_streams_release_all(void)
{
    for (struct ihipStream_t *s = mhip_g.streams, *n; s; s = n) {
        n = s->next;
        free(s);
    }
    mhip_g.streams = NULL;
    for (struct ihipEvent_t *e = mhip_g.events, *n; e; e = n) {
        n = e->next;
        free(e);
    }
    mhip_g.events = NULL;
}

/* ---- streams -------------------------------------------------------------- */

hipError_t hipStreamCreateWithPriority(hipStream_t *stream, unsigned int flags,
                                       int priority)
{
    (void)priority; /* one level (clamped to 0, as CUDA clamps to its
                       range): the simulator runs streams in order */
    if (!stream)
        return mhip_fail(hipErrorInvalidValue, "hipStreamCreate",
                         "stream is NULL");
    if (flags & ~(unsigned)hipStreamNonBlocking)
        return mhip_fail(hipErrorInvalidValue, "hipStreamCreateWithFlags",
                         "unsupported flags 0x%x", flags);
    hipError_t e = mhip_ensure_init();
    if (e) return mhip_ret(e);
    struct ihipStream_t *s = MGS_NEW(struct ihipStream_t);
    s->device = mhip_current_device();
    s->flags = flags;
    s->id = ++mhip_g.next_stream_id;
    s->next = mhip_g.streams;
    mhip_g.streams = s;
    *stream = s;
    return hipSuccess;
}

/* One priority level: the range is [0, 0] (CUDA's convention for a device
** without stream priorities), and every stream reports 0. */
hipError_t hipDeviceGetStreamPriorityRange(int *leastPriority,
                                           int *greatestPriority)
{
    if (leastPriority) *leastPriority = 0;
    if (greatestPriority) *greatestPriority = 0;
    return hipSuccess;
}

hipError_t hipStreamGetPriority(hipStream_t stream, int *priority)
{
    if (!priority)
        return mhip_fail(hipErrorInvalidValue, "hipStreamGetPriority",
                         "priority is NULL");
    if (!mhip_stream_valid(stream))
        return mhip_fail(hipErrorInvalidHandle, "hipStreamGetPriority",
                         "invalid stream");
    *priority = 0;
    return hipSuccess;
}

hipError_t hipStreamCreateWithFlags(hipStream_t *stream, unsigned int flags)
{
    return hipStreamCreateWithPriority(stream, flags, 0);
}

hipError_t hipStreamCreate(hipStream_t *stream)
{
    return hipStreamCreateWithPriority(stream, 0, 0);
}

hipError_t hipStreamDestroy(hipStream_t stream)
{
    struct ihipStream_t **pp = &mhip_g.streams;
    while (*pp && *pp != stream) pp = &(*pp)->next;
    if (!stream || !*pp)
        return mhip_fail(hipErrorInvalidHandle, "hipStreamDestroy",
                         "not a stream created by hipStreamCreate");
    *pp = stream->next;
    free(stream);
    return hipSuccess;
}

hipError_t hipStreamSynchronize(hipStream_t stream)
{
    if (!mhip_stream_valid(stream))
        return mhip_fail(hipErrorInvalidHandle, "hipStreamSynchronize",
                         "invalid stream");
    hipError_t e = mhip_ensure_init();
    if (e) return mhip_ret(e);
    return mhip_sync_all();
}

hipError_t hipStreamQuery(hipStream_t stream)
{
    if (!mhip_stream_valid(stream))
        return mhip_fail(hipErrorInvalidHandle, "hipStreamQuery",
                         "invalid stream");
    return hipSuccess; /* work issued to a stream is complete when issued */
}

hipError_t hipStreamWaitEvent(hipStream_t stream, hipEvent_t event,
                              unsigned int flags)
{
    if (!mhip_stream_valid(stream) || !event)
        return mhip_fail(hipErrorInvalidHandle, "hipStreamWaitEvent",
                         "invalid stream or event");
    if (flags != 0)
        return mhip_fail(hipErrorInvalidValue, "hipStreamWaitEvent",
                         "flags must be 0, got %u", flags);
    return hipSuccess; /* in-order execution already satisfies the wait */
}

/* ---- events --------------------------------------------------------------- */

static bool event_valid(hipEvent_t e)
{
    for (struct ihipEvent_t *p = mhip_g.events; p; p = p->next)
        if (p == e) return true;
    return false;
}

hipError_t hipEventCreateWithFlags(hipEvent_t *event, unsigned flags)
{
    const unsigned known = hipEventBlockingSync | hipEventDisableTiming |
                           hipEventReleaseToDevice | hipEventReleaseToSystem;
    if (!event)
        return mhip_fail(hipErrorInvalidValue, "hipEventCreate",
                         "event is NULL");
    if (flags & ~known)
        return mhip_fail(hipErrorInvalidValue, "hipEventCreateWithFlags",
                         "unsupported flags 0x%x", flags);
    struct ihipEvent_t *e = MGS_NEW(struct ihipEvent_t);
    e->flags = flags;
    e->next = mhip_g.events;
    mhip_g.events = e;
    *event = e;
    return hipSuccess;
}

hipError_t hipEventCreate(hipEvent_t *event)
{
    return hipEventCreateWithFlags(event, 0);
}

hipError_t hipEventDestroy(hipEvent_t event)
{
    struct ihipEvent_t **pp = &mhip_g.events;
    while (*pp && *pp != event) pp = &(*pp)->next;
    if (!event || !*pp)
        return mhip_fail(hipErrorInvalidHandle, "hipEventDestroy",
                         "not an event created by hipEventCreate");
    *pp = event->next;
    free(event);
    return hipSuccess;
}

hipError_t hipEventRecord(hipEvent_t event, hipStream_t stream)
{
    const char *call = "hipEventRecord";
    if (!event_valid(event))
        return mhip_fail(hipErrorInvalidHandle, call, "invalid event");
    if (!mhip_stream_valid(stream))
        return mhip_fail(hipErrorInvalidHandle, call, "invalid stream");
    hipError_t e = mhip_ensure_init();
    if (e) return mhip_ret(e);
    int rc = mgs_synchronize(mhip_g.rt);
    if (rc) return mhip_fail(mhip_from_mgs(rc), call, "%s", mgs_error_msg());
    mgs_rt_totals t;
    mgs_rt_totals_get(mhip_g.rt, &t);
    event->time_ps = mhip_time_now_ps(&t, NULL);
    event->recorded = true;
    return hipSuccess;
}

hipError_t hipEventSynchronize(hipEvent_t event)
{
    if (!event_valid(event))
        return mhip_fail(hipErrorInvalidHandle, "hipEventSynchronize",
                         "invalid event");
    return mhip_sync_all();
}

hipError_t hipEventQuery(hipEvent_t event)
{
    if (!event_valid(event))
        return mhip_fail(hipErrorInvalidHandle, "hipEventQuery",
                         "invalid event");
    return hipSuccess;
}

hipError_t hipEventElapsedTime(float *ms, hipEvent_t start, hipEvent_t stop)
{
    const char *call = "hipEventElapsedTime";
    if (!ms) return mhip_fail(hipErrorInvalidValue, call, "ms is NULL");
    if (!event_valid(start) || !event_valid(stop))
        return mhip_fail(hipErrorInvalidHandle, call, "invalid event");
    if ((start->flags | stop->flags) & hipEventDisableTiming)
        return mhip_fail(hipErrorInvalidHandle, call,
                         "event created with hipEventDisableTiming");
    if (!start->recorded || !stop->recorded)
        return mhip_ret(hipErrorNotReady);
    double ps = (double)stop->time_ps - (double)start->time_ps;
    *ms = (float)(ps * 1e-9);
    return hipSuccess;
}
