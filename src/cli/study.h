/*
** A study: a data file under studies/ (docs/studies.md) that names a
** sweep (sweep.h sections), the metric, the baseline it is normalised to,
** the aggregation and the figure, and the paper's reference numbers and
** statements with their sources:
**
**   [study]
**   title = ...               source = seed 002 §5.3.5, Fig. 5.9a
**   component = run           metric = sim_time
**   baseline = variant=1gpu   normalise = speedup | ratio | none
**   x = workload              group = variant
**   aggregate = geomean | mean | none
**   figure = bars | lines     ylabel = speedup over 1 GPU
**   groups = a, b             ; show only these groups (default: all)
**   min_footprint = 8MB       ; --size study: every point must exceed it
**   [paper]
**   GROUP.X = VALUE | source  ; X a value of the x axis, or "geomean"
**   [claim NAME]
**   text = ...   source = ...   group = monolithic4
**   workloads = all | km, mt   min = 4   max = 2.5   share = 0.5
**   note = why mgsim differs, when it does
**   [figure FIG]              ; more figures of the same points: any of
**   metric = reads + writes   ; title, description, component, metric,
**   component = Stack*.DRAM*  ; baseline, normalise, aggregate, figure,
**   [paper FIG]               ; ylabel (the rest from [study]); its own
**   GROUP.X = VALUE | source  ; references. Outputs NAME-FIG.csv/.png.
**
** study_load reads it; cmd_study.c runs the sweep and writes the outputs.
*/
#ifndef MGS_CLI_STUDY_H
#define MGS_CLI_STUDY_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

typedef struct study_ref {
    char *group, *x, *source;
    double value;
} study_ref;

typedef struct study_claim {
    char *name, *text, *source, *group, *xs, *note;
    double min, max, share;
    bool has_min, has_max;
} study_claim;

typedef struct study {
    /* A [figure FIG] is a study of its own: name "NAME-FIG", no text, no
    ** figures, its unset keys taken from the [study] section. */
    char *name, *path, *text;             /* the file */
    char *title, *source, *description;
    char *component, *metric;
    char *baseline_axis, *baseline_value; /* NULL: no normalisation */
    char *normalise;                      /* "speedup", "ratio", "none" */
    char *x_axis, *group_axis;
    char *aggregate;                      /* "geomean", "mean", "none" */
    char *figure, *ylabel;
    char *groups;                         /* groups shown (list); NULL: all */
    uint64_t min_footprint;               /* bytes; 0: no check */
    study_ref *refs;
    size_t nrefs;
    study_claim *claims;
    size_t nclaims;
    struct study *figures;                /* the [figure FIG] sections */
    size_t nfigures;
} study;

/* The folder of study files: $MGSIM_STUDY_DIR, else the source tree's
** studies/. */
const char *study_dir(void);
/* Loads NAME (a file under study_dir(), or a path ending in .ini). MGS_OK
** or MGS_ENOENT / MGS_EINVAL with a message. */
int study_load(const char *name, study *out);
void study_free(study *s);

#endif
