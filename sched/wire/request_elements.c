/*
 * request_elements.c - the scheduler request parser's handling of elements
 * as the reader meets them (see sched_request.c for the reader and
 * request_internal.h for the tables): look the element up in the table of
 * its parent's context, refuse duplicates, create array members under
 * their caps, collect and check the text of kept leaves (strict numbers,
 * ranges, string lengths) and keep <stderr_out> as text.  No libxml2 here.
 */
#include "request_internal.h"

#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

/* The table of each context, indexed by enum ctx. */
static const struct ctx_table *const ctx_tables[CTX_COUNT] = {
    [CTX_ROOT] = &srq_root_table,
    [CTX_ALT] = &srq_alt_table,
    [CTX_WGP] = &srq_wgp_table,
    [CTX_PREFS] = &srq_prefs_table,
    [CTX_TIME] = &srq_time_table,
    [CTX_HOST] = &srq_host_table,
    [CTX_DISK] = &srq_disk_table,
    [CTX_COPROCS] = &srq_coprocs_table,
    [CTX_COPROC] = &srq_coproc_table,
    [CTX_GPU] = &srq_gpu_table,
    [CTX_RESULT] = &srq_result_table,
    [CTX_RFILE] = &srq_rfile_table,
    [CTX_STICKY] = &srq_sticky_table,
    [CTX_AVS] = &srq_avs_table,
    [CTX_AV] = &srq_av_table,
    [CTX_AVCOPROC] = &srq_avcoproc_table,
    [CTX_ORS] = &srq_ors_table,
    [CTX_OR] = &srq_or_table,
    [CTX_IPS] = &srq_ips_table,
    [CTX_IP] = &srq_ip_table,
};

/* Record the first error: code and a one-line message.  Returns code. */
int srq_fail(struct pstate *st, int code, const char *fmt, ...)
{
    if (st->code)
        return st->code;
    st->code = code;
    if (st->err && st->errlen) {
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(st->err, st->errlen, fmt, ap);
        va_end(ap);
    }
    return code;
}

/* Name of the nearest named element among the frames below index top,
 * for messages. */
const char *srq_name_below(const struct pstate *st, int top)
{
    for (int i = top - 1; i >= 0; i--)
        if (st->stack[i].f)
            return st->stack[i].f->name;
    return "scheduler_request";
}

/* Name of the element that holds the open frames' top, for messages. */
const char *srq_parent_name(const struct pstate *st)
{
    return srq_name_below(st, st->depth);
}


/* ------------------------------------------------------------------ */
/* Numbers                                                              */

int srq_is_xml_space(unsigned char c)
{
    return c == ' ' || c == '\t' || c == '\n' || c == '\r';
}

/* Check that s[0..len) (already trimmed) is a decimal number:
 * [+-] digits [. digits] [e [+-] digits], or [+-] . digits [...].
 * No hex, no inf/nan, no junk.  int_only: no fraction or exponent.
 * Returns 1 if it is. */
static int number_syntax_ok(const char *s, size_t len, int int_only)
{
    size_t i = 0, digits = 0;
    if (i < len && (s[i] == '+' || s[i] == '-'))
        i++;
    while (i < len && s[i] >= '0' && s[i] <= '9') {
        i++;
        digits++;
    }
    if (int_only)
        return digits > 0 && i == len;
    if (i < len && s[i] == '.') {
        i++;
        while (i < len && s[i] >= '0' && s[i] <= '9') {
            i++;
            digits++;
        }
    }
    if (digits == 0)
        return 0;
    if (i < len && (s[i] == 'e' || s[i] == 'E')) {
        size_t ed = 0;
        i++;
        if (i < len && (s[i] == '+' || s[i] == '-'))
            i++;
        while (i < len && s[i] >= '0' && s[i] <= '9') {
            i++;
            ed++;
        }
        if (ed == 0)
            return 0;
    }
    return i == len;
}

/* Parse the trimmed text of a numeric leaf (s, NUL-terminated, len bytes)
 * into *out, checking syntax and finiteness; the range is checked by the
 * caller.  Returns 0, or SRQ_ERR_NUMBER with the error recorded. */
