/*
 * test_purge_format.c - the text of db_purge's archives: escaping of
 * every special byte, NULL, the header line, the file names.
 */
#include <string.h>

#include "purge_format.h"
#include "tap.h"

int main(void)
{
    struct pf_buf b = { 0 };
    const char *names[] = { "id", "na\tme" };
    const char *vals[] = { "12", "a\\b\tc\nd\re" };
    unsigned long lens[] = { 2, 9 };
    const char nul[] = { 'x', '\0', 'y' };
    const char *vals2[] = { NULL, nul };
    unsigned long lens2[] = { 0, 3 };
    char name[64], small[8];
    int i;

    TAP_EQ_INT(pf_header(&b, 2, names), 0, "header written");
    TAP_CHECK(b.len == strlen("#id\tna\\tme\n") && memcmp(b.p, "#id\tna\\tme\n", b.len) == 0,
              "header: '#', names tab-separated, escaped");
    pf_reset(&b);
    TAP_EQ_INT(pf_row(&b, 2, vals, lens), 0, "row written");
    TAP_CHECK(b.len == strlen("12\ta\\\\b\\tc\\nd\\re\n") &&
              memcmp(b.p, "12\ta\\\\b\\tc\\nd\\re\n", b.len) == 0,
              "backslash, tab, newline, CR escaped");
    pf_reset(&b);
    TAP_EQ_INT(pf_row(&b, 2, vals2, lens2), 0, "row with NULL and NUL");
    TAP_CHECK(b.len == strlen("\\N\tx\\0y\n") && memcmp(b.p, "\\N\tx\\0y\n", b.len) == 0,
              "NULL as \\N, NUL byte as \\0");
    pf_reset(&b);
    for (i = 0; i < 10000; i++)
        if (pf_row(&b, 2, vals, lens) < 0)
            break;
    TAP_EQ_INT(i, 10000, "buffer grows");
    TAP_EQ_INT((long long)b.len, 10000LL * strlen("12\ta\\\\b\\tc\\nd\\re\n"), "all rows kept");
    pf_free(&b);

    TAP_EQ_INT(pf_file_name(name, sizeof name, "workunit", 86400L * 365, 1), 0, "name fits");
    TAP_CHECK(strcmp(name, "workunit_1971-01-01.tsv.gz") == 0, "first file of a day");
    TAP_EQ_INT(pf_file_name(name, sizeof name, "result", 86400L * 365, 3), 0, "name fits");
    TAP_CHECK(strcmp(name, "result_1971-01-01.3.tsv.gz") == 0, "third file of a day");
    TAP_EQ_INT(pf_file_name(small, sizeof small, "result", 0, 1), -1, "too small: -1");
    return tap_done();
}
