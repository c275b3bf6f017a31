/*
 * status_log.c - the scheduler's requests per minute from its log lines
 * (status_log.h).
 */
#include "status_log.h"

#include <string.h>
#include <time.h>

static const char PROG_TAG[] = " [scheduler:";

/* The bytes of needle in hay[0..len), or NULL. */
static const char *find(const char *hay, size_t len, const char *needle)
{
    size_t n = strlen(needle), i;
    if (n == 0 || len < n)
        return NULL;
    for (i = 0; i + n <= len; i++)
        if (hay[i] == needle[0] && memcmp(hay + i, needle, n) == 0)
            return hay + i;
    return NULL;
}

static int digits(const char *s, int n, int *v)
{
    int i, x = 0;
    for (i = 0; i < n; i++) {
        if (s[i] < '0' || s[i] > '9')
            return -1;
        x = x * 10 + (s[i] - '0');
    }
    *v = x;
    return 0;
}

/* "YYYY-MM-DD HH:MM:SS" at s (19 bytes) as Unix seconds, UTC; -1 if not. */
static long long parse_stamp(const char *s)
{
    int y, mo, d, h, mi, se;
    struct tm tm;
    if (s[4] != '-' || s[7] != '-' || s[10] != ' ' || s[13] != ':' || s[16] != ':')
        return -1;
    if (digits(s, 4, &y) || digits(s + 5, 2, &mo) || digits(s + 8, 2, &d) ||
        digits(s + 11, 2, &h) || digits(s + 14, 2, &mi) || digits(s + 17, 2, &se))
        return -1;
    if (y < 1970 || mo < 1 || mo > 12 || d < 1 || d > 31 || h > 23 || mi > 59 || se > 60)
        return -1;
    memset(&tm, 0, sizeof tm);
    tm.tm_year = y - 1900;
    tm.tm_mon = mo - 1;
    tm.tm_mday = d;
    tm.tm_hour = h;
    tm.tm_min = mi;
    tm.tm_sec = se;
    return (long long)timegm(&tm);
}

int sl_classify(const char *line, size_t len, long long *t)
{
    const char *tag = find(line, len, PROG_TAG), *lv, *msg;
    size_t rest;
    int kind;
    if (!tag)
        return SL_NONE;
    /* back over the level word to the stamp before it */
    lv = tag;
    while (lv > line && lv[-1] >= 'A' && lv[-1] <= 'Z')
        lv--;
    if (lv == tag || lv - line < 20 || lv[-1] != ' ')
        return SL_NONE;
    msg = tag + strlen(PROG_TAG);
    rest = len - (size_t)(msg - line);
    {
        const char *close = find(msg, rest, "] ");
        if (!close)
            return SL_NONE;
        msg = close + 2;
        rest = len - (size_t)(msg - line);
    }
    if (find(msg, rest, " rpc_seqno ") && find(msg, rest, " reported, "))
        kind = SL_REQUEST;
    else if (find(msg, rest, "request answered 'project is down'"))
        kind = SL_REQUEST;
    else if (rest >= 18 && memcmp(msg, "malformed request ", 18) == 0)
        kind = SL_ERROR;
    else if (find(msg, rest, "request with an unknown account key refused"))
        kind = SL_ERROR;
    else if (rest >= 20 && memcmp(msg, "request not handled:", 20) == 0)
        kind = SL_ERROR;
    else
        return SL_NONE;
    *t = parse_stamp(lv - 20);
    return *t < 0 ? SL_NONE : kind;
}

void sl_count(struct sr_sched_minutes *m, const char *text, size_t len, int skip_first)
{
    size_t i = 0;
    if (skip_first) {
        while (i < len && text[i] != '\n')
            i++;
        if (i < len)
            i++;
    }
    while (i < len) {
        size_t e = i;
        long long t;
        int k;
        while (e < len && text[e] != '\n')
            e++;
        k = sl_classify(text + i, e - i, &t);
        if (k != SL_NONE && t >= m->minute0 && t < (long long)m->minute0 + 60 * SR_MINUTES) {
            int slot = (int)((t - m->minute0) / 60);
            m->requests[slot]++;
            if (k == SL_ERROR)
                m->errors[slot]++;
        }
        i = e + 1;
    }
}
