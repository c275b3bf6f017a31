/*
 * replay_host.c - request templates and simulated hosts of the load
 * replay (see replay_host.h).
 */
#include "replay_host.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "array_grow.h"

/* ---- templates ---- */

/* Elements whose text becomes a per-host slot. */
static const struct {
    const char *tag;
    enum rh_slot slot;
} value_tags[] = {
    { "authenticator", RS_AUTH },
    { "hostid", RS_HOSTID },
    { "rpc_seqno", RS_SEQNO },
    { "work_req_seconds", RS_WORK_SECS },
    { "cpu_req_secs", RS_CPU_SECS },
};

/* Elements cut out and replaced by the host's state (RS_STATE) or key. */
static const char *const state_tags[] = {
    "result", "file_info", "app_versions", "other_results", "in_progress_results",
};

/* If body[i..] starts with "<tag>" or "<tag/>", return the length of that
 * start tag, else 0. */
static size_t starts_tag(const char *body, size_t len, size_t i, const char *tag)
{
    size_t n = strlen(tag);
    if (i + n + 2 > len || body[i] != '<' || memcmp(body + i + 1, tag, n) != 0)
        return 0;
    if (body[i + 1 + n] == '>')
        return n + 2;
    if (i + n + 3 <= len && body[i + 1 + n] == '/' && body[i + 2 + n] == '>')
        return n + 3;
    return 0;
}

/* Offset just past "</tag>" at or after from, or 0 if none. */
static size_t end_of(const char *body, size_t len, size_t from, const char *tag)
{
    char close[80];
    size_t n;
    int k = snprintf(close, sizeof close, "</%s>", tag);
    if (k < 0 || (size_t)k >= sizeof close)
        return 0;
    n = (size_t)k;
    for (; from + n <= len; from++)
        if (body[from] == '<' && memcmp(body + from, close, n) == 0)
            return from + n;
    return 0;
}

static int add_mark(struct rh_template *t, size_t off, enum rh_slot slot)
{
    int i, j;
    if (t->nmarks == RH_MAX_MARKS)
        return -1;
    for (i = 0; i < t->nmarks; i++)
        if (t->marks[i].slot == slot)
            return 0;                        /* first occurrence wins */
    /* keep sorted by offset, then slot (key before state) */
    for (i = t->nmarks; i > 0; i--) {
        const struct rh_mark *m = &t->marks[i - 1];
        if (m->off < off || (m->off == off && m->slot < slot))
            break;
    }
    for (j = t->nmarks; j > i; j--)
        t->marks[j] = t->marks[j - 1];
    t->marks[i].off = off;
    t->marks[i].slot = slot;
    t->nmarks++;
    return 0;
}

static int has_mark(const struct rh_template *t, enum rh_slot slot)
{
    int i;
    for (i = 0; i < t->nmarks; i++)
        if (t->marks[i].slot == slot)
            return 1;
    return 0;
}

static void keep_value(char *dst, size_t cap, const char *v, size_t n)
{
    while (n > 0 && (*v == ' ' || *v == '\n' || *v == '\t' || *v == '\r')) {
        v++;
        n--;
    }
    while (n > 0 && (v[n - 1] == ' ' || v[n - 1] == '\n' || v[n - 1] == '\t' || v[n - 1] == '\r'))
        n--;
    if (n >= cap)
        n = cap - 1;
    memcpy(dst, v, n);
    dst[n] = '\0';
}

