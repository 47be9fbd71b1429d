/*
** Live progress line (see progress.h).
*/
#include "cli/progress.h"

#include <inttypes.h>
#include <time.h>

#define REFRESH_S 0.1

double cli_wall_seconds(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

void cli_progress_init(cli_progress *p, bool enabled, FILE *out,
                       const char *what)
{
    *p = (cli_progress){.enabled = enabled, .out = out, .what = what};
    p->start_s = p->last_draw_s = cli_wall_seconds();
}

const char *cli_fmt_time_ps(uint64_t ps, char *buf, size_t size)
{
    static const struct { const char *unit; double scale; } u[] = {
        {"s", 1e12}, {"ms", 1e9}, {"us", 1e6}, {"ns", 1e3}};
    for (size_t i = 0; i < sizeof u / sizeof u[0]; i++)
        if ((double)ps >= u[i].scale) {
            snprintf(buf, size, "%.3f %s", (double)ps / u[i].scale, u[i].unit);
            return buf;
        }
    snprintf(buf, size, "%" PRIu64 " ps", ps);
    return buf;
}

const char *cli_fmt_si(double v, char *buf, size_t size)
{
    if (v >= 1e9)
        snprintf(buf, size, "%.2f G", v / 1e9);
    else if (v >= 1e6)
        snprintf(buf, size, "%.2f M", v / 1e6);
    else if (v >= 1e3)
        snprintf(buf, size, "%.2f k", v / 1e3);
    else
        snprintf(buf, size, "%.0f", v);
    return buf;
}

/* Whether to draw now (enabled, and the refresh interval passed); if so,
** marks the line drawn at *now. */
static bool due(cli_progress *p, double *now)
{
    if (!p->enabled)
        return false;
    *now = cli_wall_seconds();
    if (p->drawn && *now - p->last_draw_s < REFRESH_S)
        return false;
    p->last_draw_s = *now;
    p->drawn = true;
    return true;
}

void cli_progress_update(cli_progress *p, uint64_t now_ps, uint64_t work,
                         double done)
{
    double t;
    if (!due(p, &t))
        return;
    double el = t - p->start_s;
    char simt[48] = "", w[32], rate[32], eta[32] = "";
    if (now_ps > 0) { /* emu mode has no simulated time */
        char t[32];
        snprintf(simt, sizeof simt, "sim %s | ", cli_fmt_time_ps(now_ps, t, sizeof t));
    }
    cli_fmt_si((double)work, w, sizeof w);
    cli_fmt_si(el > 0 ? (double)work / el : 0, rate, sizeof rate);
    if (done > 0 && done < 1 && el > 0.2)
        snprintf(eta, sizeof eta, " | ETA %.0f s", el / done - el);
    char pct[16] = "";
    if (done >= 0 && done <= 1)
        snprintf(pct, sizeof pct, "%3.0f%% | ", done * 100);
    fprintf(p->out, "\r\033[K  %s%s%s %s | %s %s/s%s%s%s", simt, pct, w,
            p->what, rate, p->what, eta, *p->note ? " | " : "", p->note);
    fflush(p->out);
}

void cli_progress_text(cli_progress *p, const char *text)
{
    double t;
    if (!due(p, &t))
        return;
    fprintf(p->out, "\r\033[K  %s", text);
    fflush(p->out);
}

void cli_progress_note(cli_progress *p, const char *text)
{
    snprintf(p->note, sizeof p->note, "%s", text);
}

void cli_progress_finish(cli_progress *p)
{
    if (p->enabled && p->drawn) {
        fputs("\r\033[K", p->out);
        fflush(p->out);
    }
    p->drawn = false;
}
