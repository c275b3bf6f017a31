/*
 * assimilate_logic.c - the assimilator's pure decisions (assimilate_logic.h).
 */
#include "assimilate_logic.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int as_safe_name(const char *s)
{
    size_t i, n = strlen(s);
    if (n == 0 || n > AS_NAME_MAX || s[0] == '.')
        return 0;
    for (i = 0; i < n; i++) {
        char ch = s[i];
        if (!((ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z') || (ch >= '0' && ch <= '9') ||
              ch == '_' || ch == '.' || ch == '-'))
            return 0;
    }
    return 1;
}

static int fmt_ok(int n, size_t outlen)
{
    return n > 0 && (size_t)n < outlen ? 0 : -1;
}

int as_upload_name(char *out, size_t outlen, const char *result_name, int idx)
{
    return fmt_ok(snprintf(out, outlen, "%s_%d", result_name, idx), outlen);
}

int as_results_name(char *out, size_t outlen, const char *wu_name, int idx)
{
    return fmt_ok(snprintf(out, outlen, "%s_%d", wu_name, idx), outlen);
}

int as_error_name(char *out, size_t outlen, const char *wu_name)
{
    return fmt_ok(snprintf(out, outlen, "%s.error", wu_name), outlen);
}

enum as_kind as_decide(int canonical_resultid, int error_mask, const char *result_name,
                       char *why, size_t whylen)
{
    if (canonical_resultid != 0 && result_name && result_name[0]) {
        snprintf(why, whylen, "%s", "success");
        return AS_SUCCESS;
    }
    if (error_mask != 0)
        snprintf(why, whylen, "error_mask=0x%x", (unsigned)error_mask);
    else
        snprintf(why, whylen, "%s", "canonical_result_missing");
    return AS_ERROR;
}

int as_split_command(const char *cmd, char *buf, size_t buflen, char **argv, int max)
{
    size_t len = strlen(cmd);
    int n = 0;
    char *p;

    if (len + 1 > buflen || max < 2)
        return -1;
    memcpy(buf, cmd, len + 1);
    p = buf;
    for (;;) {
        while (*p == ' ' || *p == '\t')
            *p++ = '\0';
        if (!*p)
            break;
        if (n >= max - 1)
            return -1;
        argv[n++] = p;
        while (*p && *p != ' ' && *p != '\t')
            p++;
    }
    argv[n] = NULL;
    return n > 0 ? n : -1;
}

int as_error_record(char *out, size_t outlen, const char *wu_name, int wu_id,
                    const char *batch_name, int error_mask, const char *reason, long when)
{
    return fmt_ok(snprintf(out, outlen,
                           "workunit %s\nworkunit_id %d\nbatch %s\nerror_mask %d\n"
                           "reason %s\ntime %ld\n",
                           wu_name, wu_id, batch_name, error_mask, reason, when),
                  outlen);
}

int as_tries_note(struct as_tries *t, int wuid)
{
    int i;
    for (i = 0; i < t->n; i++)
        if (t->ids[i] == wuid)
            return ++t->counts[i];
    if (t->n == t->cap) {
        int cap = t->cap ? t->cap * 2 : 16;
        int *ids = realloc(t->ids, sizeof *ids * (size_t)cap);
        int *counts;
        if (!ids)
            return -1;
        t->ids = ids;
        counts = realloc(t->counts, sizeof *counts * (size_t)cap);
        if (!counts)
            return -1;
        t->counts = counts;
        t->cap = cap;
    }
    t->ids[t->n] = wuid;
    t->counts[t->n] = 1;
    t->n++;
    return 1;
}

void as_tries_forget(struct as_tries *t, int wuid)
{
    int i;
    for (i = 0; i < t->n; i++) {
        if (t->ids[i] == wuid) {
            t->n--;
            t->ids[i] = t->ids[t->n];
            t->counts[i] = t->counts[t->n];
            return;
        }
    }
}

void as_tries_free(struct as_tries *t)
{
    free(t->ids);
    free(t->counts);
    memset(t, 0, sizeof *t);
}
