/*
** libmgsim-hip code objects and kernel launches: the registration entry
** points hipcc's generated constructors call, the <<<>>> call
** configuration, hipLaunchKernel, and the module API.
**
** How a hipcc program reaches a kernel:
**   __hip_module_ctor -> __hipRegisterFatBinary(&wrapper) -> a module whose
**   image is the offload bundle in the program's .hip_fatbin section
**   (wrapper = {magic "HIPF", version 1, bundle pointer, unused}; the
**   bundle's extent comes from its own entry table);
**   -> __hipRegisterFunction(module, host handle, name, ...) per kernel.
**   kernel<<<g, b, s, q>>>(args) -> __hipPushCallConfiguration, then the
**   host stub: __hipPopCallConfiguration + hipLaunchKernel(handle, g, b,
**   void **args, s, q), args[i] pointing at the value of argument i.
** Nothing touches the simulator at registration time (it runs before
** main); a module is parsed and loaded into the runtime on first use.
**
** Argument layout: the explicit arguments of the kernel's metadata, in
** order, each copied from args[i] to its offset (sizes from the metadata).
** A global_buffer argument whose value points into managed/host memory is
** replaced by the device shadow address at the same offset
** (hip_memory.c); pointers stored inside structs or in memory are not
** translated (docs/hip.md). The runtime appends the hidden arguments.
*/
#include <elf.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gcn3/bundle.h"
#include "hip/hip_internal.h"
#include "mgsim/errors.h"
#include "util/xmalloc.h"

#define HIP_FATBIN_MAGIC 0x48495046u /* "HIPF" */
#define MAX_KERNARG_BYTES 4096       /* explicit arguments per launch */

typedef struct hip_fatbin_wrapper {
    uint32_t magic;
    uint32_t version;
    const void *binary;
    const void *unused;
} hip_fatbin_wrapper;

/* ---- image extent --------------------------------------------------------- */

static size_t elf_extent(const uint8_t *p)
{
    const Elf64_Ehdr *eh = (const Elf64_Ehdr *)p;
    if (eh->e_ident[EI_CLASS] != ELFCLASS64) return 0;
    size_t end = sizeof *eh;
    size_t sh_end = eh->e_shoff + (size_t)eh->e_shnum * eh->e_shentsize;
    size_t ph_end = eh->e_phoff + (size_t)eh->e_phnum * eh->e_phentsize;
    if (sh_end > end) end = sh_end;
    if (ph_end > end) end = ph_end;
    if (eh->e_shoff && eh->e_shentsize == sizeof(Elf64_Shdr)) {
        const Elf64_Shdr *sh = (const Elf64_Shdr *)(p + eh->e_shoff);
        for (unsigned i = 0; i < eh->e_shnum; i++)
            if (sh[i].sh_type != SHT_NOBITS &&
                sh[i].sh_offset + sh[i].sh_size > end)
                end = sh[i].sh_offset + sh[i].sh_size;
    }
    return end;
}

size_t mhip_image_size(const void *image)
{
    const uint8_t *p = image;
    if (!p) return 0;
    if (memcmp(p, GCN_BUNDLE_MAGIC, GCN_BUNDLE_MAGIC_LEN) == 0) {
        size_t size = 0;
        return gcn_bundle_extent(p, "<image>", &size) == MGS_OK ? size : 0;
    }
    if (memcmp(p, ELFMAG, SELFMAG) == 0) return elf_extent(p);
    return 0;
}

/* ---- modules ------------------------------------------------------------- */

static struct ihipModule_t *module_new(const char *what)
{
    struct ihipModule_t *m = MGS_NEW(struct ihipModule_t);
    snprintf(m->what, sizeof m->what, "%s", what);
    m->next = mhip_g.modules;
    mhip_g.modules = m;
    return m;
}

