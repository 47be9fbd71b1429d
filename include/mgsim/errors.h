/*
** mgsim error codes and process exit codes.
**
** Library functions that can fail for environmental or user reasons return
** a negative MGS_E* code and record a one-line message (naming the key,
** value, file or address concerned) with mgs_error_set(). Callers that
** cannot handle the error pass the code up unchanged; the CLI prints
** mgs_error_msg() once and exits with mgs_exit_code(code).
** Library code never calls exit().
**
** Programming errors are assertions; simulated faults (an illegal
** instruction, a GPU memory fault, a deadlock, a kernel's failed assert())
** surface as MGS_EUNSUPPORTED, MGS_EFAULT, MGS_EDEADLOCK or MGS_EASSERT
** once the simulation stops.
*/
#ifndef MGSIM_ERRORS_H
#define MGSIM_ERRORS_H

/* X(name, exit code, description). Exit codes are documented in docs/cli.md:
** 0 success, 1 verification failed, 2 usage/config/input, 3 simulation
** error, 4 internal error, 130 interrupted (SIGINT, SIGTERM, SIGHUP). */
#define MGS_ERROR_MAP(X)                                                   \
    X(EINVAL,       2, "invalid argument")                                 \
    X(ECONFIG,      2, "configuration error")                              \
    X(ENOENT,       2, "no such file or entry")                            \
    X(EIO,          2, "input/output error")                               \
    X(EFORMAT,      2, "malformed input file")                             \
    X(EARCH,        2, "unsupported code-object architecture")             \
    X(ENOMEM,       2, "out of simulated memory")                          \
    X(EBUSY,        4, "resource busy")                                    \
    X(EUNSUPPORTED, 3, "unsupported instruction or feature")               \
    X(EFAULT,       3, "simulated memory fault")                           \
    X(EDEADLOCK,    3, "simulation stopped making progress")               \
    X(ESIM,         3, "simulation error")                                 \
    X(EVERIFY,      1, "output verification failed")                       \
    X(EDB,          4, "results database error")                           \
    X(EINTERNAL,    4, "internal error")                                 \
    X(ELIMIT,       3, "simulation limit reached")                         \
    X(EINTR,      130, "interrupted by a signal")                        \
    X(EASSERT,      3, "device-side assertion failed")

enum {
    MGS_OK = 0,
    MGS_ERROR_BASE_ = -100,
#define MGS_ERR_ENUM_(name, exitc, desc) MGS_##name,
    MGS_ERROR_MAP(MGS_ERR_ENUM_)
#undef MGS_ERR_ENUM_
    MGS_ERROR_END_
};

enum {
    MGS_EXIT_OK = 0,
    MGS_EXIT_VERIFY = 1,
    MGS_EXIT_USAGE = 2,
    MGS_EXIT_SIM = 3,
    MGS_EXIT_INTERNAL = 4,
    MGS_EXIT_INTERRUPTED = 130
};

/* Static description of a code ("invalid argument"); never NULL. */
const char *mgs_strerror(int code);
/* Symbolic name of a code ("MGS_EINVAL"); never NULL. */
const char *mgs_error_name(int code);
/* Process exit code for an error code (MGS_OK -> 0). */
int mgs_exit_code(int code);

/* Records a one-line message for the most recent error and returns code, so
** callers can write `return mgs_error_set(MGS_EINVAL, "...", ...);`. The
** message must not end in a newline. Not thread-safe: one simulation per
** thread records into thread-local storage. */
int mgs_error_set(int code, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
/* The last recorded message, or the code's description if none was set. */
const char *mgs_error_msg(void);
/* The code last passed to mgs_error_set (MGS_OK if none). */
int mgs_error_code(void);
/* How many errors mgs_error_set recorded so far (this thread): tells a new
** error from one already reported, e.g. a failed timing simulation that
** answers every later call with its first error without recording it
** again. */
unsigned long mgs_error_serial(void);
/* Forgets the last message. */
void mgs_error_clear(void);

#endif
