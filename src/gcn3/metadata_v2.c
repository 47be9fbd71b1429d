/*
** Code object v2 metadata: the YAML document of the NT_AMD_HSA_METADATA
** note ("AMD", type 10), as LLVM's old HSA metadata streamer wrote it (ROCm
** 1.7-2.x, clang's -mcode-object-version=2; AMDGPUUsage "Code Object V2
** Metadata"). Read with libyaml's document loader; the fields are then
** mapped onto the same gcn_md_kernel the v3+ msgpack reader fills
** (metadata.c), so the rest of the loader does not know which version it
** read.
**
**   Kernels:
**     - Name: FIR                      -> full_name, name, kd_symbol
**       SymbolName: 'FIR@kd'           (ignored: the v2 descriptor is the
**                                       kernel symbol itself)
**       Args:
**         - Name, TypeName             -> args[].name, type_name
**           Size, Align                -> args[].size; offset = previous
**                                         end rounded up to Align (v2 has
**                                         no Offset field)
**           ValueKind: GlobalBuffer    -> kind (CamelCase of the v3 kinds)
**       CodeProps:
**         KernargSegmentSize           -> md_kernarg_size
**         GroupSegmentFixedSize        -> md_group_size
**         PrivateSegmentFixedSize      -> md_private_size
**         KernargSegmentAlign, WavefrontSize, NumSGPRs, NumVGPRs,
**         MaxFlatWorkGroupSize, IsDynamicCallStack
**
** Robustness: libyaml checks the bytes itself; the tree is then read only
** along the paths above (never walked recursively, so aliases and deep
** nesting cost nothing), every scalar is converted with range checks, and
** argument offsets are computed with overflow checks against the kernarg
** size. A field of the wrong shape is an error, not a default.
*/
#include "gcn3/metadata.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <yaml.h>

#include "mgsim/errors.h"
#include "util/xmalloc.h"

/* Arguments beyond this are not believed (a kernarg segment is small). */
#define V2_MAX_ARGS 4096u
#define V2_MAX_ALIGN 256u

typedef struct v2_ctx {
    const char *what;
    const char *kernel;    /* "" until the kernel's Name is read */
    yaml_document_t *doc;
} v2_ctx;

static int bad_field(const v2_ctx *c, const char *field, const char *want)
{
    return mgs_error_set(MGS_EFORMAT,
                         "%s: v2 metadata%s%s: field %s is missing or not %s",
                         c->what, c->kernel[0] ? " of kernel " : "",
                         c->kernel, field, want);
}

static yaml_node_t *node(const v2_ctx *c, int id)
{
    return yaml_document_get_node(c->doc, id);   /* NULL if out of range */
}

static bool scalar_is(const yaml_node_t *n, const char *s)
{
    size_t len = strlen(s);
    return n && n->type == YAML_SCALAR_NODE &&
           n->data.scalar.length == len &&
           memcmp(n->data.scalar.value, s, len) == 0;
}

/* The value of key in a mapping node; NULL if absent or not a mapping. */
static yaml_node_t *map_get(const v2_ctx *c, const yaml_node_t *map,
                            const char *key)
{
    if (!map || map->type != YAML_MAPPING_NODE)
        return NULL;
    for (yaml_node_pair_t *p = map->data.mapping.pairs.start;
         p < map->data.mapping.pairs.top; p++)
        if (scalar_is(node(c, p->key), key))
            return node(c, p->value);
    return NULL;
}

/* A decimal (or 0x hex) unsigned scalar of at most 20 characters. */
static bool scalar_u64(const yaml_node_t *n, uint64_t *out)
{
    if (!n || n->type != YAML_SCALAR_NODE || n->data.scalar.length == 0 ||
        n->data.scalar.length > 20)
        return false;
    char buf[24];
    memcpy(buf, n->data.scalar.value, n->data.scalar.length);
    buf[n->data.scalar.length] = '\0';
    if (buf[0] < '0' || buf[0] > '9')
        return false;   /* no sign, no spaces */
    char *end;
    errno = 0;
    unsigned long long v = strtoull(buf, &end, 0);
    if (errno || *end)
        return false;
    *out = v;
    return true;
}

/* Optional u32: absent keeps *out. */
static int get_u32(const v2_ctx *c, const yaml_node_t *map, const char *key,
                   uint32_t *out, bool required)
{
    yaml_node_t *n = map_get(c, map, key);
    if (!n)
        return required ? bad_field(c, key, "an unsigned integer") : MGS_OK;
    uint64_t v;
    if (!scalar_u64(n, &v) || v > UINT32_MAX)
        return bad_field(c, key, "an unsigned 32-bit integer");
    *out = (uint32_t)v;
    return MGS_OK;
}

static int get_str(const v2_ctx *c, const yaml_node_t *map, const char *key,
                   char *buf, size_t n)
{
    yaml_node_t *s = map_get(c, map, key);
    buf[0] = '\0';
    if (!s)
        return MGS_OK;
    if (s->type != YAML_SCALAR_NODE)
        return bad_field(c, key, "a string");
    size_t len = s->data.scalar.length < n - 1 ? s->data.scalar.length
                                               : n - 1;
    memcpy(buf, s->data.scalar.value, len);
    buf[len] = '\0';
    return MGS_OK;
}

