/*
** Configuration loading (src/config/config.c): INI parsing with line
** numbers, every kind of error message, layering order, origins, presets,
** and that `config show` output parses back to the same configuration.
*/
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "config/config.h"
#include "mgsim/errors.h"

static void expect_msg(const char *needle)
{
    if (!strstr(mgs_error_msg(), needle))
        fail_msg("message \"%s\" lacks \"%s\"", mgs_error_msg(), needle);
}

static void test_every_default_parses(void **state)
{
    (void)state;
    mgs_config cfg;
    memset(&cfg, 0, sizeof cfg);
    mgs_cfg_origin o = {.kind = MGS_ORIGIN_DEFAULT};
    for (size_t i = 0; i < mgs_config_key_count(); i++) {
        const mgs_cfg_key *k = mgs_config_key(i);
        if (mgs_config_apply(&cfg, k->section, k->name, k->dflt, &o) != MGS_OK)
            fail_msg("default of %s.%s: %s", k->section, k->name, mgs_error_msg());
        assert_true(strlen(k->source) > 0);
        assert_true(strlen(k->help) > 0);
    }
}

static void test_defaults_values(void **state)
{
    (void)state;
    mgs_config cfg;
    mgs_config_defaults(&cfg);
    assert_int_equal(cfg.gpu_num_cus, 64);
    assert_true(cfg.gpu_freq == 1000000000ull);
    assert_true(cfg.gpu_l1v_size == 16384);
    assert_true(cfg.platform_mem_per_gpu == 4ull << 30);
    assert_true(cfg.platform_inter_gpu_bw == 16000000000ull);
    assert_string_equal(cfg.sim_mode, "emu");
    assert_true(mgs_config_is(&cfg, MGS_CFGK_platform_type, "discrete"));
    assert_int_equal(cfg.origin[MGS_CFGK_gpu_num_cus].kind, MGS_ORIGIN_DEFAULT);
    char buf[512];
    mgs_config_origin_text(&cfg, MGS_CFGK_gpu_num_cus, buf, sizeof buf);
    assert_string_equal(buf, "default (seed 002 Table 5.1: 64 CUs)");
}

static void test_ini_values_and_origins(void **state)
{
    (void)state;
    mgs_config cfg;
    mgs_config_defaults(&cfg);
    const char *ini = "; comment\n"
                      "[gpu]\n"
                      "num_cus = 32\n"
                      "l1v_size = 32KB   ; inline comment\n"
                      "\n"
                      "[sim]\n"
                      "mode = timing\n"
                      "[output]\n"
                      "db = \"out/x.db\"\n";
    assert_int_equal(mgs_config_load_string(&cfg, ini, "t.ini"), MGS_OK);
    assert_int_equal(cfg.gpu_num_cus, 32);
    assert_true(cfg.gpu_l1v_size == 32768);
    assert_string_equal(cfg.sim_mode, "timing");
    assert_string_equal(cfg.output_db, "out/x.db");
    char buf[512];
    assert_string_equal(mgs_config_origin_text(&cfg, MGS_CFGK_gpu_num_cus, buf, sizeof buf), "t.ini:3");
    assert_string_equal(mgs_config_origin_text(&cfg, MGS_CFGK_gpu_l1v_size, buf, sizeof buf), "t.ini:4");
    assert_string_equal(mgs_config_origin_text(&cfg, MGS_CFGK_sim_mode, buf, sizeof buf), "t.ini:7");
}

