/*
** Export of a results database to CSV or JSON (see db.h).
**
** Both formats stream straight from SQLite to the output file, so the size
** of a database is not limited by memory. Runs come out in id order and
** metrics in insertion (registration) order, so two exports of the same
** file are byte-identical.
*/
#include "results/db.h"

#include "mgsim/errors.h"

#include <math.h>
#include <stdlib.h>
#include <sqlite3.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* The run columns exported, in order (config_text only in JSON). */
static const char *const run_cols[] = {
    "id", "started_utc", "workload", "mode", "verified", "exit_code",
    "wall_time_s", "git_rev", "version", "host", "command_line",
    "config_text"};
#define NRUNCOLS (sizeof run_cols / sizeof run_cols[0])

void mgs_json_string(FILE *f, const char *s)
{
    fputc('"', f);
    for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
        switch (*p) {
        case '"': fputs("\\\"", f); break;
        case '\\': fputs("\\\\", f); break;
        case '\n': fputs("\\n", f); break;
        case '\r': fputs("\\r", f); break;
        case '\t': fputs("\\t", f); break;
        default:
            if (*p < 0x20)
                fprintf(f, "\\u%04x", *p);
            else
                fputc(*p, f);
        }
    }
    fputc('"', f);
}

void mgs_csv_field(FILE *f, const char *s)
{
    if (!s)
        return;
    if (!strpbrk(s, ",\"\n\r")) {
        fputs(s, f);
        return;
    }
    fputc('"', f);
    for (; *s; s++) {
        if (*s == '"')
            fputc('"', f);
        fputc(*s, f);
    }
    fputc('"', f);
}

static void json_value(FILE *f, sqlite3_stmt *st, int col)
{
    switch (sqlite3_column_type(st, col)) {
    case SQLITE_NULL:
        fputs("null", f);
        break;
    case SQLITE_INTEGER:
        fprintf(f, "%lld", (long long)sqlite3_column_int64(st, col));
        break;
    case SQLITE_FLOAT: {
        double v = sqlite3_column_double(st, col);
        if (isfinite(v))
            fprintf(f, "%.17g", v);
        else
            fputs("null", f);
        break;
    }
    default:
        mgs_json_string(f, (const char *)sqlite3_column_text(st, col));
    }
}

/* The shortest text that reads back as the same double. */
static void csv_number(FILE *f, sqlite3_stmt *st, int col)
{
    if (sqlite3_column_type(st, col) == SQLITE_NULL)
        return;
    if (sqlite3_column_type(st, col) == SQLITE_INTEGER) {
        fprintf(f, "%lld", (long long)sqlite3_column_int64(st, col));
        return;
    }
    double v = sqlite3_column_double(st, col);
    char buf[40];
    for (int prec = 15; prec <= 17; prec++) {
        snprintf(buf, sizeof buf, "%.*g", prec, v);
        if (strtod(buf, NULL) == v)
            break;
    }
    fputs(buf, f);
}

static int export_csv(sqlite3 *h, FILE *out)
{
    sqlite3_stmt *st;
    if (sqlite3_prepare_v2(h,
            "SELECT r.id, r.started_utc, r.workload, r.mode, r.verified, "
            "r.exit_code, r.wall_time_s, r.git_rev, r.version, r.host, "
            "r.command_line, m.component, m.metric, m.value, m.unit "
            "FROM runs r JOIN metrics m ON m.run_id = r.id "
            "ORDER BY r.id, m.rowid", -1, &st, NULL) != SQLITE_OK)
        return SQLITE_ERROR;
    fputs("run_id,started_utc,workload,mode,verified,exit_code,wall_time_s,"
          "git_rev,version,host,command_line,component,metric,value,unit\n",
          out);
    int r;
    while ((r = sqlite3_step(st)) == SQLITE_ROW) {
        for (int c = 0; c < 15; c++) {
            if (c)
                fputc(',', out);
            if (c == 6 || c == 13)
                csv_number(out, st, c);
            else
                mgs_csv_field(out, (const char *)sqlite3_column_text(st, c));
        }
        fputc('\n', out);
    }
    sqlite3_finalize(st);
    return r == SQLITE_DONE ? SQLITE_OK : r;
}

