/*
 * sched_request.c - the hardened parser of a client's <scheduler_request>.
 *
 * The body is untrusted.  It is read with libxml2's SAX2 parser (events,
 * no tree) so that every cap of limits.h is enforced while parsing, before
 * any large structure can be built:
 *   - the body size is checked before libxml2 sees a byte;
 *   - a DOCTYPE is refused (by a scan of the prolog, before libxml2 could
 *     read an internal subset, and again if the parser reports one), so no
 *     entity can be declared; undefined entities are fatal errors in
 *     libxml2 when there is no DTD; entity substitution, DTD loading,
 *     network access and XInclude are never enabled;
 *   - nesting depth and element count are counted per element;
 *   - every kept string has a length cap (too long is an error, except
 *     <stderr_out>, which is truncated);
 *   - every array has a cap (reported results, sticky files, ...);
 *   - every number is parsed strictly (see parse_number()) and range checked.
 * After parsing, sched_request_validate() checks the request as a whole
 * (required elements, work requests of at most 28 days per instance,
 * cross references).
 *
 * Element handling is table driven: each context (the root, <host_info>,
 * a reported <result>, ...) has a small table of the child elements we
 * keep, with their kind, destination offset and range.  Unknown elements
 * are skipped with their whole subtree (forward compatibility) but still
 * count toward the depth and element limits.  Only direct children of a
 * known context are matched, so e.g. the <peak_flops> inside a GPU's
 * <coproc_opencl> never overrides the GPU's own <peak_flops>.
 *
 * libxml2 never prints: sched_request_init() installs silent global error
 * handlers, and each parse has a structured handler in its SAX table that
 * keeps the first error message for our one-line error text.
 *
 * (Until issue 19 the body was read with libxml2's xmlTextReader, which
 * builds and frees a node per element: 54% of the scheduler's own
 * instructions per request went to the parse.  The SAX events are the
 * same ones the reader loop handled, in the same order.)
 *
 * This file is the reader: the body checks, the SAX callbacks and their
 * error handling, and the entry points.  The elements are handled in
 * request_elements.c; each section of the request (host and work request,
 * reported results, held jobs, sticky files) has its tables, checks and
 * dump in a request_*.c file of its own (see request_internal.h).
 */
#include "sched_request.h"

#include <errno.h>
#include <locale.h>
#include <math.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <libxml/parser.h>
#include <libxml/xmlerror.h>
#include <libxml/parserInternals.h>


#include "request_internal.h"

static int srq_initialised;

/* libxml2's structured error handler of our parser: keep the first fatal
 * error and the first error, one line, escaped.  Inside <authenticator>
 * the message is replaced, as it could quote part of the key. */
#if LIBXML_VERSION >= 21200
static void xml_error_cb(void *ctx, const xmlError *e)
#else
static void xml_error_cb(void *ctx, xmlErrorPtr e)
#endif
{
    struct pstate *st = ctx;
    char *dst;
    int *line;
    if (!st || !e || e->level < XML_ERR_ERROR)
        return;
    if (e->level == XML_ERR_FATAL && !st->xml_fatal[0]) {
        dst = st->xml_fatal;
        line = &st->xml_fatal_line;
    } else if (!st->xml_error[0]) {
        dst = st->xml_error;
        line = &st->xml_error_line;
    } else {
        return;
    }
    *line = e->line;
    if (st->depth > 0 && st->stack[st->depth - 1].f &&
        (st->stack[st->depth - 1].f->flags & F_SECRET)) {
        snprintf(dst, 256, "malformed content in <%s>", st->stack[st->depth - 1].f->name);
        return;
    }
    const char *m = e->message ? e->message : "unknown error";
    size_t n = strlen(m);
    while (n && (m[n - 1] == '\n' || m[n - 1] == '\r' || m[n - 1] == ' '))
        n--;
    /* quote_text caps at SRQ_QUOTE_MAX; messages deserve more room */
    size_t o = 0;
    for (size_t i = 0; i < n && o + 5 < 256; i++) {
        unsigned char c = (unsigned char)m[i];
        if (c >= 0x20 && c < 0x7f)
            dst[o++] = (char)c;
        else if (c == '\n' || c == '\t')
            dst[o++] = ' ';
        else
            o += (size_t)snprintf(dst + o, 256 - o, "\\x%02x", c);
    }
    dst[o] = '\0';
}

