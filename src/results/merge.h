/*
** Merging per-point results databases into one (sweeps, Slurm arrays).
**
** Each point of a sweep has its own database file holding exactly one run
** (the `mgsim run` child wrote it, or the sweep recorded the failure of a
** child that could not) and, optionally, a note table with the point's
** error message:
**   point_note(message TEXT)
** The merged database has the ordinary schema (db.h) plus:
**   sweep_points(idx INTEGER PRIMARY KEY, hash TEXT, label TEXT,
**                workload TEXT, run_id INTEGER, exit_code INTEGER,
**                message TEXT)
**   sweep_axes(idx INTEGER, axis TEXT, value TEXT)
** so that plots and studies find a point's axes without parsing command
** lines. The merge writes PATH.tmp and renames it into place on success.
*/
#ifndef MGS_RESULTS_MERGE_H
#define MGS_RESULTS_MERGE_H

#include <stddef.h>
#include <stdint.h>

/* Reads a point database: MGS_OK with its run's exit code and note (or "")
** if it holds a run; MGS_ENOENT if it has none (or does not exist). */
int mgs_point_db_read(const char *path, int *exit_code, char *message,
                      size_t size);
/* Stores the point's error message in its database (point_note). */
int mgs_point_db_note(const char *path, const char *message);

typedef struct mgs_merge mgs_merge;
int mgs_merge_open(const char *path, mgs_merge **out);
/* Copies the run and metrics of point_db and adds its sweep_points row. */
int mgs_merge_add(mgs_merge *m, const char *point_db, size_t idx,
                  const char *hash, const char *label, const char *workload);
int mgs_merge_axis(mgs_merge *m, size_t idx, const char *axis,
                   const char *value);
/* commit: rename into place; otherwise remove the temporary file. */
int mgs_merge_close(mgs_merge *m, int commit);

/* Reads back a merged sweep: for each point index < n, its exit code
** (exit_codes[i] = -1 if the point is missing) and the value of
** (component, metric) (NAN if absent). A '*' in component matches any
** text and metric may be "a + b": the value is then the sum over every
** matching component and listed metric ("GPU*.L2[*]", "reads + writes"). */
int mgs_sweep_db_values(const char *path, const char *component,
                        const char *metric, size_t n, double *values,
                        int *exit_codes);

#endif
