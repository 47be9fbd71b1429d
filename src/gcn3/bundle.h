/*
** Clang offload bundles (the container `hipcc --genco` writes and hipcc
** embeds in host programs' .hip_fatbin section), binary format as written
** by clang-offload-bundler (LLVM 15):
**
**   char magic[24] = "__CLANG_OFFLOAD_BUNDLE__"
**   u64  entry count
**   per entry: u64 offset (from the bundle start), u64 size,
**              u64 id length, char id[id length]   (no terminator)
**   entry payloads at their offsets
**
** Entry ids are "<kind>-<triple>-<target id>", e.g. "host-x86_64-unknown-
** linux-" (size 0) and "hipv4-amdgcn-amd-amdhsa--gfx803". All integers are
** little-endian. Every field is bounds-checked against the buffer size.
*/
#ifndef MGS_GCN3_BUNDLE_H
#define MGS_GCN3_BUNDLE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define GCN_BUNDLE_MAGIC "__CLANG_OFFLOAD_BUNDLE__"
#define GCN_BUNDLE_MAGIC_LEN 24

bool gcn_bundle_is(const uint8_t *data, size_t size);

/* Finds the amdgcn gfx803 entry. On success *elf and *elf_size
** point into data.
** Errors (named after `what`): MGS_EFORMAT for a corrupt table or an empty
** entry, MGS_EARCH when no entry is for gfx803 (the message lists the
** targets found). */
int gcn_bundle_find_gfx803(const uint8_t *data, size_t size, const char *what,
                           const uint8_t **elf, size_t *elf_size);

/* Bytes a bundle occupies (end of its header and of its furthest entry),
** reading only as much as the table requires. For in-memory bundles whose
** size nobody passed (__hipRegisterFatBinary); the caller vouches that the
** bytes are a compiler-written bundle. Caps the entry count and id lengths
** so a corrupt table fails with MGS_EFORMAT instead of running away. */
int gcn_bundle_extent(const uint8_t *data, const char *what, size_t *size);

/* The processor of an amdgcn entry id ("gfx803" from
** "hipv4-amdgcn-amd-amdhsa--gfx803:xnack-"), copied into buf without
** feature suffixes; false if the id is not an amdgcn-amd-amdhsa id. */
bool gcn_bundle_id_processor(const char *id, size_t id_len, char *buf,
                             size_t n);

#endif
