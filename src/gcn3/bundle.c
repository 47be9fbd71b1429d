/*
** Clang offload bundle reader (format in bundle.h). The reader never trusts
** a field: offsets and sizes are checked against the buffer with
** subtraction (no overflowing additions), and the entry count against the
** bytes left for the table. Target selection takes the first amdgcn entry
** whose processor is exactly gfx803 (any kind prefix: hip, hipv4, openmp).
*/
#include "gcn3/bundle.h"

#include <stdio.h>
#include <string.h>

#include "mgsim/errors.h"

enum {
    BUNDLE_ENTRY_MIN = 24,       /* three u64 fields, empty id */
    BUNDLE_MAX_ENTRIES = 4096,   /* for unsized in-memory bundles */
    BUNDLE_MAX_ID = 4096
};

static uint64_t rd64(const uint8_t *p)
{
    uint64_t v = 0;
    for (int i = 7; i >= 0; i--)
        v = (v << 8) | p[i];
    return v;
}

bool gcn_bundle_is(const uint8_t *data, size_t size)
{
    return size >= GCN_BUNDLE_MAGIC_LEN &&
           memcmp(data, GCN_BUNDLE_MAGIC, GCN_BUNDLE_MAGIC_LEN) == 0;
}

bool gcn_bundle_id_processor(const char *id, size_t id_len, char *buf,
                             size_t n)
{
    static const char triple[] = "amdgcn-amd-amdhsa";
    size_t tl = sizeof triple - 1;
    size_t i = 0;
    /* Find the triple inside the id. */
    for (;; i++) {
        if (i + tl > id_len)
            return false;
        if (memcmp(id + i, triple, tl) == 0)
            break;
    }
    i += tl;
    /* Then "-<environment>-<target id>" (environment usually empty, giving
    ** "--gfx803"); old ids have "-gfx803" directly. */
    if (i < id_len && id[i] == '-')
        i++;
    if (!(i + 3 <= id_len && memcmp(id + i, "gfx", 3) == 0)) {
        while (i < id_len && id[i] != '-')
            i++;
        if (i < id_len)
            i++;
    }
    size_t len = 0;
    while (i + len < id_len && id[i + len] != ':' && id[i + len] != '\0')
        len++;
    if (len == 0 || n == 0)
        return false;
    if (len >= n)
        len = n - 1;
    memcpy(buf, id + i, len);
    buf[len] = '\0';
    return true;
}

/* Appends "name" to a ", "-separated list in buf (truncating quietly). */
static void list_add(char *buf, size_t n, const char *name)
{
    size_t used = strlen(buf);
    if (used + 1 < n)
        snprintf(buf + used, n - used, "%s%s", used ? ", " : "", name);
}

int gcn_bundle_find_gfx803(const uint8_t *data, size_t size, const char *what,
                           const uint8_t **elf, size_t *elf_size)
{
    if (!gcn_bundle_is(data, size))
        return mgs_error_set(MGS_EFORMAT, "%s: not an offload bundle", what);
    if (size < GCN_BUNDLE_MAGIC_LEN + 8)
        return mgs_error_set(MGS_EFORMAT,
                             "%s: offload bundle truncated in its header",
                             what);
    uint64_t count = rd64(data + GCN_BUNDLE_MAGIC_LEN);
    size_t pos = GCN_BUNDLE_MAGIC_LEN + 8;
    if (count == 0 || count > (size - pos) / BUNDLE_ENTRY_MIN)
        return mgs_error_set(MGS_EFORMAT,
                             "%s: offload bundle declares %llu entries but "
                             "has room for %zu (truncated or corrupt)",
                             what, (unsigned long long)count,
                             (size - pos) / BUNDLE_ENTRY_MIN);
    char found[256] = "";
    for (uint64_t e = 0; e < count; e++) {
        if (size - pos < BUNDLE_ENTRY_MIN)
            return mgs_error_set(MGS_EFORMAT,
                                 "%s: offload bundle entry table truncated",
                                 what);
        uint64_t off = rd64(data + pos);
        uint64_t len = rd64(data + pos + 8);
        uint64_t idlen = rd64(data + pos + 16);
        pos += BUNDLE_ENTRY_MIN;
        if (idlen > size - pos)
            return mgs_error_set(MGS_EFORMAT,
                                 "%s: offload bundle entry %llu id runs past "
                                 "the end of the file",
                                 what, (unsigned long long)e);
        const char *id = (const char *)data + pos;
        pos += (size_t)idlen;
        if (off > size || len > size - off)
            return mgs_error_set(MGS_EFORMAT,
                                 "%s: offload bundle entry %llu (offset %llu, "
                                 "size %llu) lies outside the file "
                                 "(truncated?)",
                                 what, (unsigned long long)e,
                                 (unsigned long long)off,
                                 (unsigned long long)len);
        char proc[32];
        if (!gcn_bundle_id_processor(id, (size_t)idlen, proc, sizeof proc)) {
            if (len != 0) {   /* the empty host entry is not worth naming */
                char name[64];
                size_t k = idlen < sizeof name - 1 ? (size_t)idlen
                                                   : sizeof name - 1;
                memcpy(name, id, k);
                name[k] = '\0';
                list_add(found, sizeof found, name);
            }
            continue;
        }
        if (strcmp(proc, "gfx803") != 0) {
            list_add(found, sizeof found, proc);
            continue;
        }
        if (len == 0)
            return mgs_error_set(MGS_EFORMAT,
                                 "%s: offload bundle's gfx803 entry is empty",
                                 what);
        *elf = data + off;
        *elf_size = (size_t)len;
        return MGS_OK;
    }
    return mgs_error_set(MGS_EARCH,
                         "%s: offload bundle has no gfx803 code object "
                         "(found: %s)",
                         what, found[0] ? found : "no GPU targets");
}

int gcn_bundle_extent(const uint8_t *data, const char *what, size_t *size)
{
    if (memcmp(data, GCN_BUNDLE_MAGIC, GCN_BUNDLE_MAGIC_LEN) != 0)
        return mgs_error_set(MGS_EFORMAT, "%s: not an offload bundle", what);
    uint64_t count = rd64(data + GCN_BUNDLE_MAGIC_LEN);
    if (count == 0 || count > BUNDLE_MAX_ENTRIES)
        return mgs_error_set(MGS_EFORMAT,
                             "%s: offload bundle entry count %llu is invalid",
                             what, (unsigned long long)count);
    uint64_t pos = GCN_BUNDLE_MAGIC_LEN + 8, end = 0;
    for (uint64_t e = 0; e < count; e++) {
        uint64_t off = rd64(data + pos), len = rd64(data + pos + 8);
        uint64_t idlen = rd64(data + pos + 16);
        if (idlen > BUNDLE_MAX_ID || off > (uint64_t)1 << 40 ||
            len > (uint64_t)1 << 40)
            return mgs_error_set(MGS_EFORMAT,
                                 "%s: offload bundle entry %llu is corrupt",
                                 what, (unsigned long long)e);
        pos += BUNDLE_ENTRY_MIN + idlen;
        if (off + len > end)
            end = off + len;
    }
    *size = (size_t)(end > pos ? end : pos);
    return MGS_OK;
}
