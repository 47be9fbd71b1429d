/*
** libmgsim-hip internals: the state shared by the files of the HIP runtime
** replacement (the .c files of src/hip). The public face is the HIP API itself
** (<hip/hip_runtime_api.h>, included here in C mode with
** __HIP_PLATFORM_AMD__), so every function we define is checked against
** ROCm's own prototypes and a hipcc-compiled program links against us
** exactly as it would against libamdhip64.
**
** Design (details in docs/hip.md):
** - One process-wide simulated platform (mhip_g.rt), created lazily on the
**   first call that needs it from the MGSIM_* environment variables and torn
**   down at exit (statistics written then). Calls after teardown return
**   hipErrorDeinitialized.
** - Device pointers handed to the program are the runtime's simulated
**   device addresses (mgs_dptr) cast to void *; the host never dereferences
**   them. Every allocation is recorded in mhip_g.allocs so that pointers can
**   be classified (hipMemcpyDefault, hipFree, kernel arguments).
** - Managed (hipMallocManaged) and pinned host (hipHostMalloc) memory is
**   real host memory plus a device shadow copy of the same size. Ownership
**   moves between host and device per buffer: a kernel launch copies every
**   host-owned buffer to its shadow and the device then owns it; the next
**   synchronisation point copies device-owned buffers back out. Kernel
**   pointer arguments that point into such a buffer are translated to the
**   shadow address.
** - The current device and the last error are per host thread (HIP
**   semantics); everything else assumes the program serialises its HIP
**   calls (one simulation is single-threaded).
*/
#ifndef MGS_HIP_INTERNAL_H
#define MGS_HIP_INTERNAL_H

#ifndef __HIP_PLATFORM_AMD__
#define __HIP_PLATFORM_AMD__ 1
#endif
#include <hip/hip_runtime_api.h>

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "gcn3/codeobj.h"
#include "mgsim/runtime.h"

/* ---- configuration (from the environment) ---------------------------- */

#include "config/config.h"

/* The effective configuration, layered like `mgsim run` does it:
** built-in defaults <- preset MGSIM_PRESET (default "default", skipped if
** absent) <- MGSIM_CONFIG file <- MGSIM_SET assignments ("s.k=v;s.k=v")
** <- MGSIM_GPUS, MGSIM_MODE, MGSIM_PLATFORM, MGSIM_DB (each mapped onto its
** configuration key; MGSIM_DB=none writes no database). */
typedef struct mhip_env {
    mgs_config cfg;
    bool quiet;               /* MGSIM_QUIET set and not "0" */
    bool no_db;               /* MGSIM_DB=none: no results database */
} mhip_env;

#define MHIP_MAX_GPUS 64
#define MHIP_FREED_KEEP 256       /* freed pointers remembered (messages) */

/* Builds out from the variables read through getenv_fn (getenv in
** production, a table in tests). Returns MGS_OK or MGS_ECONFIG/MGS_ENOENT
** with a one-line message naming the variable or file. */
int mhip_env_parse(const char *(*getenv_fn)(const char *name), mhip_env *out);

/* ---- allocations ------------------------------------------------------ */

typedef enum mhip_mem_kind {
    MHIP_MEM_DEVICE,   /* hipMalloc: program holds the device address */
    MHIP_MEM_MANAGED,  /* hipMallocManaged: host buffer + device shadow */
    MHIP_MEM_HOST      /* hipHostMalloc: host buffer + device shadow */
} mhip_mem_kind;

typedef struct mhip_alloc {
    mhip_mem_kind kind;
    int gpu;              /* device the (shadow) memory lives on */
    mgs_dptr dev;         /* device address (shadow for managed/host) */
    void *host;           /* host buffer (managed/host kinds), else NULL */
    size_t size;          /* bytes as requested */
    bool on_device;       /* managed/host: the shadow holds the data */
    bool symbol;          /* a module's global variable (hip_symbol.c):
                             copies may use it, hipFree may not */
    bool registered;      /* host: the program's memory (hipHostRegister),
                             not ours to free */
    unsigned flags;       /* host: hipHostMalloc / hipHostRegister flags */
    bool host_link;       /* host: the shadow is in host frames (zero-copy
                             over the host link, mgs_malloc_host): the
                             launch / synchronise copies are untimed */
} mhip_alloc;

/* ---- modules and kernels ---------------------------------------------- */

