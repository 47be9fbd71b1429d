/*
** libmgsim-hip process state: configuration from the environment, lazy
** creation of the simulated platform, teardown at exit, and the per-thread
** HIP error state (hipGetLastError semantics).
**
** Invariants: mhip_g.rt exists iff mhip_g.initialised; once finalised the
** state stays finalised (a HIP call from a late static destructor gets
** hipErrorDeinitialized rather than a second platform). A configuration
** error is reported once (one line) and every later call that needs the
** platform returns hipErrorInitializationError; see docs/hip.md for why we
** do not exit() here.
*/
#include "hip/hip_internal.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hip/hip_report.h"
#include "mgsim/errors.h"
#include "util/xmalloc.h"

mhip_state mhip_g;

static _Thread_local int tls_device;
static _Thread_local hipError_t tls_last_error;

int mhip_current_device(void) { return tls_device; }
void mhip_set_current_device(int dev) { tls_device = dev; }

hipError_t mhip_ret(hipError_t err)
{
    if (err != hipSuccess) tls_last_error = err;
    return err;
}

hipError_t mhip_fail(hipError_t err, const char *call, const char *fmt, ...)
{
    /* The runtime error that the last line quoted (mgs_error_serial). */
    static unsigned long printed_serial;
    char msg[512];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    /* A failed timing simulation answers every later copy or launch with
    ** its first error (a kernel's memory fault), not recorded again: the
    ** line naming it is printed once, the later calls return the code. */
    bool quotes_runtime = mgs_error_code() != MGS_OK &&
                          strstr(msg, mgs_error_msg()) != NULL;
    if (quotes_runtime) {
        if (mgs_error_serial() == printed_serial) return mhip_ret(err);
        printed_serial = mgs_error_serial();
    }
    fprintf(stderr, "mgsim-hip: %s: %s (%s)\n", call, msg,
            hipGetErrorName(err));
    return mhip_ret(err);
}

hipError_t mhip_from_mgs(int code)
{
    switch (code) {
    case MGS_OK: return hipSuccess;
    case MGS_EINVAL: return hipErrorInvalidValue;
    case MGS_ENOMEM: return hipErrorOutOfMemory;
    case MGS_ENOENT: return hipErrorFileNotFound;
    case MGS_EFORMAT: return hipErrorInvalidImage;
    case MGS_EARCH: return hipErrorNoBinaryForGpu;
    case MGS_ECONFIG: return hipErrorInitializationError;
    case MGS_EFAULT: return hipErrorIllegalAddress;
    case MGS_EUNSUPPORTED: return hipErrorLaunchFailure;
    case MGS_EDEADLOCK: return hipErrorLaunchTimeOut;
    case MGS_ESIM: return hipErrorLaunchFailure;
    case MGS_EASSERT: return hipErrorAssert;
    default: return hipErrorUnknown;
    }
}

/* ---- environment ------------------------------------------------------ */

static const char *nonempty(const char *s) { return s && *s ? s : NULL; }

/* Applies one MGSIM_* variable onto its configuration key. */
static int apply_var(mgs_config *cfg, const char *(*getenv_fn)(const char *),
                     const char *var, const char *section, const char *key)
{
    const char *v = nonempty(getenv_fn(var));
    if (!v) return MGS_OK;
    mgs_cfg_origin o = {.kind = MGS_ORIGIN_OPTION};
    snprintf(o.where, sizeof o.where, "%s", var);
    return mgs_config_apply(cfg, section, key, v, &o);
}

/* MGSIM_SET: "section.key=value" assignments separated by ';'. */
static int apply_set_list(mgs_config *cfg, const char *list)
{
    char *copy = mgs_xstrdup(list), *save = NULL;
    int rc = MGS_OK;
    for (char *a = strtok_r(copy, ";", &save); a && rc == MGS_OK;
         a = strtok_r(NULL, ";", &save)) {
        while (*a == ' ') a++;
        if (*a) rc = mgs_config_set(cfg, a, "MGSIM_SET");
    }
    free(copy);
    return rc;
}

