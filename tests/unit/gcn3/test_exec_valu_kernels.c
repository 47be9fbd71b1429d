/*
** Coverage check of the VALU semantics against real compiler output: every
** VOP1/VOP2/VOPC/VOP3 instruction in every kernel the build compiles (each
** kernels/NAME.hip, built by hipcc --offload-arch=gfx803 into
** MGSIM_KERNEL_DIR/NAME.hsaco) is decoded and executed on a wave with
** random registers and a random EXEC mask. None may be unsupported or fail:
** a kernel that reaches such an instruction would stop an emu run. (Values
** are checked by the per-family tests and the workloads' CPU references.)
*/
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <dirent.h>

#include <cmocka.h>

#include "gcn3/codeobj.h"
#include "gcn3/decode.h"
#include "test_exec_valu_util.h"

#define BIG_NVGPR 256   /* any VGPR an encoding can name */

static const char *kernel_dir(void)
{
    const char *d = getenv("MGSIM_KERNEL_DIR");
    return d && *d ? d : MGS_KERNEL_DIR;
}

static bool is_valu(uint8_t fmt)
{
    return fmt == GCN_FMT_VOP1 || fmt == GCN_FMT_VOP2 ||
           fmt == GCN_FMT_VOPC || fmt == GCN_FMT_VOP3A ||
           fmt == GCN_FMT_VOP3B;
}

static void randomise(gcn_wave *w, uint64_t *seed)
{
    for (size_t i = 0; i < (size_t)BIG_NVGPR * GCN_WAVE_LANES; i++)
        w->vgpr[i] = (uint32_t)tw_rand(seed);
    for (int i = 0; i < GCN_NUM_SGPRS; i++)
        w->sgpr[i] = (uint32_t)tw_rand(seed);
    w->vcc = tw_rand(seed);
    w->exec = tw_rand(seed) | 1;
    w->m0 = 0;   /* keeps v_movrel* inside the register file */
}

static void test_shipped_kernels(void **state)
{
    (void)state;
    static uint32_t regs[BIG_NVGPR * GCN_WAVE_LANES];
    gcn_wave w;
    memset(&w, 0, sizeof w);
    w.vgpr = regs;
    w.nvgpr = BIG_NVGPR;
    w.nsgpr = 102;
    uint64_t seed = 0x5DEECE66Dull;

    DIR *dir = opendir(kernel_dir());
    if (!dir)
        fail_msg("cannot open kernel directory %s (run via make test)",
                 kernel_dir());
    unsigned files = 0, executed = 0;
    bool seen[GCN_OP_COUNT] = {false};
    struct dirent *de;
    while ((de = readdir(dir)) != NULL) {
        size_t n = strlen(de->d_name);
        if (n < 6 || strcmp(de->d_name + n - 6, ".hsaco") != 0)
            continue;
        char path[1024];
        snprintf(path, sizeof path, "%s/%s", kernel_dir(), de->d_name);
        gcn_codeobj *co = NULL;
        if (gcn_codeobj_load_file(path, &co) != MGS_OK)
            fail_msg("cannot load %s", path);
        files++;
        for (size_t k = 0; k < gcn_codeobj_num_kernels(co); k++) {
            const gcn_kernel *kern = gcn_codeobj_kernel(co, k);
            size_t off = 0;
            while (off < kern->code_size) {
                gcn_inst in;
                int sz = gcn_decode(kern->code + off, kern->code_size - off,
                                    &in);
                if (sz <= 0) {   /* not ours: padding or a decoder gap */
                    off += 4;
                    continue;
                }
                off += (size_t)sz;
                if (!is_valu(in.fmt))
                    continue;
                if (executed % 32 == 0)
                    randomise(&w, &seed);
                int rc = gcn_exec_valu(&w, &in);
                if (rc != MGS_OK)
                    fail_msg("%s:%s at +0x%zx: %s returned %s (%s)", de->d_name,
                             kern->name, off - (size_t)sz,
                             gcn_op_table[in.op].mnemonic, mgs_error_name(rc),
                             mgs_error_msg());
                seen[in.op] = true;
                executed++;
                if (w.exec == 0)   /* a v_cmpx may clear it */
                    w.exec = ~0ull;
            }
        }
        gcn_codeobj_free(co);
    }
    closedir(dir);
    unsigned distinct = 0;
    for (int op = 0; op < GCN_OP_COUNT; op++)
        distinct += seen[op];
    print_message("%u code objects, %u VALU instructions, %u distinct opcodes\n",
                  files, executed, distinct);
    assert_true(files > 0);
    assert_true(executed > 100);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_shipped_kernels),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
