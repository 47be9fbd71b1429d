/*
** Results database writer (see db.h). Prepared statements are reused for
** every metric row inside one transaction: writing 10^5 rows takes tens of
** milliseconds instead of one fsync per row.
*/
#include "results/db.h"

#include "mgsim/errors.h"
#include "util/xmalloc.h"

#include <errno.h>
#include <sqlite3.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

struct mgs_db {
    sqlite3 *h;
    char *path;
};

static const char schema_sql[] =
    "CREATE TABLE IF NOT EXISTS runs("
    " id INTEGER PRIMARY KEY, started_utc TEXT, command_line TEXT,"
    " config_text TEXT, git_rev TEXT, version TEXT, wall_time_s REAL,"
    " host TEXT, exit_code INTEGER, mode TEXT, workload TEXT,"
    " verified INTEGER);"
    "CREATE TABLE IF NOT EXISTS metrics("
    " run_id INTEGER NOT NULL REFERENCES runs(id), component TEXT,"
    " metric TEXT, value REAL, unit TEXT);"
    "CREATE INDEX IF NOT EXISTS metrics_run ON metrics(run_id);";

static int db_error(sqlite3 *h, const char *path, const char *what)
{
    return mgs_error_set(MGS_EDB, "results database %s: %s: %s", path, what,
                         h ? sqlite3_errmsg(h) : "out of memory");
}

/* mkdir -p of the directory part of path. */
static int make_parent_dirs(const char *path)
{
    char *dir = mgs_xstrdup(path);
    char *slash = strrchr(dir, '/');
    int rc = MGS_OK;
    if (slash && slash != dir) {
        *slash = '\0';
        for (char *p = dir + 1; ; p++) {
            if (*p == '/' || *p == '\0') {
                char saved = *p;
                *p = '\0';
                struct stat sb;
                if (mkdir(dir, 0777) != 0 &&
                    (errno != EEXIST || stat(dir, &sb) != 0 ||
                     !S_ISDIR(sb.st_mode))) {
                    rc = mgs_error_set(MGS_EDB,
                                       "results database %s: cannot create "
                                       "directory %s: %s",
                                       path, dir,
                                       errno == EEXIST ? "a file is in the way"
                                                       : strerror(errno));
                    break;
                }
                *p = saved;
                if (saved == '\0')
                    break;
            }
        }
    }
    free(dir);
    return rc;
}

int mgs_db_open(const char *path, mgs_db **out)
{
    *out = NULL;
    int rc = make_parent_dirs(path);
    if (rc != MGS_OK)
        return rc;
    sqlite3 *h = NULL;
    if (sqlite3_open_v2(path, &h, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE,
                        NULL) != SQLITE_OK) {
        rc = db_error(h, path, "cannot open");
        sqlite3_close(h);
        return rc;
    }
    sqlite3_busy_timeout(h, 5000);
    char *err = NULL;
    if (sqlite3_exec(h, schema_sql, NULL, NULL, &err) != SQLITE_OK) {
        rc = mgs_error_set(MGS_EDB, "results database %s: cannot create "
                                    "tables: %s", path, err ? err : "?");
        sqlite3_free(err);
        sqlite3_close(h);
        return rc;
    }
    /* Writability now, not after the simulation: sqlite opens a file it
    ** may not write read-only without a word, and a read-only directory
    ** or file system shows only when a write lock is taken. */
    if (sqlite3_db_readonly(h, "main") == 1 ||
        sqlite3_exec(h, "BEGIN IMMEDIATE; ROLLBACK;", NULL, NULL, NULL) !=
            SQLITE_OK) {
        rc = sqlite3_db_readonly(h, "main") == 1
                 ? mgs_error_set(MGS_EDB, "results database %s: read-only",
                                 path)
                 : db_error(h, path, "cannot write");
        sqlite3_close(h);
        return rc;
    }
    mgs_db *db = MGS_NEW(mgs_db);
    db->h = h;
    db->path = mgs_xstrdup(path);
    *out = db;
    return MGS_OK;
}

void mgs_db_close(mgs_db *db)
{
    if (!db)
        return;
    sqlite3_close(db->h);
    free(db->path);
    free(db);
}

typedef struct metric_sink {
    sqlite3_stmt *st;
    int64_t run_id;
    int rc; /* first sqlite failure */
} metric_sink;

