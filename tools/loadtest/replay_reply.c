/*
 * replay_reply.c - SAX parser of <scheduler_reply> for the load replay
 * (see replay_reply.h).
 *
 * A small state machine over the element depth: depth 1 is the root,
 * depth 2 the reply's items (text items such as <hostid>, or containers
 * such as <result>), depth 3 the fields of a container.  Text is
 * collected only for the elements the replay uses, into a bounded buffer.
 */
#include "replay_reply.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <libxml/parser.h>

enum item {
    I_NONE = 0, I_HOSTID, I_REQUEST_DELAY, I_MESSAGE, I_KEY, I_DELETE,
    I_RESULT, I_ACK, I_FILE, I_AV, I_WU, I_NO_WORK   /* containers from I_RESULT on */
};

struct sax_state {
    struct rp_reply *r;
    int depth;
    int bad_root;
    enum item item;              /* the current depth-2 element */
    char field[32];              /* the current depth-3 element */
    int capture;                 /* collecting text */
    char text[2048];
    size_t tlen;
    int msg_low;                 /* the current <message> has priority "low" */
    /* the entry being filled (copied into the arrays at its end) */
    struct rp_job job;
    struct rp_wu wu;
    struct rp_file file;
    struct rp_av av;
    struct rp_no_work nw;
    char ack[RP_NAME];
};

static void copy_text(char *dst, size_t cap, const char *src)
{
    size_t n = strlen(src);
    if (n >= cap)
        n = cap - 1;
    memcpy(dst, src, n);
    dst[n] = '\0';
}

/* The collected text with surrounding white space removed. */
static const char *trimmed(struct sax_state *s)
{
    char *p = s->text, *e;
    s->text[s->tlen] = '\0';
    while (*p == ' ' || *p == '\n' || *p == '\r' || *p == '\t')
        p++;
    e = p + strlen(p);
    while (e > p && (e[-1] == ' ' || e[-1] == '\n' || e[-1] == '\r' || e[-1] == '\t'))
        *--e = '\0';
    return p;
}

static enum item item_of(const char *name)
{
    static const struct { const char *name; enum item item; } items[] = {
        { "hostid", I_HOSTID }, { "request_delay", I_REQUEST_DELAY },
        { "message", I_MESSAGE }, { "code_sign_key", I_KEY },
        { "delete_file_info", I_DELETE }, { "result", I_RESULT },
        { "result_ack", I_ACK }, { "file_info", I_FILE }, { "app_version", I_AV },
        { "workunit", I_WU }, { "rsc_no_work", I_NO_WORK },
    };
    size_t i;
    for (i = 0; i < sizeof items / sizeof items[0]; i++)
        if (strcmp(name, items[i].name) == 0)
            return items[i].item;
    return I_NONE;
}

static void on_start(void *ctx, const xmlChar *localname, const xmlChar *prefix,
                     const xmlChar *uri, int nb_namespaces, const xmlChar **namespaces,
                     int nb_attributes, int nb_defaulted, const xmlChar **attributes)
{
    struct sax_state *s = ctx;
    const char *name = (const char *)localname;
    int i;

    (void)prefix; (void)uri; (void)nb_namespaces; (void)namespaces; (void)nb_defaulted;
    s->depth++;
    s->tlen = 0;
    s->capture = 0;
    if (s->depth == 1) {
        if (strcmp(name, "scheduler_reply") != 0)
            s->bad_root = 1;
        return;
    }
    if (s->depth == 2) {
        s->item = item_of(name);
        s->field[0] = '\0';
        switch (s->item) {
        case I_HOSTID: case I_REQUEST_DELAY: case I_KEY: case I_DELETE:
            s->capture = 1;
            break;
        case I_MESSAGE:
            s->capture = 1;
            s->msg_low = 0;
            for (i = 0; i < nb_attributes; i++) {
                const xmlChar **a = &attributes[i * 5];
                size_t vlen = (size_t)(a[4] - a[3]);
                if (strcmp((const char *)a[0], "priority") == 0 && vlen == 3 &&
                    memcmp(a[3], "low", 3) == 0)
                    s->msg_low = 1;
            }
            break;
        case I_RESULT: memset(&s->job, 0, sizeof s->job); break;
        case I_WU: memset(&s->wu, 0, sizeof s->wu); break;
        case I_FILE: memset(&s->file, 0, sizeof s->file); break;
        case I_AV: memset(&s->av, 0, sizeof s->av); break;
        case I_ACK: s->ack[0] = '\0'; break;
        case I_NO_WORK: memset(&s->nw, 0, sizeof s->nw); break;
        case I_NONE:
            if (strcmp(name, "user_name") == 0)
                s->r->have_account = 1;
            else if (strcmp(name, "send_full_workload") == 0)
                s->r->send_full_workload = 1;
            else if (strcmp(name, "project_is_down") == 0)
                s->r->project_is_down = 1;
            break;
        }
        return;
    }
    if (s->depth == 3 && s->item >= I_RESULT) {
        copy_text(s->field, sizeof s->field, name);
        s->capture = 1;
        if (s->item == I_FILE && strcmp(name, "sticky") == 0)
            s->file.sticky = 1;
    }
}