int rh_template_init(struct rh_template *t, const char *name, const char *body, size_t len,
                     char *err, size_t errlen)
{
    struct buf out;
    size_t i = 0, k;
    const char *close_root;

    memset(t, 0, sizeof *t);
    snprintf(t->name, sizeof t->name, "%s", name);
    buf_init(&out);
    if (!memmem(body, len, "<scheduler_request>", 19)) {
        snprintf(err, errlen, "%s: not a <scheduler_request>", name);
        return -1;
    }
    while (i < len) {
        size_t st = 0, e;
        int done = 0;
        if (body[i] != '<') {
            const char *lt = memchr(body + i, '<', len - i);
            size_t n = lt ? (size_t)(lt - (body + i)) : len - i;
            buf_put(&out, body + i, n);
            i += n;
            continue;
        }
        for (k = 0; k < sizeof value_tags / sizeof value_tags[0] && !done; k++) {
            if ((st = starts_tag(body, len, i, value_tags[k].tag)) == 0 || body[i + st - 2] == '/')
                continue;
            e = end_of(body, len, i + st, value_tags[k].tag);
            if (!e) {
                snprintf(err, errlen, "%s: <%s> is not closed", name, value_tags[k].tag);
                goto fail;
            }
            buf_put(&out, body + i, st);
            if (add_mark(t, out.len, value_tags[k].slot) < 0)
                goto fail_marks;
            if (value_tags[k].slot == RS_WORK_SECS)
                keep_value(t->work_secs, sizeof t->work_secs, body + i + st,
                           e - i - st - strlen(value_tags[k].tag) - 3);
            else if (value_tags[k].slot == RS_CPU_SECS)
                keep_value(t->cpu_secs, sizeof t->cpu_secs, body + i + st,
                           e - i - st - strlen(value_tags[k].tag) - 3);
            i = e - strlen(value_tags[k].tag) - 3;      /* at "</tag>" */
            buf_put(&out, body + i, e - i);
            i = e;
            done = 1;
        }
        if (!done && (st = starts_tag(body, len, i, "code_sign_key")) != 0) {
            e = body[i + st - 2] == '/' ? i + st : end_of(body, len, i + st, "code_sign_key");
            if (!e) {
                snprintf(err, errlen, "%s: <code_sign_key> is not closed", name);
                goto fail;
            }
            if (add_mark(t, out.len, RS_KEY) < 0)
                goto fail_marks;
            i = e < len && body[e] == '\n' ? e + 1 : e;
            done = 1;
        }
        for (k = 0; k < sizeof state_tags / sizeof state_tags[0] && !done; k++) {
            if ((st = starts_tag(body, len, i, state_tags[k])) == 0)
                continue;
            e = body[i + st - 2] == '/' ? i + st : end_of(body, len, i + st, state_tags[k]);
            if (!e) {
                snprintf(err, errlen, "%s: <%s> is not closed", name, state_tags[k]);
                goto fail;
            }
            if (add_mark(t, out.len, RS_STATE) < 0)
                goto fail_marks;
            i = e < len && body[e] == '\n' ? e + 1 : e;
            done = 1;
        }
        if (!done) {
            buf_put(&out, "<", 1);
            i++;
        }
    }
    if (out.oom) {
        snprintf(err, errlen, "%s: out of memory", name);
        goto fail;
    }
    if (!has_mark(t, RS_AUTH) || !has_mark(t, RS_HOSTID) || !has_mark(t, RS_SEQNO)) {
        snprintf(err, errlen, "%s: needs <authenticator>, <hostid> and <rpc_seqno>", name);
        goto fail;
    }
    close_root = NULL;
    {
        const char *p = out.p, *q;
        while ((q = memmem(p, out.len - (size_t)(p - out.p), "</scheduler_request>", 20))) {
            close_root = q;
            p = q + 1;
        }
    }
    if (!close_root) {
        snprintf(err, errlen, "%s: no </scheduler_request>", name);
        goto fail;
    }
    if (!has_mark(t, RS_STATE) && add_mark(t, (size_t)(close_root - out.p), RS_STATE) < 0)
        goto fail_marks;
    if (!has_mark(t, RS_KEY)) {
        size_t off = 0;
        for (k = 0; k < (size_t)t->nmarks; k++)
            if (t->marks[k].slot == RS_STATE)
                off = t->marks[k].off;
        if (add_mark(t, off, RS_KEY) < 0)
            goto fail_marks;
    }
    t->skel = out.p;
    t->len = out.len;
    return 0;

fail_marks:
    snprintf(err, errlen, "%s: too many host-specific elements", name);
fail:
    buf_free(&out);
    return -1;
}

void rh_template_free(struct rh_template *t)
{
    free(t->skel);
    memset(t, 0, sizeof *t);
}