/* Silent handlers for anything libxml2 reports outside our reader. */
#if LIBXML_VERSION >= 21200
static void silent_structured(void *ctx, const xmlError *e)
#else
static void silent_structured(void *ctx, xmlErrorPtr e)
#endif
{
    (void)ctx;
    (void)e;
}

static void silent_generic(void *ctx, const char *msg, ...)
{
    (void)ctx;
    (void)msg;
}


/* Text or CDATA inside an element (v[0..n), not NUL-terminated).
 * Returns 0 or a negative code. */
static int on_text(struct pstate *st, const char *v, size_t n, int cdata)
{
    if (st->depth == 0)
        return 0;
    const struct frame *fr = &st->stack[st->depth - 1];
    if (fr->ctx != CTX_LEAF && fr->ctx != CTX_STDERR)
        return 0;                /* text of containers and ignored elements */
    if (fr->ctx == CTX_LEAF && cdata)
        return srq_fail(st, fr->f->kind == K_STR ? SRQ_ERR_XML : SRQ_ERR_NUMBER,
                    "<%s> in <%s>: CDATA section not allowed here", fr->f->name,
                    srq_name_below(st, st->depth - 1));
    if (fr->ctx == CTX_STDERR) {
        srq_stderr_append(st, v, n);
        return 0;
    }
    if (st->text_total == 0)
        while (n && srq_is_xml_space((unsigned char)*v)) {
            v++;
            n--;
        }
    st->text_total += n;
    size_t room = sizeof st->text - 1 - st->text_len;
    size_t c = n < room ? n : room;
    memcpy(st->text + st->text_len, v, c);
    st->text_len += c;
    return 0;
}

/* Number of newlines in b[0..n). */
static int count_lines(const char *b, size_t n)
{
    int lines = 0;
    for (const char *p = b; (p = memchr(p, '\n', n - (size_t)(p - b))) != NULL; p++)
        lines++;
    return lines;
}

/* Refuse a DOCTYPE (or any other markup declaration) in the prolog before
 * libxml2 could read an internal subset: skip a UTF-8 BOM, whitespace, the
 * XML declaration, processing instructions and comments up to the root
 * start tag.  Anything not recognised is left to libxml2.  Returns 0 or
 * SRQ_ERR_XML. */
static int scan_prolog(struct pstate *st, const char *b, size_t len)
{
    size_t i = 0;
    if (len >= 3 && memcmp(b, "\xEF\xBB\xBF", 3) == 0)
        i = 3;
    for (;;) {
        while (i < len && srq_is_xml_space((unsigned char)b[i]))
            i++;
        if (len - i < 2 || b[i] != '<')
            return 0;
        if (b[i + 1] == '?') {
            const char *e = memmem(b + i + 2, len - i - 2, "?>", 2);
            if (!e)
                return 0;
            i = (size_t)(e - b) + 2;
        } else if (b[i + 1] == '!') {
            if (len - i >= 4 && memcmp(b + i, "<!--", 4) == 0) {
                const char *e = memmem(b + i + 4, len - i - 4, "-->", 3);
                if (!e)
                    return 0;
                i = (size_t)(e - b) + 3;
            } else if (len - i >= 9 && memcmp(b + i, "<!DOCTYPE", 9) == 0) {
                return srq_fail(st, SRQ_ERR_XML, "DOCTYPE not allowed (line %d)",
                            1 + count_lines(b, i));
            } else {
                return srq_fail(st, SRQ_ERR_XML,
                            "markup declaration not allowed before the root element");
            }
        } else {
            return 0;
        }
    }
}

