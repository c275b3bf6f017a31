/*
 * test_db_json.c - the JSON writer of the statements' parameters
 * (db/db_json.c) against printf, which it replaced for speed: integers
 * as "%lld", doubles that read back as the same double, strings escaped
 * as JSON wants them.
 */
#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "db_json.h"
#include "tap.h"

/* The text one value writes, in a fresh buffer. */
static char *one_int(long long v)
{
    struct jbuf b = { 0 };
    b.first = 1;
    jb_int(&b, v);
    return b.p;
}

static char *one_num(double d)
{
    struct jbuf b = { 0 };
    b.first = 1;
    jb_num(&b, d);
    return b.p;
}

static char *one_str(const char *s)
{
    struct jbuf b = { 0 };
    b.first = 1;
    jb_str(&b, s);
    return b.p;
}

static unsigned long long rng = 88172645463325252ULL;
static unsigned long long next_rand(void)
{
    rng ^= rng << 13;
    rng ^= rng >> 7;
    rng ^= rng << 17;
    return rng;
}

static void test_ints(void)
{
    long long fixed[] = { 0, 1, -1, 9, 10, -10, 123456789, 2147483647LL, -2147483648LL,
                          9223372036854775807LL, -9223372036854775807LL - 1 };
    char want[32], *got;
    int i, bad = 0;
    for (i = 0; i < (int)(sizeof fixed / sizeof fixed[0]); i++) {
        snprintf(want, sizeof want, "%lld", fixed[i]);
        got = one_int(fixed[i]);
        TAP_EQ_STR(got, want, "integer %s", want);
        free(got);
    }
    for (i = 0; i < 100000; i++) {
        long long v = (long long)(next_rand() >> (next_rand() % 64));
        if (i & 1)
            v = -v;
        snprintf(want, sizeof want, "%lld", v);
        got = one_int(v);
        bad += strcmp(got, want) != 0;
        free(got);
    }
    TAP_EQ_INT(bad, 0, "100,000 random integers as %%lld writes them");
}

static void test_doubles(void)
{
    double fixed[] = { 0.0, 1.0, -1.0, 0.5, 1e13, 4e9, 123456.789, -3.25e-7, 1e300, DBL_MIN,
                       DBL_MAX, 9007199254740991.0, 9007199254740992.0, 1e17 };
    char *got;
    int i, bad = 0, exact = 0;
    for (i = 0; i < (int)(sizeof fixed / sizeof fixed[0]); i++) {
        got = one_num(fixed[i]);
        TAP_CHECK(strtod(got, NULL) == fixed[i], "%.17g reads back from \"%s\"", fixed[i], got);
        free(got);
    }
    got = one_num(1e13);
    TAP_EQ_STR(got, "10000000000000", "an integral double as its digits");
    free(got);
    got = one_num(-0.0);
    TAP_EQ_STR(got, "-0", "-0 as printf writes it");
    free(got);
    got = one_num(NAN);
    TAP_EQ_STR(got, "0", "not finite: 0");
    free(got);
    for (i = 0; i < 100000; i++) {
        double d;
        unsigned long long u = next_rand();
        if (i % 3 == 0)
            d = (double)(long long)(u >> 12) * (i & 1 ? -1 : 1);      /* integral */
        else if (i % 3 == 1)
            d = (double)(u >> 11) / 1024.0;                           /* fractions */
        else
            memcpy(&d, &u, sizeof d);                                 /* any bits */
        if (!isfinite(d))
            continue;
        got = one_num(d);
        bad += !(strtod(got, NULL) == d && signbit(strtod(got, NULL)) == signbit(d));
        exact += strchr(got, 'e') == NULL && strchr(got, '.') == NULL;
        free(got);
    }
    TAP_EQ_INT(bad, 0, "100,000 random doubles read back as themselves");
    TAP_CHECK(exact > 30000, "integral ones written as digits (%d)", exact);
}

static void test_strings(void)
{
    char *got;
    char all[128];
    int i;
    got = one_str("plain text");
    TAP_EQ_STR(got, "\"plain text\"", "plain text quoted");
    free(got);
    got = one_str("a\"b\\c\nd\te\x01" "f\x1f");
    TAP_EQ_STR(got, "\"a\\\"b\\\\c\\u000ad\\u0009e\\u0001f\\u001f\"",
               "quote, backslash and control characters escaped");
    free(got);
    got = one_str("");
    TAP_EQ_STR(got, "\"\"", "empty string");
    free(got);
    got = one_str(NULL);
    TAP_EQ_STR(got, "\"\"", "no string: empty");
    free(got);
    for (i = 1; i < 128; i++)
        all[i - 1] = (char)i;
    all[127] = '\0';
    got = one_str(all);
    TAP_EQ_INT((long long)strlen(got), 2 + 31 * 6 + 2 * 2 + (127 - 31 - 2),
               "every ASCII character: 31 controls as \\u00XX, quote and backslash as 2");
    free(got);
    {   /* several values: separators */
        struct jbuf b = { 0 };
        jb_open(&b);
        jb_int(&b, 7);
        jb_str(&b, "x");
        jb_num(&b, 0.25);
        jb_close(&b);
        TAP_EQ_STR(b.p, "[7,\"x\",0.25]", "a row of three values");
        free(b.p);
    }
}

int main(void)
{
    test_ints();
    test_doubles();
    test_strings();
    return tap_done();
}
