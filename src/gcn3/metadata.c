/*
** NT_AMDGPU_METADATA reader: a msgpack bounds validator, then msgpack-c,
** then a walk over the resulting object tree copying the fields the loader
** needs (see metadata.h). Missing optional fields keep documented defaults
** (wavefront size 64, alignment 8, max work-group 256 as the HSA runtime
** assumes); a field with the wrong msgpack type is an error, not a default,
** so corrupt notes are reported rather than half-used.
*/
#include "gcn3/metadata.h"

#include <msgpack.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mgsim/errors.h"
#include "util/xmalloc.h"

enum { MP_MAX_DEPTH = 32 };

static uint64_t be(const uint8_t *p, int n)
{
    uint64_t v = 0;
    for (int i = 0; i < n; i++)
        v = (v << 8) | p[i];
    return v;
}

/* Returns bytes of one object at p, or -1. Each array element and map
** key/value takes at least one byte, so a count is checked against the
** bytes left before it is believed. */
static long mp_walk(const uint8_t *p, size_t n, int depth)
{
    if (n == 0 || depth > MP_MAX_DEPTH)
        return -1;
    uint8_t t = p[0];
    uint64_t count = 0, payload = 0;
    size_t head = 1;
    int items = 0; /* 1: array, 2: map */
    if (t <= 0x7f || t >= 0xe0 || t == 0xc0 || t == 0xc2 || t == 0xc3)
        return 1;
    if (t >= 0x80 && t <= 0x8f) {
        count = t & 0x0f;
        items = 2;
    } else if (t >= 0x90 && t <= 0x9f) {
        count = t & 0x0f;
        items = 1;
    } else if (t >= 0xa0 && t <= 0xbf) {
        payload = t & 0x1f;
    } else {
        switch (t) {
        case 0xc4: case 0xd9: head = 2; break;   /* bin8 / str8 */
        case 0xc5: case 0xda: head = 3; break;
        case 0xc6: case 0xdb: head = 5; break;
        case 0xc7: head = 3; break;              /* ext8: len, type */
        case 0xc8: head = 4; break;
        case 0xc9: head = 6; break;
        case 0xca: payload = 4; break;
        case 0xcb: payload = 8; break;
        case 0xcc: case 0xd0: payload = 1; break;
        case 0xcd: case 0xd1: payload = 2; break;
        case 0xce: case 0xd2: payload = 4; break;
        case 0xcf: case 0xd3: payload = 8; break;
        case 0xd4: payload = 2; break;           /* fixext: type + data */
        case 0xd5: payload = 3; break;
        case 0xd6: payload = 5; break;
        case 0xd7: payload = 9; break;
        case 0xd8: payload = 17; break;
        case 0xdc: head = 3; items = 1; break;
        case 0xdd: head = 5; items = 1; break;
        case 0xde: head = 3; items = 2; break;
        case 0xdf: head = 5; items = 2; break;
        default: return -1;                      /* 0xc1: never used */
        }
        if (head > n)
            return -1;
        if (head > 1) {
            int lenbytes = (t == 0xc7 || t == 0xc8 || t == 0xc9)
                               ? (int)head - 2 : (int)head - 1;
            uint64_t v = be(p + 1, lenbytes);
            if (items)
                count = v;
            else
                payload = v;
        }
    }
    if (!items) {
        if (payload > n - head)
            return -1;
        return (long)(head + payload);
    }
    size_t pos = head;
    if (head > n || count > (n - head) / (uint64_t)items)
        return -1;
    for (uint64_t i = 0; i < count * (uint64_t)items; i++) {
        long used = mp_walk(p + pos, n - pos, depth + 1);
        if (used < 0)
            return -1;
        pos += (size_t)used;
    }
    return (long)pos;
}

long gcn_msgpack_validate(const uint8_t *p, size_t n)
{
    return mp_walk(p, n, 1);
}

/* ---- walking the unpacked tree ---------------------------------------- */

static bool str_eq(const msgpack_object *o, const char *s)
{
    size_t len = strlen(s);
    return o->type == MSGPACK_OBJECT_STR && o->via.str.size == len &&
           memcmp(o->via.str.ptr, s, len) == 0;
}