/* ---- the SAX callbacks: ctx is the parse's struct pstate ---- */

/* The libxml2 parser of a parse (st->xml_ctxt). */
static xmlParserCtxtPtr parser_of(const struct pstate *st)
{
    return (xmlParserCtxtPtr)st->xml_ctxt;
}

/* Line the parser is at (for errors about the construct just read). */
static int parser_line(const struct pstate *st)
{
    xmlParserCtxtPtr p = parser_of(st);
    return p && p->input ? p->input->line : 0;
}

/* A callback's verdict: on an error, stop the parser (no more events). */
static void verdict(struct pstate *st, int rc)
{
    if (rc)
        xmlStopParser(parser_of(st));
}

/* The element's name as the client wrote it: prefix:localname. */
static const char *qname(const xmlChar *local, const xmlChar *prefix, char *buf, size_t len)
{
    if (!prefix)
        return (const char *)local;
    snprintf(buf, len, "%s:%s", (const char *)prefix, local ? (const char *)local : "");
    return buf;
}

static void sax_start(void *ctx, const xmlChar *local, const xmlChar *prefix,
                      const xmlChar *uri, int nb_namespaces, const xmlChar **namespaces,
                      int nb_attributes, int nb_defaulted, const xmlChar **attributes)
{
    struct pstate *st = ctx;
    xmlParserCtxtPtr p = parser_of(st);
    char buf[512];
    (void)uri;
    (void)nb_namespaces;
    (void)namespaces;
    (void)nb_attributes;
    (void)nb_defaulted;
    (void)attributes;
    if (st->code)
        return;
    /* libxml2 calls this with its input at the end of the start tag:
     * "/>" makes an empty element, whose end event follows at once */
    int empty = p && p->input && p->input->cur && p->input->cur[0] == '/' &&
                p->input->cur[1] == '>';
    int rc = srq_on_start(st, local ? qname(local, prefix, buf, sizeof buf) : NULL, empty);
    if (!rc && empty)
        st->skip_end = 1;
    verdict(st, rc);
}

static void sax_end(void *ctx, const xmlChar *local, const xmlChar *prefix, const xmlChar *uri)
{
    struct pstate *st = ctx;
    char buf[512];
    (void)uri;
    if (st->code)
        return;
    if (st->skip_end) {          /* an empty element: srq_on_start ended it */
        st->skip_end = 0;
        return;
    }
    verdict(st, srq_on_end(st, local ? qname(local, prefix, buf, sizeof buf) : "?", 0));
}

static void sax_text(void *ctx, const xmlChar *ch, int len)
{
    struct pstate *st = ctx;
    if (!st->code && len > 0)
        verdict(st, on_text(st, (const char *)ch, (size_t)len, 0));
}

static void sax_cdata(void *ctx, const xmlChar *ch, int len)
{
    struct pstate *st = ctx;
    if (!st->code)
        verdict(st, on_text(st, (const char *)ch, len > 0 ? (size_t)len : 0, 1));
}

/* Refuse a construct named by the client: "<open>name<close> not
 * allowed (line N)", the name quoted. */
static void refuse_named(struct pstate *st, const char *open, const xmlChar *n,
                         const char *close)
{
    const char *name = n ? (const char *)n : "";
    char q[128] = "";
    if (st->code)
        return;
    srq_quote_text(q, sizeof q, name, strlen(name));
    verdict(st, srq_fail(st, SRQ_ERR_XML, "%s%s%s not allowed (line %d)", open, q, close,
                         parser_line(st)));
}

static void sax_pi(void *ctx, const xmlChar *target, const xmlChar *data)
{
    (void)data;
    refuse_named(ctx, "processing instruction <?", target, "?>");
}

static void sax_reference(void *ctx, const xmlChar *name)
{
    refuse_named(ctx, "entity reference &", name, ";");
}