int mhip_env_parse(const char *(*getenv_fn)(const char *), mhip_env *out)
{
    memset(out, 0, sizeof *out);
    mgs_config *cfg = &out->cfg;
    mgs_config_defaults(cfg);
    const char *preset = nonempty(getenv_fn("MGSIM_PRESET"));
    int rc = mgs_config_load_preset(cfg, preset ? preset : "default");
    if (rc == MGS_ENOENT && !preset) {
        /* No preset directory (an installed library): built-in defaults. */
        mgs_error_clear();
        mgs_config_defaults(cfg);
        rc = MGS_OK;
    }
    const char *file = nonempty(getenv_fn("MGSIM_CONFIG"));
    if (rc == MGS_OK && file) rc = mgs_config_load_file(cfg, file, NULL);
    const char *set = nonempty(getenv_fn("MGSIM_SET"));
    if (rc == MGS_OK && set) rc = apply_set_list(cfg, set);
    if (rc == MGS_OK)
        rc = apply_var(cfg, getenv_fn, "MGSIM_GPUS", "platform", "gpus");
    if (rc == MGS_OK)
        rc = apply_var(cfg, getenv_fn, "MGSIM_MODE", "sim", "mode");
    if (rc == MGS_OK)
        rc = apply_var(cfg, getenv_fn, "MGSIM_PLATFORM", "platform", "type");
    const char *db = getenv_fn("MGSIM_DB");
    out->no_db = db && strcmp(db, "none") == 0;
    if (rc == MGS_OK && !out->no_db)
        rc = apply_var(cfg, getenv_fn, "MGSIM_DB", "output", "db");
    if (rc == MGS_OK && cfg->platform_gpus > MHIP_MAX_GPUS)
        rc = mgs_error_set(MGS_ECONFIG,
                           "platform.gpus = %d: libmgsim-hip supports at most "
                           "%d GPUs", cfg->platform_gpus, MHIP_MAX_GPUS);
    const char *q = getenv_fn("MGSIM_QUIET");
    out->quiet = q && *q && strcmp(q, "0") != 0;
    return rc;
}

static const char *real_getenv(const char *name) { return getenv(name); }

/* ---- lifetime ----------------------------------------------------------- */

hipError_t mhip_ensure_init(void)
{
    if (mhip_g.initialised) return hipSuccess;
    if (mhip_g.finalised) return hipErrorDeinitialized;
    if (mhip_g.init_failed) return hipErrorInitializationError;

    int rc = mhip_env_parse(real_getenv, &mhip_g.env);
    mgs_rt_options o;
    if (rc == MGS_OK) {
        const mgs_config *cfg = &mhip_g.env.cfg;
        mgs_rt_options_default(&o);
        o.mode = strcmp(cfg->sim_mode, "timing") == 0 ? MGS_MODE_TIMING
                                                       : MGS_MODE_EMU;
        o.num_gpus = cfg->platform_gpus;
        o.mem_per_gpu = cfg->platform_mem_per_gpu;
        o.platform = cfg->platform_type;
        o.config = cfg;
        o.zero_copy = 1; /* hipHostMalloc memory over the host link */
        rc = mhip_report_open(&o);
    }
    if (rc == MGS_OK) rc = mgs_rt_new(&o, &mhip_g.rt);
    if (rc != MGS_OK) {
        mhip_g.init_failed = true;
        fprintf(stderr, "mgsim-hip: error: %s\n", mgs_error_msg());
        mhip_report_discard();
        return hipErrorInitializationError;
    }
    mhip_g.initialised = true;
    /* Registered after the program's own constructors, so it runs before
    ** the hipcc module destructors (atexit is LIFO); they then only drop
    ** their registration records. */
    atexit(mhip_finalize);
    return hipSuccess;
}

