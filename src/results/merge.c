/*
** Merging point databases (see merge.h). Every point is copied with
** ATTACH + INSERT ... SELECT inside its own transaction (SQLite refuses
** ATTACH inside one); the target is a fresh temporary file written with
** synchronous=OFF, since a crash only loses a file that is rebuilt from
** the point databases anyway.
*/
#include "results/merge.h"

#include "mgsim/errors.h"
#include "results/db.h"
#include "util/xmalloc.h"

#include <math.h>
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

struct mgs_merge {
    sqlite3 *h;
    char *path, *tmp;
};

static int sql_error(sqlite3 *h, const char *path, const char *what)
{
    return mgs_error_set(MGS_EDB, "results database %s: %s: %s", path, what,
                         h ? sqlite3_errmsg(h) : "out of memory");
}

int mgs_point_db_read(const char *path, int *exit_code, char *message,
                      size_t size)
{
    if (size)
        *message = '\0';
    if (access(path, F_OK) != 0)
        return MGS_ENOENT;
    sqlite3 *h = NULL;
    int rc = MGS_ENOENT;
    if (sqlite3_open_v2(path, &h, SQLITE_OPEN_READONLY, NULL) != SQLITE_OK) {
        sqlite3_close(h);
        return MGS_ENOENT;
    }
    sqlite3_stmt *st = NULL;
    if (sqlite3_prepare_v2(h, "SELECT exit_code FROM runs ORDER BY id LIMIT 1",
                           -1, &st, NULL) == SQLITE_OK &&
        sqlite3_step(st) == SQLITE_ROW) {
        *exit_code = sqlite3_column_int(st, 0);
        rc = MGS_OK;
    }
    sqlite3_finalize(st);
    st = NULL;
    if (rc == MGS_OK &&
        sqlite3_prepare_v2(h, "SELECT message FROM point_note LIMIT 1", -1,
                           &st, NULL) == SQLITE_OK &&
        sqlite3_step(st) == SQLITE_ROW && sqlite3_column_text(st, 0))
        snprintf(message, size, "%s",
                 (const char *)sqlite3_column_text(st, 0));
    sqlite3_finalize(st);
    sqlite3_close(h);
    return rc;
}

int mgs_point_db_note(const char *path, const char *message)
{
    sqlite3 *h = NULL;
    sqlite3_stmt *st = NULL;
    int rc = MGS_OK;
    if (sqlite3_open(path, &h) != SQLITE_OK ||
        sqlite3_exec(h, "CREATE TABLE IF NOT EXISTS point_note(message TEXT);"
                        "DELETE FROM point_note;", NULL, NULL, NULL) != SQLITE_OK ||
        sqlite3_prepare_v2(h, "INSERT INTO point_note VALUES(?1)", -1, &st,
                           NULL) != SQLITE_OK ||
        sqlite3_bind_text(st, 1, message, -1, SQLITE_STATIC) != SQLITE_OK ||
        sqlite3_step(st) != SQLITE_DONE)
        rc = sql_error(h, path, "cannot write the point's note");
    sqlite3_finalize(st);
    sqlite3_close(h);
    return rc;
}

static const char merge_schema[] =
    "PRAGMA synchronous=OFF;"
    "CREATE TABLE sweep_points(idx INTEGER PRIMARY KEY, hash TEXT,"
    " label TEXT, workload TEXT, run_id INTEGER, exit_code INTEGER,"
    " message TEXT);"
    "CREATE TABLE sweep_axes(idx INTEGER, axis TEXT, value TEXT);";

int mgs_merge_open(const char *path, mgs_merge **out)
{
    *out = NULL;
    size_t len = strlen(path) + 8;
    char *tmp = mgs_xmalloc(len);
    snprintf(tmp, len, "%s.tmp", path);
    unlink(tmp);
    mgs_db *db = NULL;
    int rc = mgs_db_open(tmp, &db);   /* creates the ordinary schema */
    mgs_db_close(db);
    if (rc != MGS_OK) {
        free(tmp);
        return rc;
    }
    mgs_merge *m = MGS_NEW(mgs_merge);
    m->path = mgs_xstrdup(path);
    m->tmp = tmp;
    if (sqlite3_open(tmp, &m->h) != SQLITE_OK ||
        sqlite3_exec(m->h, merge_schema, NULL, NULL, NULL) != SQLITE_OK) {
        rc = sql_error(m->h, tmp, "cannot create the merged database");
        mgs_merge_close(m, 0);
        return rc;
    }
    *out = m;
    return MGS_OK;
}

