/*
** bench_valu: cost of one wavefront instruction per instruction class, on
** the functional semantics alone (gcn_exec_valu / gcn_exec_ds called
** directly on a 64-lane wave, no run loop, no memory system).
**
** Prints one line per class:
**   BENCH valu_<name> ns_per_inst=<t> insts=<n>
**   BENCH ds_<name> ns_per_inst=<t> insts=<n>
** Each class runs the same instruction repeatedly on live registers (the
** results feed the next iteration, so nothing is optimised away); time is
** the thread's CPU time (the benchmark machines are shared), the best of
** three runs. The classes cover the full-EXEC fast paths (VOP1/VOP2,
** plain LDS forms) and the generic paths they bypass (VOP3 with
** modifiers, partial EXEC, 64-bit operands, compares), so the two can be
** compared; docs/performance.md explains how the numbers are used.
** Usage: bench_valu [iterations [pattern]]
**   iterations per class (default 200000); with a shell-style pattern
**   (fnmatch: "ds_*", "valu_mac_f32"), only the classes whose printed
**   name matches run (for callgrind: the instruction count of one class
**   divided by 3 * iterations; see docs/performance.md).
*/
#include "bench/bench_util.h"
#include "gcn3/exec.h"
#include "gcn3/inst.h"
#include "gcn3/wave.h"
#include "mgsim/errors.h"

#include <fnmatch.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define NVGPR 32
#define LDS_BYTES 65536

static uint32_t vgpr[NVGPR * GCN_WAVE_LANES];
static uint8_t lds[LDS_BYTES];

#define V(n) (GCN_OPR_VGPR0 + (n))

static gcn_inst alu(gcn_op op, gcn_fmt fmt, unsigned dst, unsigned s0,
                    unsigned s1, unsigned s2)
{
    gcn_inst in;
    memset(&in, 0, sizeof in);
    in.op = (uint16_t)op;
    in.fmt = (uint8_t)fmt;
    in.size = fmt == GCN_FMT_VOP3A || fmt == GCN_FMT_VOP3B ? 8 : 4;
    in.dst = (uint16_t)dst;
    in.src0 = (uint16_t)s0;
    in.src1 = (uint16_t)s1;
    in.src2 = (uint16_t)s2;
    in.sdst = GCN_OPR_VCC_LO;
    return in;
}

static gcn_inst ds(gcn_op op, unsigned dst, unsigned addr, unsigned d0,
                   unsigned off0, unsigned off1)
{
    gcn_inst in;
    memset(&in, 0, sizeof in);
    in.op = (uint16_t)op;
    in.fmt = GCN_FMT_DS;
    in.size = 8;
    in.dst = (uint16_t)V(dst);
    in.addr = (uint16_t)V(addr);
    in.data0 = (uint16_t)V(d0);
    in.data1 = (uint16_t)V(d0 + 1);
    in.offset = off0;
    in.offset1 = (uint8_t)off1;
    return in;
}

typedef struct bench_case {
    const char *name;        /* printed after the prefix */
    const char *prefix;      /* "valu" or "ds" */
    gcn_inst in;
    uint64_t exec;
} bench_case;

/* Registers: v0..v7 floats near 1, v8..v15 small integers, v16 tile-row
** addresses (16-lane rows), v17 row-broadcast addresses, v18 consecutive
** addresses, v19 a scattered permutation; re-initialised before each class so classes do not drift. */
static void init_state(gcn_wave *w, gcn_exec_ctx *ctx)
{
    memset(w, 0, sizeof *w);
    w->vgpr = vgpr;
    w->nvgpr = NVGPR;
    w->nsgpr = 102;
    w->exec = ~0ull;
    w->ctx = ctx;
    memset(ctx, 0, sizeof *ctx);
    ctx->lds = lds;
    ctx->lds_size = LDS_BYTES;
    for (unsigned l = 0; l < GCN_WAVE_LANES; l++) {
        for (unsigned r = 0; r < 8; r++) {
            float f = 1.0f + (float)(l + r) * 1e-3f;
            memcpy(&vgpr[r * GCN_WAVE_LANES + l], &f, 4);
        }
        for (unsigned r = 8; r < 16; r++)
            vgpr[r * GCN_WAVE_LANES + l] = l * 7 + r;
        vgpr[16 * GCN_WAVE_LANES + l] = 1024 + 4 * (l % 16);
        vgpr[17 * GCN_WAVE_LANES + l] = 64 * (l / 16);
        vgpr[18 * GCN_WAVE_LANES + l] = 4 * l;
        vgpr[19 * GCN_WAVE_LANES + l] = 4 * ((l * 37) % 64) + 512;
    }
    w->sgpr[4] = 3;
    w->vcc = 0x5555555555555555ull;
    for (size_t i = 0; i < LDS_BYTES; i++)
        lds[i] = (uint8_t)(i * 13);
}

