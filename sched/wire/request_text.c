/*
 * request_text.c - text helpers of the scheduler request parser: quoting
 * an offending value for an error message, formatting a number so that it
 * reads back exactly, and the lines of sched_request_dump().
 */
#include "request_internal.h"

#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

locale_t srq_c_locale;

void srq_quote_text(char *out, size_t outsz, const char *s, size_t len)
{
    size_t o = strlen(out);
    size_t n = len > SRQ_QUOTE_MAX ? SRQ_QUOTE_MAX : len;
    for (size_t i = 0; i < n && o + 5 < outsz; i++) {
        unsigned char c = (unsigned char)s[i];
        if (c == '"' || c == '\\') {
            out[o++] = '\\';
            out[o++] = (char)c;
        } else if (c >= 0x20 && c < 0x7f) {
            out[o++] = (char)c;
        } else {
            o += (size_t)snprintf(out + o, outsz - o, "\\x%02x", c);
        }
    }
    if (len > n && o + 4 < outsz) {
        memcpy(out + o, "...", 3);
        o += 3;
    }
    out[o < outsz ? o : outsz - 1] = '\0';
}

void srq_fmt_double(char *buf, size_t sz, double v)
{
    locale_t old = srq_c_locale ? uselocale(srq_c_locale) : (locale_t)0;
    for (int prec = 15; prec <= 17; prec++) {
        snprintf(buf, sz, "%.*g", prec, v);
        if (strtod(buf, NULL) == v)
            break;
    }
    if (old)
        uselocale(old);
}

int srq_verr(char *err, size_t errlen, int code, const char *fmt, ...)
{
    if (err && errlen) {
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(err, errlen, fmt, ap);
        va_end(ap);
    }
    return code;
}

/* Print s escaped: printable ASCII as is, '\\' doubled, \n \r \t, other
 * bytes as \xNN; so every value fits on its line. */
static void srq_dump_escaped(FILE *out, const char *s)
{
    for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
        switch (*p) {
        case '\\': fputs("\\\\", out); break;
        case '\n': fputs("\\n", out); break;
        case '\r': fputs("\\r", out); break;
        case '\t': fputs("\\t", out); break;
        default:
            if (*p >= 0x20 && *p < 0x7f)
                fputc(*p, out);
            else
                fprintf(out, "\\x%02x", *p);
        }
    }
}

void srq_dump_s(FILE *out, const char *pre, const char *key, const char *s)
{
    fprintf(out, "%s%s=", pre, key);
    srq_dump_escaped(out, s);
    fputc('\n', out);
}

void srq_dump_d(FILE *out, const char *pre, const char *key, double v)
{
    char b[40];
    srq_fmt_double(b, sizeof b, v);
    fprintf(out, "%s%s=%s\n", pre, key, b);
}

void srq_dump_i(FILE *out, const char *pre, const char *key, long long v)
{
    fprintf(out, "%s%s=%lld\n", pre, key, v);
}
