/*
** Static opcode table: gcn_op_table[op] gives the mnemonic, home encoding,
** opcode number and GCN_F_* flags of every gcn_op, straight from the
** X-macro list in opcodes.def (generated from LLVM's gfx803 decoder tables
** by scripts/gen_opcodes.py). Index 0 (GCN_OP_INVALID) has the mnemonic
** "<invalid>" so printing any op never dereferences NULL.
*/
#include "gcn3/inst.h"

const gcn_op_info gcn_op_table[GCN_OP_COUNT] = {
    [GCN_OP_INVALID] = { "<invalid>", GCN_FMT_INVALID, 0, GCN_F_NONE },
#define X(name, mnem, fmt, opcode, flags) \
    [GCN_OP_##name] = { mnem, GCN_FMT_##fmt, opcode, flags },
#include "gcn3/opcodes.def"
#undef X
};