static int parse_number(struct pstate *st, const struct field *f, const char *s,
                        size_t len, double *out)
{
    char q[128] = "";
    int int_only = f->kind != K_DBL;
    if (len == 0)
        return srq_fail(st, SRQ_ERR_NUMBER, "<%s> in <%s>: empty, a number is required",
                    f->name, srq_parent_name(st));
    if (!number_syntax_ok(s, len, int_only)) {
        srq_quote_text(q, sizeof q, s, len);
        return srq_fail(st, SRQ_ERR_NUMBER, "<%s> in <%s>: \"%s\" is not %s", f->name,
                    srq_parent_name(st), q, int_only ? "an integer" : "a decimal number");
    }
    if (int_only) {
        /* exact integer arithmetic; more than 18 digits is out of any range */
        size_t i = (s[0] == '+' || s[0] == '-') ? 1 : 0;
        long long v = 0;
        while (i < len && s[i] == '0')
            i++;
        if (len - i > 18) {
            srq_quote_text(q, sizeof q, s, len);
            return srq_fail(st, SRQ_ERR_NUMBER, "<%s> in <%s>: \"%s\" out of range", f->name,
                        srq_parent_name(st), q);
        }
        for (; i < len; i++)
            v = v * 10 + (s[i] - '0');
        *out = s[0] == '-' ? -(double)v : (double)v;
        return 0;
    }
    errno = 0;
    char *end = NULL;
    double v = srq_c_locale ? strtod_l(s, &end, srq_c_locale) : strtod(s, &end);
    if (end != s + len || !isfinite(v)) {
        srq_quote_text(q, sizeof q, s, len);
        return srq_fail(st, SRQ_ERR_NUMBER, "<%s> in <%s>: \"%s\" %s", f->name, srq_parent_name(st),
                    q, isfinite(v) ? "is not a number" : "out of range (not finite)");
    }
    *out = v;
    return 0;
}


/* ------------------------------------------------------------------ */
/* Elements                                                             */

/* Find the entry of ctx named name (nlen bytes); NULL if unknown. */
static const struct field *lookup(int ctx, const char *name, size_t nlen)
{
    const struct ctx_table *t = ctx_tables[ctx];
    for (int i = 0; i < t->n; i++) {
        const struct field *f = &t->fields[i];
        if (f->len == nlen && f->name[0] == name[0] && memcmp(f->name, name, nlen) == 0)
            return f;
    }
    return NULL;
}

/* Append a zeroed element to a heap array of the request, growing it
 * geometrically up to lim elements.  Returns the element, or NULL with
 * the error recorded (SRQ_ERR_LIMIT or SRQ_ERR_NOMEM). */
static void *arr_push(struct pstate *st, void **arr, int *n, int *cap, size_t elsize, int lim,
                      const char *what)
{
    if (*n >= lim) {
        srq_fail(st, SRQ_ERR_LIMIT, "too many <%s> elements (max %d)", what, lim);
        return NULL;
    }
    if (*n >= *cap) {
        int ncap = *cap ? *cap * 2 : 8;
        if (ncap > lim)
            ncap = lim;
        void *p = realloc(*arr, (size_t)ncap * elsize);
        if (!p) {
            srq_fail(st, SRQ_ERR_NOMEM, "out of memory for <%s> (%d elements)", what, *n + 1);
            return NULL;
        }
        *arr = p;
        *cap = ncap;
    }
    char *el = (char *)*arr + (size_t)*n * elsize;
    memset(el, 0, elsize);
    (*n)++;
    return el;
}

/* Open a container entry f under frame parent: create its record if it
 * is an array member and fill frame fr.  Returns 0 or a negative code. */
static int enter_node(struct pstate *st, const struct frame *parent, const struct field *f,
                      struct frame *fr)
{
    struct sched_request *r = st->req;
    fr->ctx = f->sub;
    fr->f = f;
    fr->base = parent->base;
    fr->seen = 0;
    switch (f->sub) {
    case CTX_ALT:
        if (r->n_alt_platforms >= SRQ_MAX_ALT_PLATFORMS)
            return srq_fail(st, SRQ_ERR_LIMIT, "too many <alt_platform> elements (max %d)",
                        SRQ_MAX_ALT_PLATFORMS);
        fr->base = r->alt_platforms[r->n_alt_platforms++];
        break;
    case CTX_COPROC:
    case CTX_GPU: {
        if (r->ncoprocs >= LIM_COPROC_TYPES)
            return srq_fail(st, SRQ_ERR_LIMIT, "too many coprocessor types in <coprocs> (max %d)",
                        LIM_COPROC_TYPES);
        struct req_coproc *c = &r->coprocs[r->ncoprocs++];
        memset(c, 0, sizeof *c);
        if (f->sub == CTX_GPU)
            snprintf(c->type, sizeof c->type, "%s", srq_gpu_types[f->off]);
        fr->base = c;
        break;
    }
    case CTX_RESULT:
        fr->base = arr_push(st, (void **)&r->results, &r->nresults, &st->cap_results,
                            sizeof(RR), LIM_REPORTED_RESULTS, "result");
        st->rfiles = 0;
        break;
    case CTX_RFILE:
        if (++st->rfiles > LIM_RESULT_FILES)
            return srq_fail(st, SRQ_ERR_LIMIT, "too many output <file_info> in <result> (max %d)",
                        LIM_RESULT_FILES);
        break;
    case CTX_STICKY:
        fr->base = arr_push(st, (void **)&r->sticky_files, &r->nsticky_files, &st->cap_sticky,
                            sizeof(RS), LIM_STICKY_FILES, "file_info");
        break;
    case CTX_AV:
        fr->base = arr_push(st, (void **)&r->app_versions, &r->napp_versions, &st->cap_av,
                            sizeof(RA), LIM_CLIENT_APP_VERSIONS, "app_version");
        break;
    case CTX_OR: {
        RO *o = arr_push(st, (void **)&r->other_results, &r->nother_results, &st->cap_or,
                         sizeof(RO), LIM_IP_RESULTS, "other_result");
        if (o)
            o->app_version = -1;
        fr->base = o;
        break;
    }
    case CTX_ORS:
        r->have_other_results = 1;
        break;
    case CTX_IPS:
        r->have_ip_results = 1;
        break;
    case CTX_IP:
        fr->base = arr_push(st, (void **)&r->ip_results, &r->nip_results, &st->cap_ip,
                            sizeof(RI), LIM_IP_RESULTS, "ip_result");
        break;
    default:
        break;
    }
    return fr->base ? 0 : st->code;
}