static struct ihipModuleSymbol_t *module_add_function(struct ihipModule_t *m,
                                                      const char *name,
                                                      const void *host_fn)
{
    if (m->nfuncs == m->cap_funcs) {
        m->cap_funcs = m->cap_funcs ? 2 * m->cap_funcs : 8;
        m->funcs = mgs_xrealloc(m->funcs, m->cap_funcs * sizeof *m->funcs);
    }
    struct ihipModuleSymbol_t *f = MGS_NEW(struct ihipModuleSymbol_t);
    f->module = m;
    f->name = mgs_xstrdup(name);
    f->host_fn = host_fn;
    m->funcs[m->nfuncs++] = f;
    return f;
}

/* Drops what the runtime and the parse own (they die with the platform). */
static void module_unload(struct ihipModule_t *m)
{
    if (m->co) gcn_codeobj_free(m->co);
    m->co = NULL;
    m->rt_module = NULL; /* owned by the runtime; freed with it */
    for (size_t i = 0; i < m->nfuncs; i++) {
        m->funcs[i]->kernel = NULL;
        m->funcs[i]->meta = NULL;
    }
}

static void module_free(struct ihipModule_t *m)
{
    struct ihipModule_t **pp = &mhip_g.modules;
    while (*pp && *pp != m) pp = &(*pp)->next;
    if (*pp) *pp = m->next;
    module_unload(m);
    for (size_t i = 0; i < m->nfuncs; i++) {
        free(m->funcs[i]->name);
        free(m->funcs[i]);
    }
    free(m->funcs);
    for (size_t i = 0; i < m->nvars; i++) free(m->vars[i].name);
    free(m->vars);
    if (m->owns_image) free((void *)m->image);
    free(m);
}

void mhip_modules_release_all(void)
{
    /* Loaded modules go; registered fat binaries stay (the program's module
    ** destructor still unregisters them) but lose their runtime side. */
    struct ihipModule_t *m = mhip_g.modules, *next;
    for (; m; m = next) {
        next = m->next;
        if (m->from_fatbin) module_unload(m);
        else module_free(m);
    }
}

hipError_t mhip_module_prepare(struct ihipModule_t *m, const char *call)
{
    hipError_t e = mhip_ensure_init();
    if (e) return mhip_ret(e);
    if (m->rt_module) return hipSuccess;
    if (!m->image || !m->image_size)
        return mhip_fail(hipErrorInvalidImage, call,
                         "%s holds no readable code object", m->what);
    int rc = gcn_codeobj_load_mem(m->image, m->image_size, m->what, &m->co);
    if (rc == MGS_OK)
        rc = mgs_module_load_mem(mhip_g.rt, m->image, m->image_size, m->what,
                                 &m->rt_module);
    if (rc != MGS_OK) {
        module_unload(m);
        hipError_t e = mhip_from_mgs(rc); /* EARCH: hipErrorNoBinaryForGpu */
        if (e == hipErrorUnknown) e = hipErrorInvalidImage;
        return mhip_fail(e, call, "%s", mgs_error_msg());
    }
    return hipSuccess;
}

hipError_t mhip_function_prepare(struct ihipModuleSymbol_t *f,
                                 const char *call)
{
    hipError_t e = mhip_module_prepare(f->module, call);
    if (e) return e;
    if (f->kernel) return hipSuccess;
    f->meta = gcn_codeobj_find(f->module->co, f->name);
    int rc = f->meta ? mgs_module_kernel(f->module->rt_module, f->name,
                                         &f->kernel)
                     : MGS_ENOENT;
    if (rc != MGS_OK) {
        f->meta = NULL;
        f->kernel = NULL;
        return mhip_fail(hipErrorInvalidDeviceFunction, call,
                         "kernel %s is not in %s (no gfx803 code for it?)",
                         f->name, f->module->what);
    }
    return hipSuccess;
}

/* ---- registration (hipcc-generated constructors) ----------------------- */

void **__hipRegisterFatBinary(const void *data);
void __hipUnregisterFatBinary(void **modules);
void __hipRegisterFunction(void **modules, const void *host_fn,
                           char *device_fn, const char *device_name,
                           unsigned int thread_limit, void *tid, void *bid,
                           dim3 *block_dim, dim3 *grid_dim, int *wsize);
void __hipRegisterVar(void **modules, void *var, char *host_var,
                      char *device_var, int ext, size_t size, int constant,
                      int global);

