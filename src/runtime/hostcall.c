/*
** The hostcall listener (hostcall.h): buffer set-up in device memory, the
** ready stack drained at each poll, messages accumulated per message ID,
** printf messages formatted when they end.
*/
#include "runtime/hostcall.h"

#include "mgsim/errors.h"
#include "runtime/devprintf.h"
#include "util/xmalloc.h"

#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

enum {
    BUF_HEADERS = 0, BUF_PAYLOADS = 8, BUF_DOORBELL = 16, BUF_FREE = 24,
    BUF_READY = 32, BUF_INDEX_MASK = 40, BUF_SIZE = 64,
    HDR_NEXT = 0, HDR_ACTIVE = 8, HDR_SERVICE = 16, HDR_CONTROL = 20,
    HDR_SIZE = MGS_HOSTCALL_HEADER,
    LANES = 64, SLOTS = 8, PAYLOAD_SIZE = LANES * SLOTS * 8,
    SIGNAL_SIZE = 64,          /* amd_signal_t: kind, value, mailbox VA,
                                  event id (+0, +8, +16, +24) */
    SIGNAL_KIND_USER = 1,
    MAILBOX_SIZE = 64,         /* the word the event id is written to */
    SERVICE_PRINTF = 2,
    CONTROL_READY = 1
};

/* Message descriptor (slot 0 of every call of a message). */
#define DESC_BEGIN 1ull
#define DESC_END 2ull
#define DESC_LEN(d) (((d) >> 5) & 7u)
#define DESC_ID(d) ((d) >> 8)

typedef struct message {
    uint64_t id;
    uint64_t *words;
    size_t n, cap;
} message;

struct mgs_hostcall {
    mgs_devmem *mem;
    uint64_t va;               /* the buffer_t */
    uint64_t headers, payloads;
    uint32_t index_size;
    uint32_t packets;
    uint64_t *order;           /* poll: the ready packets, newest first */
    FILE *out, *err;
    message *msgs;             /* open messages */
    size_t nmsgs, msgs_cap;
    uint64_t next_id;
    mgs_devprintf_out *done;   /* completed printf output, not yet flushed */
    size_t ndone, done_cap;
    int error;
    char error_msg[256];
};

int mgs_hostcall_test_break;

static void put64(uint8_t *p, uint64_t v) { memcpy(p, &v, 8); }

int mgs_hostcall_new(mgs_devmem *mem, int gpu, uint32_t packets, FILE *out,
                     FILE *err, mgs_hostcall **out_hc)
{
    *out_hc = NULL;
    uint32_t n = packets + 1;   /* index 0 is the empty stack */
    uint32_t index_size = 1;
    while ((1u << index_size) < n)
        index_size++;
    uint64_t hdr_bytes = (uint64_t)n * HDR_SIZE;
    uint64_t mbox_off = BUF_SIZE + SIGNAL_SIZE;
    uint64_t hdr_off = mbox_off + MAILBOX_SIZE;
    uint64_t pay_off = (hdr_off + hdr_bytes + 4095) & ~4095ull;
    uint64_t total = pay_off + (uint64_t)n * PAYLOAD_SIZE;
    uint64_t va;
    int rc = mgs_devmem_alloc_range(mem, gpu, total, &va);
    if (rc)
        return rc;
    /* Free stack: packets n-1 -> ... -> 1 -> empty (tag 0). */
    size_t head = (size_t)(hdr_off + hdr_bytes);
    uint8_t *init = mgs_xcalloc(1, head);
    put64(init + BUF_HEADERS, va + hdr_off);
    put64(init + BUF_PAYLOADS, va + pay_off);
    put64(init + BUF_DOORBELL, va + BUF_SIZE);
    put64(init + BUF_FREE, n - 1);
    put64(init + BUF_READY, 0);
    put64(init + BUF_INDEX_MASK, (1ull << index_size) - 1);
    put64(init + BUF_SIZE, SIGNAL_KIND_USER);
    put64(init + BUF_SIZE + 16, va + mbox_off);
    put64(init + BUF_SIZE + 24, MGS_HOSTCALL_EVENT);
    for (uint32_t i = 1; i < n; i++)
        put64(init + hdr_off + (uint64_t)i * HDR_SIZE + HDR_NEXT, i - 1);
    rc = mgs_devmem_write(mem, va, init, head);
    free(init);
    if (rc) {
        mgs_devmem_free_range(mem, va);
        return rc;
    }
    mgs_hostcall *hc = MGS_NEW(mgs_hostcall);
    hc->mem = mem;
    hc->va = va;
    hc->headers = va + hdr_off;
    hc->payloads = va + pay_off;
    hc->index_size = index_size;
    hc->packets = packets;
    hc->order = mgs_xcalloc(packets, sizeof *hc->order);
    hc->out = out;
    hc->err = err;
    hc->next_id = 1;
    *out_hc = hc;
    return MGS_OK;
}

