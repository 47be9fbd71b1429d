/*
** Chrome trace-event writer (trace.h). Events are streamed to the file as
** they complete; a task's start waits in a small hash table keyed by
** (component, task id, kind) until its end arrives. It lives with the
** runtime because it reads memory messages (src/mem) and runtime spans;
** the engine only offers hooks.
*/
#include "runtime/trace.h"

#include "mem/memmsg.h"
#include "mgsim/errors.h"
#include "sim/comp.h"
#include "sim/port.h"
#include "util/xmalloc.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct open_task {
    struct open_task *next;
    uint32_t comp;            /* component id */
    uint64_t id;
    const char *kind;         /* static string: compared by pointer */
    mgs_time start;
} open_task;

#define OPEN_BUCKETS 4096u

typedef struct track {
    char *name;               /* component name (copied), NULL: unused */
    int pid;
} track;

struct sim_trace {
    FILE *f;
    sim_trace_options opt;
    uint64_t events, dropped;
    open_task *open[OPEN_BUCKETS];
    open_task *free_tasks;
    track *tracks;            /* by component id */
    size_t ntracks;
    char **dispatch_name;     /* by dispatch id */
    size_t ndispatch;
    char pending[512];        /* kernels posted since the last sync */
    int max_gpu;              /* highest GPU process seen */
    sim_engine *eng;          /* attached to (hooks removed at close) */
    int hooks[3];
};

/* Runtime tracks (pid 0). */
#define PID_RUNTIME 0
#define PID_SYSTEM 1000
#define TID_KERNELS 1
#define TID_COPIES 2

static void json_str(FILE *f, const char *s)
{
    fputc('"', f);
    for (; *s; s++) {
        unsigned char c = (unsigned char)*s;
        if (c == '"' || c == '\\')
            fprintf(f, "\\%c", c);
        else if (c < 0x20)
            fprintf(f, "\\u%04x", c);
        else
            fputc(c, f);
    }
    fputc('"', f);
}

int sim_trace_open(const char *path, const sim_trace_options *o,
                   sim_trace **out)
{
    *out = NULL;
    FILE *f = fopen(path, "w");
    if (!f)
        return mgs_error_set(MGS_EIO, "--trace %s: %s", path, strerror(errno));
    sim_trace *t = MGS_NEW(sim_trace);
    t->f = f;
    if (o)
        t->opt = *o;
    if (!t->opt.max_events)
        t->opt.max_events = SIM_TRACE_DEFAULT_MAX;
    t->opt.component = t->opt.component ? mgs_xstrdup(t->opt.component) : NULL;
    t->max_gpu = -1;
    fputs("{\"displayTimeUnit\": \"ns\", \"traceEvents\": [\n", f);
    *out = t;
    return MGS_OK;
}

/* Room for one more event? Counts the dropped ones. */
static bool room(sim_trace *t)
{
    if (t->events < t->opt.max_events)
        return true;
    t->dropped++;
    return false;
}

static void begin_event(sim_trace *t)
{
    if (t->events++)
        fputs(",\n", t->f);
}

/* Microseconds with picosecond precision. */
static void put_us(FILE *f, const char *key, mgs_time ps)
{
    fprintf(f, "\"%s\": %" PRIu64 ".%06" PRIu64, key, ps / 1000000u,
            ps % 1000000u);
}

/* The process of a component: GPU[i] -> i + 1, anything else System. */
static int pid_of(sim_trace *t, const char *name)
{
    int g;
    if (sscanf(name, "GPU[%d]", &g) == 1 && g >= 0 && g < 999) {
        if (g > t->max_gpu)
            t->max_gpu = g;
        return g + 1;
    }
    return PID_SYSTEM;
}

static track *track_of(sim_trace *t, const sim_comp *c)
{
    if (c->id >= t->ntracks) {
        size_t n = t->ntracks ? t->ntracks : 64;
        while (n <= c->id)
            n *= 2;
        t->tracks = mgs_xrealloc(t->tracks, n * sizeof *t->tracks);
        memset(t->tracks + t->ntracks, 0, (n - t->ntracks) * sizeof *t->tracks);
        t->ntracks = n;
    }
    track *k = &t->tracks[c->id];
    if (!k->name) {
        k->name = mgs_xstrdup(c->name);
        k->pid = pid_of(t, c->name);
    }
    return k;
}