void **__hipRegisterFatBinary(const void *data)
{
    struct ihipModule_t *m = module_new("<program's embedded code object>");
    m->from_fatbin = true;
    const hip_fatbin_wrapper *w = data;
    if (w && w->magic == HIP_FATBIN_MAGIC && w->binary) {
        m->image = w->binary;
        m->image_size = mhip_image_size(w->binary);
    }
    /* A bad wrapper leaves image NULL: launches then fail with
    ** hipErrorInvalidImage and a message, instead of failing before main. */
    return (void **)m;
}

void __hipUnregisterFatBinary(void **modules)
{
    if (modules) module_free((struct ihipModule_t *)modules);
}

void __hipRegisterFunction(void **modules, const void *host_fn,
                           char *device_fn, const char *device_name,
                           unsigned int thread_limit, void *tid, void *bid,
                           dim3 *block_dim, dim3 *grid_dim, int *wsize)
{
    (void)device_fn, (void)thread_limit, (void)tid, (void)bid;
    (void)block_dim, (void)grid_dim, (void)wsize;
    if (!modules || !device_name) return;
    module_add_function((struct ihipModule_t *)modules, device_name, host_fn);
}

/* __device__/__constant__ variables: the module remembers the host
** shadow's address and the device symbol, for the symbol API
** (hip_symbol.c). Kernels reach the variables in the code object's data
** segments, which the runtime places per device (mgs_module_global). */
void __hipRegisterVar(void **modules, void *var, char *host_var,
                      char *device_var, int ext, size_t size, int constant,
                      int global)
{
    (void)host_var, (void)ext, (void)constant, (void)global;
    if (!modules || !var || !device_var) return;
    struct ihipModule_t *m = (struct ihipModule_t *)modules;
    m->vars = mgs_xrealloc(m->vars, (m->nvars + 1) * sizeof *m->vars);
    m->vars[m->nvars++] = (struct mhip_var){
        .host = var, .name = mgs_xstrdup(device_var), .size = size};
}

static struct ihipModuleSymbol_t *find_host_fn(const void *host_fn)
{
    for (struct ihipModule_t *m = mhip_g.modules; m; m = m->next)
        for (size_t i = 0; i < m->nfuncs; i++)
            if (m->funcs[i]->host_fn == host_fn) return m->funcs[i];
    return NULL;
}

struct ihipModuleSymbol_t *mhip_kernel_of_host_fn(const void *host_fn)
{
    return find_host_fn(host_fn);
}

/* ---- <<<>>> configuration ----------------------------------------------- */

typedef struct call_config {
    dim3 grid, block;
    size_t shmem;
    hipStream_t stream;
} call_config;

/* Per thread; nested only when an argument expression launches a kernel. */
static _Thread_local call_config tls_configs[8];
static _Thread_local int tls_nconfigs;

hipError_t __hipPushCallConfiguration(dim3 grid, dim3 block, size_t shmem,
                                      hipStream_t stream)
{
    if (tls_nconfigs == (int)(sizeof tls_configs / sizeof tls_configs[0]))
        return mhip_fail(hipErrorInvalidConfiguration,
                         "__hipPushCallConfiguration",
                         "launch configurations nested too deeply");
    tls_configs[tls_nconfigs++] = (call_config){grid, block, shmem, stream};
    return hipSuccess;
}

hipError_t __hipPopCallConfiguration(dim3 *grid, dim3 *block, size_t *shmem,
                                     hipStream_t *stream)
{
    if (tls_nconfigs == 0)
        return mhip_fail(hipErrorMissingConfiguration,
                         "__hipPopCallConfiguration",
                         "no launch configuration was pushed");
    call_config c = tls_configs[--tls_nconfigs];
    if (grid) *grid = c.grid;
    if (block) *block = c.block;
    if (shmem) *shmem = c.shmem;
    if (stream) *stream = c.stream;
    return hipSuccess;
}

/* ---- argument packing and launch --------------------------------------- */