void mgs_hostcall_free(mgs_hostcall *hc)
{
    if (!hc)
        return;
    mgs_hostcall_flush(hc);
    for (size_t i = 0; i < hc->nmsgs; i++)
        free(hc->msgs[i].words);
    free(hc->msgs);
    free(hc->done);
    free(hc->order);
    free(hc);     /* the buffer goes with the device memory */
}

uint64_t mgs_hostcall_va(const mgs_hostcall *hc)
{
    return hc->va;
}

int mgs_hostcall_error(const mgs_hostcall *hc)
{
    if (hc->error)
        mgs_error_set(hc->error, "%s", hc->error_msg);
    return hc->error;
}

static void fail(mgs_hostcall *hc, int code, const char *what, uint64_t v)
{
    if (hc->error)
        return;
    hc->error = code;
    snprintf(hc->error_msg, sizeof hc->error_msg, "hostcall: %s %llu", what,
             (unsigned long long)v);
}

static message *find_message(mgs_hostcall *hc, uint64_t id)
{
    for (size_t i = 0; i < hc->nmsgs; i++)
        if (hc->msgs[i].id == id)
            return &hc->msgs[i];
    return NULL;
}

static message *open_message(mgs_hostcall *hc)
{
    if (hc->nmsgs == hc->msgs_cap) {
        hc->msgs_cap = hc->msgs_cap ? hc->msgs_cap * 2 : 16;
        hc->msgs = mgs_xrealloc(hc->msgs, hc->msgs_cap * sizeof *hc->msgs);
    }
    message *m = &hc->msgs[hc->nmsgs++];
    *m = (message){.id = hc->next_id++ & ((1ull << 56) - 1)};
    return m;
}

static void close_message(mgs_hostcall *hc, message *m)
{
    free(m->words);
    *m = hc->msgs[--hc->nmsgs];
}

static void append(message *m, const uint64_t *w, size_t n)
{
    if (m->n + n > m->cap) {
        m->cap = (m->n + n) * 2;
        m->words = mgs_xrealloc(m->words, m->cap * sizeof *m->words);
    }
    memcpy(m->words + m->n, w, n * sizeof *w);
    m->n += n;
}

/* One lane's printf call: slots in, the two return words out. */
static void serve_printf(mgs_hostcall *hc, uint64_t slot[SLOTS])
{
    uint64_t desc = slot[0];
    message *m = desc & DESC_BEGIN ? open_message(hc)
                                   : find_message(hc, DESC_ID(desc));
    if (!m) {
        fail(hc, MGS_ESIM, "printf call for an unknown message", DESC_ID(desc));
        slot[0] = slot[1] = 0;
        return;
    }
    append(m, slot + 1, DESC_LEN(desc));
    if (!(desc & DESC_END)) {
        slot[0] = m->id << 8;
        slot[1] = 0;
        return;
    }
    if (hc->ndone == hc->done_cap) {
        hc->done_cap = hc->done_cap ? hc->done_cap * 2 : 16;
        hc->done = mgs_xrealloc(hc->done, hc->done_cap * sizeof *hc->done);
    }
    slot[0] = (uint64_t)mgs_devprintf_format(m->words, m->n,
                                             &hc->done[hc->ndone++]);
    slot[1] = 0;
    close_message(hc, m);
}

void mgs_hostcall_layout_get(const mgs_hostcall *hc, mgs_hostcall_layout *l)
{
    *l = (mgs_hostcall_layout){
        .ready_stack = hc->va + BUF_READY, .headers = hc->headers,
        .payloads = hc->payloads, .index_mask = (1ull << hc->index_size) - 1,
        .packets = hc->packets};
}