int main(int argc, char **argv)
{
    long iters = argc > 1 ? strtol(argv[1], NULL, 0) : 200000;
    const char *only = argc > 2 ? argv[2] : NULL;
    if (iters < 1) {
        fprintf(stderr, "bench_valu: iterations must be positive\n");
        return 2;
    }
    gcn_inst neg = alu(GCN_OP_V_MUL_F32, GCN_FMT_VOP3A, V(2), V(0), V(1), 0);
    neg.neg = 1;
    gcn_inst fma = alu(GCN_OP_V_FMA_F32, GCN_FMT_VOP3A, V(2), V(0), V(1),
                       V(2));
    const bench_case cases[] = {
        /* full-EXEC VOP1/VOP2 fast path */
        {"mac_f32", "valu",
         alu(GCN_OP_V_MAC_F32, GCN_FMT_VOP2, V(2), V(0), V(1), 0), ~0ull},
        {"add_f32_sgpr", "valu",
         alu(GCN_OP_V_ADD_F32, GCN_FMT_VOP2, V(3), 4, V(3), 0), ~0ull},
        {"add_u32", "valu",
         alu(GCN_OP_V_ADD_U32, GCN_FMT_VOP2, V(8), V(9), V(8), 0), ~0ull},
        {"addc_u32", "valu",
         alu(GCN_OP_V_ADDC_U32, GCN_FMT_VOP2, V(10), GCN_OPR_ZERO, V(10),
             GCN_OPR_VCC_LO), ~0ull},
        {"mov_b32", "valu",
         alu(GCN_OP_V_MOV_B32, GCN_FMT_VOP1, V(11), V(12), 0, 0), ~0ull},
        {"lshlrev_b32", "valu",
         alu(GCN_OP_V_LSHLREV_B32, GCN_FMT_VOP2, V(13), GCN_OPR_ZERO + 1,
             V(13), 0), ~0ull},
        /* generic path */
        {"mac_f32_partial_exec", "valu",
         alu(GCN_OP_V_MAC_F32, GCN_FMT_VOP2, V(2), V(0), V(1), 0),
         0x00ffffffffffff00ull},
        {"mul_f32_vop3_neg", "valu", neg, ~0ull},
        {"fma_f32_vop3", "valu", fma, ~0ull},
        {"mad_u64_u32", "valu",
         alu(GCN_OP_V_MAD_U64_U32, GCN_FMT_VOP3B, V(20), V(8), V(9), V(20)),
         ~0ull},
        {"lshlrev_b64", "valu",
         alu(GCN_OP_V_LSHLREV_B64, GCN_FMT_VOP3A, V(22), GCN_OPR_ZERO + 2,
             V(22), 0), ~0ull},
        {"cmp_lt_f32", "valu",
         alu(GCN_OP_V_CMP_LT_F32, GCN_FMT_VOPC, 0, V(0), V(1), 0), ~0ull},
        {"cvt_f32_u32", "valu",
         alu(GCN_OP_V_CVT_F32_U32, GCN_FMT_VOP1, V(4), V(14), 0, 0), ~0ull},
        /* LDS: the mm kernel's forms (full EXEC) and a partial-EXEC one */
        {"write_b32_consecutive", "ds",
         ds(GCN_OP_DS_WRITE_B32, 0, 18, 8, 0, 0), ~0ull},
        {"read2_b32_tile_row", "ds",
         ds(GCN_OP_DS_READ2_B32, 24, 16, 0, 32, 48), ~0ull},
        {"read_b128_row_bcast", "ds",
         ds(GCN_OP_DS_READ_B128, 24, 17, 0, 16, 0), ~0ull},
        {"read_b32_gather", "ds",
         ds(GCN_OP_DS_READ_B32, 24, 19, 0, 0, 0), ~0ull},
        {"read_b32_partial_exec", "ds",
         ds(GCN_OP_DS_READ_B32, 24, 16, 0, 0, 0), 0x00ffffffffffff00ull},
    };
    gcn_wave w;
    gcn_exec_ctx ctx;
    for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++) {
        const bench_case *bc = &cases[k];
        char name[96];
        snprintf(name, sizeof name, "%s_%s", bc->prefix, bc->name);
        if (only && fnmatch(only, name, 0) != 0)
            continue;
        double best = 1e30;
        for (int rep = 0; rep < 3; rep++) {
            init_state(&w, &ctx);
            w.exec = bc->exec;
            double t0 = bench_clock_s(CLOCK_THREAD_CPUTIME_ID);
            for (long i = 0; i < iters; i++) {
                int rc = bc->in.fmt == GCN_FMT_DS ? gcn_exec_ds(&w, &bc->in)
                                                  : gcn_exec_valu(&w, &bc->in);
                if (rc != MGS_OK) {
                    fprintf(stderr, "bench_valu: %s failed: %s\n", name,
                            mgs_error_msg());
                    return 3;
                }
            }
            double t = bench_clock_s(CLOCK_THREAD_CPUTIME_ID) - t0;
            best = t < best ? t : best;
        }
        printf("BENCH %s ns_per_inst=%.1f insts=%ld\n", name,
               best * 1e9 / (double)iters, iters);
    }
    return 0;
}
