/*
** Results database (src/results/): a run and its statistics written in one
** transaction read back exactly with plain SQL, CSV and JSON exports carry
** the same rows, and bad paths or files give the documented error codes.
*/
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "mgsim/errors.h"
#include "results/db.h"
#include "sim/stats.h"

static char dir[64];
static char path[128];

static int setup(void **state)
{
    (void)state;
    snprintf(dir, sizeof dir, "/tmp/mgsim-test-db-XXXXXX");
    if (!mkdtemp(dir))
        return -1;
    /* A subdirectory that does not exist yet: mgs_db_open creates it. */
    snprintf(path, sizeof path, "%s/sub/run.db", dir);
    return 0;
}

static int teardown(void **state)
{
    (void)state;
    char cmd[256];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
    return system(cmd) == 0 ? 0 : -1;
}

static stat_registry *sample_stats(void)
{
    stat_registry *r = stat_registry_new();
    stat_counter *c = stat_counter_add(r, "GPU[0].L1V[3]", "read_hits", "count");
    stat_addn(c, 1234);
    stat_value_add(r, "run", "sim_time", 65007000.0, "ps");
    stat_value_add(r, "run", "ratio", 0.1, "fraction");
    return r;
}

static mgs_run_record sample_run(const char *workload, int verified)
{
    return (mgs_run_record){
        .started_utc = "2026-11-21T08:30:00Z",
        .command_line = "mgsim run --set \"a,b\"",
        .config_text = "[sim]\nseed = 1\n",
        .git_rev = "abc123", .version = "0.1.0", .wall_time_s = 0.5,
        .host = "h", .exit_code = 0, .mode = "emu", .workload = workload,
        .verified = verified};
}

static char *export_to_string(mgs_export_format fmt, int *rc)
{
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    *rc = mgs_db_export(path, fmt, f);
    fclose(f);
    return buf;
}

static void test_round_trip(void **state)
{
    (void)state;
    mgs_db *db;
    assert_int_equal(mgs_db_open(path, &db), MGS_OK);
    stat_registry *stats = sample_stats();
    mgs_run_record run = sample_run("demo", -1);
    int64_t id1 = 0, id2 = 0;
    assert_int_equal(mgs_db_add_run(db, &run, stats, 0, &id1), MGS_OK);
    run = sample_run("fir", 1);
    assert_int_equal(mgs_db_add_run(db, &run, stats, 0, &id2), MGS_OK);
    assert_true(id1 == 1 && id2 == 2);
    stat_registry_free(stats);
    mgs_db_close(db);

    sqlite3 *h;
    assert_int_equal(sqlite3_open(path, &h), SQLITE_OK);
    sqlite3_stmt *st;
    assert_int_equal(sqlite3_prepare_v2(h,
        "SELECT r.workload, r.verified, r.git_rev, r.config_text, m.component, "
        "m.metric, m.value, m.unit FROM metrics m JOIN runs r ON r.id = m.run_id "
        "WHERE r.id = 1 ORDER BY m.rowid", -1, &st, NULL), SQLITE_OK);
    assert_int_equal(sqlite3_step(st), SQLITE_ROW);
    assert_string_equal(sqlite3_column_text(st, 0), "demo");
    assert_int_equal(sqlite3_column_type(st, 1), SQLITE_NULL); /* n/a */
    assert_string_equal(sqlite3_column_text(st, 2), "abc123");
    assert_string_equal(sqlite3_column_text(st, 3), "[sim]\nseed = 1\n");
    assert_string_equal(sqlite3_column_text(st, 4), "GPU[0].L1V[3]");
    assert_string_equal(sqlite3_column_text(st, 5), "read_hits");
    assert_true(sqlite3_column_double(st, 6) == 1234.0);
    assert_string_equal(sqlite3_column_text(st, 7), "count");
    assert_int_equal(sqlite3_step(st), SQLITE_ROW);
    assert_string_equal(sqlite3_column_text(st, 5), "sim_time");
    assert_true(sqlite3_column_double(st, 6) == 65007000.0);
    assert_int_equal(sqlite3_step(st), SQLITE_ROW);
    assert_true(sqlite3_column_double(st, 6) == 0.1);
    assert_int_equal(sqlite3_step(st), SQLITE_DONE);
    sqlite3_finalize(st);
    assert_int_equal(sqlite3_prepare_v2(h, "SELECT verified FROM runs WHERE id = 2",
                                        -1, &st, NULL), SQLITE_OK);
    assert_int_equal(sqlite3_step(st), SQLITE_ROW);
    assert_int_equal(sqlite3_column_int(st, 0), 1);
    sqlite3_finalize(st);
    sqlite3_close(h);
}