int rh_template_asks_work(const struct rh_template *t, const struct rh_opts *o)
{
    const char *p;
    if (t->skel && (p = strstr(t->skel, "<dont_send_work>")) && atoi(p + 16) == 1)
        return 0;
    if (o->work_secs >= 0)
        return o->work_secs > 0;
    if (atof(t->cpu_secs) > 0 || atof(t->work_secs) > 0)
        return 1;
    /* a coprocessor's own request */
    for (p = t->skel; p && (p = strstr(p, "<req_secs>")); p += 10)
        if (atof(p + 10) > 0)
            return 1;
    return 0;
}

/* ---- hosts ---- */

void rh_host_init(struct rh_host *h, int index, const struct rh_template *tpl, const char *auth)
{
    memset(h, 0, sizeof *h);
    h->index = index;
    h->tpl = tpl;
    h->auth = auth;
}

static void free_jobs(struct rh_job *j, int n)
{
    int i;
    for (i = 0; i < n; i++)
        free(j[i].name);
}

void rh_host_free(struct rh_host *h)
{
    int i;
    free_jobs(h->jobs, h->njobs);
    free_jobs(h->done, h->ndone);
    for (i = 0; i < h->nfiles; i++)
        free(h->files[i].name);
    free(h->jobs);
    free(h->done);
    free(h->files);
    memset(h, 0, sizeof *h);
}

static void put_reported(struct buf *b, const struct rh_host *h, const struct rh_job *j,
                         const struct rh_opts *o)
{
    const struct rp_av *av = j->av >= 0 && j->av < h->navs ? &h->avs[j->av] : NULL;
    double elapsed = j->est_secs > 0 ? j->est_secs : 1;

    buf_puts(b, "<result>\n");
    buf_elem(b, "    ", "name", j->name);
    buf_printf(b, "    <final_cpu_time>%.6f</final_cpu_time>\n", elapsed * 0.97);
    buf_printf(b, "    <final_elapsed_time>%.6f</final_elapsed_time>\n", elapsed);
    buf_puts(b, "    <exit_status>0</exit_status>\n    <state>5</state>\n");
    if (av) {
        buf_elem(b, "    ", "platform", av->platform);
        buf_printf(b, "    <version_num>%d</version_num>\n", av->version_num);
        if (av->plan_class[0])
            buf_elem(b, "    ", "plan_class", av->plan_class);
    }
    buf_puts(b, "    <final_peak_working_set_size>4059136</final_peak_working_set_size>\n"
                "    <final_peak_swap_size>6877184</final_peak_swap_size>\n"
                "    <final_peak_disk_usage>18262</final_peak_disk_usage>\n");
    if (av)
        buf_printf(b, "    <app_version_num>%d</app_version_num>\n", av->version_num);
    buf_printf(b, "<stderr_out>\n<core_client_version>7.20.5</core_client_version>\n"
                  "<![CDATA[\n<stderr_txt>\nreplay host %d: simulated run done\n"
                  "</stderr_txt>\n]]>\n</stderr_out>\n", h->index);
    buf_puts(b, "<file_info>\n");
    buf_printf(b, "    <name>%s_0</name>\n", j->name);
    buf_puts(b, "    <nbytes>4053.000000</nbytes>\n    <max_nbytes>1000000.000000</max_nbytes>\n"
                "    <md5_cksum>81929feb9ed871d935c0e0becde1d52a</md5_cksum>\n");
    buf_elem(b, "    ", "upload_url", o->upload_url ? o->upload_url : "");
    buf_puts(b, "</file_info>\n</result>\n");
}

