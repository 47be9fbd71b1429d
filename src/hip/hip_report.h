/*
** libmgsim-hip run report: the statistics registry handed to the runtime,
** and what happens to it at exit — one results-database run (like
** `mgsim run`: file from MGSIM_DB / output.db, default
** results/<UTC time>-hip-<pid>.db) plus a short summary on stderr unless
** MGSIM_QUIET is set.
**
** Ownership: mhip_report_open creates mhip_g.stats; mhip_report_discard
** frees it (idempotent).
*/
#ifndef MGS_HIP_REPORT_H
#define MGS_HIP_REPORT_H

#include "mgsim/runtime.h"

/* Creates the registry, records the start time, and sets o->stats. */
int mhip_report_open(mgs_rt_options *o);
/* Writes the database run and the summary. Errors are printed (one line),
** never fatal: the program's own result stands. */
void mhip_report_write(mgs_rt *rt);
void mhip_report_discard(void);

#endif