static void insert_metric(const stat_row *row, void *ud)
{
    metric_sink *s = ud;
    if (s->rc != SQLITE_OK)
        return;
    sqlite3_reset(s->st);
    sqlite3_bind_int64(s->st, 1, s->run_id);
    sqlite3_bind_text(s->st, 2, row->component, -1, SQLITE_TRANSIENT);
    sqlite3_bind_text(s->st, 3, row->metric, -1, SQLITE_TRANSIENT);
    sqlite3_bind_double(s->st, 4, row->value);
    sqlite3_bind_text(s->st, 5, row->unit, -1, SQLITE_TRANSIENT);
    int r = sqlite3_step(s->st);
    if (r != SQLITE_DONE)
        s->rc = r;
}

static void bind_text_or_null(sqlite3_stmt *st, int i, const char *s)
{
    if (s)
        sqlite3_bind_text(st, i, s, -1, SQLITE_TRANSIENT);
    else
        sqlite3_bind_null(st, i);
}

int mgs_db_add_run(mgs_db *db, const mgs_run_record *run,
                   const stat_registry *stats, mgs_time now,
                   int64_t *run_id)
{
    sqlite3 *h = db->h;
    sqlite3_stmt *st = NULL;
    int rc = MGS_OK;
    if (sqlite3_exec(h, "BEGIN IMMEDIATE", NULL, NULL, NULL) != SQLITE_OK)
        return db_error(h, db->path, "cannot begin transaction");
    if (sqlite3_prepare_v2(h,
            "INSERT INTO runs(started_utc, command_line, config_text, "
            "git_rev, version, wall_time_s, host, exit_code, mode, workload, "
            "verified) VALUES(?,?,?,?,?,?,?,?,?,?,?)",
            -1, &st, NULL) != SQLITE_OK) {
        rc = db_error(h, db->path, "cannot prepare run insert");
        goto fail;
    }
    bind_text_or_null(st, 1, run->started_utc);
    bind_text_or_null(st, 2, run->command_line);
    bind_text_or_null(st, 3, run->config_text);
    bind_text_or_null(st, 4, run->git_rev);
    bind_text_or_null(st, 5, run->version);
    sqlite3_bind_double(st, 6, run->wall_time_s);
    bind_text_or_null(st, 7, run->host);
    sqlite3_bind_int(st, 8, run->exit_code);
    bind_text_or_null(st, 9, run->mode);
    bind_text_or_null(st, 10, run->workload);
    if (run->verified < 0)
        sqlite3_bind_null(st, 11);
    else
        sqlite3_bind_int(st, 11, run->verified != 0);
    if (sqlite3_step(st) != SQLITE_DONE) {
        rc = db_error(h, db->path, "cannot insert run");
        goto fail;
    }
    sqlite3_finalize(st);
    st = NULL;
    int64_t id = sqlite3_last_insert_rowid(h);
    if (stats) {
        if (sqlite3_prepare_v2(h,
                "INSERT INTO metrics(run_id, component, metric, value, unit) "
                "VALUES(?,?,?,?,?)", -1, &st, NULL) != SQLITE_OK) {
            rc = db_error(h, db->path, "cannot prepare metric insert");
            goto fail;
        }
        metric_sink sink = {st, id, SQLITE_OK};
        stat_registry_foreach(stats, now, insert_metric, &sink);
        if (sink.rc != SQLITE_OK) {
            rc = db_error(h, db->path, "cannot insert metric");
            goto fail;
        }
        sqlite3_finalize(st);
        st = NULL;
    }
    if (sqlite3_exec(h, "COMMIT", NULL, NULL, NULL) != SQLITE_OK) {
        rc = db_error(h, db->path, "cannot commit");
        goto fail;
    }
    if (run_id)
        *run_id = id;
    return MGS_OK;
fail:
    sqlite3_finalize(st);
    sqlite3_exec(h, "ROLLBACK", NULL, NULL, NULL);
    return rc;
}

void mgs_db_default_path(const char *command, char *buf, size_t size)
{
    time_t t = time(NULL);
    struct tm tm;
    gmtime_r(&t, &tm);
    char stamp[32];
    strftime(stamp, sizeof stamp, "%Y%m%dT%H%M%SZ", &tm);
    snprintf(buf, size, "results/%s-%s-%ld.db", stamp, command,
             (long)getpid());
}

void mgs_utc_now(char *buf, size_t size)
{
    time_t t = time(NULL);
    struct tm tm;
    gmtime_r(&t, &tm);
    strftime(buf, size, "%Y-%m-%dT%H:%M:%SZ", &tm);
}