/* Replaces a pointer into managed/host memory by its device shadow. */
static void translate_pointer(uint8_t *slot)
{
    uint64_t v;
    memcpy(&v, slot, sizeof v);
    mhip_alloc *a = mhip_alloc_find_host((const void *)(uintptr_t)v);
    if (!a) return;
    v = a->dev + (v - (uintptr_t)a->host);
    memcpy(slot, &v, sizeof v);
}

static void translate_args(const gcn_kernel *k, uint8_t *buf, size_t size)
{
    for (uint32_t i = 0; i < k->nargs; i++) {
        const gcn_kernel_arg *a = &k->args[i];
        if (!a->hidden && a->kind == GCN_ARG_GLOBAL_BUFFER && a->size == 8 &&
            a->offset + 8 <= size)
            translate_pointer(buf + a->offset);
    }
}

/* End of the explicit arguments in the kernarg segment. */
static size_t explicit_extent(const gcn_kernel *k)
{
    size_t end = 0;
    for (uint32_t i = 0; i < k->nargs; i++)
        if (!k->args[i].hidden && k->args[i].offset + k->args[i].size > end)
            end = k->args[i].offset + k->args[i].size;
    return end;
}

hipError_t mhip_pack_args(const struct ihipModuleSymbol_t *f,
                          void **arg_ptrs, uint8_t *out, size_t out_cap,
                          size_t *size, const char *call)
{
    const gcn_kernel *k = f->meta;
    size_t end = explicit_extent(k);
    if (end > out_cap)
        return mhip_fail(hipErrorInvalidValue, call,
                         "kernel %s has %zu bytes of arguments (limit %zu)",
                         f->name, end, out_cap);
    memset(out, 0, end);
    size_t explicit_i = 0;
    for (uint32_t i = 0; i < k->nargs; i++) {
        const gcn_kernel_arg *a = &k->args[i];
        if (a->hidden) continue;
        if (!arg_ptrs || !arg_ptrs[explicit_i])
            return mhip_fail(hipErrorInvalidValue, call,
                             "kernel %s: argument %zu has no value", f->name,
                             explicit_i);
        memcpy(out + a->offset, arg_ptrs[explicit_i], a->size);
        explicit_i++;
    }
    translate_args(k, out, end);
    *size = end;
    return hipSuccess;
}

static bool dim_ok(dim3 d) { return d.x && d.y && d.z; }

hipError_t mhip_launch(struct ihipModuleSymbol_t *f, dim3 grid, dim3 block,
                       size_t shmem, hipStream_t stream, const void *args,
                       size_t args_size, const char *call)
{
    if (!mhip_stream_valid(stream))
        return mhip_fail(hipErrorInvalidHandle, call, "invalid stream");
    const gcn_kernel *k = f->meta;
    uint64_t threads = (uint64_t)block.x * block.y * block.z;
    uint32_t max_threads = k->max_flat_workgroup_size
                               ? k->max_flat_workgroup_size : 1024;
    if (!dim_ok(grid) || !dim_ok(block) || threads > max_threads)
        return mhip_fail(hipErrorInvalidConfiguration, call,
                         "kernel %s: grid (%u,%u,%u) blocks of (%u,%u,%u) "
                         "threads (at most %u threads per block)",
                         f->name, grid.x, grid.y, grid.z, block.x, block.y,
                         block.z, max_threads);
    uint64_t items[3] = {(uint64_t)grid.x * block.x,
                         (uint64_t)grid.y * block.y,
                         (uint64_t)grid.z * block.z};
    for (int d = 0; d < 3; d++)
        if (items[d] > UINT32_MAX)
            return mhip_fail(hipErrorInvalidConfiguration, call,
                             "kernel %s: more than 2^32-1 work-items in "
                             "dimension %d", f->name, d);
    if (shmem + k->group_segment_size > 65536)
        return mhip_fail(hipErrorInvalidValue, call,
                         "kernel %s: %zu bytes of dynamic plus %u of static "
                         "shared memory exceed 64 KiB",
                         f->name, shmem, k->group_segment_size);
    hipError_t e = mhip_shared_to_device();
    if (e) return e;
    mgs_launch l = {
        .grid = {(uint32_t)items[0], (uint32_t)items[1], (uint32_t)items[2]},
        .block = {block.x, block.y, block.z},
        .dynamic_lds = (uint32_t)shmem,
        .args = args,
        .args_size = args_size,
        .gpu = mhip_runtime_gpu(mhip_stream_device(stream)),
        .stream = mhip_stream_id(stream),
    };
    int rc = mgs_launch_kernel(mhip_g.rt, f->kernel, &l);
    mhip_g.counts.launches++;
    if (!rc) return hipSuccess;
    hipError_t err = rc == MGS_EFAULT     ? hipErrorIllegalAddress
                     : rc == MGS_EASSERT  ? hipErrorAssert
                                          : hipErrorLaunchFailure;
    /* A kernel's assert() is an asynchronous error in HIP, reported by
    ** the synchronisation after the launch: emu mode ran the kernel
    ** already, so the next synchronisation returns it too. */
    if (err == hipErrorAssert) mhip_g.deferred_error = err;
    const char *msg = mgs_error_msg();
    if (strncmp(msg, "kernel ", 7) == 0) /* it names the kernel already */
        return mhip_fail(err, call, "%s", msg);
    return mhip_fail(err, call, "kernel %s: %s", f->name, msg);
}

