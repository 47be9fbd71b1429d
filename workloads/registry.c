/* The workload registry: the table generated from workloads/list.def. */
#include "workloads/workload.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define X(name) extern const mgs_workload wl_##name;
#include "workloads/list.def"
#undef X

static const mgs_workload *const table[] = {
#define X(name) &wl_##name,
#include "workloads/list.def"
#undef X
    NULL
};

/* Workloads that run code objects from outside the project (MGPUSim's):
** found by name, listed apart, not part of the suite's tests. */
#define X(name) extern const mgs_workload wl_##name;
#include "workloads/list_mgpusim.def"
#undef X

static const mgs_workload *const external[] = {
#define X(name) &wl_##name,
#include "workloads/list_mgpusim.def"
#undef X
    NULL
};

/* Harnesses (list_harness.def): found by name only. */
#define X(name) extern const mgs_workload wl_##name;
#include "workloads/list_harness.def"
#undef X

static const mgs_workload *const harness[] = {
#define X(name) &wl_##name,
#include "workloads/list_harness.def"
#undef X
    NULL
};

size_t wl_count(void)
{
    return sizeof table / sizeof table[0] - 1;
}

const mgs_workload *wl_get(size_t i)
{
    return i < wl_count() ? table[i] : NULL;
}

size_t wl_external_count(void)
{
    return sizeof external / sizeof external[0] - 1;
}

const mgs_workload *wl_external_get(size_t i)
{
    return i < wl_external_count() ? external[i] : NULL;
}

const mgs_workload *wl_find(const char *name)
{
    for (size_t i = 0; i < wl_count(); i++)
        if (!strcmp(table[i]->name, name))
            return table[i];
    for (size_t i = 0; i < wl_external_count(); i++)
        if (!strcmp(external[i]->name, name))
            return external[i];
    for (size_t i = 0; harness[i]; i++)
        if (!strcmp(harness[i]->name, name))
            return harness[i];
    return NULL;
}

int wl_platform_gpu_all(const char *type)
{
    return type && (!strcmp(type, "unified") || !strcmp(type, "monolithic") ||
                    !strcmp(type, "shared"));
}

const char *wl_kernel_path(const char *file, char *buf, size_t n)
{
    const char *dir = getenv("MGSIM_KERNEL_DIR");
    snprintf(buf, n, "%s/%s", dir && *dir ? dir : MGS_KERNEL_DIR, file);
    return buf;
}
