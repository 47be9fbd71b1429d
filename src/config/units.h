/*
** Values with units, as written in configuration files and `--set`.
**
** Decisions (documented in docs/configuration.md):
**   size       B, KB, MB, GB, TB are binary (1 KB = 1024 B), as GPU papers
**              use them; KiB, MiB, GiB, TiB are accepted as synonyms.
**              A bare number is bytes.
**   frequency  Hz, kHz, MHz, GHz (decimal), stored in Hz. Unit required.
**   bandwidth  B/s, KB/s, MB/s, GB/s, TB/s are DECIMAL (1 GB/s = 10^9 B/s),
**              as link specifications (PCIe, NVLink) quote them; KiB/s,
**              MiB/s, GiB/s are binary. Stored in bytes/s. Unit required.
**   time       ps, ns, us, ms, s, stored in picoseconds. Unit required.
** Units are matched case-insensitively (no two units differ only in case).
** Spaces between number and unit are allowed. A decimal
** mantissa is allowed ("1.5GHz") when the result is a whole number of the
** stored unit; "0" needs no unit. Parsing is exact (no floating point), so
** a value always round-trips through mgs_unit_format.
**
** Each parser returns 0 on success or -1 with a short reason in why
** (e.g. `unknown size unit "QB" (use B, KB, MB, GB, TB)`).
*/
#ifndef MGS_CONFIG_UNITS_H
#define MGS_CONFIG_UNITS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

typedef enum mgs_unit_kind {
    MGS_UNIT_SIZE,
    MGS_UNIT_FREQ,
    MGS_UNIT_BW,
    MGS_UNIT_TIME
} mgs_unit_kind;

/* Parses "<number>[unit]" of the given kind into the stored unit. */
int mgs_unit_parse(mgs_unit_kind kind, const char *text, uint64_t *out,
                   char *why, size_t why_size);
/* Formats v with the largest unit that represents it exactly ("16KB",
** "1GHz", "16GB/s", "1ms"); returns buf. */
const char *mgs_unit_format(mgs_unit_kind kind, uint64_t v, char *buf,
                            size_t size);
/* Signed decimal integer, whole string. */
int mgs_parse_int64(const char *text, int64_t *out, char *why,
                    size_t why_size);
/* Unsigned decimal integer, whole string (no sign). */
int mgs_parse_uint64(const char *text, uint64_t *out, char *why,
                     size_t why_size);
/* true/false, yes/no, on/off, 1/0 (case-insensitive). */
int mgs_parse_bool(const char *text, bool *out, char *why, size_t why_size);

#endif