/* v2 ValueKind (CamelCase) -> the v3 spelling gcn_metadata_arg_kind knows. */
static const struct {
    const char *v2, *v3;
} v2_kinds[] = {
    {"ByValue", "by_value"},
    {"GlobalBuffer", "global_buffer"},
    {"DynamicSharedPointer", "dynamic_shared_pointer"},
    {"HiddenGlobalOffsetX", "hidden_global_offset_x"},
    {"HiddenGlobalOffsetY", "hidden_global_offset_y"},
    {"HiddenGlobalOffsetZ", "hidden_global_offset_z"},
    {"HiddenNone", "hidden_none"},
    {"HiddenPrintfBuffer", "hidden_printf_buffer"},
    {"HiddenHostcallBuffer", "hidden_hostcall_buffer"},
    {"HiddenDefaultQueue", "hidden_default_queue"},
    {"HiddenCompletionAction", "hidden_completion_action"},
    {"HiddenMultiGridSyncArg", "hidden_multigrid_sync_arg"},
};

static int parse_arg(const v2_ctx *c, const yaml_node_t *a, uint32_t idx,
                     uint64_t *end, gcn_kernel_arg *arg)
{
    if (!a || a->type != YAML_MAPPING_NODE)
        return mgs_error_set(MGS_EFORMAT,
                             "%s: v2 metadata of kernel %s: argument %u is "
                             "not a map", c->what, c->kernel, idx);
    uint32_t align = 0;
    int rc;
    if ((rc = get_str(c, a, "Name", arg->name, sizeof arg->name)) ||
        (rc = get_str(c, a, "TypeName", arg->type_name,
                      sizeof arg->type_name)) ||
        (rc = get_u32(c, a, "Size", &arg->size, true)) ||
        (rc = get_u32(c, a, "Align", &align, true)))
        return rc;
    if (align == 0 || align > V2_MAX_ALIGN || (align & (align - 1)))
        return mgs_error_set(MGS_EFORMAT,
                             "%s: kernel %s argument %u: Align %u is not a "
                             "power of two up to %u", c->what, c->kernel,
                             idx, align, V2_MAX_ALIGN);
    yaml_node_t *vk = map_get(c, a, "ValueKind");
    if (!vk || vk->type != YAML_SCALAR_NODE)
        return bad_field(c, "ValueKind", "a string");
    const char *v3 = NULL;
    for (size_t i = 0; i < sizeof v2_kinds / sizeof v2_kinds[0]; i++)
        if (scalar_is(vk, v2_kinds[i].v2))
            v3 = v2_kinds[i].v3;
    if (!v3 || !gcn_metadata_arg_kind(v3, strlen(v3), &arg->kind))
        return mgs_error_set(MGS_EFORMAT,
                             "%s: kernel %s argument %u has ValueKind "
                             "'%.*s', which mgsim cannot pass",
                             c->what, c->kernel, idx,
                             (int)(vk->data.scalar.length > 64
                                       ? 64 : vk->data.scalar.length),
                             (const char *)vk->data.scalar.value);
    arg->hidden = strncmp(v3, "hidden_", 7) == 0;
    uint64_t off = (*end + align - 1) & ~(uint64_t)(align - 1);
    if (off > UINT32_MAX || off + arg->size > UINT32_MAX)
        return mgs_error_set(MGS_EFORMAT,
                             "%s: kernel %s argument %u lies past 4 GiB",
                             c->what, c->kernel, idx);
    arg->offset = (uint32_t)off;
    *end = off + arg->size;
    return MGS_OK;
}