int mgs_merge_add(mgs_merge *m, const char *point_db, size_t idx,
                  const char *hash, const char *label, const char *workload)
{
    static const char copy_sql[] =
        "INSERT INTO runs(started_utc, command_line, config_text, git_rev,"
        " version, wall_time_s, host, exit_code, mode, workload, verified)"
        " SELECT started_utc, command_line, config_text, git_rev, version,"
        " wall_time_s, host, exit_code, mode, workload, verified"
        " FROM p.runs ORDER BY id LIMIT 1;"
        "INSERT INTO metrics(run_id, component, metric, value, unit)"
        " SELECT (SELECT max(id) FROM runs), component, metric, value, unit"
        " FROM p.metrics WHERE run_id = (SELECT min(id) FROM p.runs);";
    /* The copied run is the newest row of runs; the note is optional
    ** (a database the sweep did not annotate has no point_note). */
    static const char point_sql[] =
        "INSERT INTO sweep_points(idx, hash, label, workload, run_id,"
        " exit_code, message) SELECT ?1, ?2, ?3, ?4, id, exit_code, %s"
        " FROM runs WHERE id = (SELECT max(id) FROM runs)";
    sqlite3_stmt *st = NULL;
    if (sqlite3_prepare_v2(m->h, "ATTACH ?1 AS p", -1, &st, NULL) != SQLITE_OK ||
        sqlite3_bind_text(st, 1, point_db, -1, SQLITE_STATIC) != SQLITE_OK ||
        sqlite3_step(st) != SQLITE_DONE) {
        sqlite3_finalize(st);
        return sql_error(m->h, point_db, "cannot attach");
    }
    sqlite3_finalize(st);
    st = NULL;
    int has_note = 0;
    if (sqlite3_prepare_v2(m->h, "SELECT count(*) FROM p.sqlite_master WHERE "
                           "name = 'point_note'", -1, &st, NULL) == SQLITE_OK &&
        sqlite3_step(st) == SQLITE_ROW)
        has_note = sqlite3_column_int(st, 0) > 0;
    sqlite3_finalize(st);
    st = NULL;
    char sql[512];
    snprintf(sql, sizeof sql, point_sql,
             has_note ? "(SELECT message FROM p.point_note LIMIT 1)" : "NULL");
    int rc = MGS_OK;
    if (sqlite3_exec(m->h, "BEGIN;", NULL, NULL, NULL) != SQLITE_OK ||
        sqlite3_exec(m->h, copy_sql, NULL, NULL, NULL) != SQLITE_OK ||
        sqlite3_prepare_v2(m->h, sql, -1, &st, NULL) != SQLITE_OK)
        rc = sql_error(m->h, point_db, "cannot copy the run");
    if (rc == MGS_OK) {
        sqlite3_bind_int64(st, 1, (sqlite3_int64)idx);
        sqlite3_bind_text(st, 2, hash, -1, SQLITE_STATIC);
        sqlite3_bind_text(st, 3, label, -1, SQLITE_STATIC);
        sqlite3_bind_text(st, 4, workload, -1, SQLITE_STATIC);
        if (sqlite3_step(st) != SQLITE_DONE)
            rc = sql_error(m->h, m->tmp, "cannot record the point");
    }
    sqlite3_finalize(st);
    sqlite3_exec(m->h, rc == MGS_OK ? "COMMIT;" : "ROLLBACK;", NULL, NULL, NULL);
    sqlite3_exec(m->h, "DETACH p;", NULL, NULL, NULL);
    return rc;
}

