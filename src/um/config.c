/*
** The [memory] keys as a um_config (um.h; keys.def has the ranges and
** sources). The platform fills in the rest (GPUs, page, line, clock).
*/
#include <string.h>

#include "config/config.h"
#include "um/um.h"

void um_config_default(um_config *c)
{
    memset(c, 0, sizeof *c);
    c->min_residency = 2000000;   /* keys.def memory.min_residency: 2 us */
    c->max_migrations = 16;       /* keys.def memory.max_migrations */
    c->pmc_reads = 16;            /* keys.def memory.pmc_reads */
    c->page_bytes = 4096;
    c->line = 64;
    c->ngpus = 1;
    c->mem_per_gpu = 4ull << 30;
    c->period = 1000;
    c->max_faults = 16;
    c->pasi_initial = 2u << 20;   /* keys.def memory.pasi_initial */
    c->pasi_min = 1024;           /* keys.def memory.pasi_min */
    c->pasi_merge_hold = 100000000; /* keys.def memory.pasi_merge_hold */
    c->piece_pages = 1;
}

void um_config_from(um_config *c, const mgs_config *k)
{
    c->migrate = strcmp(k->memory_management, "none") != 0;
    c->pasi = !strcmp(k->memory_management, "pasi");
    c->esi = c->pasi || !strcmp(k->memory_management, "esi");
    c->pasi_initial = k->memory_pasi_initial;
    c->pasi_min = k->memory_pasi_min;
    c->pasi_merge_hold = k->memory_pasi_merge_hold;
    c->fault_latency = k->memory_fault_latency;
    c->via_host = !strcmp(k->memory_migration_link, "host");
    c->min_residency = k->memory_min_residency;
    c->max_migrations = (uint32_t)k->memory_max_migrations;
    c->pmc_reads = (uint32_t)k->memory_pmc_reads;
}

const char *um_scheme_name(const um_config *c)
{
    return c->pasi ? "pasi" : c->esi ? "esi" : "migrate";
}