static int export_json(sqlite3 *h, FILE *out)
{
    sqlite3_stmt *runs, *mets;
    if (sqlite3_prepare_v2(h,
            "SELECT id, started_utc, workload, mode, verified, exit_code, "
            "wall_time_s, git_rev, version, host, command_line, config_text "
            "FROM runs ORDER BY id", -1, &runs, NULL) != SQLITE_OK)
        return SQLITE_ERROR;
    if (sqlite3_prepare_v2(h,
            "SELECT component, metric, value, unit FROM metrics "
            "WHERE run_id = ? ORDER BY rowid", -1, &mets, NULL) != SQLITE_OK) {
        sqlite3_finalize(runs);
        return SQLITE_ERROR;
    }
    fputs("{\"runs\": [", out);
    int r, nrun = 0;
    while ((r = sqlite3_step(runs)) == SQLITE_ROW) {
        fputs(nrun++ ? ",\n  {" : "\n  {", out);
        for (size_t c = 0; c < NRUNCOLS; c++) {
            fprintf(out, "%s\"%s\": ", c ? ", " : "", run_cols[c]);
            if (c == 4 && sqlite3_column_type(runs, 4) != SQLITE_NULL)
                fputs(sqlite3_column_int(runs, 4) ? "true" : "false", out);
            else
                json_value(out, runs, (int)c);
        }
        fputs(", \"metrics\": [", out);
        sqlite3_reset(mets);
        sqlite3_bind_int64(mets, 1, sqlite3_column_int64(runs, 0));
        int m, nmet = 0;
        while ((m = sqlite3_step(mets)) == SQLITE_ROW) {
            fputs(nmet++ ? ",\n    {" : "\n    {", out);
            fputs("\"component\": ", out);
            json_value(out, mets, 0);
            fputs(", \"metric\": ", out);
            json_value(out, mets, 1);
            fputs(", \"value\": ", out);
            json_value(out, mets, 2);
            fputs(", \"unit\": ", out);
            json_value(out, mets, 3);
            fputc('}', out);
        }
        if (m != SQLITE_DONE) {
            r = m;
            break;
        }
        fputs("]}", out);
    }
    fputs(nrun ? "\n]}\n" : "]}\n", out);
    sqlite3_finalize(runs);
    sqlite3_finalize(mets);
    return r == SQLITE_DONE ? SQLITE_OK : r;
}

int mgs_db_export(const char *path, mgs_export_format fmt, FILE *out)
{
    if (access(path, R_OK) != 0)
        return mgs_error_set(MGS_ENOENT, "no results database %s", path);
    struct stat sb;
    if (stat(path, &sb) == 0 && !S_ISREG(sb.st_mode))
        return mgs_error_set(MGS_EFORMAT, "%s is not a results database "
                             "(not a regular file)", path);
    sqlite3 *h = NULL;
    if (sqlite3_open_v2(path, &h, SQLITE_OPEN_READONLY, NULL) != SQLITE_OK) {
        /* The input cannot be read as a database: bad input (exit 2). */
        int rc = mgs_error_set(MGS_EFORMAT, "results database %s: cannot open: %s",
                               path, h ? sqlite3_errmsg(h) : "out of memory");
        sqlite3_close(h);
        return rc;
    }
    int r = fmt == MGS_EXPORT_CSV ? export_csv(h, out) : export_json(h, out);
    int rc = MGS_OK;
    if (r != SQLITE_OK) {
        /* A file that is not an mgsim database (or not SQLite at all) is bad
        ** input, not an internal failure. */
        rc = mgs_error_set(MGS_EFORMAT,
                           "%s is not an mgsim results database: %s", path,
                           sqlite3_errmsg(h));
    }
    sqlite3_close(h);
    return rc;
}
