/*
** GCN3 (gfx803) disassembler: gcn_inst -> the text LLVM 15's
** `llvm-objdump -d --mcpu=gfx803` prints for it (without the trailing
** "// address: encoding" comment). Used by `mgsim disasm`, by error
** messages that name an instruction, and by traces. Not on a hot path.
** Operand widths (register ranges) and immediate styles come from the
** opcode's mnemonic type suffixes plus a short exception list in disasm.c;
** docs/isa.md lists what is known to differ from LLVM.
*/
#ifndef MGS_GCN3_DISASM_H
#define MGS_GCN3_DISASM_H

#include "gcn3/inst.h"

#include <stddef.h>
#include <stdint.h>

/* Writes the instruction text exactly as `llvm-objdump -d --mcpu=gfx803`
** (LLVM 15, Debian) prints it, without the trailing "// address: hex"
** comment, e.g. "v_add_u32_e32 v0, vcc, s0, v0",
** "s_load_dwordx4 s[0:3], s[6:7], 0x0", "flat_load_dword v4, v[4:5]",
** "s_cbranch_execz 25". Returns the length written (truncating safely;
** buf is always NUL-terminated when n > 0). pc = byte address of the
** instruction (unused by LLVM's gfx8 syntax, kept for branch targets). */
size_t gcn_disasm(const gcn_inst *in, uint64_t pc, char *buf, size_t n);

#endif
