/*
** The live progress line `mgsim run` draws on stderr while simulating:
**   "  sim 12.345 us |  42% | 1.23 M events | 10.50 M events/s | ETA 3 s"
** (no "sim" part in emu mode, which has no simulated time; workloads add
** "| 12 kernels, 3072 WGs").
** refreshed in place (carriage return + clear to end of line) at most ten
** times a second, so drawing costs nothing measurable however often the
** engine reports. cli_progress_finish erases the line so the summary
** starts on a clean line. A disabled progress object ignores every call,
** so callers never branch on whether progress is shown.
*/
#ifndef MGS_CLI_PROGRESS_H
#define MGS_CLI_PROGRESS_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

typedef struct cli_progress {
    bool enabled;
    FILE *out;
    double start_s;      /* wall clock at start */
    double last_draw_s;  /* wall clock of the last refresh */
    bool drawn;          /* a line is on screen */
    const char *what;    /* "events" / "insts" */
    char note[128];      /* extra text ("3 kernels, 192 WGs"), may be "" */
} cli_progress;

/* Monotonic wall clock, seconds. */
double cli_wall_seconds(void);

void cli_progress_init(cli_progress *p, bool enabled, FILE *out,
                       const char *what);
/* now_ps: simulated time; work: events or instructions so far;
** done: fraction 0..1, or negative when unknown (then no ETA). */
void cli_progress_update(cli_progress *p, uint64_t now_ps, uint64_t work,
                         double done);
void cli_progress_finish(cli_progress *p);
/* Draws an arbitrary line (a sweep's "5/8 points | ..."), with the same
** in-place redraw and refresh limit as cli_progress_update. */
void cli_progress_text(cli_progress *p, const char *text);
/* Sets the extra text shown at the end of the line from the next refresh. */
void cli_progress_note(cli_progress *p, const char *text);

/* Formats a simulated time ("12.345 us", "1.2 ms"). */
const char *cli_fmt_time_ps(uint64_t ps, char *buf, size_t size);
/* Formats a count or rate with an SI prefix ("1.23 M", "317"). */
const char *cli_fmt_si(double v, char *buf, size_t size);

#endif