int mgs_hostcall_serve(mgs_hostcall *hc, uint8_t hdr[MGS_HOSTCALL_HEADER],
                       uint64_t slots[64][8])
{
    uint64_t active;
    uint32_t service, control;
    memcpy(&active, hdr + HDR_ACTIVE, 8);
    memcpy(&service, hdr + HDR_SERVICE, 4);
    memcpy(&control, hdr + HDR_CONTROL, 4);
    if (hc->error)
        return mgs_hostcall_error(hc);
    if (service != SERVICE_PRINTF) {
        /* READY stays set: the launch stops on the error. */
        fail(hc, MGS_EUNSUPPORTED, "unsupported service", service);
        return mgs_hostcall_error(hc);
    }
    for (int lane = 0; lane < LANES; lane++)
        if (active >> lane & 1) {
            uint64_t asked[2] = {slots[lane][0], slots[lane][1]};
            serve_printf(hc, slots[lane]);
            if (mgs_hostcall_test_break == 1)
                memcpy(slots[lane], asked, sizeof asked);
        }
    if (mgs_hostcall_test_break != 2)
        control &= ~(uint32_t)CONTROL_READY;
    memcpy(hdr + HDR_CONTROL, &control, 4);
    return mgs_hostcall_error(hc);
}

/* Emu mode: serves the packet at index i in device memory. */
static void serve_packet(mgs_hostcall *hc, uint64_t i)
{
    uint8_t hdr[HDR_SIZE];
    uint64_t slots[LANES][SLOTS];
    uint64_t hva = hc->headers + i * HDR_SIZE;
    uint64_t pva = hc->payloads + i * PAYLOAD_SIZE;
    if (mgs_devmem_read(hc->mem, hva, hdr, sizeof hdr) ||
        mgs_devmem_read(hc->mem, pva, slots, sizeof slots)) {
        fail(hc, MGS_EFAULT, "unreadable packet", i);
        return;
    }
    if (mgs_hostcall_serve(hc, hdr, slots))
        return;
    if (mgs_devmem_write(hc->mem, pva, slots, sizeof slots) ||
        mgs_devmem_write(hc->mem, hva, hdr, sizeof hdr))
        fail(hc, MGS_EFAULT, "unwritable packet", i);
}

int mgs_hostcall_interrupt(void *p, uint32_t data)
{
    mgs_hostcall *hc = p;
    if (data != (MGS_HOSTCALL_EVENT & 0xff))
        return MGS_OK;      /* not our doorbell */
    uint64_t top = 0, zero = 0;
    if (!hc->error &&
        mgs_devmem_read(hc->mem, hc->va + BUF_READY, &top, 8))
        fail(hc, MGS_EFAULT, "unreadable buffer at", hc->va);
    if (hc->error || !top)
        return mgs_hostcall_error(hc);
    /* Take the whole stack (the waves are not running meanwhile). */
    if (mgs_devmem_write(hc->mem, hc->va + BUF_READY, &zero, 8))
        fail(hc, MGS_EFAULT, "unwritable buffer at", hc->va);
    uint64_t mask = (1ull << hc->index_size) - 1;
    /* The stack is LIFO: serve in the order the calls were made. */
    uint64_t *order = hc->order;
    size_t n = 0;
    for (uint64_t ptr = top; ptr & mask;) {
        uint64_t i = ptr & mask;
        if (n == hc->packets || i > hc->packets) {
            fail(hc, MGS_ESIM, "ready stack corrupt at packet", i);
            return mgs_hostcall_error(hc);
        }
        order[n++] = i;
        if (mgs_devmem_read(hc->mem, hc->headers + i * HDR_SIZE + HDR_NEXT,
                            &ptr, 8)) {
            fail(hc, MGS_EFAULT, "unreadable packet", i);
            return mgs_hostcall_error(hc);
        }
    }
    while (n && !hc->error)
        serve_packet(hc, order[--n]);
    return mgs_hostcall_error(hc);
}

void mgs_hostcall_flush(mgs_hostcall *hc)
{
    for (size_t i = 0; i < hc->ndone; i++) {
        mgs_devprintf_out *o = &hc->done[i];
        fwrite(o->text, 1, o->len, o->stream ? hc->err : hc->out);
        free(o->text);
    }
    if (hc->ndone) {
        fflush(hc->out);
        fflush(hc->err);
    }
    hc->ndone = 0;
}