static void sax_subset(void *ctx, const xmlChar *name, const xmlChar *external_id,
                       const xmlChar *system_id)
{
    struct pstate *st = ctx;
    (void)name;
    (void)external_id;
    (void)system_id;
    if (!st->code)
        verdict(st, srq_fail(st, SRQ_ERR_XML, "DOCTYPE not allowed"));
}

/* No entity is ever declared (no DTD), so none is found: libxml2 then
 * treats a reference to one as the fatal error it is without a DTD.  The
 * five predefined ones (&amp; ...) never reach this callback. */
static xmlEntityPtr sax_entity(void *ctx, const xmlChar *name)
{
    (void)ctx;
    (void)name;
    return NULL;
}

/* The SAX2 table of every parse: only these events; no entity, notation
 * or attribute declarations, no external subset loading. */
static xmlSAXHandler srq_sax;

static void sax_table_init(void)
{
    memset(&srq_sax, 0, sizeof srq_sax);
    srq_sax.initialized = XML_SAX2_MAGIC;
    srq_sax.startElementNs = sax_start;
    srq_sax.endElementNs = sax_end;
    srq_sax.characters = sax_text;
    srq_sax.ignorableWhitespace = sax_text;
    srq_sax.cdataBlock = sax_cdata;
    srq_sax.processingInstruction = sax_pi;
    srq_sax.reference = sax_reference;
    srq_sax.internalSubset = sax_subset;
    srq_sax.externalSubset = sax_subset;
    srq_sax.getEntity = sax_entity;
    srq_sax.getParameterEntity = sax_entity;
    srq_sax.serror = xml_error_cb;
}

/* Options of the parser: no entity substitution (no XML_PARSE_NOENT), no
 * DTD loading or validation, no network, no XInclude, libxml2's own size
 * limits kept (no XML_PARSE_HUGE); the body is always read as UTF-8
 * whatever its XML declaration says. */
#define SRQ_XML_OPTIONS (XML_PARSE_NONET | XML_PARSE_IGNORE_ENC)

int sched_request_parse(const char *body, size_t len, struct sched_request *req,
                        char *err, size_t errlen)
{
    struct pstate st;
    xmlParserCtxtPtr parser = NULL;
    int ret = 0;

    if (err && errlen)
        err[0] = '\0';
    if (!req) {
        if (err && errlen)
            snprintf(err, errlen, "no request structure");
        return SRQ_ERR_MISSING;
    }
    memset(req, 0, sizeof *req);
    req->duration_correction_factor = 1.0;
    req->on_frac = req->connected_frac = req->cpu_and_network_available_frac = -1.0;
    req->active_frac = req->gpu_active_frac = -1.0;

    memset(&st, 0, offsetof(struct pstate, text));
    st.req = req;
    st.err = err;
    st.errlen = errlen;

    if (!srq_initialised)
        sched_request_init();

    if (len > LIM_REQUEST_BYTES) {
        srq_fail(&st, SRQ_ERR_TOO_BIG, "request body of %zu bytes is over the limit of %d bytes",
             len, LIM_REQUEST_BYTES);
        goto out;
    }
    if (!body || len == 0) {
        srq_fail(&st, SRQ_ERR_XML, "empty request body");
        goto out;
    }
    const char *nul = memchr(body, '\0', len);
    if (nul) {
        srq_fail(&st, SRQ_ERR_XML, "NUL byte in the request body (line %d, offset %zu)",
             1 + count_lines(body, (size_t)(nul - body)), (size_t)(nul - body));
        goto out;
    }
    if (scan_prolog(&st, body, len))
        goto out;

    parser = xmlCreateMemoryParserCtxt(body, (int)len);
    if (!parser) {
        srq_fail(&st, SRQ_ERR_NOMEM, "cannot create the XML parser");
        goto out;
    }
    xmlCtxtUseOptions(parser, SRQ_XML_OPTIONS);
    /* our table in place of the default one (freed now; put back to NULL
     * before the context is freed, which would free ours) */
    xmlFree(parser->sax);
    parser->sax = &srq_sax;
    parser->userData = &st;
    st.xml_ctxt = parser;
    xmlSwitchEncoding(parser, XML_CHAR_ENCODING_UTF8);
    ret = xmlParseDocument(parser);
    if (!st.code && (ret != 0 || !parser->wellFormed)) {
        if (st.xml_fatal[0])
            srq_fail(&st, SRQ_ERR_XML, "XML error at line %d: %s", st.xml_fatal_line, st.xml_fatal);
        else if (st.xml_error[0])
            srq_fail(&st, SRQ_ERR_XML, "XML error at line %d: %s", st.xml_error_line, st.xml_error);
        else
            srq_fail(&st, SRQ_ERR_XML, "XML error (no detail from the parser)");
    }
    if (!st.code && !st.root_seen)
        srq_fail(&st, SRQ_ERR_XML, "no root element");
    if (!st.code && st.depth != 0)
        srq_fail(&st, SRQ_ERR_XML, "document ends inside <%s>", srq_parent_name(&st));
    if (!st.code)
        st.code = sched_request_validate(req, err, errlen);

out:
    if (parser) {
        parser->sax = NULL;
        parser->userData = NULL;
        xmlFreeParserCtxt(parser);
    }
    if (st.code) {
        sched_request_free(req);
        memset(req, 0, sizeof *req);
    }
    return st.code;
}


