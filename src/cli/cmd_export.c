/*
** `mgsim export --db FILE --format csv|json [--out FILE]`: writes every run
** and metric of a results database (format described in results/db.h and
** docs/cli.md). Output goes to a temporary file renamed into place, so an
** interrupted export never leaves a truncated file under the final name.
*/
#include "cli/cli.h"
#include "cli/options.h"
#include "mgsim/errors.h"
#include "results/db.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

static void usage(FILE *f)
{
    fprintf(f,
        "usage: mgsim export --db FILE [--format csv|json] [--out FILE]\n\n"
        "Writes the runs and metrics of a results database.\n"
        "  csv   one row per metric: run_id, started_utc, workload, mode,\n"
        "        verified, exit_code, wall_time_s, git_rev, version, host,\n"
        "        command_line, component, metric, value, unit\n"
        "  json  {\"runs\": [{run columns, config_text, \"metrics\": [...]}]}\n\n"
        "options:\n"
        "  --db FILE            results database to read (required)\n"
        "  --format csv|json    output format (default: csv)\n"
        "  --out FILE           write to FILE instead of standard output\n"
        "  -h, --help           this text\n");
}

int cmd_export(int argc, char **argv)
{
    const char *db = NULL, *format = "csv", *out = NULL;
    for (int i = 1; i < argc; i++) {
        const char *v;
        int r;
        if ((r = cli_opt_value(argc, argv, &i, "--db", &v)) != 0) {
            if (r < 0)
                return MGS_EXIT_USAGE;
            db = v;
        } else if ((r = cli_opt_value(argc, argv, &i, "--format", &v)) != 0) {
            if (r < 0)
                return MGS_EXIT_USAGE;
            format = v;
        } else if ((r = cli_opt_value(argc, argv, &i, "--out", &v)) != 0) {
            if (r < 0)
                return MGS_EXIT_USAGE;
            out = v;
        } else if (cli_is_help(argv[i])) {
            usage(stdout);
            return MGS_EXIT_OK;
        } else {
            return cli_usage_error("export: unexpected argument '%s' (try "
                                   "'mgsim export --help')", argv[i]);
        }
    }
    if (!db)
        return cli_usage_error("export: --db FILE is required");
    mgs_export_format fmt;
    if (!strcmp(format, "csv"))
        fmt = MGS_EXPORT_CSV;
    else if (!strcmp(format, "json"))
        fmt = MGS_EXPORT_JSON;
    else
        return cli_usage_error("export: unknown format '%s' (use csv or json)",
                               format);
    if (!out) {
        int rc = mgs_db_export(db, fmt, stdout);
        return rc == MGS_OK ? MGS_EXIT_OK : cli_fail(rc);
    }
    char tmp[4096];
    snprintf(tmp, sizeof tmp, "%s.tmp%ld", out, (long)getpid());
    FILE *f = fopen(tmp, "w");
    if (!f)
        return cli_fail(mgs_error_set(MGS_EIO, "cannot write %s: %s", out,
                                      strerror(errno)));
    int rc = mgs_db_export(db, fmt, f);
    if (fclose(f) != 0 && rc == MGS_OK)
        rc = mgs_error_set(MGS_EIO, "cannot write %s: %s", out, strerror(errno));
    if (rc == MGS_OK && rename(tmp, out) != 0)
        rc = mgs_error_set(MGS_EIO, "cannot write %s: %s", out, strerror(errno));
    if (rc != MGS_OK) {
        unlink(tmp);
        return cli_fail(rc);
    }
    return MGS_EXIT_OK;
}