static void complete(sim_trace *t, const char *cat, const char *name,
                     int pid, uint64_t tid, mgs_time start, mgs_time end,
                     const char *args)
{
    if (!room(t))
        return;
    begin_event(t);
    FILE *f = t->f;
    fprintf(f, "{\"ph\": \"X\", \"cat\": \"%s\", \"name\": ", cat);
    json_str(f, name);
    fprintf(f, ", \"pid\": %d, \"tid\": %" PRIu64 ", ", pid, tid);
    put_us(f, "ts", start);
    fputs(", ", f);
    put_us(f, "dur", end >= start ? end - start : 0);
    if (args)
        fprintf(f, ", \"args\": {%s}", args);
    fputs("}", f);
}

static size_t bucket(uint32_t comp, uint64_t id)
{
    uint64_t h = (id * 0x9e3779b97f4a7c15ULL) ^ ((uint64_t)comp << 17);
    return (size_t)(h >> 52) % OPEN_BUCKETS;
}

static void task_start(sim_trace *t, const sim_comp *c, uint64_t id,
                       const char *kind, mgs_time now)
{
    open_task *o = t->free_tasks;
    if (o)
        t->free_tasks = o->next;
    else
        o = MGS_NEW(open_task);
    *o = (open_task){.comp = c->id, .id = id, .kind = kind, .start = now};
    size_t b = bucket(c->id, id);
    o->next = t->open[b];
    t->open[b] = o;
}

static void task_end(sim_trace *t, sim_comp *c, uint64_t id,
                     const char *kind, mgs_time now)
{
    size_t b = bucket(c->id, id);
    for (open_task **pp = &t->open[b]; *pp; pp = &(*pp)->next) {
        open_task *o = *pp;
        if (o->comp != c->id || o->id != id || o->kind != kind)
            continue;
        *pp = o->next;
        track *k = track_of(t, c);
        char name[200], args[96];
        if (!strcmp(kind, "kernel")) {
            const char *kn = id < t->ndispatch && t->dispatch_name[id]
                                 ? t->dispatch_name[id] : "kernel";
            snprintf(name, sizeof name, "%s", kn);
            snprintf(args, sizeof args, "\"dispatch\": %" PRIu64, id);
            complete(t, "kernel", name, k->pid, c->id + 16, o->start, now,
                     args);
        } else {
            /* cu.c's task id: x | y << 21 | z << 42 */
            snprintf(name, sizeof name, "WG %" PRIu64 ",%" PRIu64 ",%" PRIu64,
                     id & 0x1fffff, id >> 21 & 0x1fffff, id >> 42);
            complete(t, "wg", name, k->pid, c->id + 16, o->start, now, NULL);
        }
        o->next = t->free_tasks;
        t->free_tasks = o;
        return;
    }
}

static void on_task(const sim_hook_ctx *ctx, void *ud)
{
    sim_trace *t = ud;
    const char *kind = ctx->task_kind;
    if (!kind || (strcmp(kind, "kernel") && strcmp(kind, "wg")))
        return;
    if (ctx->pos == SIM_HOOK_TASK_START)
        task_start(t, ctx->comp, ctx->task_id, kind, ctx->now);
    else
        task_end(t, ctx->comp, ctx->task_id, kind, ctx->now);
}

/* A response arrived: the request's span, on the requester's track. */
static void on_recv(const sim_hook_ctx *ctx, void *ud)
{
    sim_trace *t = ud;
    uint32_t type = ctx->msg->type;
    if (type != MEM_READ_RSP && type != MEM_WRITE_RSP && type != MEM_ATOMIC_RSP)
        return;
    const mem_msg *r = (const mem_msg *)ctx->msg;
    const mem_msg *q = r->req;
    if (!q)
        return;
    if (t->opt.addr_hi && (q->addr < t->opt.addr_lo || q->addr >= t->opt.addr_hi))
        return;
    const char *from = r->base.src && r->base.src->comp
                           ? r->base.src->comp->name : "?";
    if (t->opt.component && !strstr(ctx->comp->name, t->opt.component) &&
        !strstr(from, t->opt.component))
        return;
    track *k = track_of(t, ctx->comp);
    char args[300];
    snprintf(args, sizeof args, "\"addr\": \"0x%" PRIx64 "\", \"bytes\": %u, "
             "\"from\": \"%.200s\"", q->addr, q->size, from);
    complete(t, "mem", type == MEM_READ_RSP ? "read"
                       : type == MEM_WRITE_RSP ? "write" : "atomic",
             k->pid, ctx->comp->id + 16, q->base.send_time, ctx->now, args);
}

