/*
** Interrupt requests (interrupt.h).
*/
#include "util/interrupt.h"

#include <string.h>

#include "mgsim/errors.h"

volatile sig_atomic_t mgs_interrupt_signal;

int mgs_interrupt_error(const char *where)
{
    int sig = mgs_interrupt_signal;
    const char *name = sig == SIGINT    ? "SIGINT"
                       : sig == SIGTERM ? "SIGTERM"
                       : sig == SIGHUP  ? "SIGHUP"
                                        : "a signal";
    return mgs_error_set(MGS_EINTR, "interrupted by %s %s", name, where);
}