static void put_state(struct buf *b, const struct rh_host *h, const struct rh_opts *o,
                      double now)
{
    int i;
    for (i = 0; i < h->ndone; i++)
        put_reported(b, h, &h->done[i], o);
    for (i = 0; i < h->nfiles; i++) {
        buf_puts(b, "    <file_info>\n");
        buf_elem(b, "        ", "name", h->files[i].name);
        buf_printf(b, "        <nbytes>%.6f</nbytes>\n        <status>1</status>\n"
                      "    </file_info>\n", h->files[i].nbytes);
    }
    buf_puts(b, "<app_versions>\n");
    for (i = 0; i < h->navs; i++) {
        const struct rp_av *a = &h->avs[i];
        buf_puts(b, "<app_version>\n");
        buf_elem(b, "    ", "app_name", a->app_name);
        buf_printf(b, "    <version_num>%d</version_num>\n", a->version_num);
        buf_elem(b, "    ", "platform", a->platform);
        if (a->plan_class[0])
            buf_elem(b, "    ", "plan_class", a->plan_class);
        buf_printf(b, "    <avg_ncpus>%.6f</avg_ncpus>\n    <flops>%.6f</flops>\n"
                      "    <api_version>7.20.5</api_version>\n</app_version>\n",
                   a->avg_ncpus > 0 ? a->avg_ncpus : 1.0, a->flops);
    }
    buf_puts(b, "</app_versions>\n<other_results>\n");
    for (i = 0; i < h->njobs; i++) {
        buf_puts(b, "    <other_result>\n");
        buf_elem(b, "        ", "name", h->jobs[i].name);
        if (h->jobs[i].av >= 0)
            buf_printf(b, "        <app_version>%d</app_version>\n", h->jobs[i].av);
        buf_puts(b, "    </other_result>\n");
    }
    buf_puts(b, "</other_results>\n");
    if (!h->full_workload)
        return;
    buf_puts(b, "<in_progress_results>\n");
    for (i = 0; i < h->njobs; i++) {
        const struct rh_job *j = &h->jobs[i];
        double left = j->est_secs;
        if (o->run_seconds > 0) {
            double frac = (now - j->recv_time) / o->run_seconds;
            left = j->est_secs * (frac < 1 ? 1 - frac : 0);
        }
        buf_puts(b, "    <ip_result>\n");
        buf_elem(b, "        ", "name", j->name);
        buf_printf(b, "        <report_deadline>%.0f</report_deadline>\n"
                      "        <time_remaining>%.2f</time_remaining>\n"
                      "        <avg_ncpus>1.000000</avg_ncpus>\n    </ip_result>\n",
                   j->deadline, left);
    }
    buf_puts(b, "</in_progress_results>\n");
}

int rh_build(struct rh_host *h, const struct rh_opts *o, double now, const char *key,
             struct buf *out, int *nreported)
{
    const struct rh_template *t = h->tpl;
    size_t pos = 0;
    int i, kept = 0, max = o->max_report > 0 ? o->max_report : 64;

    buf_reset(out);
    /* jobs whose run is over, oldest first, move to the reported list */
    for (i = 0; i < h->njobs; i++) {
        struct rh_job *j = &h->jobs[i];
        if (h->ndone < max && now - j->recv_time >= o->run_seconds) {
            if (array_grow((void **)&h->done, &h->capdone, h->ndone + 1, 8, sizeof *h->done) < 0)
                return -1;
            h->done[h->ndone++] = *j;
        } else {
            h->jobs[kept++] = *j;
        }
    }
    h->njobs = kept;
    *nreported = h->ndone;

    for (i = 0; i < t->nmarks; i++) {
        const struct rh_mark *m = &t->marks[i];
        buf_put(out, t->skel + pos, m->off - pos);
        pos = m->off;
        switch (m->slot) {
        case RS_AUTH:
            buf_put_xml(out, h->auth);
            break;
        case RS_HOSTID:
            buf_printf(out, "%lld", h->hostid);
            break;
        case RS_SEQNO:
            buf_printf(out, "%lld", h->seqno);
            break;
        case RS_WORK_SECS:
        case RS_CPU_SECS:
            if (o->work_secs >= 0)
                buf_printf(out, "%.6f", o->work_secs);
            else
                buf_puts(out, m->slot == RS_WORK_SECS ? t->work_secs : t->cpu_secs);
            break;
        case RS_KEY:
            if (h->has_key && key && key[0]) {
                buf_puts(out, "    <code_sign_key>");
                buf_puts(out, key);
                buf_puts(out, "</code_sign_key>\n");
            }
            break;
        case RS_STATE:
            put_state(out, h, o, now);
            break;
        }
    }
    buf_put(out, t->skel + pos, t->len - pos);
    return out->oom ? -1 : 0;
}