static void test_ini_errors(void **state)
{
    (void)state;
    mgs_config cfg;
    mgs_config_defaults(&cfg);
    assert_int_equal(mgs_config_load_string(&cfg, "[gpu]\n\nl1v_size = 16QB\n", "configs/x.ini"),
                     MGS_ECONFIG);
    assert_string_equal(mgs_error_msg(),
                        "configs/x.ini:3: [gpu] l1v_size = \"16QB\": unknown size unit \"QB\" "
                        "(use B, KB, MB, GB, TB)");
    assert_true(cfg.gpu_l1v_size == 16384); /* unchanged */

    assert_int_equal(mgs_config_load_string(&cfg, "[gpu]\nnum_cu = 3\n", "a.ini"), MGS_ECONFIG);
    expect_msg("a.ini:2: unknown key \"num_cu\" in section [gpu]");
    assert_int_equal(mgs_config_load_string(&cfg, "[gpux]\nnum_cus = 3\n", "a.ini"), MGS_ECONFIG);
    expect_msg("a.ini:2: unknown section [gpux]");
    assert_int_equal(mgs_config_load_string(&cfg, "[platform]\ngpus = 17\n", "a.ini"), MGS_ECONFIG);
    expect_msg("a.ini:2: [platform] gpus = \"17\": out of range (1..16)");
    assert_int_equal(mgs_config_load_string(&cfg, "[gpu]\nl1v_size = 512B\n", "a.ini"), MGS_ECONFIG);
    expect_msg("out of range (1KB..1GB)");
    assert_int_equal(mgs_config_load_string(&cfg, "[sim]\nmode = fast\n", "a.ini"), MGS_ECONFIG);
    expect_msg("[sim] mode = \"fast\": not one of emu,timing");
    assert_int_equal(mgs_config_load_string(&cfg, "[gpu]\nnum_cus = many\n", "a.ini"), MGS_ECONFIG);
    expect_msg("not an integer");
    assert_int_equal(mgs_config_load_string(&cfg, "num_cus = 3\n", "a.ini"), MGS_ECONFIG);
    expect_msg("a.ini:1: key \"num_cus\" before any [section]");
    assert_int_equal(mgs_config_load_string(&cfg, "[gpu]\nnum_cus\n", "a.ini"), MGS_ECONFIG);
    expect_msg("a.ini:2: syntax error");
    assert_int_equal(mgs_config_load_string(&cfg, "[gpu\nnum_cus = 2\n", "a.ini"), MGS_ECONFIG);
    expect_msg("a.ini:1: syntax error");
    assert_int_equal(mgs_config_load_string(&cfg, "[gpu]\nnum_cus = 2\n  l2_ways = 8\n", "a.ini"),
                     MGS_ECONFIG);
    expect_msg("a.ini:3: indented line");
    /* The first error wins; later lines do not overwrite the message. */
    assert_int_equal(mgs_config_load_string(&cfg, "[gpu]\nnum_cus = 0\nbogus = 1\n", "a.ini"),
                     MGS_ECONFIG);
    expect_msg("a.ini:2:");
    assert_int_equal(cfg.gpu_num_cus, 64);
}

static void test_set_and_syntax_errors(void **state)
{
    (void)state;
    mgs_config cfg;
    mgs_config_defaults(&cfg);
    assert_int_equal(mgs_config_set(&cfg, "gpu.num_cus=16", "--set"), MGS_OK);
    assert_int_equal(cfg.gpu_num_cus, 16);
    char buf[512];
    assert_string_equal(mgs_config_origin_text(&cfg, MGS_CFGK_gpu_num_cus, buf, sizeof buf), "--set");
    assert_int_equal(mgs_config_set(&cfg, "output.db=a=b.db", "--set"), MGS_OK);
    assert_string_equal(cfg.output_db, "a=b.db"); /* only the first '=' splits */
    assert_int_equal(mgs_config_set(&cfg, "sim.seed=", "--set"), MGS_ECONFIG);
    expect_msg("[sim] seed = \"\"");

    static const char *const bad[] = {"gpu.num_cus", "num_cus=4", ".num_cus=4",
                                      "gpu.=4", "=4", ""};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        assert_int_equal(mgs_config_set(&cfg, bad[i], "--set"), MGS_ECONFIG);
        expect_msg("expected section.key=value");
    }
    assert_int_equal(mgs_config_set(&cfg, "gpu.bogus=4", "--set"), MGS_ECONFIG);
    assert_string_equal(mgs_error_msg(), "--set: unknown key \"bogus\" in section [gpu] "
                                         "('mgsim config show' lists every key)");
    assert_int_equal(mgs_config_set(&cfg, "platform.gpus=99", "--gpus"), MGS_ECONFIG);
    expect_msg("--gpus: [platform] gpus = \"99\": out of range (1..16)");
}

static void test_layering_order(void **state)
{
    (void)state;
    mgs_config cfg;
    mgs_config_defaults(&cfg);
    /* file A, then file B, then --set: last writer wins, per key. */
    assert_int_equal(mgs_config_load_string(&cfg, "[gpu]\nnum_cus = 8\nl2_ways = 4\n", "A.ini"), MGS_OK);
    assert_int_equal(mgs_config_load_string(&cfg, "[gpu]\nnum_cus = 12\n", "B.ini"), MGS_OK);
    assert_int_equal(mgs_config_set(&cfg, "gpu.l2_ways=2", "--set"), MGS_OK);
    assert_int_equal(cfg.gpu_num_cus, 12);
    assert_int_equal(cfg.gpu_l2_ways, 2);
    char buf[512];
    assert_string_equal(mgs_config_origin_text(&cfg, MGS_CFGK_gpu_num_cus, buf, sizeof buf), "B.ini:2");
    assert_string_equal(mgs_config_origin_text(&cfg, MGS_CFGK_gpu_l2_ways, buf, sizeof buf), "--set");
    assert_int_equal(cfg.origin[MGS_CFGK_gpu_l1v_ways].kind, MGS_ORIGIN_DEFAULT);
}

