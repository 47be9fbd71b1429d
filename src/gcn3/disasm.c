/*
** GCN3 (gfx803) disassembler producing LLVM 15's AMDGPU assembly syntax.
**
** Structure: op_sig() works out the width and immediate style of every
** operand (from the mnemonic's type suffixes, "_f64", "_u16", ..., plus an
** exception table for mixed-width ops), then one printer per encoding
** family emits "mnemonic[suffix] operands modifiers". Immediates follow
** LLVM's AMDGPUInstPrinter: a value in [-16, 64] prints as decimal, the
** bit pattern of an inline float (0.5, -4.0, 1/(2*pi) ...) as that float,
** anything else as hex; this applies to literals too, since LLVM prints
** the value, not the encoding. Verified against llvm-mc/llvm-objdump by
** tests/cli/disasm_objdump.sh and scripts/fuzz_disasm.py.
*/
#include "gcn3/disasm.h"

#include "gcn3/wave.h"

#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

/* ---- output buffer ------------------------------------------------------ */

typedef struct text {
    char *buf;
    size_t cap, len;   /* len: bytes written so far (< cap when cap > 0) */
} text;

static void put(text *t, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

static void put(text *t, const char *fmt, ...)
{
    if (t->cap == 0 || t->len + 1 >= t->cap)
        return;
    va_list ap;
    va_start(ap, fmt);
    int k = vsnprintf(t->buf + t->len, t->cap - t->len, fmt, ap);
    va_end(ap);
    if (k < 0)
        return;
    t->len += (size_t)k;
    if (t->len >= t->cap)
        t->len = t->cap - 1;
}

/* ---- operand kinds --------------------------------------------------------- */

typedef enum kind {
    K_NONE = 0,
    K_I16, K_F16,          /* 16-bit integer / half operands */
    K_B32, K_B64, K_B96, K_B128, K_B256, K_B512
} kind;

static unsigned kind_dwords(kind k)
{
    static const unsigned d[] = { 0, 1, 1, 1, 2, 3, 4, 8, 16 };
    return d[k];
}

typedef struct sig {
    kind dst, sdst, src[3];
    uint8_t fsrc;      /* bit i: source i is floating point (neg/abs apply;
                          integer sources get sext instead, or nothing) */
} sig;

/* Kind of a type token such as "f64", "u16", "i24"; K_NONE if none. */
static kind token_kind(const char *s, size_t n)
{
    if (n < 2 || !strchr("biuf", s[0]))
        return K_NONE;
    unsigned v = 0;
    for (size_t i = 1; i < n; ++i) {
        if (s[i] < '0' || s[i] > '9')
            return K_NONE;
        v = v * 10 + (unsigned)(s[i] - '0');
    }
    switch (v) {
    case 8: case 24: case 32: return K_B32;
    case 16: return s[0] == 'f' ? K_F16 : K_I16;
    case 64: return K_B64;
    default: return K_NONE;
    }
}

/* First and last type tokens of a mnemonic ("v_cvt_f64_f32" -> f64, f32);
** *last_letter gets the last token's letter ('f', 'i', 'u', 'b'). */
static void mnemonic_kinds_l(const char *m, kind *first, kind *last,
                             char *last_letter)
{
    *first = *last = K_NONE;
    *last_letter = 0;
    const char *s = m;
    while (*s) {
        const char *e = strchr(s, '_');
        size_t n = e ? (size_t)(e - s) : strlen(s);
        kind k = token_kind(s, n);
        if (k != K_NONE) {
            if (*first == K_NONE)
                *first = k;
            *last = k;
            *last_letter = s[0];
        }
        if (!e)
            break;
        s = e + 1;
    }
}

static void mnemonic_kinds(const char *m, kind *first, kind *last)
{
    char letter;
    mnemonic_kinds_l(m, first, last, &letter);
}

/* Operand kinds of op. Defaults: dst = first type token, sources = last. */
static sig op_sig(unsigned op)
{
    const gcn_op_info *info = &gcn_op_table[op];
    kind first, last;
    char letter;
    mnemonic_kinds_l(info->mnemonic, &first, &last, &letter);
    if (first == K_NONE)
        first = last = K_B32;
    bool vop = info->mnemonic[0] == 'v';
    if (!vop) {   /* scalar ops have no 16-bit operands */
        if (first == K_I16 || first == K_F16)
            first = K_B32;
        if (last == K_I16 || last == K_F16)
            last = K_B32;
    }
    sig s = { first, K_NONE, { last, last, last },
              (uint8_t)(vop && letter == 'f' ? 7 : 0) };
    if (info->fmt == GCN_FMT_VOPC) {
        s.sdst = K_B64;
        s.dst = K_NONE;
    }
    if (info->fmt == GCN_FMT_VOP3B)   /* carry / scale-flag SGPR pair */
        s.sdst = K_B64;
    switch (op) {
    /* Shifts and bit-field ops whose second operand is 32-bit. */
    case GCN_OP_S_LSHL_B64: case GCN_OP_S_LSHR_B64: case GCN_OP_S_ASHR_I64:
    case GCN_OP_S_BFE_U64: case GCN_OP_S_BFE_I64:
    case GCN_OP_S_BITCMP0_B64: case GCN_OP_S_BITCMP1_B64:
    case GCN_OP_S_RFE_RESTORE_B64:
        s.src[1] = K_B32;
        break;
    case GCN_OP_V_LDEXP_F64: case GCN_OP_V_TRIG_PREOP_F64:
    case GCN_OP_V_CMP_CLASS_F64: case GCN_OP_V_CMPX_CLASS_F64:
        s.src[1] = K_B32;
        s.fsrc = 1;
        break;
    case GCN_OP_V_LDEXP_F16:
    case GCN_OP_V_CMP_CLASS_F16: case GCN_OP_V_CMPX_CLASS_F16:
        s.src[1] = K_B32;
        s.fsrc = 1;
        break;
    case GCN_OP_V_LDEXP_F32: case GCN_OP_V_CMP_CLASS_F32:
    case GCN_OP_V_CMPX_CLASS_F32:
        s.fsrc = 1;
        break;
    case GCN_OP_V_CVT_PK_U8_F32:
        s.fsrc = 1;
        break;
    case GCN_OP_V_CVT_OFF_F32_I4: case GCN_OP_V_CVT_F32_UBYTE0:
    case GCN_OP_V_CVT_F32_UBYTE1: case GCN_OP_V_CVT_F32_UBYTE2:
    case GCN_OP_V_CVT_F32_UBYTE3:
        s.fsrc = 0;
        break;
    case GCN_OP_S_BFM_B64:
        s.src[0] = s.src[1] = K_B32;
        break;
    case GCN_OP_S_CBRANCH_G_FORK:
        s.src[0] = s.src[1] = K_B64;
        break;
    case GCN_OP_S_BITSET0_B64: case GCN_OP_S_BITSET1_B64:
        s.src[0] = K_B32;
        break;
    case GCN_OP_V_LSHLREV_B64: case GCN_OP_V_LSHRREV_B64:
    case GCN_OP_V_ASHRREV_I64:
        s.src[0] = K_B32;
        break;
    case GCN_OP_V_MAD_U64_U32: case GCN_OP_V_MAD_I64_I32:
        s.dst = K_B64;
        s.src[0] = s.src[1] = K_B32;
        s.src[2] = K_B64;
        break;
    case GCN_OP_V_QSAD_PK_U16_U8: case GCN_OP_V_MQSAD_PK_U16_U8:
        s.dst = s.src[0] = s.src[2] = K_B64;
        s.src[1] = K_B32;
        break;
    case GCN_OP_V_MQSAD_U32_U8:
        s.dst = s.src[2] = K_B128;
        s.src[0] = K_B64;
        s.src[1] = K_B32;
        break;
    case GCN_OP_V_SAD_U16:
        s.src[0] = s.src[1] = s.src[2] = K_B32;
        break;
    case GCN_OP_V_CNDMASK_B32:   /* VOP3 form takes float modifiers */
        s.src[2] = K_B64;
        s.fsrc = 3;
        break;
    case GCN_OP_V_ADD_U32: case GCN_OP_V_SUB_U32: case GCN_OP_V_SUBREV_U32:
        s.sdst = K_B64;
        break;
    case GCN_OP_V_ADDC_U32: case GCN_OP_V_SUBB_U32: case GCN_OP_V_SUBBREV_U32:
        s.sdst = K_B64;
        s.src[2] = K_B64;
        break;
    default:
        break;
    }
    return s;
}

/* ---- operand printers ---------------------------------------------------- */

static void put_range(text *t, const char *pfx, unsigned lo, unsigned n)
{
    if (n == 1)
        put(t, "%s%u", pfx, lo);
    else
        put(t, "%s[%u:%u]", pfx, lo, lo + n - 1);
}

/* Scalar register (operand code < 128 or 251..254) of n dwords. */
static void put_sreg(text *t, unsigned code, unsigned n)
{
    /* LLVM aligns SGPR/ttmp tuples down: pairs to 2, larger to 4 (it adds
    ** a "scalar reg isn't aligned" comment, which objdump text drops). */
    unsigned align = n >= 4 ? 4 : n == 2 ? 2 : 1;
    if (code < 102) {
        put_range(t, "s", code & ~(align - 1), n);
        return;
    }
    if (code >= 112 && code <= 123) {
        put_range(t, "ttmp", (code - 112) & ~(align - 1), n);
        return;
    }
    static const char *const pair[128] = {
        [102] = "flat_scratch", [104] = "xnack_mask", [106] = "vcc",
        [108] = "tba", [110] = "tma", [126] = "exec"
    };
    static const char *const single[128] = {
        [102] = "flat_scratch_lo", [103] = "flat_scratch_hi",
        [104] = "xnack_mask_lo", [105] = "xnack_mask_hi",
        [106] = "vcc_lo", [107] = "vcc_hi", [108] = "tba_lo",
        [109] = "tba_hi", [110] = "tma_lo", [111] = "tma_hi", [124] = "m0",
        [126] = "exec_lo", [127] = "exec_hi"
    };
    if (code < 128) {
        if (n >= 2 && pair[code]) {
            put(t, "%s", pair[code]);
            return;
        }
        if (n == 1 && single[code]) {
            put(t, "%s", single[code]);
            return;
        }
    }
    switch (code) {
    case 125: put(t, "null"); return;
    case 235: put(t, "src_shared_base"); return;
    case 236: put(t, "src_shared_limit"); return;
    case 237: put(t, "src_private_base"); return;
    case 238: put(t, "src_private_limit"); return;
    case 239: put(t, "src_pops_exiting_wave_id"); return;
    case GCN_OPR_VCCZ: put(t, "src_vccz"); return;
    case GCN_OPR_EXECZ: put(t, "src_execz"); return;
    case GCN_OPR_SCC: put(t, "src_scc"); return;
    case 254: put(t, "src_lds_direct"); return;
    default: put(t, "<reg%u>", code); return;
    }
}

static const char *const float_names[] = {
    "0.5", "-0.5", "1.0", "-1.0", "2.0", "-2.0", "4.0", "-4.0"
};

/* printImmediate32: integers in [-16, 64] decimal, inline floats by name. */
static void put_imm32(text *t, uint32_t v)
{
    int32_t sv = (int32_t)v;
    if (sv >= -16 && sv <= 64) {
        put(t, "%d", sv);
        return;
    }
    static const uint32_t f[8] = {
        0x3f000000u, 0xbf000000u, 0x3f800000u, 0xbf800000u,
        0x40000000u, 0xc0000000u, 0x40800000u, 0xc0800000u
    };
    for (int i = 0; i < 8; ++i) {
        if (v == f[i]) {
            put(t, "%s", float_names[i]);
            return;
        }
    }
    if (v == 0x3e22f983u)
        put(t, "0.15915494");
    else
        put(t, "0x%x", v);
}

static void put_imm64(text *t, uint64_t v)
{
    int64_t sv = (int64_t)v;
    if (sv >= -16 && sv <= 64) {
        put(t, "%lld", (long long)sv);
        return;
    }
    for (unsigned i = 0; i < 8; ++i) {
        if (v == gcn_inline_f64(GCN_OPR_F_HALF + i)) {
            put(t, "%s", float_names[i]);
            return;
        }
    }
    if (v == 0x3fc45f306dc9c882ull)
        put(t, "0.15915494309189532");
    else
        put(t, "0x%llx", (unsigned long long)v);
}

static void put_imm16(text *t, uint32_t v, bool is_float)
{
    int16_t sv = (int16_t)v;
    if (sv >= -16 && sv <= 64) {
        put(t, "%d", sv);
        return;
    }
    if (is_float) {
        static const uint16_t h[8] = {
            0x3800, 0xb800, 0x3c00, 0xbc00, 0x4000, 0xc000, 0x4400, 0xc400
        };
        for (int i = 0; i < 8; ++i) {
            if ((v & 0xffff) == h[i]) {
                put(t, "%s", float_names[i]);
                return;
            }
        }
        if ((v & 0xffff) == 0x3118) {
            put(t, "0.15915494");
            return;
        }
    }
    put(t, "0x%x", v);
}

static uint16_t f16_inline(unsigned code)
{
    static const uint16_t h[9] = {
        0x3800, 0xb800, 0x3c00, 0xbc00, 0x4000, 0xc000, 0x4400, 0xc400, 0x3118
    };
    return h[code - GCN_OPR_F_HALF];
}

/* Any source operand: register, inline constant or literal. */
static void put_src(text *t, unsigned code, kind k, uint32_t literal)
{
    unsigned n = kind_dwords(k);
    if (n == 0)
        n = 1;
    if (code >= GCN_OPR_VGPR0) {
        put_range(t, "v", code - GCN_OPR_VGPR0, n);
        return;
    }
    if (code < 128 || (code >= 251 && code <= 254) ||
        (code >= 235 && code <= 239)) {
        put_sreg(t, code, n);
        return;
    }
    if (code >= GCN_OPR_ZERO && code <= GCN_OPR_INT_NEG_LAST) {
        int v = code <= GCN_OPR_INT_POS_LAST ? (int)code - GCN_OPR_ZERO
                                             : GCN_OPR_INT_POS_LAST - (int)code;
        put(t, "%d", v);
        return;
    }
    if (code >= GCN_OPR_F_HALF && code <= GCN_OPR_F_INV2PI) {
        if (k == K_B64)
            put_imm64(t, gcn_inline_f64(code));
        else if (k == K_I16 || k == K_F16)
            put_imm16(t, f16_inline(code), k == K_F16);
        else
            put_imm32(t, gcn_inline_f32(code));
        return;
    }
    if (code == GCN_OPR_LITERAL) {
        if (k == K_B64)
            put_imm64(t, literal);
        else if (k == K_I16 || k == K_F16)
            put_imm16(t, literal & 0xffff, k == K_F16);
        else
            put_imm32(t, literal);
        return;
    }
    put(t, "<const%u>", code);
}

static bool is_reg_code(unsigned c)
{
    return c < 128 || (c >= 235 && c <= 239) || (c >= 251 && c <= 254) ||
           c >= GCN_OPR_VGPR0;
}

/* A VALU source with input modifiers. Float sources print -x, |x|, -|x|;
** integer sources print sext(x) when sext is set (SDWA sext bit, or the
** neg bit of DPP, which LLVM reads as sext for integer operands). */
static void put_vsrc_mod(text *t, const gcn_inst *in, unsigned i,
                         unsigned code, kind k, bool is_float, bool sext)
{
    if (!is_float) {
        if (sext)
            put(t, "sext(");
        put_src(t, code, k, in->literal);
        if (sext)
            put(t, ")");
        return;
    }
    bool neg = (in->neg >> i) & 1, abs = (in->abs >> i) & 1;
    /* LLVM writes neg(imm) for a negated constant without abs, because
    ** -1 is not neg(1). */
    bool imm = !is_reg_code(code);
    if (neg && imm && !abs) {
        put(t, "neg(");
        put_src(t, code, k, in->literal);
        put(t, ")");
        return;
    }
    if (neg)
        put(t, "-");
    if (abs)
        put(t, "|");
    put_src(t, code, k, in->literal);
    if (abs)
        put(t, "|");
}

/* ---- SALU ---------------------------------------------------------------- */

static const char *const hwreg_names[] = {
    [1] = "HW_REG_MODE", [2] = "HW_REG_STATUS", [3] = "HW_REG_TRAPSTS",
    [4] = "HW_REG_HW_ID", [5] = "HW_REG_GPR_ALLOC", [6] = "HW_REG_LDS_ALLOC",
    [7] = "HW_REG_IB_STS"
};

static void put_hwreg(text *t, uint32_t imm)
{
    unsigned id = imm & 0x3f, off = (imm >> 6) & 0x1f;
    unsigned size = ((imm >> 11) & 0x1f) + 1;
    put(t, "hwreg(");
    if (id < sizeof hwreg_names / sizeof *hwreg_names && hwreg_names[id])
        put(t, "%s", hwreg_names[id]);
    else
        put(t, "%u", id);
    if (off != 0 || size != 32)
        put(t, ", %u, %u", off, size);
    put(t, ")");
}

static void put_waitcnt(text *t, uint32_t imm)
{
    unsigned vm = imm & 0xf, exp = (imm >> 4) & 7, lgkm = (imm >> 8) & 0xf;
    bool all = vm == 0xf && exp == 7 && lgkm == 0xf;
    const char *sep = "";
    if (vm != 0xf || all) {
        put(t, "vmcnt(%u)", vm);
        sep = " ";
    }
    if (exp != 7 || all) {
        put(t, "%sexpcnt(%u)", sep, exp);
        sep = " ";
    }
    if (lgkm != 0xf || all)
        put(t, "%slgkmcnt(%u)", sep, lgkm);
}

/* LLVM's printSendMsg for gfx8: symbolic when id, op and stream are all
** valid, "sendmsg(id, op, stream)" when only those fields are set, else the
** raw number. */
static void put_sendmsg(text *t, uint32_t imm)
{
    unsigned msg = imm & 0xf, op = (imm >> 4) & 7, stream = (imm >> 8) & 3;
    static const char *const gs_ops[] = {
        "GS_OP_NOP", "GS_OP_CUT", "GS_OP_EMIT", "GS_OP_EMIT_CUT"
    };
    static const char *const sys_ops[] = {
        NULL, "SYSMSG_OP_ECC_ERR_INTERRUPT", "SYSMSG_OP_REG_RD",
        "SYSMSG_OP_HOST_TRAP_ACK", "SYSMSG_OP_TTRACE_PC"
    };
    bool gs = msg == 2 || msg == 3;
    bool valid_id = msg == 1 || gs || msg == 4 || msg == 15;
    bool valid_op = gs ? (op < 4 && (msg == 3 || op != 0))
                  : msg == 15 ? (op >= 1 && op <= 4) : op == 0;
    bool has_stream = gs && op != 0;
    bool valid_stream = has_stream || stream == 0;
    bool encodable = (imm & ~0x37fu) == 0;
    if (valid_id && valid_op && valid_stream) {
        static const char *const names[16] = {
            [1] = "MSG_INTERRUPT", [2] = "MSG_GS", [3] = "MSG_GS_DONE",
            [4] = "MSG_SAVEWAVE", [15] = "MSG_SYSMSG"
        };
        put(t, "sendmsg(%s", names[msg]);
        if (gs)
            put(t, ", %s", gs_ops[op]);
        else if (msg == 15)
            put(t, ", %s", sys_ops[op]);
        if (has_stream)
            put(t, ", %u", stream);
        put(t, ")");
    } else if (encodable) {
        put(t, "sendmsg(%u, %u, %u)", msg, op, stream);
    } else {
        put(t, "%u", imm);
    }
}

static void put_gpr_idx(text *t, uint32_t mask)
{
    static const char *const names[] = { "SRC0", "SRC1", "SRC2", "DST" };
    put(t, "gpr_idx(");
    const char *sep = "";
    for (int i = 0; i < 4; ++i) {
        if (mask & (1u << i)) {
            put(t, "%s%s", sep, names[i]);
            sep = ",";
        }
    }
    put(t, ")");
}

/* Sources LLVM only accepts as registers; it prints an inline constant or
** literal there as a placeholder comment. */
static bool sop_src_reg_only(unsigned op)
{
    switch (op) {
    case GCN_OP_S_SETPC_B64: case GCN_OP_S_RFE_B64:
    case GCN_OP_S_MOVRELS_B32: case GCN_OP_S_MOVRELS_B64:
    case GCN_OP_S_CBRANCH_JOIN:
        return true;
    default:
        return false;
    }
}

static void put_ssrc0(text *t, const gcn_inst *in, kind k)
{
    unsigned c = in->src0;
    bool reg = c < 128 || (c >= 235 && c <= 239) || (c >= 251 && c <= 254);
    if (!reg && sop_src_reg_only(in->op))
        put(t, "/*invalid immediate*/");
    else
        put_src(t, c, k, in->literal);
}

static void disasm_sop(text *t, const gcn_inst *in)
{
    const char *m = gcn_op_table[in->op].mnemonic;
    sig s = op_sig(in->op);
    unsigned dn = kind_dwords(s.dst);
    uint32_t imm = (uint16_t)in->simm16;
    put(t, "%s", m);
    switch (in->fmt) {
    case GCN_FMT_SOP2:
        switch (in->op) {
        case GCN_OP_S_CBRANCH_G_FORK: case GCN_OP_S_RFE_RESTORE_B64:
            put(t, " ");
            break;
        default:
            put(t, " ");
            put_sreg(t, in->dst, dn);
            put(t, ", ");
            break;
        }
        put_src(t, in->src0, s.src[0], in->literal);
        put(t, ", ");
        put_src(t, in->src1, s.src[1], in->literal);
        return;
    case GCN_FMT_SOP1:
        switch (in->op) {
        case GCN_OP_S_GETPC_B64:
            put(t, " ");
            put_sreg(t, in->dst, dn);
            return;
        case GCN_OP_S_SETPC_B64: case GCN_OP_S_RFE_B64:
        case GCN_OP_S_CBRANCH_JOIN: case GCN_OP_S_SET_GPR_IDX_IDX:
            put(t, " ");
            put_ssrc0(t, in, s.src[0]);
            return;
        default:
            put(t, " ");
            put_sreg(t, in->dst, dn);
            put(t, ", ");
            put_ssrc0(t, in, s.src[0]);
            return;
        }
    case GCN_FMT_SOPC:
        put(t, " ");
        put_src(t, in->src0, s.src[0], in->literal);
        put(t, ", ");
        if (in->op == GCN_OP_S_SET_GPR_IDX_ON && in->src1 > 15)
            put(t, "0x%x", in->src1);
        else if (in->op == GCN_OP_S_SET_GPR_IDX_ON)
            put_gpr_idx(t, in->src1);
        else
            put_src(t, in->src1, s.src[1], in->literal);
        return;
    case GCN_FMT_SOPK:
        put(t, " ");
        switch (in->op) {
        case GCN_OP_S_GETREG_B32:
            put_sreg(t, in->dst, 1);
            put(t, ", ");
            put_hwreg(t, imm);
            return;
        case GCN_OP_S_SETREG_B32:
            put_hwreg(t, imm);
            put(t, ", ");
            put_sreg(t, in->dst, 1);
            return;
        case GCN_OP_S_SETREG_IMM32_B32:
            put_hwreg(t, imm);
            put(t, ", ");
            put_imm32(t, in->literal);
            return;
        case GCN_OP_S_CBRANCH_I_FORK:
            put_sreg(t, in->dst, 2);
            put(t, ", %u", imm);
            return;
        default:
            put_sreg(t, in->dst, 1);
            put(t, ", 0x%x", imm);
            return;
        }
    default: /* SOPP */
        switch (in->op) {
        case GCN_OP_S_ENDPGM:   /* the operand is printed only when set */
            if (imm)
                put(t, " %u", imm);
            return;
        case GCN_OP_S_BARRIER: case GCN_OP_S_WAKEUP:
        case GCN_OP_S_ICACHE_INV: case GCN_OP_S_TTRACEDATA:
        case GCN_OP_S_ENDPGM_SAVED: case GCN_OP_S_SET_GPR_IDX_OFF:
            return;
        case GCN_OP_S_WAITCNT:
            put(t, " ");
            put_waitcnt(t, imm);
            return;
        case GCN_OP_S_SENDMSG: case GCN_OP_S_SENDMSGHALT:
            put(t, " ");
            put_sendmsg(t, imm);
            return;
        case GCN_OP_S_SET_GPR_IDX_MODE:
            put(t, " ");
            if (imm > 15)
                put(t, "0x%x", imm);
            else
                put_gpr_idx(t, imm);
            return;
        case GCN_OP_S_BRANCH: case GCN_OP_S_CBRANCH_SCC0:
        case GCN_OP_S_CBRANCH_SCC1: case GCN_OP_S_CBRANCH_VCCZ:
        case GCN_OP_S_CBRANCH_VCCNZ: case GCN_OP_S_CBRANCH_EXECZ:
        case GCN_OP_S_CBRANCH_EXECNZ: case GCN_OP_S_CBRANCH_CDBGSYS:
        case GCN_OP_S_CBRANCH_CDBGUSER: case GCN_OP_S_CBRANCH_CDBGSYS_OR_USER:
        case GCN_OP_S_CBRANCH_CDBGSYS_AND_USER:
            put(t, " %u", imm);   /* LLVM prints the raw unsigned offset */
            return;
        default:
            put(t, " ");
            put_imm16(t, imm, false);
            return;
        }
    }
}

static void disasm_smem(text *t, const gcn_inst *in)
{
    const char *m = gcn_op_table[in->op].mnemonic;
    put(t, "%s", m);
    switch (in->op) {
    case GCN_OP_S_DCACHE_INV: case GCN_OP_S_DCACHE_WB:
    case GCN_OP_S_DCACHE_INV_VOL: case GCN_OP_S_DCACHE_WB_VOL:
        return;
    case GCN_OP_S_MEMTIME: case GCN_OP_S_MEMREALTIME:
        put(t, " ");
        put_sreg(t, in->data0, 2);
        return;
    default:
        break;
    }
    unsigned n = 1;
    const char *x = strstr(m, "dwordx");
    if (x)
        n = (unsigned)(x[6] - '0') * (x[7] == '6' ? 10 : 1) +
            (x[7] == '6' ? 6 : 0);
    bool buffer = strstr(m, "buffer") != NULL;
    put(t, " ");
    if (in->op == GCN_OP_S_ATC_PROBE || in->op == GCN_OP_S_ATC_PROBE_BUFFER)
        put_imm32(t, in->data0);
    else
        put_sreg(t, in->data0, n);
    put(t, ", ");
    put_sreg(t, in->addr, buffer ? 4 : 2);
    put(t, ", ");
    if (in->imm)
        put(t, "0x%x", in->offset);
    else
        put_sreg(t, in->soffset, 1);
    if (in->glc && in->op != GCN_OP_S_ATC_PROBE &&
        in->op != GCN_OP_S_ATC_PROBE_BUFFER)
        put(t, " glc");
}

/* ---- VALU ---------------------------------------------------------------- */

static const char *const sdwa_sel[] = {
    "BYTE_0", "BYTE_1", "BYTE_2", "BYTE_3", "WORD_0", "WORD_1", "DWORD", "7"
};
static const char *const sdwa_unused[] = {
    "UNUSED_PAD", "UNUSED_SEXT", "UNUSED_PRESERVE", "3"
};

static void put_dpp(text *t, const gcn_inst *in)
{
    unsigned c = in->dpp_ctrl;
    if (c <= 0xff)
        put(t, " quad_perm:[%u,%u,%u,%u]", c & 3, (c >> 2) & 3, (c >> 4) & 3,
            (c >> 6) & 3);
    else if (c >= 0x101 && c <= 0x10f)
        put(t, " row_shl:%u", c & 0xf);
    else if (c >= 0x111 && c <= 0x11f)
        put(t, " row_shr:%u", c & 0xf);
    else if (c >= 0x121 && c <= 0x12f)
        put(t, " row_ror:%u", c & 0xf);
    else if (c == 0x130)
        put(t, " wave_shl:1");
    else if (c == 0x134)
        put(t, " wave_rol:1");
    else if (c == 0x138)
        put(t, " wave_shr:1");
    else if (c == 0x13c)
        put(t, " wave_ror:1");
    else if (c == 0x140)
        put(t, " row_mirror");
    else if (c == 0x141)
        put(t, " row_half_mirror");
    else if (c == 0x142)
        put(t, " row_bcast:15");
    else if (c == 0x143)
        put(t, " row_bcast:31");
    else
        put(t, " /* Invalid dpp_ctrl value */");
    put(t, " row_mask:0x%x bank_mask:0x%x", in->dpp_row_mask,
        in->dpp_bank_mask);
    if (in->dpp_bound_ctrl)
        put(t, " bound_ctrl:1");
}

static void put_sdwa_src(text *t, const gcn_inst *in, unsigned i,
                         unsigned code, kind k, bool is_float)
{
    bool sext = i == 0 ? in->sdwa_src0_sext : in->sdwa_src1_sext;
    if (is_float && sext) {   /* both: LLVM prints sext around the mods */
        put(t, "sext(");
        put_vsrc_mod(t, in, i, code, k, true, false);
        put(t, ")");
        return;
    }
    put_vsrc_mod(t, in, i, code, k, is_float, sext);
}

static bool vop_has_mods(const gcn_inst *in)
{
    return gcn_op_table[in->op].flags & GCN_F_FLOAT;
}

/* A constant in a register-only slot, with the slot's modifiers, as LLVM
** prints it (the placeholder counts as an immediate: neg() form). */
static void put_invalid_mod(text *t, const gcn_inst *in, unsigned i)
{
    bool neg = (in->neg >> i) & 1, abs = (in->abs >> i) & 1;
    if (neg && !abs) {
        put(t, "neg(/*invalid immediate*/)");
        return;
    }
    put(t, "%s%s/*invalid immediate*/%s", neg ? "-" : "", abs ? "|" : "",
        abs ? "|" : "");
}

/* VOP3-only f16 interpolation: vdst, src1 (vsrc), attrN.c (src0 field),
** [src2]. */
static void disasm_interp_f16(text *t, const gcn_inst *in)
{
    static const char chan[] = "xyzw";
    put(t, "%s ", gcn_op_table[in->op].mnemonic);
    put_src(t, in->dst, K_B32, 0);
    put(t, ", ");
    if (!is_reg_code(in->src1))
        put_invalid_mod(t, in, 1);
    else
        put_vsrc_mod(t, in, 1, in->src1, K_F16, true, false);
    put(t, ", attr%u.%c", in->src0 & 0x3f, chan[(in->src0 >> 6) & 3]);
    if (in->op != GCN_OP_V_INTERP_P1LL_F16) {
        put(t, ", ");
        if (!is_reg_code(in->src2))
            put_invalid_mod(t, in, 2);
        else
            put_vsrc_mod(t, in, 2, in->src2, K_F16, true, false);
    }
    if (in->src0 & 0x100)    /* "high": read the high half of the attr */
        put(t, " high");
    if (in->clamp)
        put(t, " clamp");
    if (in->omod)
        put(t, " %s", in->omod == 1 ? "mul:2" : in->omod == 2 ? "mul:4"
                                                              : "div:2");
}

static void disasm_valu(text *t, const gcn_inst *in)
{
    if (in->op == GCN_OP_V_INTERP_P1LL_F16 ||
        in->op == GCN_OP_V_INTERP_P1LV_F16 ||
        in->op == GCN_OP_V_INTERP_P2_F16) {
        disasm_interp_f16(t, in);
        return;
    }
    const gcn_op_info *info = &gcn_op_table[in->op];
    sig s = op_sig(in->op);
    unsigned home = info->fmt;
    bool vop3 = in->fmt == GCN_FMT_VOP3A || in->fmt == GCN_FMT_VOP3B;
    bool promoted = vop3 && (home == GCN_FMT_VOP1 || home == GCN_FMT_VOP2 ||
                             home == GCN_FMT_VOPC);
    unsigned nsrc = home == GCN_FMT_VOP1 ? 1 : 2;
    if (home == GCN_FMT_VOP3A || home == GCN_FMT_VOP3B) {
        nsrc = 3;
        switch (in->op) {   /* two-source native VOP3 ops */
        case GCN_OP_V_ADD_F64: case GCN_OP_V_MUL_F64: case GCN_OP_V_MIN_F64:
        case GCN_OP_V_MAX_F64: case GCN_OP_V_LDEXP_F64:
        case GCN_OP_V_MUL_LO_U32: case GCN_OP_V_MUL_HI_U32:
        case GCN_OP_V_MUL_HI_I32: case GCN_OP_V_LDEXP_F32:
        case GCN_OP_V_READLANE_B32: case GCN_OP_V_WRITELANE_B32:
        case GCN_OP_V_BCNT_U32_B32: case GCN_OP_V_MBCNT_LO_U32_B32:
        case GCN_OP_V_MBCNT_HI_U32_B32: case GCN_OP_V_LSHLREV_B64:
        case GCN_OP_V_LSHRREV_B64: case GCN_OP_V_ASHRREV_I64:
        case GCN_OP_V_TRIG_PREOP_F64: case GCN_OP_V_BFM_B32:
        case GCN_OP_V_CVT_PKNORM_I16_F32: case GCN_OP_V_CVT_PKNORM_U16_F32:
        case GCN_OP_V_CVT_PKRTZ_F16_F32: case GCN_OP_V_CVT_PK_U16_U32:
        case GCN_OP_V_CVT_PK_I16_I32:
            nsrc = 2;
            break;
        default:
            break;
        }
    }
    bool carry_in = in->op == GCN_OP_V_ADDC_U32 ||
                    in->op == GCN_OP_V_SUBB_U32 ||
                    in->op == GCN_OP_V_SUBBREV_U32;
    bool mods = vop_has_mods(in);
    bool reg_only = in->op == GCN_OP_V_READFIRSTLANE_B32 ||
                    in->op == GCN_OP_V_MOVRELS_B32 ||
                    in->op == GCN_OP_V_MOVRELSD_B32;
    bool madk = in->op == GCN_OP_V_MADMK_F32 || in->op == GCN_OP_V_MADAK_F32 ||
                in->op == GCN_OP_V_MADMK_F16 || in->op == GCN_OP_V_MADAK_F16;
    if (madk)
        nsrc = 3;

    put(t, "%s", info->mnemonic);
    if (in->ext == GCN_EXT_SDWA) {
        if (home != GCN_FMT_VOPC)   /* LLVM prints VOPC SDWA unsuffixed */
            put(t, "_sdwa");
    } else if (in->ext == GCN_EXT_DPP)
        put(t, "_dpp");
    else if (promoted || home == GCN_FMT_VINTRP)
        put(t, vop3 ? "_e64" : "_e32");
    else if (!vop3) {
        switch (in->op) {
        case GCN_OP_V_NOP: case GCN_OP_V_CLREXCP:
        case GCN_OP_V_READFIRSTLANE_B32: case GCN_OP_V_MADMK_F32:
        case GCN_OP_V_MADAK_F32: case GCN_OP_V_MADMK_F16:
        case GCN_OP_V_MADAK_F16:
            break;
        default:
            put(t, "_e32");
            break;
        }
    }
    if (in->op == GCN_OP_V_NOP || in->op == GCN_OP_V_CLREXCP)
        return;

    /* Destinations. */
    const char *sep = " ";
    if (home == GCN_FMT_VOPC) {
        put(t, "%s", sep);
        if (vop3 && !is_reg_code(in->sdst))
            put(t, "/*invalid immediate*/");
        else if (vop3)
            put_sreg(t, in->sdst, 2);
        else
            put(t, "vcc");
        sep = ", ";
    } else {
        put(t, "%s", sep);
        if (!is_reg_code(in->dst))
            put(t, "/*invalid immediate*/");
        else
            put_src(t, in->dst, s.dst, 0);
        sep = ", ";
        if (s.sdst != K_NONE) {
            put(t, ", ");
            if (vop3)
                put_sreg(t, in->sdst, 2);
            else
                put(t, "vcc");
        }
    }

    /* Sources. */
    const uint16_t srcs[3] = { in->src0, in->src1, in->src2 };
    for (unsigned i = 0; i < nsrc; ++i) {
        put(t, "%s", sep);
        bool fl = (s.fsrc >> i) & 1;
        bool k_slot = i == ((in->op == GCN_OP_V_MADMK_F32 ||
                             in->op == GCN_OP_V_MADMK_F16) ? 1u : 2u);
        if (madk && k_slot)
            put(t, "0x%x", in->literal);    /* K: always raw hex */
        else if (reg_only && !is_reg_code(srcs[i]))
            put(t, "/*invalid immediate*/");
        else if (in->ext == GCN_EXT_SDWA)
            put_sdwa_src(t, in, i, srcs[i], s.src[i], fl);
        else if (in->ext == GCN_EXT_DPP && in->op == GCN_OP_V_CNDMASK_B32)
            put_src(t, srcs[i], s.src[i], in->literal);
        else if (in->ext == GCN_EXT_DPP)
            put_vsrc_mod(t, in, i, srcs[i], s.src[i], fl,
                         ((in->neg >> i) & 1) &&
                         in->op != GCN_OP_V_CNDMASK_B32);
        else if (vop3 && i == 2 && in->op == GCN_OP_V_MQSAD_U32_U8 &&
                 !is_reg_code(srcs[i]))   /* 128-bit: no constants */
            put(t, "/*invalid immediate*/");
        else if (vop3 && i == 2 && in->op == GCN_OP_V_CNDMASK_B32)
            break;   /* the mask, printed below */
        else if (vop3)   /* ops with any float source have mods on all */
            put_vsrc_mod(t, in, i, srcs[i], s.src[i], fl,
                         s.fsrc && ((in->neg >> i) & 1));
        else
            put_src(t, srcs[i], s.src[i], in->literal);
    }
    if (!vop3 && (carry_in || in->op == GCN_OP_V_CNDMASK_B32))
        put(t, ", vcc");
    else if (vop3 && (carry_in || in->op == GCN_OP_V_CNDMASK_B32)) {
        put(t, ", ");
        if (!is_reg_code(in->src2))
            put(t, "/*invalid immediate*/");
        else
            put_src(t, in->src2, K_B64, 0);
    }

    /* Modifiers. */
    if (vop3) {
        if (in->clamp)
            put(t, " clamp");
        if (mods && in->omod)
            put(t, " %s", in->omod == 1 ? "mul:2" : in->omod == 2 ? "mul:4"
                                                                  : "div:2");
    } else if (in->ext == GCN_EXT_SDWA) {
        if (in->clamp)
            put(t, " clamp");
        if (home != GCN_FMT_VOPC)
            put(t, " dst_sel:%s dst_unused:%s", sdwa_sel[in->sdwa_dst_sel],
                sdwa_unused[in->sdwa_dst_unused]);
        put(t, " src0_sel:%s", sdwa_sel[in->sdwa_src0_sel]);
        if (home != GCN_FMT_VOP1)
            put(t, " src1_sel:%s", sdwa_sel[in->sdwa_src1_sel]);
    } else if (in->ext == GCN_EXT_DPP) {
        put_dpp(t, in);
    }
}

static void disasm_vintrp(text *t, const gcn_inst *in)
{
    static const char chan[] = "xyzw";
    static const char *const param[] = { "p10", "p20", "p0" };
    bool vop3 = in->fmt != GCN_FMT_VINTRP;
    put(t, "%s%s ", gcn_op_table[in->op].mnemonic, vop3 ? "_e64" : "_e32");
    put_src(t, in->dst, K_B32, 0);
    put(t, ", ");
    if (in->op == GCN_OP_V_INTERP_MOV_F32 && in->src0 < 3)
        put(t, "%s", param[in->src0]);
    else if (in->op == GCN_OP_V_INTERP_MOV_F32)
        put(t, "invalid_param_%u", in->src0);
    else
        put_src(t, in->src0, K_B32, 0);
    put(t, ", attr%u.%c", in->offset, chan[in->offset1 & 3]);
}

/* ---- memory -------------------------------------------------------------- */

/* Data dwords of a memory op from its mnemonic ("_dwordx4", "_b64" ...). */
static unsigned mem_dwords(const char *m)
{
    const char *x = strstr(m, "dwordx");
    if (x)
        return (unsigned)(x[6] - '0');
    if (strstr(m, "_x2"))
        return 2;
    kind first, last;
    mnemonic_kinds(m, &first, &last);
    if (strstr(m, "b128"))
        return 4;
    if (strstr(m, "b96"))
        return 3;
    return last == K_B64 ? 2 : 1;
}

/* ds_swizzle_b32 offset as LLVM's printSwizzle writes it. */
static void put_swizzle(text *t, uint32_t imm)
{
    if (imm == 0)
        return;
    put(t, " offset:");
    if ((imm & 0xff00) == 0x8000) {
        put(t, "swizzle(QUAD_PERM,%u,%u,%u,%u)", imm & 3, (imm >> 2) & 3,
            (imm >> 4) & 3, (imm >> 6) & 3);
        return;
    }
    if (imm & 0x8000) {
        put(t, "%u", imm);
        return;
    }
    unsigned and_m = imm & 0x1f, or_m = (imm >> 5) & 0x1f;
    unsigned xor_m = (imm >> 10) & 0x1f;
    unsigned group = 0x1f - and_m + 1;
    if (and_m == 0x1f && or_m == 0 && __builtin_popcount(xor_m) == 1) {
        put(t, "swizzle(SWAP,%u)", xor_m);
    } else if (and_m == 0x1f && or_m == 0 && xor_m > 0 &&
               ((xor_m + 1) & xor_m) == 0) {
        put(t, "swizzle(REVERSE,%u)", xor_m + 1);
    } else if (group > 1 && (group & (group - 1)) == 0 && or_m < group &&
               xor_m == 0) {
        put(t, "swizzle(BROADCAST,%u,%u)", group, or_m);
    } else {
        unsigned p0 = (0 | or_m) ^ xor_m, p1 = ((0x1f & and_m) | or_m) ^ xor_m;
        put(t, "swizzle(BITMASK_PERM,\"");
        for (unsigned b = 0x10; b; b >>= 1) {
            bool a = p0 & b, c = p1 & b;
            put(t, "%c", a && c ? '1' : !a && !c ? '0' : !a ? 'p' : 'i');
        }
        put(t, "\")");
    }
}

static void disasm_ds(text *t, const gcn_inst *in)
{
    const char *m = gcn_op_table[in->op].mnemonic;
    unsigned n = mem_dwords(m);
    bool two = strstr(m, "read2") || strstr(m, "write2") ||
               strstr(m, "wrxchg2");
    bool rtn = strstr(m, "_rtn_") || strncmp(m, "ds_read", 7) == 0 ||
               in->op == GCN_OP_DS_SWIZZLE_B32 ||
               in->op == GCN_OP_DS_PERMUTE_B32 ||
               in->op == GCN_OP_DS_BPERMUTE_B32 ||
               in->op == GCN_OP_DS_APPEND || in->op == GCN_OP_DS_CONSUME;
    bool src2 = strstr(m, "_src2_") != NULL;
    bool noaddr = in->op == GCN_OP_DS_APPEND || in->op == GCN_OP_DS_CONSUME;
    unsigned ndata = 0;
    if (strncmp(m, "ds_read", 7) == 0 || noaddr || src2 ||
        in->op == GCN_OP_DS_SWIZZLE_B32 || in->op == GCN_OP_DS_NOP)
        ndata = 0;
    else if (two || strstr(m, "cmpst") || strstr(m, "mskor") ||
             strstr(m, "wrap")) {
        ndata = 2;
    }
    else
        ndata = 1;
    unsigned rn = n * (two && rtn ? 2 : 1);
    if (in->op == GCN_OP_DS_CONDXCHG32_RTN_B64)
        rn = 2;

    put(t, "%s", m);
    if (in->op == GCN_OP_DS_NOP)
        goto flags;
    put(t, " ");
    const char *sep = "";
    if (rtn) {
        put_range(t, "v", in->dst - GCN_OPR_VGPR0, rn);
        sep = ", ";
    }
    if (!noaddr) {
        put(t, "%s", sep);
        put_range(t, "v", in->addr - GCN_OPR_VGPR0, 1);
        sep = ", ";
    }
    if (ndata >= 1) {
        put(t, "%s", sep);
        put_range(t, "v", in->data0 - GCN_OPR_VGPR0, n);
    }
    if (ndata >= 2) {
        put(t, ", ");
        put_range(t, "v", in->data1 - GCN_OPR_VGPR0, n);
    }
flags:
    if (two) {
        if (in->offset)
            put(t, " offset0:%u", in->offset);
        if (in->offset1)
            put(t, " offset1:%u", in->offset1);
    } else if (in->op == GCN_OP_DS_SWIZZLE_B32) {
        put_swizzle(t, in->offset);
    } else if (in->offset) {
        put(t, " offset:%u", in->offset);
    }
    if (in->gds)
        put(t, " gds");
}

static void disasm_flat(text *t, const gcn_inst *in)
{
    const char *m = gcn_op_table[in->op].mnemonic;
    unsigned n = mem_dwords(m);
    bool atomic = strstr(m, "atomic") != NULL;
    bool store = strstr(m, "store") != NULL;
    bool cmpswap = strstr(m, "cmpswap") != NULL;
    put(t, "%s ", m);
    if (!store && (!atomic || in->glc)) {
        put_range(t, "v", in->dst - GCN_OPR_VGPR0, n);
        put(t, ", ");
    }
    put_range(t, "v", in->addr - GCN_OPR_VGPR0, 2);
    if (store || atomic) {
        put(t, ", ");
        put_range(t, "v", in->data0 - GCN_OPR_VGPR0, cmpswap ? 2 * n : n);
    }
    if (in->glc)
        put(t, " glc");
    if (in->slc)
        put(t, " slc");
    /* FLAT tfe (bit 55) is not printed by LLVM 15. */
}

/* MTBUF format:[dfmt,nfmt], each part only when not the default
** (BUF_DATA_FORMAT_8, BUF_NUM_FORMAT_UNORM), as LLVM prints it. */
static void put_buf_format(text *t, unsigned dfmt, unsigned nfmt)
{
    static const char *const dn[16] = {
        "INVALID", "8", "16", "8_8", "32", "16_16", "10_11_11", "11_11_10",
        "10_10_10_2", "2_10_10_10", "8_8_8_8", "32_32", "16_16_16_16",
        "32_32_32", "32_32_32_32", "RESERVED_15"
    };
    static const char *const nn[8] = {
        "UNORM", "SNORM", "USCALED", "SSCALED", "UINT", "SINT", "RESERVED_6",
        "FLOAT"
    };
    if (dfmt == 1 && nfmt == 0)
        return;
    put(t, " format:[");
    if (dfmt != 1)
        put(t, "BUF_DATA_FORMAT_%s%s", dn[dfmt & 15], nfmt != 0 ? "," : "");
    if (nfmt != 0)
        put(t, "BUF_NUM_FORMAT_%s", nn[nfmt & 7]);
    put(t, "]");
}

static void disasm_mubuf(text *t, const gcn_inst *in)
{
    const char *m = gcn_op_table[in->op].mnemonic;
    put(t, "%s", m);
    if (in->op == GCN_OP_BUFFER_WBINVL1 || in->op == GCN_OP_BUFFER_WBINVL1_VOL)
        return;
    unsigned n = mem_dwords(m);
    const char *f = strstr(m, "format_");
    if (f) {
        const char *c = strrchr(m, '_') + 1;
        n = (unsigned)strlen(c);   /* gfx803 d16 is unpacked: 1 reg each */
    }
    if (strstr(m, "cmpswap"))
        n *= 2;
    put(t, " ");
    if (!in->lds) {   /* lds loads write LDS, not VGPRs */
        put_range(t, "v", in->data0 - GCN_OPR_VGPR0, n);
        put(t, ", ");
    }
    if (in->offen && in->idxen)
        put_range(t, "v", in->addr - GCN_OPR_VGPR0, 2);
    else if (in->offen || in->idxen)
        put_range(t, "v", in->addr - GCN_OPR_VGPR0, 1);
    else
        put(t, "off");
    put(t, ", ");
    put_sreg(t, in->srsrc, 4);
    put(t, ", ");
    put_src(t, in->soffset, K_B32, 0);
    if (in->fmt == GCN_FMT_MTBUF)
        put_buf_format(t, in->dfmt, in->nfmt);
    if (in->idxen)
        put(t, " idxen");
    if (in->offen)
        put(t, " offen");
    if (in->offset)
        put(t, " offset:%u", in->offset);
    if (in->glc)
        put(t, " glc");
    if (in->slc)
        put(t, " slc");
    if (in->lds)
        put(t, " lds");
    else if (in->tfe && !strstr(m, "atomic"))   /* atomics: not printed */
        put(t, " tfe");
}

static void disasm_mimg(text *t, const gcn_inst *in)
{
    const char *m = gcn_op_table[in->op].mnemonic;
    unsigned n = (unsigned)__builtin_popcount(in->dmask);
    if (n == 0)
        n = 1;
    if (strncmp(m, "image_gather4", 13) == 0)
        n = 4;   /* gather4 always returns four texels */
    if (strncmp(m, "image_atomic", 12) == 0) {
        /* LLVM has 1-2 register variants (2 or 4 for cmpswap) and falls
        ** back to the smallest one for any other dmask/tfe size. */
        bool cmp = strstr(m, "cmpswap") != NULL;
        unsigned k = n + (in->tfe ? 1 : 0);
        n = (cmp ? (k == 2 || k == 4) : (k <= 2)) ? k : (cmp ? 2 : 1);
    } else if (in->tfe) {
        n += 1;
    }
    if (in->data0 - GCN_OPR_VGPR0 + n > 256)   /* LLVM keeps the 1-reg form */
        n = 1;
    put(t, "%s ", m);
    put_range(t, "v", in->data0 - GCN_OPR_VGPR0, n);
    put(t, ", ");
    /* LLVM 15's disassembler prints the first (smallest) address variant
    ** of its tables; approximated here, see docs/isa.md. */
    unsigned na = 1;
    if (strncmp(m, "image_sample", 12) == 0 ||
        strncmp(m, "image_gather4", 13) == 0) {
        /* +1 per extra argument kind that survives in the smallest
        ** variant: compare (c), offset (o), bias (b), derivative (d/cd). */
        for (const char *p = strchr(m + 6, '_'); p; p = strchr(p + 1, '_')) {
            size_t k = strcspn(p + 1, "_");
            if ((k == 1 && strchr("cobd", p[1])) ||
                (k == 2 && strncmp(p + 1, "cd", 2) == 0))
                ++na;
        }
    }
    put_range(t, "v", in->addr - GCN_OPR_VGPR0, na);
    put(t, ", ");
    put_sreg(t, in->srsrc, 8);
    if (strstr(m, "sample") || strstr(m, "gather") || strstr(m, "get_lod")) {
        put(t, ", ");
        put_sreg(t, in->soffset, 4);
    }
    if (in->dmask)
        put(t, " dmask:0x%x", in->dmask);
    if (in->unorm)
        put(t, " unorm");
    if (in->glc)
        put(t, " glc");
    if (in->slc)
        put(t, " slc");
    if (in->r128)
        put(t, " r128");
    if (in->tfe)
        put(t, " tfe");
    if (in->lwe)
        put(t, " lwe");
    if (in->da)
        put(t, " da");
}

static void disasm_exp(text *t, const gcn_inst *in)
{
    unsigned tgt = in->offset;
    put(t, "exp ");   /* target, then the four sources */
    if (tgt <= 7)
        put(t, "mrt%u", tgt);
    else if (tgt == 8)
        put(t, "mrtz");
    else if (tgt == 9)
        put(t, "null");
    else if (tgt >= 12 && tgt <= 15)
        put(t, "pos%u", tgt - 12);
    else if (tgt >= 32 && tgt <= 63)
        put(t, "param%u", tgt - 32);
    else
        put(t, "invalid_target_%u", tgt);
    /* compr packs two halves per register: slots 0-1 read vsrc0, 2-3
    ** read vsrc1. */
    const uint16_t v[4] = { in->src0, in->src1, in->src2, in->data0 };
    for (int i = 0; i < 4; ++i) {
        unsigned r = in->lwe ? v[i / 2] : v[i];
        const char *sep = i ? ", " : " ";
        if (in->dmask & (1u << i))
            put(t, "%sv%u", sep, r - GCN_OPR_VGPR0);
        else
            put(t, "%soff", sep);
    }
    if (in->glc)
        put(t, " done");
    if (in->lwe)
        put(t, " compr");
    if (in->da)
        put(t, " vm");
}

size_t gcn_disasm(const gcn_inst *in, uint64_t pc, char *buf, size_t n)
{
    (void)pc;
    text t = { buf, n, 0 };
    if (n > 0)
        buf[0] = '\0';
    if (in->op == GCN_OP_INVALID || in->op >= GCN_OP_COUNT) {
        put(&t, ".long 0x%08x", in->word0);
        return t.len;
    }
    switch (in->fmt) {
    case GCN_FMT_SOP2: case GCN_FMT_SOPK: case GCN_FMT_SOP1:
    case GCN_FMT_SOPC: case GCN_FMT_SOPP:
        disasm_sop(&t, in);
        break;
    case GCN_FMT_SMEM: disasm_smem(&t, in); break;
    case GCN_FMT_VINTRP: disasm_vintrp(&t, in); break;
    case GCN_FMT_VOP2: case GCN_FMT_VOP1: case GCN_FMT_VOPC:
    case GCN_FMT_VOP3A: case GCN_FMT_VOP3B:
        if (gcn_op_table[in->op].fmt == GCN_FMT_VINTRP)
            disasm_vintrp(&t, in);
        else
            disasm_valu(&t, in);
        break;
    case GCN_FMT_DS: disasm_ds(&t, in); break;
    case GCN_FMT_FLAT: disasm_flat(&t, in); break;
    case GCN_FMT_MUBUF: case GCN_FMT_MTBUF: disasm_mubuf(&t, in); break;
    case GCN_FMT_MIMG: disasm_mimg(&t, in); break;
    case GCN_FMT_EXP: disasm_exp(&t, in); break;
    default: put(&t, ".long 0x%08x", in->word0); break;
    }
    return t.len;
}
