/*
** Developer driver for the decoder/disassembler (built by
** scripts/fuzz_disasm.py into the build directory; not part of libmgsim).
**   isa_driver lines   stdin: one instruction per line as hex bytes
**                      ("0x01 0x02 ..." or "0102..."); prints
**                      "<size>\t<text>" or "ERR\t<message>" per line
**   isa_driver stream FILE   disassembles a raw .text dump sequentially
*/
#include "gcn3/decode.h"
#include "gcn3/disasm.h"
#include "mgsim/errors.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int hexval(int c)
{
    if (c >= '0' && c <= '9') return c - '0';
    c = tolower(c);
    if (c >= 'a' && c <= 'f') return c - 'a' + 10;
    return -1;
}

int main(int argc, char **argv)
{
    char text[256];
    gcn_inst in;
    if (argc >= 3 && strcmp(argv[1], "stream") == 0) {
        FILE *f = fopen(argv[2], "rb");
        if (!f) { perror(argv[2]); return 2; }
        static uint8_t buf[1 << 22];
        size_t n = fread(buf, 1, sizeof buf, f);
        fclose(f);
        for (size_t off = 0; off + 4 <= n;) {
            int rc = gcn_decode(buf + off, n - off, &in);
            if (rc < 0) {
                printf(".long 0x%08x\n", in.word0);
                off += 4;
                continue;
            }
            gcn_disasm(&in, off, text, sizeof text);
            printf("%s\n", text);
            off += (size_t)rc;
        }
        return 0;
    }
    char line[1024];
    while (fgets(line, sizeof line, stdin)) {
        uint8_t b[64];
        size_t nb = 0;
        for (char *p = line; *p && nb < sizeof b;) {
            if (p[0] == '0' && (p[1] == 'x' || p[1] == 'X')) { p += 2; continue; }
            if (hexval(p[0]) >= 0 && hexval(p[1]) >= 0) {
                b[nb++] = (uint8_t)(hexval(p[0]) << 4 | hexval(p[1]));
                p += 2;
                continue;
            }
            ++p;
        }
        int rc = gcn_decode(b, nb, &in);
        if (rc < 0) {
            printf("ERR\t%s\n", mgs_error_msg());
            continue;
        }
        gcn_disasm(&in, 0, text, sizeof text);
        printf("%d\t%s\n", rc, text);
    }
    return 0;
}