static int parse_kernel(v2_ctx *c, const yaml_node_t *m, size_t idx,
                        gcn_md_kernel *mk)
{
    gcn_kernel *k = &mk->k;
    c->kernel = "";
    if (!m || m->type != YAML_MAPPING_NODE)
        return mgs_error_set(MGS_EFORMAT,
                             "%s: v2 metadata: kernel entry %zu is not a map",
                             c->what, idx);
    yaml_node_t *name = map_get(c, m, "Name");
    if (!name || name->type != YAML_SCALAR_NODE ||
        name->data.scalar.length == 0 ||
        memchr(name->data.scalar.value, '\0', name->data.scalar.length))
        return bad_field(c, "Name", "a non-empty string");
    char *full = mgs_xmalloc(name->data.scalar.length + 1);
    memcpy(full, name->data.scalar.value, name->data.scalar.length);
    full[name->data.scalar.length] = '\0';
    k->full_name = full;
    c->kernel = full;
    snprintf(k->name, sizeof k->name, "%s", full);
    mk->kd_symbol = mgs_xstrdup(full);   /* amd_kernel_code_t at the symbol */

    k->kernarg_align = 8;
    k->wavefront_size = 64;
    k->max_flat_workgroup_size = 256;
    uint64_t args_end = 0;
    yaml_node_t *args = map_get(c, m, "Args");
    if (args) {
        if (args->type != YAML_SEQUENCE_NODE)
            return bad_field(c, "Args", "a list");
        size_t n = (size_t)(args->data.sequence.items.top -
                            args->data.sequence.items.start);
        if (n > V2_MAX_ARGS)
            return mgs_error_set(MGS_EFORMAT, "%s: kernel %s: %zu arguments "
                                 "(more than %u)", c->what, full, n,
                                 V2_MAX_ARGS);
        k->nargs = (uint32_t)n;
        k->args = MGS_NEW_ARRAY(gcn_kernel_arg, n ? n : 1);
        for (uint32_t i = 0; i < k->nargs; i++) {
            int rc = parse_arg(c, node(c, args->data.sequence.items.start[i]),
                               i, &args_end, &k->args[i]);
            if (rc)
                return rc;
        }
    }
    /* CodeProps is empty in some producers' output (a null scalar): the
    ** amd_kernel_code_t holds the same sizes, and wins (codeobj.c). */
    mk->md_kernarg_size = (uint32_t)args_end;
    yaml_node_t *cp = map_get(c, m, "CodeProps");
    if (cp && cp->type == YAML_MAPPING_NODE) {
        int rc;
        if ((rc = get_u32(c, cp, "KernargSegmentSize", &mk->md_kernarg_size,
                          false)) ||
            (rc = get_u32(c, cp, "GroupSegmentFixedSize", &mk->md_group_size,
                          false)) ||
            (rc = get_u32(c, cp, "PrivateSegmentFixedSize",
                          &mk->md_private_size, false)) ||
            (rc = get_u32(c, cp, "KernargSegmentAlign", &k->kernarg_align,
                          false)) ||
            (rc = get_u32(c, cp, "WavefrontSize", &k->wavefront_size,
                          false)) ||
            (rc = get_u32(c, cp, "NumSGPRs", &k->meta_sgpr_count, false)) ||
            (rc = get_u32(c, cp, "NumVGPRs", &k->meta_vgpr_count, false)) ||
            (rc = get_u32(c, cp, "MaxFlatWorkGroupSize",
                          &k->max_flat_workgroup_size, false)))
            return rc;
        k->uses_dynamic_stack =
            scalar_is(map_get(c, cp, "IsDynamicCallStack"), "true");
    } else if (cp && !(cp->type == YAML_SCALAR_NODE &&
                       cp->data.scalar.length == 0)) {
        return bad_field(c, "CodeProps", "a map");
    }
    if (args_end > mk->md_kernarg_size)
        return mgs_error_set(MGS_EFORMAT,
                             "%s: kernel %s: arguments end at byte %llu, "
                             "past the %u-byte kernarg segment", c->what,
                             full, (unsigned long long)args_end,
                             mk->md_kernarg_size);
    return MGS_OK;
}

int gcn_metadata_v2_parse(const uint8_t *text, size_t n, const char *what,
                          gcn_md_kernel **kernels, size_t *num_kernels)
{
    *kernels = NULL;
    *num_kernels = 0;
    while (n > 0 && text[n - 1] == '\0')   /* the note may be terminated */
        n--;
    yaml_parser_t parser;
    yaml_document_t doc;
    if (!yaml_parser_initialize(&parser))
        return mgs_error_set(MGS_EINTERNAL, "%s: cannot start the YAML parser",
                             what);
    yaml_parser_set_input_string(&parser, text, n);
    if (!yaml_parser_load(&parser, &doc)) {
        int rc = mgs_error_set(MGS_EFORMAT,
                               "%s: v2 metadata note is not valid YAML (%s "
                               "at byte %zu)", what,
                               parser.problem ? parser.problem : "error",
                               parser.problem_mark.index);
        yaml_parser_delete(&parser);
        return rc;
    }
    yaml_parser_delete(&parser);
    v2_ctx c = {what, "", &doc};
    int rc = MGS_OK;
    yaml_node_t *list = map_get(&c, yaml_document_get_root_node(&doc),
                                "Kernels");
    if (!list || list->type != YAML_SEQUENCE_NODE) {
        rc = mgs_error_set(MGS_EFORMAT,
                           "%s: v2 metadata has no Kernels list", what);
        goto out;
    }
    size_t nk = (size_t)(list->data.sequence.items.top -
                         list->data.sequence.items.start);
    gcn_md_kernel *ks = MGS_NEW_ARRAY(gcn_md_kernel, nk ? nk : 1);
    for (size_t i = 0; i < nk; i++) {
        rc = parse_kernel(&c, node(&c, list->data.sequence.items.start[i]), i,
                          &ks[i]);
        if (rc) {
            gcn_metadata_free_kernels(ks, nk);
            goto out;
        }
    }
    *kernels = ks;
    *num_kernels = nk;
out:
    yaml_document_delete(&doc);
    return rc;
}