void mhip_finalize(void)
{
    if (!mhip_g.initialised) return;
    (void)mhip_sync_all();
    mhip_report_write(mhip_g.rt);
    mhip_streams_release_all();
    mhip_memory_release_all();
    mhip_modules_release_all();
    mgs_rt_free(mhip_g.rt);
    mhip_g.rt = NULL;
    mhip_report_discard();
    mhip_g.initialised = false;
    mhip_g.finalised = true;
}

/* ---- hipGetLastError & friends ---------------------------------------- */

hipError_t hipGetLastError(void)
{
    hipError_t e = tls_last_error;
    tls_last_error = hipSuccess;
    return e;
}

hipError_t hipPeekAtLastError(void) { return tls_last_error; }

hipError_t hipInit(unsigned int flags)
{
    if (flags != 0)
        return mhip_fail(hipErrorInvalidValue, "hipInit",
                         "flags must be 0, got %u", flags);
    return mhip_ret(mhip_ensure_init());
}

hipError_t hipDriverGetVersion(int *v)
{
    if (!v) return mhip_ret(hipErrorInvalidValue);
    *v = HIP_VERSION;
    return hipSuccess;
}

hipError_t hipRuntimeGetVersion(int *v)
{
    if (!v) return mhip_ret(hipErrorInvalidValue);
    *v = HIP_VERSION;
    return hipSuccess;
}