static const msgpack_object *map_get(const msgpack_object *map,
                                     const char *key)
{
    if (map->type != MSGPACK_OBJECT_MAP)
        return NULL;
    for (uint32_t i = 0; i < map->via.map.size; i++)
        if (str_eq(&map->via.map.ptr[i].key, key))
            return &map->via.map.ptr[i].val;
    return NULL;
}

typedef struct md_ctx {
    const char *what;
    const char *kernel;    /* for messages; "" before .name is known */
} md_ctx;

static int bad_field(const md_ctx *c, const char *field, const char *want)
{
    return mgs_error_set(MGS_EFORMAT,
                         "%s: metadata%s%s: field %s is missing or not %s",
                         c->what, c->kernel[0] ? " of kernel " : "",
                         c->kernel, field, want);
}

/* Optional u32: absent keeps *out. */
static int get_u32(const md_ctx *c, const msgpack_object *map,
                   const char *key, uint32_t *out, bool required)
{
    const msgpack_object *o = map_get(map, key);
    if (!o)
        return required ? bad_field(c, key, "an unsigned integer") : MGS_OK;
    if (o->type != MSGPACK_OBJECT_POSITIVE_INTEGER ||
        o->via.u64 > UINT32_MAX)
        return bad_field(c, key, "an unsigned 32-bit integer");
    *out = (uint32_t)o->via.u64;
    return MGS_OK;
}

/* String copy into buf (truncated to n-1); absent -> "" unless required. */
static int get_str(const md_ctx *c, const msgpack_object *map,
                   const char *key, char *buf, size_t n, bool required)
{
    const msgpack_object *o = map_get(map, key);
    buf[0] = '\0';
    if (!o)
        return required ? bad_field(c, key, "a string") : MGS_OK;
    if (o->type != MSGPACK_OBJECT_STR)
        return bad_field(c, key, "a string");
    size_t len = o->via.str.size < n - 1 ? o->via.str.size : n - 1;
    memcpy(buf, o->via.str.ptr, len);
    buf[len] = '\0';
    return MGS_OK;
}

static char *dup_str(const msgpack_object *o)
{
    char *s = mgs_xmalloc(o->via.str.size + 1);
    memcpy(s, o->via.str.ptr, o->via.str.size);
    s[o->via.str.size] = '\0';
    return s;
}

static const struct {
    const char *name;
    gcn_arg_kind kind;
} arg_kinds[] = {
    {"by_value", GCN_ARG_BY_VALUE},
    {"global_buffer", GCN_ARG_GLOBAL_BUFFER},
    {"dynamic_shared_pointer", GCN_ARG_DYNAMIC_SHARED_POINTER},
    {"hidden_global_offset_x", GCN_ARG_HIDDEN_GLOBAL_OFFSET_X},
    {"hidden_global_offset_y", GCN_ARG_HIDDEN_GLOBAL_OFFSET_Y},
    {"hidden_global_offset_z", GCN_ARG_HIDDEN_GLOBAL_OFFSET_Z},
    {"hidden_none", GCN_ARG_HIDDEN_NONE},
    {"hidden_printf_buffer", GCN_ARG_HIDDEN_PRINTF_BUFFER},
    {"hidden_hostcall_buffer", GCN_ARG_HIDDEN_HOSTCALL_BUFFER},
    {"hidden_default_queue", GCN_ARG_HIDDEN_DEFAULT_QUEUE},
    {"hidden_completion_action", GCN_ARG_HIDDEN_COMPLETION_ACTION},
    {"hidden_multigrid_sync_arg", GCN_ARG_HIDDEN_MULTIGRID_SYNC_ARG},
    {"hidden_heap_v1", GCN_ARG_HIDDEN_HEAP_V1},
    {"hidden_block_count_x", GCN_ARG_HIDDEN_BLOCK_COUNT_X},
    {"hidden_block_count_y", GCN_ARG_HIDDEN_BLOCK_COUNT_Y},
    {"hidden_block_count_z", GCN_ARG_HIDDEN_BLOCK_COUNT_Z},
    {"hidden_group_size_x", GCN_ARG_HIDDEN_GROUP_SIZE_X},
    {"hidden_group_size_y", GCN_ARG_HIDDEN_GROUP_SIZE_Y},
    {"hidden_group_size_z", GCN_ARG_HIDDEN_GROUP_SIZE_Z},
    {"hidden_remainder_x", GCN_ARG_HIDDEN_REMAINDER_X},
    {"hidden_remainder_y", GCN_ARG_HIDDEN_REMAINDER_Y},
    {"hidden_remainder_z", GCN_ARG_HIDDEN_REMAINDER_Z},
    {"hidden_grid_dims", GCN_ARG_HIDDEN_GRID_DIMS},
    {"hidden_dynamic_lds_size", GCN_ARG_HIDDEN_DYNAMIC_LDS_SIZE},
    {"hidden_private_base", GCN_ARG_HIDDEN_PRIVATE_BASE},
    {"hidden_shared_base", GCN_ARG_HIDDEN_SHARED_BASE},
    {"hidden_queue_ptr", GCN_ARG_HIDDEN_QUEUE_PTR},
};