/* hipFunction_t: one kernel of a module. */
struct ihipModuleSymbol_t {
    struct ihipModule_t *module;
    char *name;                   /* owned */
    const void *host_fn;          /* stub/handle registered by hipcc, or NULL */
    mgs_kernel *kernel;           /* resolved on first launch */
    const gcn_kernel *meta;       /* argument table (owned by module->co) */
};

/* hipModule_t: a code object, either embedded by hipcc (a registered fat
** binary; image points into the program and is not owned) or loaded by
** hipModuleLoad/hipModuleLoadData (image is an owned copy). */
struct ihipModule_t {
    const void *image;
    size_t image_size;
    bool owns_image;
    bool from_fatbin;
    char what[64];                /* names the module in messages */
    mgs_module *rt_module;        /* loaded into the runtime lazily */
    gcn_codeobj *co;              /* our own parse: argument kinds */
    struct ihipModuleSymbol_t **funcs; /* owned */
    size_t nfuncs, cap_funcs;
    struct mhip_var *vars;        /* __hipRegisterVar'd variables (owned) */
    size_t nvars;
    struct ihipModule_t *next;    /* in mhip_g.modules */
};

/* A __device__ / __constant__ variable as hipcc registers it: the host
** shadow's address (what HIP_SYMBOL(x) passes) and the device symbol. */
struct mhip_var {
    const void *host;
    char *name;                   /* owned */
    size_t size;
};

/* hipStream_t. The null stream is NULL: the current device's. */
struct ihipStream_t {
    int device;
    unsigned flags;
    uint32_t id;                  /* the runtime's stream (1, 2, ...) */
    struct ihipStream_t *next;    /* in mhip_g.streams */
};

/* hipEvent_t: a point in simulated time. */
struct ihipEvent_t {
    unsigned flags;
    bool recorded;
    uint64_t time_ps;             /* simulated time when recorded */
    struct ihipEvent_t *next;     /* in mhip_g.events */
};

/* ---- the process-wide state ------------------------------------------- */

typedef struct mhip_state {
    bool initialised;             /* rt exists */
    bool init_failed;             /* configuration error reported once */
    bool finalised;               /* torn down at exit: calls now fail */
    mhip_env env;
    mgs_rt *rt;
    struct stat_registry *stats;  /* owned; passed to the runtime */
    double start_wall_s;          /* monotonic clock at init */
    char started_utc[32];
    struct {                      /* HIP-level traffic, reported at exit */
        uint64_t launches, h2d_bytes, d2h_bytes, d2d_bytes, peer_bytes;
        uint64_t shared_in_bytes, shared_out_bytes; /* managed/host sync */
    } counts;

    mhip_alloc *allocs;           /* owned array */
    size_t nallocs, cap_allocs;
    /* End of the highest device range handed out, plus one page: the
    ** runtime hands out device addresses upwards from MGS_DEVMEM_VA_BASE
    ** and never reuses them (devmem.h), so an address below it that no
    ** allocation holds is stale or past an end, never host memory. */
    uint64_t device_va_end;
    /* The starts of the latest freed allocations (a ring), so that a
    ** second free names the first. */
    const void *freed[MHIP_FREED_KEEP];
    size_t nfreed;                /* frees so far */

    struct ihipModule_t *modules; /* every module, fatbin or loaded */
    struct ihipStream_t *streams;
    uint32_t next_stream_id;      /* last id given to a stream */
    struct ihipEvent_t *events;
    bool peer_enabled[MHIP_MAX_GPUS][MHIP_MAX_GPUS]; /* [from][to] */
    /* An error the next synchronisation returns (hipErrorAssert of a
    ** kernel emu mode ran at its launch), else hipSuccess. */
    hipError_t deferred_error;
} mhip_state;

extern mhip_state mhip_g;

/* Makes sure the simulated platform exists. hipSuccess, or an error code
** (configuration errors also print one line, once). */
hipError_t mhip_ensure_init(void);
/* Releases everything; writes statistics. Registered with atexit. */
void mhip_finalize(void);

/* The calling thread's current device. */
int mhip_current_device(void);
void mhip_set_current_device(int dev);
/* Devices the program sees: the platform's GPUs, or one device for the
** "unified" platform (one launch spans all GPUs). Needs the platform. */
int mhip_visible_devices(void);
/* The runtime GPU argument (mgs_malloc, mgs_launch.gpu) for a device:
** the device itself, or MGS_GPU_ALL on the unified platform. */
int mhip_runtime_gpu(int dev);