int mgs_merge_axis(mgs_merge *m, size_t idx, const char *axis,
                   const char *value)
{
    sqlite3_stmt *st = NULL;
    int rc = MGS_OK;
    if (sqlite3_prepare_v2(m->h, "INSERT INTO sweep_axes VALUES(?1, ?2, ?3)",
                           -1, &st, NULL) != SQLITE_OK)
        rc = sql_error(m->h, m->tmp, "cannot record an axis");
    if (rc == MGS_OK) {
        sqlite3_bind_int64(st, 1, (sqlite3_int64)idx);
        sqlite3_bind_text(st, 2, axis, -1, SQLITE_STATIC);
        sqlite3_bind_text(st, 3, value, -1, SQLITE_STATIC);
        if (sqlite3_step(st) != SQLITE_DONE)
            rc = sql_error(m->h, m->tmp, "cannot record an axis");
    }
    sqlite3_finalize(st);
    return rc;
}

int mgs_merge_close(mgs_merge *m, int commit)
{
    if (!m)
        return MGS_OK;
    int rc = MGS_OK;
    if (sqlite3_close(m->h) != SQLITE_OK && commit)
        rc = mgs_error_set(MGS_EDB, "results database %s: cannot close",
                           m->tmp);
    if (commit && rc == MGS_OK && rename(m->tmp, m->path) != 0)
        rc = mgs_error_set(MGS_EDB, "results database %s: cannot rename "
                           "into place", m->path);
    if (!commit || rc != MGS_OK)
        unlink(m->tmp);
    free(m->path);
    free(m->tmp);
    free(m);
    return rc;
}

int mgs_sweep_db_values(const char *path, const char *component,
                        const char *metric, size_t n, double *values,
                        int *exit_codes)
{
    for (size_t i = 0; i < n; i++) {
        values[i] = NAN;
        exit_codes[i] = -1;
    }
    /* component as a LIKE pattern ('*' -> '%', LIKE's own characters
    ** escaped); metric as ",a,b," for instr(). */
    size_t cl = strlen(component), ml = strlen(metric);
    char *pattern = mgs_xmalloc(2 * cl + 1), *names = mgs_xmalloc(ml + 3);
    char *q = pattern;
    for (const char *c = component; *c; c++) {
        if (*c == '%' || *c == '_' || *c == '\\')
            *q++ = '\\';
        *q++ = *c == '*' ? '%' : *c;
    }
    *q = '\0';
    q = names;
    *q++ = ',';
    for (const char *c = metric; *c; c++)
        if (*c == '+')
            *q++ = ',';
        else if (*c != ' ' && *c != '\t')
            *q++ = *c;
    *q++ = ',';
    *q = '\0';
    sqlite3 *h = NULL;
    sqlite3_stmt *st = NULL;
    int rc = MGS_OK;
    if (sqlite3_open_v2(path, &h, SQLITE_OPEN_READONLY, NULL) != SQLITE_OK ||
        sqlite3_prepare_v2(h,
            "SELECT p.idx, p.exit_code, (SELECT SUM(m.value) FROM metrics m"
            " WHERE m.run_id = p.run_id AND m.component LIKE ?1 ESCAPE '\\'"
            " AND instr(?2, ',' || m.metric || ',') > 0)"
            " FROM sweep_points p", -1, &st, NULL) != SQLITE_OK)
        rc = sql_error(h, path, "cannot read the sweep");
    if (rc == MGS_OK) {
        sqlite3_bind_text(st, 1, pattern, -1, SQLITE_STATIC);
        sqlite3_bind_text(st, 2, names, -1, SQLITE_STATIC);
        while (sqlite3_step(st) == SQLITE_ROW) {
            sqlite3_int64 i = sqlite3_column_int64(st, 0);
            if (i < 0 || (size_t)i >= n)
                continue;
            exit_codes[i] = sqlite3_column_int(st, 1);
            if (sqlite3_column_type(st, 2) != SQLITE_NULL)
                values[i] = sqlite3_column_double(st, 2);
        }
    }
    sqlite3_finalize(st);
    sqlite3_close(h);
    free(pattern);
    free(names);
    return rc;
}