hipError_t hipLaunchKernel(const void *function_address, dim3 grid,
                           dim3 block, void **args, size_t shmem,
                           hipStream_t stream)
{
    struct ihipModuleSymbol_t *f = find_host_fn(function_address);
    if (!f)
        return mhip_fail(hipErrorInvalidDeviceFunction, "hipLaunchKernel",
                         "%p is not a registered kernel", function_address);
    hipError_t e = mhip_function_prepare(f, "hipLaunchKernel");
    if (e) return e;
    uint8_t buf[MAX_KERNARG_BYTES];
    size_t size = 0;
    e = mhip_pack_args(f, args, buf, sizeof buf, &size, "hipLaunchKernel");
    if (e) return e;
    return mhip_launch(f, grid, block, shmem, stream, buf, size,
                       "hipLaunchKernel");
}

/* The attributes of kernel f (from its code object's metadata). */
static hipError_t func_attributes(struct ihipModuleSymbol_t *f,
                                  struct hipFuncAttributes *attr,
                                  const char *call)
{
    hipError_t e = mhip_function_prepare(f, call);
    if (e) return e;
    const gcn_kernel *k = f->meta;
    memset(attr, 0, sizeof *attr);
    attr->binaryVersion = 80;
    attr->ptxVersion = 80;
    attr->localSizeBytes = k->private_segment_size;
    attr->sharedSizeBytes = k->group_segment_size;
    attr->maxDynamicSharedSizeBytes = (int)(65536 - k->group_segment_size);
    attr->maxThreadsPerBlock =
        (int)(k->max_flat_workgroup_size ? k->max_flat_workgroup_size : 1024);
    attr->numRegs = (int)k->vgpr_count;
    return hipSuccess;
}

hipError_t hipFuncGetAttributes(struct hipFuncAttributes *attr,
                                const void *func)
{
    if (!attr) return mhip_ret(hipErrorInvalidValue);
    struct ihipModuleSymbol_t *f = find_host_fn(func);
    if (!f)
        return mhip_fail(hipErrorInvalidDeviceFunction,
                         "hipFuncGetAttributes",
                         "%p is not a registered kernel", func);
    return func_attributes(f, attr, "hipFuncGetAttributes");
}