/* X(name, description): every hipError_t value of ROCm 5.2's header that
** has its own number (aliases share the first name). */
#define MHIP_ERRORS(X)                                                      \
    X(hipSuccess, "no error")                                               \
    X(hipErrorInvalidValue, "invalid argument")                             \
    X(hipErrorOutOfMemory, "out of memory")                                 \
    X(hipErrorNotInitialized, "initialization error")                       \
    X(hipErrorDeinitialized, "driver shutting down")                        \
    X(hipErrorProfilerDisabled, "profiler disabled")                        \
    X(hipErrorProfilerNotInitialized, "profiler not initialized")           \
    X(hipErrorProfilerAlreadyStarted, "profiler already started")           \
    X(hipErrorProfilerAlreadyStopped, "profiler already stopped")           \
    X(hipErrorInvalidConfiguration, "invalid configuration argument")       \
    X(hipErrorInvalidPitchValue, "invalid pitch argument")                  \
    X(hipErrorInvalidSymbol, "invalid device symbol")                       \
    X(hipErrorInvalidDevicePointer, "invalid device pointer")               \
    X(hipErrorInvalidMemcpyDirection, "invalid copy direction for memcpy")  \
    X(hipErrorInsufficientDriver, "driver version is insufficient")         \
    X(hipErrorMissingConfiguration, "__global__ function call is not configured") \
    X(hipErrorPriorLaunchFailure, "unspecified launch failure in prior launch") \
    X(hipErrorInvalidDeviceFunction, "invalid device function")             \
    X(hipErrorNoDevice, "no ROCm-capable device is detected")               \
    X(hipErrorInvalidDevice, "invalid device ordinal")                      \
    X(hipErrorInvalidImage, "device kernel image is invalid")               \
    X(hipErrorInvalidContext, "invalid device context")                     \
    X(hipErrorContextAlreadyCurrent, "context already current")             \
    X(hipErrorMapFailed, "mapping of buffer object failed")                 \
    X(hipErrorUnmapFailed, "unmapping of buffer object failed")             \
    X(hipErrorArrayIsMapped, "array is mapped")                             \
    X(hipErrorAlreadyMapped, "resource already mapped")                     \
    X(hipErrorNoBinaryForGpu, "no kernel image is available for execution on the device") \
    X(hipErrorAlreadyAcquired, "resource already acquired")                 \
    X(hipErrorNotMapped, "resource not mapped")                             \
    X(hipErrorNotMappedAsArray, "resource not mapped as array")             \
    X(hipErrorNotMappedAsPointer, "resource not mapped as pointer")         \
    X(hipErrorECCNotCorrectable, "uncorrectable ECC error encountered")     \
    X(hipErrorUnsupportedLimit, "limit is not supported on this architecture") \
    X(hipErrorContextAlreadyInUse, "exclusive-thread device already in use") \
    X(hipErrorPeerAccessUnsupported, "peer access is not supported between these two devices") \
    X(hipErrorInvalidKernelFile, "invalid kernel file")                     \
    X(hipErrorInvalidGraphicsContext, "invalid OpenGL or DirectX context")  \
    X(hipErrorInvalidSource, "device kernel image is invalid")              \
    X(hipErrorFileNotFound, "file not found")                               \
    X(hipErrorSharedObjectSymbolNotFound, "shared object symbol not found") \
    X(hipErrorSharedObjectInitFailed, "shared object initialization failed") \
    X(hipErrorOperatingSystem, "OS call failed or operation not supported on this OS") \
    X(hipErrorInvalidHandle, "invalid resource handle")                     \
    X(hipErrorIllegalState, "the operation cannot be performed in the present state") \
    X(hipErrorNotFound, "named symbol not found")                           \
    X(hipErrorNotReady, "device not ready")                                 \
    X(hipErrorIllegalAddress, "an illegal memory access was encountered")   \
    X(hipErrorLaunchOutOfResources, "too many resources requested for launch") \
    X(hipErrorLaunchTimeOut, "the launch timed out and was terminated")     \
    X(hipErrorPeerAccessAlreadyEnabled, "peer access is already enabled")   \
    X(hipErrorPeerAccessNotEnabled, "peer access has not been enabled")     \
    X(hipErrorSetOnActiveProcess, "cannot set while device is active in this process") \
    X(hipErrorContextIsDestroyed, "context is destroyed")                   \
    X(hipErrorAssert, "device-side assert triggered")                       \
    X(hipErrorHostMemoryAlreadyRegistered, "part or all of the requested memory range is already mapped") \
    X(hipErrorHostMemoryNotRegistered, "pointer does not correspond to a registered memory region") \
    X(hipErrorLaunchFailure, "unspecified launch failure")                  \
    X(hipErrorCooperativeLaunchTooLarge, "too many blocks in cooperative launch") \
    X(hipErrorNotSupported, "operation not supported")                      \
    X(hipErrorStreamCaptureUnsupported, "operation not permitted when stream is capturing") \
    X(hipErrorStreamCaptureInvalidated, "operation failed due to a previous error during capture") \
    X(hipErrorStreamCaptureMerge, "operation would result in a merge of separate capture sequences") \
    X(hipErrorStreamCaptureUnmatched, "capture was not ended in the same stream as it began") \
    X(hipErrorStreamCaptureUnjoined, "capturing stream has unjoined work")  \
    X(hipErrorStreamCaptureIsolation, "dependency created on uncaptured work in another stream") \
    X(hipErrorStreamCaptureImplicit, "operation would make the legacy stream depend on a capturing blocking stream") \
    X(hipErrorCapturedEvent, "operation not permitted on an event last recorded in a capturing stream") \
    X(hipErrorStreamCaptureWrongThread, "attempt to terminate a thread-local capture sequence from another thread") \
    X(hipErrorGraphExecUpdateFailure, "the graph update was not performed because it included changes which violated constraints specific to instantiated graph update") \
    X(hipErrorUnknown, "unknown error")                                     \
    X(hipErrorRuntimeMemory, "runtime memory call returned error")          \
    X(hipErrorRuntimeOther, "runtime call other than memory returned error")

const char *hipGetErrorName(hipError_t e)
{
    switch (e) {
#define MHIP_ERR_NAME_(n, d) case n: return #n;
        MHIP_ERRORS(MHIP_ERR_NAME_)
#undef MHIP_ERR_NAME_
    default: return "hipErrorUnknown";
    }
}

const char *hipGetErrorString(hipError_t e)
{
    switch (e) {
#define MHIP_ERR_STR_(n, d) case n: return d;
        MHIP_ERRORS(MHIP_ERR_STR_)
#undef MHIP_ERR_STR_
    default: return "unknown error";
    }
}