/* Append n bytes to the open <stderr_out>, truncating at the field size
 * without splitting a UTF-8 sequence. */
void srq_stderr_append(struct pstate *st, const char *s, size_t n)
{
    if (st->se_full || !n)
        return;
    size_t room = st->se_cap - 1 - st->se_len;
    if (n > room) {
        n = room;
        /* do not cut a multi-byte character: drop continuation bytes and
         * the lead byte of the character they belong to */
        while (n > 0 && ((unsigned char)s[n] & 0xC0) == 0x80)
            n--;
        st->se_full = 1;
    }
    memcpy(st->se_dst + st->se_len, s, n);
    st->se_len += n;
    st->se_dst[st->se_len] = '\0';
}

/* Store the collected text of leaf f into its record.  Returns 0 or a
 * negative code. */
static int finish_leaf(struct pstate *st, const struct frame *fr)
{
    const struct field *f = fr->f;
    char *dst = (char *)fr->base + f->off;
    size_t len = st->text_len;
    char q[128] = "";
    while (len && srq_is_xml_space((unsigned char)st->text[len - 1]))
        len--;
    st->text[len] = '\0';

    if (f->kind == K_STR) {
        if (st->text_total > st->text_len || len > f->size - 1) {
            size_t shown = st->text_total > st->text_len ? st->text_total : len;
            if (f->flags & F_SECRET)
                return srq_fail(st, SRQ_ERR_LIMIT, "<%s> in <%s>: too long (%zu bytes, max %u)",
                            f->name, srq_parent_name(st), shown, f->size - 1);
            srq_quote_text(q, sizeof q, st->text, len);
            return srq_fail(st, SRQ_ERR_LIMIT, "<%s> in <%s>: too long (%zu bytes, max %u): \"%s\"",
                        f->name, srq_parent_name(st), shown, f->size - 1, q);
        }
        memcpy(dst, st->text, len + 1);
        return 0;
    }

    if (st->text_total > st->text_len) {
        srq_quote_text(q, sizeof q, st->text, st->text_len);
        return srq_fail(st, SRQ_ERR_NUMBER, "<%s> in <%s>: number too long (%zu bytes): \"%s\"",
                    f->name, srq_parent_name(st), st->text_total, q);
    }
    double v = 0;
    int rc = parse_number(st, f, st->text, len, &v);
    if (rc)
        return rc;
    if ((v < f->min || v > f->max) && !((f->flags & F_M1) && v == -1.0)) {
        char lo[40], hi[40];
        srq_fmt_double(lo, sizeof lo, f->min);
        srq_fmt_double(hi, sizeof hi, f->max);
        srq_quote_text(q, sizeof q, st->text, len);
        return srq_fail(st, SRQ_ERR_NUMBER, "<%s> in <%s>: \"%s\" out of range [%s, %s]%s", f->name,
                    srq_parent_name(st), q, lo, hi, (f->flags & F_M1) ? " or -1" : "");
    }
    switch (f->kind) {
    case K_INT: {
        int iv = (int)v;
        memcpy(dst, &iv, sizeof iv);
        break;
    }
    case K_I64: {
        long long lv = (long long)v;
        memcpy(dst, &lv, sizeof lv);
        break;
    }
    default:
        memcpy(dst, &v, sizeof v);
        if (f->flags & F_HAVECPU)
            st->req->have_cpu_req_secs = 1;
        break;
    }
    return 0;
}

