/*
** `mgsim list`: what can be run and with what. Presets come from the
** preset directory (configs/ or $MGSIM_CONFIG_DIR), platforms from the
** choices of platform.type in keys.def, workloads from the registry
** (workloads/list.def), so the listing cannot disagree with what `run`
** accepts.
*/
#include "cli/cli.h"
#include "config/config.h"
#include "mgsim/errors.h"
#include "coh/coh.h"
#include "workloads/workload.h"

#include <inttypes.h>
#include <stdio.h>
#include <string.h>

static void usage(FILE *f)
{
    fprintf(f, "usage: mgsim list [presets|platforms|protocols|workloads]\n\n"
               "Lists configuration presets, multi-GPU platform types, "
               "coherence protocols\nand workloads (all four without an "
               "argument).\n");
}

/* One line of description for each platform.type choice. */
static const struct {
    const char *name, *what;
} platform_desc[] = {
    {"discrete", "every GPU is a separate device; the program places data "
                 "and kernels (seed 002 Fig. 5.6a)"},
    {"unified", "the GPUs appear as one device; one launch spreads work-"
                "groups over all GPUs (seed 002 Fig. 5.6b)"},
    {"monolithic", "one large GPU with all the CUs, the upper bound for "
                   "multi-GPU designs (seed 002 §5.3.1)"},
    {"shared", "GPUs physically share memory (MGPU-SM, HALCONE seed 000)"},
};

static void print_preset(const char *name, const char *path, void *ud)
{
    (void)ud;
    /* The first comment line of a preset says what it is. */
    char line[256] = "";
    FILE *f = fopen(path, "r");
    if (f) {
        if (fgets(line, sizeof line, f)) {
            line[strcspn(line, "\r\n")] = '\0';
        }
        fclose(f);
    }
    const char *d = line;
    while (*d == ';' || *d == '#' || *d == ' ')
        d++;
    printf("  %-24s %s\n", name, d);
}

static void list_presets(void)
{
    printf("presets (%s):\n", mgs_config_preset_dir());
    if (mgs_config_foreach_preset(print_preset, NULL) == 0)
        printf("  (none found)\n");
}

static void list_platforms(void)
{
    const mgs_cfg_key *k = mgs_config_find_key("platform", "type");
    printf("platforms (--platform NAME, or platform.type):\n");
    char choices[256];
    snprintf(choices, sizeof choices, "%s", k->choices);
    for (char *save = NULL, *c = strtok_r(choices, "|", &save); c;
         c = strtok_r(NULL, "|", &save)) {
        const char *what = "";
        for (size_t i = 0; i < sizeof platform_desc / sizeof platform_desc[0]; i++)
            if (!strcmp(platform_desc[i].name, c))
                what = platform_desc[i].what;
        printf("  %-14s %s\n", c, what);
    }
}

static void list_protocols(void)
{
    size_t n;
    const coh_protocol *const *all = coh_all(&n);
    printf("coherence protocols (coherence.protocol, src/coh/):\n");
    for (size_t i = 0; i < n; i++)
        printf("  %-14s %s\n", all[i]->name, all[i]->summary);
}

static int max_int(int a, int b)
{
    return a > b ? a : b;
}

static void list_workloads(void)
{
    size_t n = wl_count();
    printf("workloads (mgsim run NAME):\n");
    if (n == 0) {
        printf("  (none registered yet; `mgsim run` without a name runs the "
               "engine demo)\n");
        return;
    }
    /* Column widths from the data: patterns can be long phrases. */
    int wname = 4, wsuite = 5, wpat = 7;
    for (size_t i = 0; i < n; i++) {
        const mgs_workload *w = wl_get(i);
        wname = max_int(wname, (int)strlen(w->name));
        wsuite = max_int(wsuite, w->suite ? (int)strlen(w->suite) : 1);
        wpat = max_int(wpat, w->pattern ? (int)strlen(w->pattern) : 1);
    }
    printf("  %-*s  %-*s  %-*s  %-10s  %s\n", wname, "name", wsuite, "suite",
           wpat, "pattern", "footprint", "params (NAME=small/default)");
    for (size_t i = 0; i < n; i++) {
        const mgs_workload *w = wl_get(i);
        wl_args args = {.seed = 1, .num_gpus = 1};
        for (int p = 0; p < WL_MAX_PARAMS && w->params[p].name; p++)
            args.param[p] = w->params[p].dflt;
        char fp[32] = "-";
        if (w->footprint) {
            uint64_t b = w->footprint(&args);
            if (b >= (1ull << 20))
                snprintf(fp, sizeof fp, "%.1f MB", (double)b / (1 << 20));
            else
                snprintf(fp, sizeof fp, "%.1f KB", (double)b / 1024);
        }
        printf("  %-*s  %-*s  %-*s  %-10s  ", wname, w->name, wsuite,
               w->suite ? w->suite : "-", wpat, w->pattern ? w->pattern : "-", fp);
        for (int p = 0; p < WL_MAX_PARAMS && w->params[p].name; p++)
            printf("%s%s=%" PRId64 "/%" PRId64, p ? " " : "", w->params[p].name,
                   w->params[p].small, w->params[p].dflt);
        printf("\n");
        if (w->description)
            printf("  %-*s  %s\n", wname, "", w->description);
    }
    /* Indented apart: they need files from outside the project. */
    printf("\nvalidation workloads (MGPUSim's code objects from "
           "$MGSIM_MGPUSIM_DIR;\n  docs/validation.md):\n");
    for (size_t i = 0; i < wl_external_count(); i++) {
        const mgs_workload *w = wl_external_get(i);
        printf("    %-14s n=%" PRId64 "/%" PRId64 "  %s\n", w->name,
               w->params[0].small, w->params[0].dflt, w->description);
    }
}

int cmd_list(int argc, char **argv)
{
    if (argc > 2)
        return cli_usage_error("list: too many arguments (try 'mgsim list --help')");
    const char *what = argc == 2 ? argv[1] : "all";
    if (!strcmp(what, "--help") || !strcmp(what, "-h")) {
        usage(stdout);
        return MGS_EXIT_OK;
    }
    bool all = !strcmp(what, "all");
    if (!all && strcmp(what, "presets") && strcmp(what, "platforms") &&
        strcmp(what, "protocols") && strcmp(what, "workloads"))
        return cli_usage_error("list: unknown category '%s' (use presets, "
                               "platforms, protocols or workloads)", what);
    if (all || !strcmp(what, "presets"))
        list_presets();
    if (all)
        printf("\n");
    if (all || !strcmp(what, "platforms"))
        list_platforms();
    if (all)
        printf("\n");
    if (all || !strcmp(what, "protocols"))
        list_protocols();
    if (all)
        printf("\n");
    if (all || !strcmp(what, "workloads"))
        list_workloads();
    return MGS_EXIT_OK;
}
