/*
** Recorded host programs (the runtime's mgs_rt_record_begin/_end,
** include/mgsim/runtime.h; docs/pcie-scheduling.md): the timed copies and
** the launches a host program made, in order, as a list of
** mgs_timing_op that mgs_timing_replay runs again and again.
**
** Host memory: a recorded h2d copies from a snapshot of the source bytes
** taken when it was recorded; a recorded d2h writes into a buffer of the
** program's own, and the bytes the recorded run received (the program
** verified them) are kept as the expected output: after every replayed
** iteration the buffer must hold them again (mgs_program_check), and it
** is refilled with a pattern before each iteration (mgs_program_reset),
** so stale bytes cannot pass.
** Ownership: the program owns its snapshots and buffers; the launches'
** device buffers stay allocated (the runtime keeps them while recording)
** until the runtime is freed.
*/
#ifndef MGS_RUNTIME_RECORD_H
#define MGS_RUNTIME_RECORD_H

#include "mgsim/runtime.h"
#include "runtime/timing.h"

struct mgs_program {
    int gpu;
    mgs_timing_op *ops;
    size_t nops, cap;
    uint8_t **own;            /* per op: h2d source / d2h destination */
    uint8_t **expect;         /* per op: d2h expected bytes, else NULL */
    uint64_t copy_bytes;
    bool direct;              /* copies use the host addresses as given (no
                                 snapshot, no own buffer, no check) */
};

mgs_program *mgs_program_new(int gpu);
/* After a successful timed copy of the recorded program. */
void mgs_program_add_copy(mgs_program *p, mgs_timing_copy_kind kind,
                          uint64_t dst, uint64_t src, uint64_t n);
void mgs_program_add_launch(mgs_program *p, const gcn_emu_launch *el);
/* The replay's host hook: phase 0 refills the d2h buffers, phase 1
** compares them with the recorded output (MGS_EVERIFY naming the first
** differing byte). */
int mgs_program_host(void *program, int phase);

#endif