static void end_field(struct sax_state *s)
{
    const char *f = s->field, *t = trimmed(s);
    switch (s->item) {
    case I_RESULT:
        if (strcmp(f, "name") == 0) copy_text(s->job.name, sizeof s->job.name, t);
        else if (strcmp(f, "wu_name") == 0) copy_text(s->job.wu_name, sizeof s->job.wu_name, t);
        else if (strcmp(f, "report_deadline") == 0) s->job.report_deadline = atof(t);
        else if (strcmp(f, "version_num") == 0) s->job.version_num = atoi(t);
        else if (strcmp(f, "platform") == 0) copy_text(s->job.platform, sizeof s->job.platform, t);
        else if (strcmp(f, "plan_class") == 0)
            copy_text(s->job.plan_class, sizeof s->job.plan_class, t);
        break;
    case I_WU:
        if (strcmp(f, "name") == 0) copy_text(s->wu.name, sizeof s->wu.name, t);
        else if (strcmp(f, "rsc_fpops_est") == 0) s->wu.rsc_fpops_est = atof(t);
        break;
    case I_FILE:
        if (strcmp(f, "name") == 0) copy_text(s->file.name, sizeof s->file.name, t);
        else if (strcmp(f, "nbytes") == 0) s->file.nbytes = atof(t);
        break;
    case I_AV:
        if (strcmp(f, "app_name") == 0) copy_text(s->av.app_name, sizeof s->av.app_name, t);
        else if (strcmp(f, "version_num") == 0) s->av.version_num = atoi(t);
        else if (strcmp(f, "platform") == 0) copy_text(s->av.platform, sizeof s->av.platform, t);
        else if (strcmp(f, "plan_class") == 0)
            copy_text(s->av.plan_class, sizeof s->av.plan_class, t);
        else if (strcmp(f, "avg_ncpus") == 0) s->av.avg_ncpus = atof(t);
        else if (strcmp(f, "flops") == 0) s->av.flops = atof(t);
        break;
    case I_ACK:
        if (strcmp(f, "name") == 0) copy_text(s->ack, sizeof s->ack, t);
        break;
    case I_NO_WORK:
        if (strcmp(f, "rsc") == 0) copy_text(s->nw.rsc, sizeof s->nw.rsc, t);
        else if (strcmp(f, "reason") == 0) copy_text(s->nw.reason, sizeof s->nw.reason, t);
        break;
    default:
        break;
    }
}