/* ------------------------------------------------------------------ */
/* Validation of the whole request, and its dump, section by section   */

int sched_request_validate(const struct sched_request *req, char *err, size_t errlen)
{
    int rc = srq_validate_host(req, err, errlen);
    if (rc == SRQ_OK)
        rc = srq_validate_results(req, err, errlen);
    if (rc == SRQ_OK)
        rc = srq_validate_files(req, err, errlen);
    if (rc == SRQ_OK)
        rc = srq_validate_held(req, err, errlen);
    return rc;
}

void sched_request_dump(const struct sched_request *r, FILE *out)
{
    srq_dump_host(r, out);
    srq_dump_results(r, out);
    srq_dump_files(r, out);
    srq_dump_held(r, out);
}

/* ------------------------------------------------------------------ */
/* Set-up and clean-up                                                  */

void sched_request_free(struct sched_request *req)
{
    if (!req)
        return;
    free(req->results);
    req->results = NULL;
    req->nresults = 0;
    free(req->sticky_files);
    req->sticky_files = NULL;
    req->nsticky_files = 0;
    free(req->app_versions);
    req->app_versions = NULL;
    req->napp_versions = 0;
    free(req->other_results);
    req->other_results = NULL;
    req->nother_results = 0;
    free(req->ip_results);
    req->ip_results = NULL;
    req->nip_results = 0;
}

const char *sched_request_strerror(int code)
{
    switch (code) {
    case SRQ_OK: return "ok";
    case SRQ_ERR_TOO_BIG: return "request too big";
    case SRQ_ERR_XML: return "malformed XML";
    case SRQ_ERR_LIMIT: return "over a limit";
    case SRQ_ERR_NUMBER: return "bad number";
    case SRQ_ERR_MISSING: return "missing element";
    case SRQ_ERR_NOMEM: return "out of memory";
    default: return "unknown error";
    }
}

void sched_request_init(void)
{
    if (srq_initialised)
        return;
    xmlInitParser();
    sax_table_init();
    /* nothing from libxml2 may reach stderr: errors of our readers go to
     * their own handler, everything else to these silent ones */
    xmlSetGenericErrorFunc(NULL, silent_generic);
    xmlSetStructuredErrorFunc(NULL, silent_structured);
    xmlThrDefSetGenericErrorFunc(NULL, silent_generic);
    xmlThrDefSetStructuredErrorFunc(NULL, silent_structured);
    srq_c_locale = newlocale(LC_NUMERIC_MASK, "C", (locale_t)0);
    srq_initialised = 1;
}