bool gcn_metadata_arg_kind(const char *s, size_t len, gcn_arg_kind *kind)
{
    for (size_t i = 0; i < sizeof arg_kinds / sizeof arg_kinds[0]; i++)
        if (strlen(arg_kinds[i].name) == len &&
            memcmp(arg_kinds[i].name, s, len) == 0) {
            *kind = arg_kinds[i].kind;
            return true;
        }
    if (len >= 7 && memcmp(s, "hidden_", 7) == 0) {
        *kind = GCN_ARG_HIDDEN_OTHER;
        return true;
    }
    return false;
}

static int parse_arg(const md_ctx *c, const msgpack_object *a, uint32_t idx,
                     gcn_kernel_arg *arg)
{
    if (a->type != MSGPACK_OBJECT_MAP)
        return mgs_error_set(MGS_EFORMAT,
                             "%s: metadata of kernel %s: argument %u is not "
                             "a map", c->what, c->kernel, idx);
    int rc;
    if ((rc = get_str(c, a, ".name", arg->name, sizeof arg->name, false)) ||
        (rc = get_str(c, a, ".type_name", arg->type_name,
                      sizeof arg->type_name, false)) ||
        (rc = get_u32(c, a, ".offset", &arg->offset, true)) ||
        (rc = get_u32(c, a, ".size", &arg->size, true)))
        return rc;
    const msgpack_object *vk = map_get(a, ".value_kind");
    if (!vk || vk->type != MSGPACK_OBJECT_STR)
        return bad_field(c, ".value_kind", "a string");
    if (!gcn_metadata_arg_kind(vk->via.str.ptr, vk->via.str.size,
                               &arg->kind))
        /* A property of the input file, found when loading it: exit 2
        ** like any other code object mgsim cannot use (docs/cli.md). */
        return mgs_error_set(MGS_EFORMAT,
                             "%s: kernel %s argument %u has value_kind "
                             "'%.*s', which mgsim cannot pass",
                             c->what, c->kernel, idx,
                             (int)(vk->via.str.size > 64 ? 64
                                                         : vk->via.str.size),
                             vk->via.str.ptr);
    arg->hidden = vk->via.str.size >= 7 &&
                  memcmp(vk->via.str.ptr, "hidden_", 7) == 0;
    return MGS_OK;
}