static char tmpdir[64];

static void write_file(const char *name, const char *text)
{
    char path[256];
    snprintf(path, sizeof path, "%s/%s", tmpdir, name);
    FILE *f = fopen(path, "w");
    assert_non_null(f);
    fputs(text, f);
    fclose(f);
}

static void test_presets_and_files(void **state)
{
    (void)state;
    snprintf(tmpdir, sizeof tmpdir, "/tmp/mgsim-test-config-XXXXXX");
    assert_non_null(mkdtemp(tmpdir));
    setenv("MGSIM_CONFIG_DIR", tmpdir, 1);
    write_file("small.ini", "; a small preset\n[gpu]\nnum_cus = 4\n");
    write_file("big.ini", "[gpu]\nnum_cus = 128\n");
    assert_string_equal(mgs_config_preset_dir(), tmpdir);

    mgs_config cfg;
    mgs_config_defaults(&cfg);
    assert_int_equal(mgs_config_load_preset(&cfg, "small"), MGS_OK);
    assert_int_equal(cfg.gpu_num_cus, 4);
    assert_string_equal(cfg.preset, "small");
    assert_int_equal(mgs_config_foreach_preset(NULL, NULL), 2);

    assert_int_equal(mgs_config_load_preset(&cfg, "nope"), MGS_ENOENT);
    expect_msg("unknown preset \"nope\"");
    expect_msg("presets: big, small");
    assert_int_equal(mgs_config_load_preset(&cfg, "../etc/passwd"), MGS_ECONFIG);

    char path[256];
    snprintf(path, sizeof path, "%s/missing.ini", tmpdir);
    assert_int_equal(mgs_config_load_file(&cfg, path, NULL), MGS_ENOENT);
    expect_msg("cannot open config file");

    snprintf(path, sizeof path, "%s/big.ini", tmpdir);
    assert_int_equal(mgs_config_load_file(&cfg, path, NULL), MGS_OK);
    assert_int_equal(cfg.gpu_num_cus, 128);
    assert_int_equal(cfg.origin[MGS_CFGK_gpu_num_cus].line, 2);
    assert_string_equal(cfg.origin[MGS_CFGK_gpu_num_cus].where, path);

    write_file("small.ini", "");
    write_file("big.ini", "");
    snprintf(path, sizeof path, "%s/small.ini", tmpdir);
    unlink(path);
    snprintf(path, sizeof path, "%s/big.ini", tmpdir);
    unlink(path);
    rmdir(tmpdir);
    unsetenv("MGSIM_CONFIG_DIR");
}

static void test_show_output_parses_back(void **state)
{
    (void)state;
    mgs_config a, b;
    mgs_config_defaults(&a);
    assert_int_equal(mgs_config_set(&a, "gpu.freq=1.5GHz", "--set"), MGS_OK);
    assert_int_equal(mgs_config_set(&a, "output.db=x y.db", "--set"), MGS_OK);
    assert_int_equal(mgs_config_set(&a, "sim.watchdog=250us", "--set"), MGS_OK);
    char *text = mgs_config_ini_string(&a, true);
    assert_non_null(strstr(text, "freq = 1500MHz"));
    assert_non_null(strstr(text, "; --set"));
    assert_non_null(strstr(text, "; default (seed 002 Table 5.1"));
    mgs_config_defaults(&b);
    assert_int_equal(mgs_config_load_string(&b, text, "shown.ini"), MGS_OK);
    free(text);
    for (size_t i = 0; i < mgs_config_key_count(); i++) {
        char va[600], vb[600];
        mgs_config_value_text(&a, i, va, sizeof va);
        mgs_config_value_text(&b, i, vb, sizeof vb);
        assert_string_equal(va, vb);
    }
}

static void test_markdown_lists_every_key(void **state)
{
    (void)state;
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    mgs_config_write_markdown(f);
    fclose(f);
    for (size_t i = 0; i < mgs_config_key_count(); i++) {
        char cell[80];
        snprintf(cell, sizeof cell, "| `%s` |", mgs_config_key(i)->name);
        assert_non_null(strstr(buf, cell));
    }
    assert_non_null(strstr(buf, "### [gpu]"));
    assert_non_null(strstr(buf, "emu\\|timing"));
    free(buf);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_every_default_parses),
        cmocka_unit_test(test_defaults_values),
        cmocka_unit_test(test_ini_values_and_origins),
        cmocka_unit_test(test_ini_errors),
        cmocka_unit_test(test_set_and_syntax_errors),
        cmocka_unit_test(test_layering_order),
        cmocka_unit_test(test_presets_and_files),
        cmocka_unit_test(test_show_output_parses_back),
        cmocka_unit_test(test_markdown_lists_every_key),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