/* One attribute of a module's function (hipModuleGetFunction), the same
** values hipFuncGetAttributes gives. */
hipError_t hipFuncGetAttribute(int *value, hipFunction_attribute attrib,
                               hipFunction_t hfunc)
{
    const char *call = "hipFuncGetAttribute";
    if (!value || !hfunc)
        return mhip_fail(hipErrorInvalidValue, call, "NULL argument");
    struct hipFuncAttributes a;
    hipError_t e = func_attributes(hfunc, &a, call);
    if (e) return e;
    switch (attrib) {
    case HIP_FUNC_ATTRIBUTE_MAX_THREADS_PER_BLOCK:
        *value = a.maxThreadsPerBlock; break;
    case HIP_FUNC_ATTRIBUTE_SHARED_SIZE_BYTES:
        *value = (int)a.sharedSizeBytes; break;
    case HIP_FUNC_ATTRIBUTE_CONST_SIZE_BYTES:
        *value = (int)a.constSizeBytes; break;
    case HIP_FUNC_ATTRIBUTE_LOCAL_SIZE_BYTES:
        *value = (int)a.localSizeBytes; break;
    case HIP_FUNC_ATTRIBUTE_NUM_REGS: *value = a.numRegs; break;
    case HIP_FUNC_ATTRIBUTE_PTX_VERSION: *value = a.ptxVersion; break;
    case HIP_FUNC_ATTRIBUTE_BINARY_VERSION: *value = a.binaryVersion; break;
    case HIP_FUNC_ATTRIBUTE_CACHE_MODE_CA: *value = a.cacheModeCA; break;
    case HIP_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES:
        *value = a.maxDynamicSharedSizeBytes; break;
    case HIP_FUNC_ATTRIBUTE_PREFERRED_SHARED_MEMORY_CARVEOUT:
        *value = a.preferredShmemCarveout; break;
    default:
        return mhip_fail(hipErrorInvalidValue, call,
                         "unknown attribute %d", (int)attrib);
    }
    return hipSuccess;
}

/* ---- module API ------------------------------------------------------------ */

static hipError_t load_image_copy(hipModule_t *module, const void *image,
                                  size_t size, const char *what,
                                  const char *call)
{
    struct ihipModule_t *m = module_new(what);
    void *copy = mgs_xmalloc(size);
    memcpy(copy, image, size);
    m->image = copy;
    m->image_size = size;
    m->owns_image = true;
    hipError_t e = mhip_module_prepare(m, call);
    if (e) {
        module_free(m);
        return e;
    }
    *module = m;
    return hipSuccess;
}

hipError_t hipModuleLoad(hipModule_t *module, const char *fname)
{
    const char *call = "hipModuleLoad";
    if (!module || !fname)
        return mhip_fail(hipErrorInvalidValue, call, "NULL argument");
    FILE *f = fopen(fname, "rb");
    if (!f)
        return mhip_fail(hipErrorFileNotFound, call, "cannot open %s", fname);
    size_t cap = 1 << 16, n = 0, got;
    uint8_t *buf = mgs_xmalloc(cap);
    while ((got = fread(buf + n, 1, cap - n, f)) > 0) {
        n += got;
        if (n == cap) buf = mgs_xrealloc(buf, cap *= 2);
    }
    fclose(f);
    const char *base = strrchr(fname, '/');
    hipError_t e = load_image_copy(module, buf, n, base ? base + 1 : fname,
                                   call);
    free(buf);
    return e;
}

hipError_t hipModuleLoadData(hipModule_t *module, const void *image)
{
    const char *call = "hipModuleLoadData";
    if (!module || !image)
        return mhip_fail(hipErrorInvalidValue, call, "NULL argument");
    size_t size = mhip_image_size(image);
    if (!size)
        return mhip_fail(hipErrorInvalidImage, call,
                         "image is neither an ELF code object nor an offload "
                         "bundle");
    return load_image_copy(module, image, size, "<image>", call);
}

hipError_t hipModuleLoadDataEx(hipModule_t *module, const void *image,
                               unsigned int num_options,
                               hipJitOption *options, void **values)
{
    (void)num_options, (void)options, (void)values; /* no JIT: ignored */
    return hipModuleLoadData(module, image);
}

static bool module_live(hipModule_t m)
{
    for (struct ihipModule_t *p = mhip_g.modules; p; p = p->next)
        if (p == m) return true;
    return false;
}

hipError_t hipModuleUnload(hipModule_t module)
{
    if (!module || !module_live(module) || module->from_fatbin)
        return mhip_fail(hipErrorInvalidHandle, "hipModuleUnload",
                         "not a module loaded by hipModuleLoad*");
    module_free(module);
    return hipSuccess;
}

