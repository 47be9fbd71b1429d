/* Helpers shared by the code-object loader tests (test_codeobj.c,
** test_codeobj_v2.c): the build's kernel directory, reading a file whole,
** and the error contract every malformed input must meet (a load error
** code, no object, one line naming the file). Include after cmocka.h. */
#ifndef MGS_TESTS_CODEOBJ_TEST_UTIL_H
#define MGS_TESTS_CODEOBJ_TEST_UTIL_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gcn3/codeobj.h"
#include "mgsim/errors.h"

static const char *kernel_dir(void)
{
    const char *d = getenv("MGSIM_KERNEL_DIR");
    return d && *d ? d : MGS_KERNEL_DIR;
}

static uint8_t *slurp(const char *path, size_t *size)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return NULL;
    fseek(f, 0, SEEK_END);
    long n = ftell(f);
    fseek(f, 0, SEEK_SET);
    uint8_t *buf = malloc(n > 0 ? (size_t)n : 1);
    if (fread(buf, 1, (size_t)n, f) != (size_t)n) {
        free(buf);
        fclose(f);
        return NULL;
    }
    fclose(f);
    *size = (size_t)n;
    return buf;
}

static bool is_load_error(int rc)
{
    return rc == MGS_EFORMAT || rc == MGS_EARCH || rc == MGS_EUNSUPPORTED;
}

/* Loading data as "bad.hsaco" fails with code and a one-line message
** naming the file and containing needle (if not NULL). */
static void expect_error(const void *data, size_t size, int code,
                         const char *needle)
{
    gcn_codeobj *co = (gcn_codeobj *)1;
    mgs_error_clear();
    int rc = gcn_codeobj_load_mem(data, size, "bad.hsaco", &co);
    if (rc != code)
        fprintf(stderr, "# rc %d (%s)\n", rc, mgs_error_msg());
    assert_int_equal(rc, code);
    assert_null(co);
    const char *msg = mgs_error_msg();
    assert_non_null(strstr(msg, "bad.hsaco"));
    assert_null(strchr(msg, '\n'));
    if (needle && !strstr(msg, needle)) {
        fprintf(stderr, "# message '%s' lacks '%s'\n", msg, needle);
        fail();
    }
}

#endif