static int parse_kernel(const char *what, const msgpack_object *m,
                        size_t idx, gcn_md_kernel *mk)
{
    md_ctx c = {what, ""};
    gcn_kernel *k = &mk->k;
    if (m->type != MSGPACK_OBJECT_MAP)
        return mgs_error_set(MGS_EFORMAT,
                             "%s: metadata: kernel entry %zu is not a map",
                             what, idx);
    const msgpack_object *name = map_get(m, ".name");
    if (!name || name->type != MSGPACK_OBJECT_STR || name->via.str.size == 0)
        return bad_field(&c, ".name", "a non-empty string");
    k->full_name = dup_str(name);
    c.kernel = k->full_name;
    snprintf(k->name, sizeof k->name, "%s", k->full_name);

    const msgpack_object *sym = map_get(m, ".symbol");
    if (sym && sym->type != MSGPACK_OBJECT_STR)
        return bad_field(&c, ".symbol", "a string");
    if (sym) {
        mk->kd_symbol = dup_str(sym);
    } else {   /* v3+ always names it; the convention is <name>.kd */
        size_t len = strlen(k->full_name);
        mk->kd_symbol = mgs_xmalloc(len + 4);
        memcpy(mk->kd_symbol, k->full_name, len);
        memcpy(mk->kd_symbol + len, ".kd", 4);
    }

    k->kernarg_align = 8;
    k->wavefront_size = 64;
    k->max_flat_workgroup_size = 256;
    int rc;
    if ((rc = get_u32(&c, m, ".kernarg_segment_size", &mk->md_kernarg_size,
                      true)) ||
        (rc = get_u32(&c, m, ".kernarg_segment_align", &k->kernarg_align,
                      false)) ||
        (rc = get_u32(&c, m, ".group_segment_fixed_size", &mk->md_group_size,
                      false)) ||
        (rc = get_u32(&c, m, ".private_segment_fixed_size",
                      &mk->md_private_size, false)) ||
        (rc = get_u32(&c, m, ".wavefront_size", &k->wavefront_size, false)) ||
        (rc = get_u32(&c, m, ".sgpr_count", &k->meta_sgpr_count, false)) ||
        (rc = get_u32(&c, m, ".vgpr_count", &k->meta_vgpr_count, false)) ||
        (rc = get_u32(&c, m, ".max_flat_workgroup_size",
                      &k->max_flat_workgroup_size, false)))
        return rc;
    const msgpack_object *ds = map_get(m, ".uses_dynamic_stack");
    if (ds && ds->type == MSGPACK_OBJECT_BOOLEAN)
        k->uses_dynamic_stack = ds->via.boolean;

    const msgpack_object *args = map_get(m, ".args");
    if (!args)
        return MGS_OK;   /* a kernel without arguments may omit .args */
    if (args->type != MSGPACK_OBJECT_ARRAY)
        return bad_field(&c, ".args", "an array");
    k->nargs = args->via.array.size;
    k->args = MGS_NEW_ARRAY(gcn_kernel_arg, k->nargs ? k->nargs : 1);
    for (uint32_t i = 0; i < k->nargs; i++) {
        if ((rc = parse_arg(&c, &args->via.array.ptr[i], i, &k->args[i])))
            return rc;
        const gcn_kernel_arg *a = &k->args[i];
        if ((uint64_t)a->offset + a->size > mk->md_kernarg_size)
            return mgs_error_set(MGS_EFORMAT,
                                 "%s: kernel %s argument %u (offset %u, size "
                                 "%u) lies outside its %u-byte kernarg "
                                 "segment", what, k->full_name, i, a->offset,
                                 a->size, mk->md_kernarg_size);
    }
    return MGS_OK;
}

int gcn_metadata_parse(const uint8_t *desc, size_t n, const char *what,
                       gcn_md_kernel **kernels, size_t *num_kernels)
{
    *kernels = NULL;
    *num_kernels = 0;
    if (gcn_msgpack_validate(desc, n) < 0)
        return mgs_error_set(MGS_EFORMAT,
                             "%s: metadata note is not valid msgpack", what);
    msgpack_unpacked up;
    msgpack_unpacked_init(&up);
    size_t off = 0;
    int rc = MGS_OK;
    if (msgpack_unpack_next(&up, (const char *)desc, n, &off) !=
        MSGPACK_UNPACK_SUCCESS) {
        rc = mgs_error_set(MGS_EFORMAT,
                           "%s: metadata note is not valid msgpack", what);
        goto out;
    }
    const msgpack_object *list = map_get(&up.data, "amdhsa.kernels");
    if (!list || list->type != MSGPACK_OBJECT_ARRAY) {
        rc = mgs_error_set(MGS_EFORMAT,
                           "%s: metadata has no amdhsa.kernels list", what);
        goto out;
    }
    size_t nk = list->via.array.size;
    gcn_md_kernel *ks = MGS_NEW_ARRAY(gcn_md_kernel, nk ? nk : 1);
    for (size_t i = 0; i < nk; i++) {
        rc = parse_kernel(what, &list->via.array.ptr[i], i, &ks[i]);
        if (rc) {
            gcn_metadata_free_kernels(ks, nk);
            goto out;
        }
    }
    *kernels = ks;
    *num_kernels = nk;
out:
    msgpack_unpacked_destroy(&up);
    return rc;
}

void gcn_metadata_free_kernels(gcn_md_kernel *kernels, size_t n)
{
    if (!kernels)
        return;
    for (size_t i = 0; i < n; i++) {
        free(kernels[i].k.args);
        free((char *)kernels[i].k.full_name);
        free(kernels[i].kd_symbol);
    }
    free(kernels);
}