/* Simulated time so far (timing mode: kernels + copies), or in emu mode an
** estimate from the work done at the configured peak rates
** (hip_estimate.c); *estimated (may be NULL) says which. */
uint64_t mhip_time_now_ps(const mgs_rt_totals *t, bool *estimated);

/* Records err as the thread's last error and returns it. */
hipError_t mhip_ret(hipError_t err);
/* Prints "mgsim-hip: <call>: <message>" (one line) to stderr and records
** err; returns err. For unsupported arguments and failed operations. */
hipError_t mhip_fail(hipError_t err, const char *call, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
/* Maps a runtime error (negative MGS_E*) to a HIP error code. */
hipError_t mhip_from_mgs(int mgs_code);

/* Allocation table (hip_memory.c). */
mhip_alloc *mhip_alloc_find_device(uint64_t addr);   /* dev range */
mhip_alloc *mhip_alloc_find_host(const void *p);    /* host range */
/* One shared buffer's ownership moves: its bytes to the shadow (device
** owns it), or back to the host buffer; no-ops if already there. call
** names the operation in the error line. */
hipError_t mhip_shared_in(mhip_alloc *a, const char *call);
hipError_t mhip_shared_out(mhip_alloc *a, const char *call);
/* Copies host-owned managed/host buffers to their shadows. */
hipError_t mhip_shared_to_device(void);
/* Waits for the device and copies device-owned managed/host buffers back:
** every blocking call goes through here. */
hipError_t mhip_sync_all(void);
void mhip_memory_release_all(void);
/* The copy behind every hipMemcpy variant (kind checked against where the
** pointers are; synchronises first). */
hipError_t mhip_memcpy(void *dst, const void *src, size_t n,
                       hipMemcpyKind kind, const char *call);
/* Records [dev, dev + size) on device gpu as a module's variable, so copies
** and kernel arguments recognise it as device memory (once per address). */
void mhip_alloc_add_symbol(int gpu, uint64_t dev, size_t size);
/* A new allocation entry: a device buffer (managed memory of the runtime
** for MHIP_MEM_MANAGED) of size bytes on the current device, recorded with
** the given kind (its other fields zero); and removal of an entry. */
hipError_t mhip_alloc_record(mhip_mem_kind kind, size_t size,
                             mhip_alloc **out, const char *call);
void mhip_alloc_forget(mhip_alloc *a);

/* Modules (hip_launch.c). */
hipError_t mhip_module_prepare(struct ihipModule_t *m, const char *call);
hipError_t mhip_function_prepare(struct ihipModuleSymbol_t *f,
                                 const char *call);
/* Packs explicit arguments (arg_ptrs[i] points at argument i's value) into
** out (out_cap bytes) at the offsets of f's metadata, translating
** managed/host pointers to their device shadows. Sets *size. */
hipError_t mhip_pack_args(const struct ihipModuleSymbol_t *f,
                          void **arg_ptrs, uint8_t *out, size_t out_cap,
                          size_t *size, const char *call);
hipError_t mhip_launch(struct ihipModuleSymbol_t *f, dim3 grid, dim3 block,
                       size_t shmem, hipStream_t stream, const void *args,
                       size_t args_size, const char *call);
void mhip_modules_release_all(void);
/* The kernel hipcc registered for a host stub (NULL: none). */
struct ihipModuleSymbol_t *mhip_kernel_of_host_fn(const void *host_fn);
/* A module's global variable on the current device (hip_symbol.c): loads
** the module, places its data, records the range as device memory. */
hipError_t mhip_global_address(struct ihipModule_t *m, const char *name,
                               uint64_t *addr, size_t *size,
                               const char *call);
/* Size of a code-object image given only its start: a clang offload bundle
** (from its entry table) or an ELF file (from its headers); 0 if it is
** neither. */
size_t mhip_image_size(const void *image);

/* Streams and events (hip_stream.c). */
void mhip_streams_release_all(void);
/* Device a stream's work runs on (the current device for NULL). */
int mhip_stream_device(hipStream_t s);
/* The runtime's stream of s (mgs_launch.stream): 0 for the null stream
** and hipStreamPerThread. */
uint32_t mhip_stream_id(hipStream_t s);
bool mhip_stream_valid(hipStream_t s);

#endif