hipError_t hipModuleGetFunction(hipFunction_t *function, hipModule_t module,
                                const char *name)
{
    const char *call = "hipModuleGetFunction";
    if (!function || !name)
        return mhip_fail(hipErrorInvalidValue, call, "NULL argument");
    if (!module || !module_live(module))
        return mhip_fail(hipErrorInvalidHandle, call, "invalid module");
    hipError_t e = mhip_module_prepare(module, call);
    if (e) return e;
    if (!gcn_codeobj_find(module->co, name))
        return mhip_fail(hipErrorNotFound, call, "no kernel %s in %s", name,
                         module->what);
    struct ihipModuleSymbol_t *f = NULL;
    for (size_t i = 0; i < module->nfuncs && !f; i++)
        if (strcmp(module->funcs[i]->name, name) == 0) f = module->funcs[i];
    if (!f) f = module_add_function(module, name, NULL);
    if ((e = mhip_function_prepare(f, call))) return e;
    *function = f;
    return hipSuccess;
}

hipError_t hipModuleGetGlobal(hipDeviceptr_t *dptr, size_t *bytes,
                              hipModule_t hmod, const char *name)
{
    const char *call = "hipModuleGetGlobal";
    if (!name) return mhip_fail(hipErrorInvalidValue, call, "NULL name");
    if (!hmod || !module_live(hmod))
        return mhip_fail(hipErrorInvalidHandle, call, "invalid module");
    uint64_t a;
    size_t n;
    hipError_t e = mhip_global_address(hmod, name, &a, &n, call);
    if (e) return e;
    if (dptr) *dptr = (hipDeviceptr_t)(uintptr_t)a;
    if (bytes) *bytes = n;
    return hipSuccess;
}

hipError_t hipModuleLaunchKernel(hipFunction_t f, unsigned int gx,
                                 unsigned int gy, unsigned int gz,
                                 unsigned int bx, unsigned int by,
                                 unsigned int bz, unsigned int shmem,
                                 hipStream_t stream, void **params,
                                 void **extra)
{
    const char *call = "hipModuleLaunchKernel";
    if (!f) return mhip_fail(hipErrorInvalidHandle, call, "NULL function");
    hipError_t e = mhip_function_prepare(f, call);
    if (e) return e;
    uint8_t buf[MAX_KERNARG_BYTES];
    size_t size = 0;
    if (params && extra)
        return mhip_fail(hipErrorInvalidValue, call,
                         "both kernelParams and extra given");
    if (params) {
        e = mhip_pack_args(f, params, buf, sizeof buf, &size, call);
        if (e) return e;
    } else {
        const void *ptr = NULL;
        size_t *psize = NULL;
        for (size_t i = 0; extra && extra[i] != HIP_LAUNCH_PARAM_END; i += 2) {
            if (extra[i] == HIP_LAUNCH_PARAM_BUFFER_POINTER)
                ptr = extra[i + 1];
            else if (extra[i] == HIP_LAUNCH_PARAM_BUFFER_SIZE)
                psize = extra[i + 1];
            else
                return mhip_fail(hipErrorNotSupported, call,
                                 "unsupported extra option %p", extra[i]);
        }
        size_t need = explicit_extent(f->meta);
        if (need && (!ptr || !psize))
            return mhip_fail(hipErrorInvalidValue, call,
                             "kernel %s needs arguments: give kernelParams or "
                             "HIP_LAUNCH_PARAM_BUFFER_POINTER and _SIZE",
                             f->name);
        size_t given = psize ? *psize : 0;
        if (given < need || given > sizeof buf)
            return mhip_fail(hipErrorInvalidValue, call,
                             "kernel %s: argument buffer of %zu bytes, "
                             "expected %zu", f->name, given, need);
        if (given) memcpy(buf, ptr, given);
        translate_args(f->meta, buf, given);
        size = need;
    }
    return mhip_launch(f, (dim3){gx, gy, gz}, (dim3){bx, by, bz}, shmem,
                       stream, buf, size, call);
}