static int find_av(const struct rh_host *h, int version_num, const char *platform,
                   const char *plan_class)
{
    int i;
    for (i = 0; i < h->navs; i++)
        if (h->avs[i].version_num == version_num && strcmp(h->avs[i].platform, platform) == 0 &&
            strcmp(h->avs[i].plan_class, plan_class) == 0)
            return i;
    return -1;
}

static void drop_file(struct rh_host *h, int i)
{
    free(h->files[i].name);
    memmove(&h->files[i], &h->files[i + 1], sizeof *h->files * (size_t)(h->nfiles - i - 1));
    h->nfiles--;
}

int rh_apply(struct rh_host *h, const struct rp_reply *r, const struct rh_opts *o,
             double now, struct rh_outcome *out)
{
    int i, j, kept;

    memset(out, 0, sizeof *out);
    if (r->have_hostid && r->hostid > 0) {
        out->new_hostid = h->hostid != r->hostid;
        h->hostid = r->hostid;
        h->seqno = 0;              /* the client restarts at 0 with a new id */
    } else {
        if (h->hostid == 0)
            out->no_hostid = 1;
        h->seqno++;
    }
    if (r->have_code_sign_key)
        h->has_key = 1;
    if (r->send_full_workload)
        h->full_workload = 1;
    h->not_before = r->have_request_delay && r->request_delay > 0 ? now + r->request_delay : 0;

    for (i = 0; i < r->navs; i++) {
        const struct rp_av *a = &r->avs[i];
        if (find_av(h, a->version_num, a->platform, a->plan_class) < 0 && h->navs < RP_MAX_AVS)
            h->avs[h->navs++] = *a;
    }
    for (i = 0; i < r->ndeletes; i++)
        for (j = 0; j < h->nfiles; j++)
            if (strcmp(h->files[j].name, r->deletes[i]) == 0) {
                drop_file(h, j);
                break;
            }
    for (i = 0; i < r->nfiles; i++) {
        const struct rp_file *f = &r->files[i];
        if (!f->sticky)
            continue;
        for (j = 0; j < h->nfiles; j++)
            if (strcmp(h->files[j].name, f->name) == 0)
                break;
        if (j < h->nfiles)
            continue;
        if (o->max_files > 0 && h->nfiles >= o->max_files)
            drop_file(h, 0);
        if (array_grow((void **)&h->files, &h->capfiles, h->nfiles + 1, 8, sizeof *h->files) < 0)
            return -1;
        h->files[h->nfiles].name = strdup(f->name);
        if (!h->files[h->nfiles].name)
            return -1;
        h->files[h->nfiles++].nbytes = f->nbytes;
    }
    for (i = 0; i < r->njobs; i++) {
        const struct rp_job *rj = &r->jobs[i];
        const struct rp_wu *wu = rp_find_wu(r, rj->wu_name);
        struct rh_job *j2;
        if (array_grow((void **)&h->jobs, &h->capjobs, h->njobs + 1, 8, sizeof *h->jobs) < 0)
            return -1;
        j2 = &h->jobs[h->njobs];
        j2->name = strdup(rj->name);
        if (!j2->name)
            return -1;
        j2->av = find_av(h, rj->version_num, rj->platform, rj->plan_class);
        j2->deadline = rj->report_deadline;
        j2->est_secs = 3600;
        if (wu && wu->rsc_fpops_est > 0 && j2->av >= 0 && h->avs[j2->av].flops > 0)
            j2->est_secs = wu->rsc_fpops_est / h->avs[j2->av].flops;
        if (!isfinite(j2->est_secs) || j2->est_secs <= 0)
            j2->est_secs = 3600;
        j2->recv_time = now;
        h->njobs++;
        out->new_jobs++;
    }
    /* acknowledged reports are forgotten; the others are reported again */
    kept = 0;
    for (i = 0; i < h->ndone; i++) {
        int acked = 0;
        for (j = 0; j < r->nacks && !acked; j++)
            acked = strcmp(r->acks[j], h->done[i].name) == 0;
        if (acked) {
            free(h->done[i].name);
            out->acked++;
        } else {
            h->done[kept++] = h->done[i];
        }
    }
    h->ndone = kept;
    out->unacked = kept;
    return 0;
}