/* Push frame fr.  The depth was checked by the caller. */
static void push(struct pstate *st, const struct frame *fr)
{
    st->stack[st->depth++] = *fr;
}

/* Close the top element (name: its name, empty: it was <x/>).
 * Returns 0 or a negative code. */
int srq_on_end(struct pstate *st, const char *name, int empty)
{
    if (st->depth <= 0)
        return srq_fail(st, SRQ_ERR_XML, "unbalanced end tag");
    struct frame *fr = &st->stack[--st->depth];
    switch (fr->ctx) {
    case CTX_LEAF:
        return finish_leaf(st, fr);
    case CTX_STDERR:
        if (fr->f) {             /* </stderr_out> itself */
            st->se_dst = NULL;
        } else if (!empty) {
            srq_stderr_append(st, "</", 2);
            srq_stderr_append(st, name, strlen(name));
            srq_stderr_append(st, ">", 1);
        }
        return 0;
    default:
        return 0;
    }
}

/* An element starts (name NULL: the reader ran out of memory).  Returns 0
 * or a negative code. */
int srq_on_start(struct pstate *st, const char *name, int empty)
{
    struct frame fr = { CTX_IGNORE, NULL, NULL, 0 };
    char q[128] = "";
    if (!name)
        return srq_fail(st, SRQ_ERR_NOMEM, "out of memory reading an element name");
    size_t nlen = strlen(name);

    if (++st->nelements > LIM_XML_ELEMENTS) {
        srq_quote_text(q, sizeof q, name, nlen);
        return srq_fail(st, SRQ_ERR_LIMIT, "more than %d elements (at <%s>)", LIM_XML_ELEMENTS, q);
    }
    if (st->depth >= LIM_XML_DEPTH) {
        srq_quote_text(q, sizeof q, name, nlen);
        return srq_fail(st, SRQ_ERR_LIMIT, "elements nested deeper than %d (at <%s>)",
                    LIM_XML_DEPTH, q);
    }

    if (st->depth == 0) {
        if (st->root_seen)
            return srq_fail(st, SRQ_ERR_XML, "a second root element");
        st->root_seen = 1;
        if (strcmp(name, "scheduler_request") != 0) {
            srq_quote_text(q, sizeof q, name, nlen);
            return srq_fail(st, SRQ_ERR_XML, "root element is <%s>, expected <scheduler_request>", q);
        }
        fr.ctx = CTX_ROOT;
        fr.base = st->req;
        push(st, &fr);
        return empty ? srq_on_end(st, name, 1) : 0;
    }

    struct frame *parent = &st->stack[st->depth - 1];
    switch (parent->ctx) {
    case CTX_IGNORE:
        break;
    case CTX_STDERR:
        /* keep child elements of <stderr_out> as text, as the client wrote them */
        fr.ctx = CTX_STDERR;
        srq_stderr_append(st, "<", 1);
        srq_stderr_append(st, name, nlen);
        srq_stderr_append(st, empty ? "/>" : ">", empty ? 2 : 1);
        break;
    case CTX_LEAF:
        srq_quote_text(q, sizeof q, name, nlen);
        return srq_fail(st, SRQ_ERR_XML, "<%s> in <%s>: unexpected child element <%s>",
                    parent->f->name, srq_name_below(st, st->depth - 1), q);
    default: {
        const struct field *f = lookup(parent->ctx, name, nlen);
        if (!f)
            break;               /* unknown: ignore the subtree */
        uint64_t bit = (uint64_t)1 << (f - ctx_tables[parent->ctx]->fields);
        if ((parent->seen & bit) && !(f->flags & F_MULTI))
            return srq_fail(st, SRQ_ERR_XML, "duplicate <%s> in <%s>", f->name, srq_parent_name(st));
        parent->seen |= bit;
        fr.f = f;
        fr.base = parent->base;
        switch (f->kind) {
        case K_NODE: {
            int rc = enter_node(st, parent, f, &fr);
            if (rc)
                return rc;
            break;
        }
        case K_FLAG: {
            int one = 1;
            memcpy((char *)parent->base + f->off, &one, sizeof one);
            fr.ctx = CTX_IGNORE;
            break;
        }
        case K_STDERR:
            fr.ctx = CTX_STDERR;
            st->se_dst = (char *)parent->base + f->off;
            st->se_cap = f->size;
            st->se_len = 0;
            st->se_full = 0;
            st->se_dst[0] = '\0';
            break;
        default:
            fr.ctx = CTX_LEAF;
            st->text_len = 0;
            st->text_total = 0;
            break;
        }
        break;
    }
    }
    push(st, &fr);
    return empty ? srq_on_end(st, name, 1) : 0;
}

