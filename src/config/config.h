/*
** mgsim configuration: the effective value of every key in keys.def, plus
** where each value came from.
**
** Layering (later wins): built-in defaults (keys.def) <- preset
** (configs/NAME.ini, default preset "default") <- each --config FILE in
** order <- each --set section.key=value in order. A value is validated
** (type, unit, range, choices) when it is applied; the first bad value
** stops loading with MGS_ECONFIG and a one-line message naming the place
** ("configs/x.ini:3" or "--set"), the key and the value.
**
** struct mgs_config is plain data: fixed-size fields generated from
** keys.def (cfg->gpu_num_cus, cfg->sim_seed, ...), no heap pointers, so it
** can be copied with `=` and needs no free. ENUM fields hold the chosen
** name (compare with strcmp or mgs_config_is).
*/
#ifndef MGS_CONFIG_CONFIG_H
#define MGS_CONFIG_CONFIG_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#define MGS_CFG_STR_MAX 512     /* STRING values, including the NUL */
#define MGS_CFG_WHERE_MAX 256   /* file name recorded in an origin */
#define MGS_CFG_ENUM_MAX 32     /* longest ENUM choice, including the NUL */

typedef enum mgs_cfg_type {
    MGS_CFG_INT,    /* int */
    MGS_CFG_COUNT,  /* uint64_t, plain number */
    MGS_CFG_SIZE,   /* uint64_t bytes */
    MGS_CFG_FREQ,   /* uint64_t Hz */
    MGS_CFG_BW,     /* uint64_t bytes per second */
    MGS_CFG_TIME,   /* uint64_t picoseconds */
    MGS_CFG_BOOL,   /* bool */
    MGS_CFG_ENUM,   /* char[MGS_CFG_ENUM_MAX], one of the choices */
    MGS_CFG_STRING  /* char[MGS_CFG_STR_MAX] */
} mgs_cfg_type;

/* Key ids: MGS_CFGK_gpu_num_cus, ... and MGS_CFG_NKEYS. */
typedef enum mgs_cfg_key_id {
#define MGS_CFG_KEY(s, k, T, d, lo, hi, ch, help, src) MGS_CFGK_##s##_##k,
#include "config/keys.def"
#undef MGS_CFG_KEY
    MGS_CFG_NKEYS
} mgs_cfg_key_id;

typedef enum mgs_cfg_origin_kind {
    MGS_ORIGIN_DEFAULT, /* built-in default from keys.def */
    MGS_ORIGIN_FILE,    /* a preset or --config file, with line */
    MGS_ORIGIN_OPTION   /* a command-line option (--set, --gpus ...) */
} mgs_cfg_origin_kind;

typedef struct mgs_cfg_origin {
    mgs_cfg_origin_kind kind;
    int line;                        /* FILE: 1-based line number */
    char where[MGS_CFG_WHERE_MAX];   /* FILE: display name; OPTION: "--set" */
} mgs_cfg_origin;

/* Field types per key type. */
#define MGS_CFG_FIELD_INT(n) int n
#define MGS_CFG_FIELD_COUNT(n) uint64_t n
#define MGS_CFG_FIELD_SIZE(n) uint64_t n
#define MGS_CFG_FIELD_FREQ(n) uint64_t n
#define MGS_CFG_FIELD_BW(n) uint64_t n
#define MGS_CFG_FIELD_TIME(n) uint64_t n
#define MGS_CFG_FIELD_BOOL(n) bool n
#define MGS_CFG_FIELD_ENUM(n) char n[MGS_CFG_ENUM_MAX]
#define MGS_CFG_FIELD_STRING(n) char n[MGS_CFG_STR_MAX]

typedef struct mgs_config {
#define MGS_CFG_KEY(s, k, T, d, lo, hi, ch, help, src) MGS_CFG_FIELD_##T(s##_##k);
#include "config/keys.def"
#undef MGS_CFG_KEY
    mgs_cfg_origin origin[MGS_CFG_NKEYS]; /* where each value came from */
    char preset[64];                      /* preset loaded ("" if none) */
} mgs_config;

/* One row of keys.def. */
typedef struct mgs_cfg_key {
    const char *section, *name;
    mgs_cfg_type type;
    const char *dflt;     /* default, as text */
    int64_t min;          /* inclusive bounds, stored unit */
    uint64_t max;
    const char *choices;  /* ENUM: "a|b|c" */
    const char *help;
    const char *source;   /* where the default comes from */
    size_t offset;        /* of the field in struct mgs_config */
} mgs_cfg_key;

size_t mgs_config_key_count(void);
const mgs_cfg_key *mgs_config_key(size_t id);
/* NULL if the key does not exist. */
const mgs_cfg_key *mgs_config_find_key(const char *section, const char *name);
/* Name of a type ("size", "frequency", ...). */
const char *mgs_config_type_name(mgs_cfg_type t);

/* Every key at its default; origins MGS_ORIGIN_DEFAULT. Cannot fail. */
void mgs_config_defaults(mgs_config *cfg);

/* Applies one value. origin says where it came from (copied). Returns
** MGS_OK or MGS_ECONFIG with "<where>: [section] key = "value": reason". */
int mgs_config_apply(mgs_config *cfg, const char *section, const char *name,
                     const char *value, const mgs_cfg_origin *origin);

/* Applies an INI text / file. display is the name used in messages and
** origins (e.g. "configs/r9nano.ini"); NULL means the path itself.
** Unknown sections and keys are errors; on any error cfg is unchanged. */
int mgs_config_load_string(mgs_config *cfg, const char *text,
                           const char *display);
int mgs_config_load_file(mgs_config *cfg, const char *path,
                         const char *display);

/* Applies "section.key=value". option names the option for messages and
** the origin ("--set"). MGS_ECONFIG on syntax errors too. */
int mgs_config_set(mgs_config *cfg, const char *assignment,
                   const char *option);

/* Directory holding presets: $MGSIM_CONFIG_DIR, else <source>/configs. */
const char *mgs_config_preset_dir(void);
/* Loads preset NAME (configs/NAME.ini); MGS_ENOENT lists the presets. */
int mgs_config_load_preset(mgs_config *cfg, const char *name);
/* Calls fn for each preset name (sorted); returns the count. */
size_t mgs_config_foreach_preset(void (*fn)(const char *name,
                                            const char *path, void *ud),
                                 void *ud);

/* Formats a key's current value as INI text ("16KB"). */
const char *mgs_config_value_text(const mgs_config *cfg, size_t id,
                                  char *buf, size_t size);
/* Formats an origin ("configs/r9nano.ini:12", "--set",
** "default (seed 002 Table 5.1: ...)"). */
const char *mgs_config_origin_text(const mgs_config *cfg, size_t id,
                                   char *buf, size_t size);
/* Writes the effective configuration as INI; with_origins appends
** "; <origin>" to each line. The output parses back to the same values. */
void mgs_config_write_ini(const mgs_config *cfg, FILE *f, bool with_origins);
/* Same, into a heap string the caller frees. */
char *mgs_config_ini_string(const mgs_config *cfg, bool with_origins);
/* Writes the key table (docs/configuration.md) as Markdown. */
void mgs_config_write_markdown(FILE *f);

/* True when ENUM key id currently has value v. */
bool mgs_config_is(const mgs_config *cfg, size_t id, const char *v);

#endif
