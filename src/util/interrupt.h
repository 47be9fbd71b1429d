/*
** Interrupt requests: the bridge between a signal handler (the CLI's, for
** SIGINT, SIGTERM and SIGHUP) and the simulation loops, which poll it at
** safe points and stop cleanly (the engine every few thousand events, the
** emulator between work-groups) with MGS_EINTR, so the run can still be
** recorded with its statistics so far.
**
** The flag is a volatile sig_atomic_t written only by the handler (or a
** test); readers never clear it.
*/
#ifndef MGS_UTIL_INTERRUPT_H
#define MGS_UTIL_INTERRUPT_H

#include <signal.h>

/* 0, or the number of the signal that asked the simulation to stop. */
extern volatile sig_atomic_t mgs_interrupt_signal;

static inline int mgs_interrupted(void) { return mgs_interrupt_signal; }

/* Records "interrupted by SIG<name> at <where>" and returns MGS_EINTR. */
int mgs_interrupt_error(const char *where);

#endif