static void test_export_csv(void **state)
{
    (void)state;
    int rc;
    char *csv = export_to_string(MGS_EXPORT_CSV, &rc);
    assert_int_equal(rc, MGS_OK);
    const char *header = "run_id,started_utc,workload,mode,verified,exit_code,"
                         "wall_time_s,git_rev,version,host,command_line,"
                         "component,metric,value,unit\n";
    assert_memory_equal(csv, header, strlen(header));
    /* Quoted command line (it contains a comma and quotes). */
    assert_non_null(strstr(csv,
        "1,2026-11-21T08:30:00Z,demo,emu,,0,0.5,abc123,0.1.0,h,"
        "\"mgsim run --set \"\"a,b\"\"\",GPU[0].L1V[3],read_hits,1234,count\n"));
    assert_non_null(strstr(csv, ",run,ratio,0.1,fraction\n"));
    assert_non_null(strstr(csv, "2,2026-11-21T08:30:00Z,fir,emu,1,"));
    int lines = 0;
    for (const char *p = csv; *p; p++)
        lines += *p == '\n';
    assert_int_equal(lines, 1 + 2 * 3);
    free(csv);
}

static void test_export_json(void **state)
{
    (void)state;
    int rc;
    char *json = export_to_string(MGS_EXPORT_JSON, &rc);
    assert_int_equal(rc, MGS_OK);
    assert_memory_equal(json, "{\"runs\": [", 10);
    assert_non_null(strstr(json, "\"workload\": \"demo\", \"mode\": \"emu\", \"verified\": null"));
    assert_non_null(strstr(json, "\"verified\": true"));
    assert_non_null(strstr(json, "\"command_line\": \"mgsim run --set \\\"a,b\\\"\""));
    assert_non_null(strstr(json, "\"config_text\": \"[sim]\\nseed = 1\\n\""));
    assert_non_null(strstr(json, "{\"component\": \"GPU[0].L1V[3]\", \"metric\": "
                                 "\"read_hits\", \"value\": 1234, \"unit\": \"count\"}"));
    free(json);
}

static void test_errors(void **state)
{
    (void)state;
    char bad[192];
    /* Missing file: input error, and nothing gets created. */
    snprintf(bad, sizeof bad, "%s/none.db", dir);
    FILE *f = fopen("/dev/null", "w");
    assert_int_equal(mgs_db_export(bad, MGS_EXPORT_CSV, f), MGS_ENOENT);
    assert_int_equal(access(bad, F_OK), -1);
    /* A text file is not a database. */
    snprintf(bad, sizeof bad, "%s/text.db", dir);
    FILE *t = fopen(bad, "w");
    fputs("this is not sqlite, just text that is long enough to matter....\n", t);
    fclose(t);
    assert_int_equal(mgs_db_export(bad, MGS_EXPORT_JSON, f), MGS_EFORMAT);
    assert_non_null(strstr(mgs_error_msg(), "is not an mgsim results database"));
    mgs_db *db = NULL;
    assert_int_equal(mgs_db_open(bad, &db), MGS_EDB);
    assert_null(db);
    assert_int_equal(mgs_exit_code(MGS_EDB), 4);
    /* A directory component that is a file. */
    snprintf(bad, sizeof bad, "%s/text.db/x.db", dir);
    assert_int_equal(mgs_db_open(bad, &db), MGS_EDB);
    assert_non_null(strstr(mgs_error_msg(), "cannot create directory"));
    fclose(f);
}

static void test_default_path(void **state)
{
    (void)state;
    char p[128];
    mgs_db_default_path("run", p, sizeof p);
    /* results/YYYYmmddTHHMMSSZ-run-<pid>.db */
    assert_memory_equal(p, "results/", 8);
    assert_int_equal(p[16], 'T');
    assert_int_equal(p[23], 'Z');
    char tail[64];
    snprintf(tail, sizeof tail, "-run-%ld.db", (long)getpid());
    assert_string_equal(p + 24, tail);
    char now[32];
    mgs_utc_now(now, sizeof now);
    assert_int_equal(strlen(now), 20);
    assert_int_equal(now[10], 'T');
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_round_trip),
        cmocka_unit_test(test_export_csv),
        cmocka_unit_test(test_export_json),
        cmocka_unit_test(test_errors),
        cmocka_unit_test(test_default_path),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
