/*
** Results database: one SQLite file holding runs and their metrics.
**
** Schema (version 1, also in docs/cli.md):
**   runs(id INTEGER PRIMARY KEY, started_utc TEXT, command_line TEXT,
**        config_text TEXT, git_rev TEXT, version TEXT, wall_time_s REAL,
**        host TEXT, exit_code INTEGER, mode TEXT, workload TEXT,
**        verified INTEGER)          -- verified: 1 yes, 0 no, NULL n/a
**   metrics(run_id INTEGER REFERENCES runs(id), component TEXT,
**           metric TEXT, value REAL, unit TEXT)
** A run and all its metric rows are written in one transaction, so a
** reader never sees a run without its metrics. By default every run gets
** its own file (results/<UTC time>-<command>-<pid>.db), so parallel runs
** never contend for a lock; merging is a plain `INSERT ... SELECT`.
**
** Errors: MGS_EDB with the SQLite message and the file name.
*/
#ifndef MGS_RESULTS_DB_H
#define MGS_RESULTS_DB_H

#include "sim/stats.h"

#include <stdint.h>
#include <stdio.h>

typedef struct mgs_db mgs_db;

typedef struct mgs_run_record {
    const char *started_utc;   /* ISO 8601, "2026-11-21T08:30:00Z" */
    const char *command_line;
    const char *config_text;   /* effective configuration as INI */
    const char *git_rev;
    const char *version;
    double wall_time_s;
    const char *host;
    int exit_code;
    const char *mode;          /* "emu" / "timing" */
    const char *workload;      /* "demo" or the workload name */
    int verified;              /* 1, 0, or -1 for not applicable */
} mgs_run_record;

/* Opens (creating file, schema and parent directory as needed). */
int mgs_db_open(const char *path, mgs_db **out);
void mgs_db_close(mgs_db *db);
/* Inserts the run and one metrics row per stat row (stat_registry_foreach
** at time now) in one transaction; stats may be NULL. */
int mgs_db_add_run(mgs_db *db, const mgs_run_record *run,
                   const stat_registry *stats, mgs_time now,
                   int64_t *run_id);

/* Writes "results/<YYYYmmddTHHMMSSZ>-<command>-<pid>.db" into buf. */
void mgs_db_default_path(const char *command, char *buf, size_t size);
/* Current UTC time as ISO 8601 ("2026-11-21T08:30:00Z"). */
void mgs_utc_now(char *buf, size_t size);

typedef enum mgs_export_format { MGS_EXPORT_CSV, MGS_EXPORT_JSON } mgs_export_format;
/* Exports every run and metric of an existing database file.
** CSV: header, then one row per metric with its run's columns.
** JSON: {"runs":[{run columns..., "metrics":[{component,metric,value,unit}]}]} */
int mgs_db_export(const char *path, mgs_export_format fmt, FILE *out);

/* Writes s as one CSV field (RFC 4180 quoting when needed; NULL: empty). */
void mgs_csv_field(FILE *f, const char *s);
/* Writes s as a JSON string literal (with quotes). */
void mgs_json_string(FILE *f, const char *s);

#endif