void sim_trace_attach(sim_trace *t, sim_engine *e)
{
    t->eng = e;
    t->hooks[0] = eng_hook_add(e, SIM_HOOK_TASK_START, on_task, t);
    t->hooks[1] = eng_hook_add(e, SIM_HOOK_TASK_END, on_task, t);
    if (t->opt.mem)
        t->hooks[2] = eng_hook_add(e, SIM_HOOK_PORT_RECV, on_recv, t);
}

void sim_trace_launch(sim_trace *t, uint64_t dispatch_id, const char *name)
{
    if (dispatch_id >= t->ndispatch) {
        size_t n = t->ndispatch ? t->ndispatch : 64;
        while (n <= dispatch_id)
            n *= 2;
        t->dispatch_name = mgs_xrealloc(t->dispatch_name,
                                        n * sizeof *t->dispatch_name);
        memset(t->dispatch_name + t->ndispatch, 0,
               (n - t->ndispatch) * sizeof *t->dispatch_name);
        t->ndispatch = n;
    }
    free(t->dispatch_name[dispatch_id]);
    t->dispatch_name[dispatch_id] = mgs_xstrdup(name);
    /* Remember it for the runtime span, once per name. */
    size_t len = strlen(t->pending);
    if (!strstr(t->pending, name) && len + strlen(name) + 3 < sizeof t->pending)
        snprintf(t->pending + len, sizeof t->pending - len, "%s%s",
                 len ? ", " : "", name);
}

void sim_trace_span(sim_trace *t, const char *track, const char *name,
                    mgs_time start, mgs_time end, const char *args)
{
    complete(t, track, name, PID_RUNTIME,
             !strcmp(track, "kernels") ? TID_KERNELS : TID_COPIES, start,
             end, args);
}

void sim_trace_launches_done(sim_trace *t, mgs_time start, mgs_time end)
{
    if (!*t->pending && end == start)
        return;
    complete(t, "kernel", *t->pending ? t->pending : "release", PID_RUNTIME,
             TID_KERNELS, start, end, NULL);
    t->pending[0] = '\0';
}

static void meta(sim_trace *t, const char *what, int pid, uint64_t tid,
                 const char *name)
{
    begin_event(t);
    fprintf(t->f, "{\"ph\": \"M\", \"name\": \"%s\", \"pid\": %d, "
            "\"tid\": %" PRIu64 ", \"args\": {\"name\": ", what, pid, tid);
    json_str(t->f, name);
    fputs("}}", t->f);
}

int sim_trace_close(sim_trace *t, uint64_t *recorded, uint64_t *dropped)
{
    if (!t)
        return MGS_OK;
    for (int h = 0; t->eng && h < 3; h++)
        if (t->hooks[h] > 0)
            eng_hook_remove(t->eng, t->hooks[h]);
    uint64_t n = t->events;
    /* Names of processes and threads (not counted against the cap). */
    meta(t, "process_name", PID_RUNTIME, 0, "Runtime");
    meta(t, "thread_name", PID_RUNTIME, TID_KERNELS, "kernels");
    meta(t, "thread_name", PID_RUNTIME, TID_COPIES, "copies");
    for (int g = 0; g <= t->max_gpu; g++) {
        char name[32];
        snprintf(name, sizeof name, "GPU[%d]", g);
        meta(t, "process_name", g + 1, 0, name);
    }
    meta(t, "process_name", PID_SYSTEM, 0, "System");
    for (size_t i = 0; i < t->ntracks; i++)
        if (t->tracks[i].name)
            meta(t, "thread_name", t->tracks[i].pid, i + 16,
                 t->tracks[i].name);
    fprintf(t->f, "\n], \"otherData\": {\"generator\": \"mgsim %s\", "
            "\"events\": %" PRIu64 ", \"dropped\": %" PRIu64 "}}\n",
            MGS_VERSION, n, t->dropped);
    int rc = fclose(t->f) == 0 ? MGS_OK
                               : mgs_error_set(MGS_EIO, "--trace: cannot "
                                               "write the trace file");
    if (recorded)
        *recorded = n;
    if (dropped)
        *dropped = t->dropped;
    for (size_t b = 0; b < OPEN_BUCKETS; b++)
        while (t->open[b]) {
            open_task *o = t->open[b];
            t->open[b] = o->next;
            free(o);
        }
    while (t->free_tasks) {
        open_task *o = t->free_tasks;
        t->free_tasks = o->next;
        free(o);
    }
    for (size_t i = 0; i < t->ntracks; i++)
        free(t->tracks[i].name);
    free(t->tracks);
    for (size_t i = 0; i < t->ndispatch; i++)
        free(t->dispatch_name[i]);
    free(t->dispatch_name);
    free((char *)t->opt.component);
    free(t);
    return rc;
}
