/*
** Error codes and the last-error message (see include/mgsim/errors.h).
** One thread-local slot holds the message; a simulation runs on one thread,
** so the slot is never shared between runs in flight.
*/
#include "mgsim/errors.h"

#include <stdarg.h>
#include <stdio.h>

static _Thread_local char last_msg[1024];
static _Thread_local int last_code;
static _Thread_local unsigned long serial; /* mgs_error_set calls */

#define IDX(code) ((code) - MGS_ERROR_BASE_ - 1)

static const char *const descs[] = {
#define X(name, exitc, desc) desc,
    MGS_ERROR_MAP(X)
#undef X
};
static const char *const names[] = {
#define X(name, exitc, desc) "MGS_" #name,
    MGS_ERROR_MAP(X)
#undef X
};
static const int exits[] = {
#define X(name, exitc, desc) exitc,
    MGS_ERROR_MAP(X)
#undef X
};

static int known(int code)
{
    return code > MGS_ERROR_BASE_ && code < MGS_ERROR_END_;
}

const char *mgs_strerror(int code)
{
    if (code == MGS_OK)
        return "success";
    return known(code) ? descs[IDX(code)] : "unknown error";
}

const char *mgs_error_name(int code)
{
    if (code == MGS_OK)
        return "MGS_OK";
    return known(code) ? names[IDX(code)] : "MGS_E?";
}

int mgs_exit_code(int code)
{
    if (code == MGS_OK)
        return MGS_EXIT_OK;
    return known(code) ? exits[IDX(code)] : MGS_EXIT_INTERNAL;
}

int mgs_error_set(int code, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(last_msg, sizeof last_msg, fmt, ap);
    va_end(ap);
    last_code = code;
    serial++;
    return code;
}

unsigned long mgs_error_serial(void)
{
    return serial;
}

const char *mgs_error_msg(void)
{
    return last_msg[0] ? last_msg : mgs_strerror(last_code);
}

int mgs_error_code(void)
{
    return last_code;
}

void mgs_error_clear(void)
{
    last_msg[0] = '\0';
    last_code = MGS_OK;
}
