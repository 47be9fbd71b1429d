/*
** Recorded host programs (see record.h).
*/
#include "runtime/record.h"

#include <stdlib.h>
#include <string.h>

#include "mgsim/errors.h"
#include "util/xmalloc.h"

#define RECORD_FILL 0xa5      /* a d2h buffer before each iteration */

mgs_program *mgs_program_new(int gpu)
{
    mgs_program *p = MGS_NEW(mgs_program);
    p->gpu = gpu;
    return p;
}

static mgs_timing_op *add_op(mgs_program *p)
{
    if (p->nops == p->cap) {
        p->cap = p->cap ? 2 * p->cap : 8;
        p->ops = mgs_xrealloc(p->ops, p->cap * sizeof *p->ops);
        p->own = mgs_xrealloc(p->own, p->cap * sizeof *p->own);
        p->expect = mgs_xrealloc(p->expect, p->cap * sizeof *p->expect);
    }
    size_t i = p->nops++;
    memset(&p->ops[i], 0, sizeof p->ops[i]);
    p->own[i] = p->expect[i] = NULL;
    return &p->ops[i];
}

void mgs_program_add_copy(mgs_program *p, mgs_timing_copy_kind kind,
                          uint64_t dst, uint64_t src, uint64_t n)
{
    mgs_timing_op *op = add_op(p);
    size_t i = p->nops - 1;
    op->kind = MGS_TIMING_OP_COPY;
    op->copy = kind;
    op->dst = dst;
    op->src = src;
    op->n = n;
    p->copy_bytes += n;
    if (p->direct)
        return;
    if (kind == MGS_TIMING_H2D) {
        p->own[i] = mgs_xmalloc(n ? n : 1);
        memcpy(p->own[i], (const void *)(uintptr_t)src, n);
        op->src = (uint64_t)(uintptr_t)p->own[i];
    } else if (kind == MGS_TIMING_D2H) {
        p->own[i] = mgs_xmalloc(n ? n : 1);
        p->expect[i] = mgs_xmalloc(n ? n : 1);
        memcpy(p->expect[i], (const void *)(uintptr_t)dst, n);
        op->dst = (uint64_t)(uintptr_t)p->own[i];
    }
}

void mgs_program_add_launch(mgs_program *p, const gcn_emu_launch *el)
{
    mgs_timing_op *op = add_op(p);
    op->kind = MGS_TIMING_OP_LAUNCH;
    op->launch = *el;
}

int mgs_program_host(void *program, int phase)
{
    mgs_program *p = program;
    for (size_t i = 0; i < p->nops; i++) {
        if (!p->expect[i])
            continue;
        size_t n = (size_t)p->ops[i].n;
        if (phase == 0) {
            memset(p->own[i], RECORD_FILL, n);
            continue;
        }
        if (!memcmp(p->own[i], p->expect[i], n))
            continue;
        size_t k = 0;
        while (p->own[i][k] == p->expect[i][k])
            k++;
        return mgs_error_set(MGS_EVERIFY, "replay: output of copy %zu "
                             "differs from the recorded run at byte %zu",
                             i, k);
    }
    return MGS_OK;
}

void mgs_program_free(mgs_program *p)
{
    if (!p)
        return;
    for (size_t i = 0; i < p->nops; i++) {
        free(p->own[i]);
        free(p->expect[i]);
    }
    free(p->ops);
    free(p->own);
    free(p->expect);
    free(p);
}

uint64_t mgs_program_copy_bytes(const mgs_program *p)
{
    return p ? p->copy_bytes : 0;
}