static void end_item(struct sax_state *s)
{
    struct rp_reply *r = s->r;
    const char *t;

    switch (s->item) {
    case I_HOSTID:
        r->have_hostid = 1;
        r->hostid = atoll(trimmed(s));
        break;
    case I_REQUEST_DELAY:
        r->have_request_delay = 1;
        r->request_delay = atof(trimmed(s));
        break;
    case I_MESSAGE:
        t = trimmed(s);
        if (s->msg_low) {
            r->ninfo_messages++;
        } else {
            if (r->nnotices++ == 0)
                copy_text(r->first_notice, sizeof r->first_notice, t);
        }
        break;
    case I_KEY:
        r->have_code_sign_key = 1;
        s->text[s->tlen] = '\0';
        copy_text(r->code_sign_key, sizeof r->code_sign_key, s->text);
        break;
    case I_DELETE:
        if (r->ndeletes < RP_MAX_DELETES)
            copy_text(r->deletes[r->ndeletes++], RP_NAME, trimmed(s));
        else
            r->overflow = 1;
        break;
    case I_RESULT:
        if (r->njobs < RP_MAX_JOBS)
            r->jobs[r->njobs++] = s->job;
        else
            r->overflow = 1;
        break;
    case I_WU:
        if (r->nwus < RP_MAX_JOBS)
            r->wus[r->nwus++] = s->wu;
        else
            r->overflow = 1;
        break;
    case I_FILE:
        if (r->nfiles < RP_MAX_FILES)
            r->files[r->nfiles++] = s->file;
        else
            r->overflow = 1;
        break;
    case I_AV:
        if (r->navs < RP_MAX_AVS)
            r->avs[r->navs++] = s->av;
        else
            r->overflow = 1;
        break;
    case I_ACK:
        if (r->nacks < RP_MAX_ACKS)
            copy_text(r->acks[r->nacks++], RP_NAME, s->ack);
        else
            r->overflow = 1;
        break;
    case I_NO_WORK:
        if (r->nno_work < RP_MAX_NO_WORK)
            r->no_work[r->nno_work++] = s->nw;
        else
            r->overflow = 1;
        break;
    case I_NONE:
        break;
    }
    s->item = I_NONE;
}

static void on_end(void *ctx, const xmlChar *localname, const xmlChar *prefix,
                   const xmlChar *uri)
{
    struct sax_state *s = ctx;
    (void)localname; (void)prefix; (void)uri;
    if (s->depth == 3 && s->item >= I_RESULT)
        end_field(s);
    else if (s->depth == 2)
        end_item(s);
    s->capture = 0;
    s->tlen = 0;
    s->depth--;
}

static void on_text(void *ctx, const xmlChar *ch, int len)
{
    struct sax_state *s = ctx;
    size_t n = (size_t)len, room;
    if (!s->capture || len <= 0)
        return;
    room = sizeof s->text - 1 - s->tlen;
    if (n > room)
        n = room;
    memcpy(s->text + s->tlen, ch, n);
    s->tlen += n;
}

static void on_error(void *ctx, xmlErrorPtr err)
{
    (void)ctx; (void)err;   /* counted through wellFormed; nothing printed */
}

int rp_parse(struct rp_reply *r, const char *body, size_t len)
{
    static xmlSAXHandler h;
    struct sax_state *s;
    xmlParserCtxtPtr ctxt;
    int ok;

    /* only the counts are reset: the arrays are large */
    r->have_hostid = r->have_request_delay = r->send_full_workload = 0;
    r->project_is_down = r->have_code_sign_key = 0;
    r->have_account = 0;
    r->nnotices = r->ninfo_messages = 0;
    r->first_notice[0] = '\0';
    r->njobs = r->nwus = r->nacks = r->nfiles = r->ndeletes = r->navs = r->nno_work = 0;
    r->overflow = 0;
    if (len > 64 * 1024 * 1024)
        return -1;
    if (h.initialized != XML_SAX2_MAGIC) {
        memset(&h, 0, sizeof h);
        h.initialized = XML_SAX2_MAGIC;
        h.startElementNs = on_start;
        h.endElementNs = on_end;
        h.characters = on_text;
        h.cdataBlock = on_text;
        h.serror = on_error;
    }
    s = calloc(1, sizeof *s);
    if (!s)
        return -1;
    s->r = r;
    ctxt = xmlCreatePushParserCtxt(&h, s, NULL, 0, NULL);
    if (!ctxt) {
        free(s);
        return -1;
    }
    xmlCtxtUseOptions(ctxt, XML_PARSE_NONET | XML_PARSE_NOERROR | XML_PARSE_NOWARNING);
    xmlParseChunk(ctxt, body, (int)len, 1);
    ok = ctxt->wellFormed && !s->bad_root && s->depth == 0;
    xmlFreeParserCtxt(ctxt);
    free(s);
    return ok ? 0 : -1;
}

int rp_refused(const struct rp_reply *r)
{
    return r->project_is_down || (!r->have_account && r->nnotices > 0);
}

const struct rp_wu *rp_find_wu(const struct rp_reply *r, const char *wu_name)
{
    int i;
    for (i = 0; i < r->nwus; i++)
        if (strcmp(r->wus[i].name, wu_name) == 0)
            return &r->wus[i];
    return NULL;
}
