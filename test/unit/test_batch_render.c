/*
 * test_batch_render.c - unit tests of tools/batch_render: run-length job
 * states, the computed figures (unsent, fraction done, est_time_left),
 * progress bars, text without escape codes, JSON validity and values,
 * and the SVG picture (well-formed XML with the expected bands, segments,
 * markers and legend, also for a batch with more runs than pixels).
 */
#include <libxml/parser.h>
#include <libxml/tree.h>
#include <libxml/xpath.h>
#include <libxml/xpathInternals.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "batch_render.h"
#include "tap.h"

/* ---- a strict little JSON checker (RFC 8259 grammar, no extensions) ---- */

static const char *js_ws(const char *p)
{
    while (*p == ' ' || *p == '\t' || *p == '\n' || *p == '\r')
        p++;
    return p;
}

static const char *js_value(const char *p, int depth);

static const char *js_string(const char *p)
{
    if (*p != '"')
        return NULL;
    for (p++; *p != '"'; p++) {
        if ((unsigned char)*p < 0x20)
            return NULL;
        if (*p == '\\') {
            p++;
            if (*p == 'u') {
                int i;
                for (i = 1; i <= 4; i++)
                    if (!strchr("0123456789abcdefABCDEF", p[i]) || !p[i])
                        return NULL;
                p += 4;
            } else if (!*p || !strchr("\"\\/bfnrt", *p)) {
                return NULL;
            }
        }
    }
    return p + 1;
}

static const char *js_number(const char *p)
{
    if (*p == '-')
        p++;
    if (*p == '0')
        p++;
    else if (*p >= '1' && *p <= '9')
        while (*p >= '0' && *p <= '9')
            p++;
    else
        return NULL;
    if (*p == '.') {
        p++;
        if (!(*p >= '0' && *p <= '9'))
            return NULL;
        while (*p >= '0' && *p <= '9')
            p++;
    }
    if (*p == 'e' || *p == 'E') {
        p++;
        if (*p == '+' || *p == '-')
            p++;
        if (!(*p >= '0' && *p <= '9'))
            return NULL;
        while (*p >= '0' && *p <= '9')
            p++;
    }
    return p;
}

static const char *js_value(const char *p, int depth)
{
    if (depth > 64)
        return NULL;
    p = js_ws(p);
    if (*p == '{' || *p == '[') {
        char close = *p == '{' ? '}' : ']';
        int object = *p == '{';
        p = js_ws(p + 1);
        if (*p == close)
            return p + 1;
        for (;;) {
            if (object) {
                p = js_string(js_ws(p));
                if (!p)
                    return NULL;
                p = js_ws(p);
                if (*p++ != ':')
                    return NULL;
            }
            p = js_value(p, depth + 1);
            if (!p)
                return NULL;
            p = js_ws(p);
            if (*p == close)
                return p + 1;
            if (*p++ != ',')
                return NULL;
        }
    }
    if (*p == '"')
        return js_string(p);
    if (strncmp(p, "true", 4) == 0)
        return p + 4;
    if (strncmp(p, "false", 5) == 0)
        return p + 5;
    if (strncmp(p, "null", 4) == 0)
        return p + 4;
    return js_number(p);
}

static int json_valid(const char *s)
{
    const char *e = js_value(s, 0);
    return e && *js_ws(e) == '\0';
}

/* ---- XPath helpers ---- */

static int xp_count(xmlDocPtr doc, const char *expr)
{
    xmlXPathContextPtr ctx = xmlXPathNewContext(doc);
    xmlXPathObjectPtr res;
    int n = -1;
    xmlXPathRegisterNs(ctx, BAD_CAST "s", BAD_CAST "http://www.w3.org/2000/svg");
    res = xmlXPathEvalExpression(BAD_CAST expr, ctx);
    if (res && res->type == XPATH_NODESET)
        n = res->nodesetval ? res->nodesetval->nodeNr : 0;
    else if (res && res->type == XPATH_NUMBER)
        n = (int)res->floatval;
    xmlXPathFreeObject(res);
    xmlXPathFreeContext(ctx);
    return n;
}

static char *xp_string(xmlDocPtr doc, const char *expr)
{
    xmlXPathContextPtr ctx = xmlXPathNewContext(doc);
    xmlXPathObjectPtr res;
    char *s = NULL;
    xmlXPathRegisterNs(ctx, BAD_CAST "s", BAD_CAST "http://www.w3.org/2000/svg");
    res = xmlXPathEvalExpression(BAD_CAST expr, ctx);
    if (res) {
        xmlChar *v = xmlXPathCastToString(res);
        s = strdup((const char *)v);
        xmlFree(v);
    }
    xmlXPathFreeObject(res);
    xmlXPathFreeContext(ctx);
    return s;
}

static xmlDocPtr parse_svg(const struct buf *b)
{
    return xmlReadMemory(b->p, (int)b->len, "status.svg", NULL,
                         XML_PARSE_NONET | XML_PARSE_NOERROR | XML_PARSE_NOWARNING);
}

/* ---- fixtures ---- */

/* A locality batch of 12 jobs: cursor 7 (jobs 0-5: 2 done, 2 in progress,
 * 1 unsent, 1 not generated, a team of 2 at 100 credit/day with 800
 * credit left) and cursor 8 (jobs 6-11: 1 in progress, 1 unsent, 4 not
 * generated, no team, 1200 credit left). */
static void fixture(struct br_batch *b, struct br_cursor c[2])
{
    static const int states[] = { BR_DONE, BR_DONE, BR_IN_PROGRESS, BR_IN_PROGRESS, BR_UNSENT,
                                  -1, BR_IN_PROGRESS, BR_UNSENT };
    int j;
    memset(b, 0, sizeof *b);
    memset(c, 0, 2 * sizeof *c);
    b->id = 5;
    snprintf(b->name, sizeof b->name, "loc<&>\"q\"");
    b->state = 1;
    b->locality = 1;
    b->njobs = 12;
    b->nfiles = 14;
    c[0].id = 7;
    c[0].first_job_num = 0;
    c[0].last_job_num = 5;
    c[0].first_unfinished_job_num = 2;
    c[0].first_ungenerated_job_num = 5;
    c[0].done = 2;
    c[0].in_progress = 2;
    c[0].nhosts = 2;
    c[0].expavg_credit = 100;
    c[0].max_host_credit = 60;
    c[0].remaining_credit = 800;
    c[1].id = 8;
    c[1].first_job_num = 6;
    c[1].last_job_num = 11;
    c[1].first_unfinished_job_num = 6;
    c[1].first_ungenerated_job_num = 8;
    c[1].in_progress = 1;
    c[1].remaining_credit = 1200;
    b->cursors = c;
    b->ncursors = 2;
    br_runs_init(&b->runs);
    for (j = 0; j < 8; j++)
        if (states[j] >= 0)
            br_runs_add(&b->runs, j, states[j]);
    br_runs_finish(&b->runs, b->njobs);
    br_batch_compute(b);
}

static void plain_fixture(struct br_batch *b)
{
    memset(b, 0, sizeof *b);
    b->id = 3;
    snprintf(b->name, sizeof b->name, "plain");
    b->state = 2;
    b->njobs = 4;
    b->nfiles = 4;
    b->other_done = 4;
    br_runs_init(&b->runs);
    br_batch_compute(b);
}

/* ---- tests ---- */

static void test_runs(void)
{
    struct br_runs r;
    br_runs_init(&r);
    br_runs_add(&r, 0, BR_DONE);
    br_runs_add(&r, 1, BR_DONE);
    br_runs_add(&r, 2, BR_IN_PROGRESS);
    br_runs_add(&r, 2, BR_DONE);        /* duplicate: ignored */
    br_runs_add(&r, 5, BR_DONE);        /* 3, 4: not generated */
    br_runs_add(&r, -1, BR_DONE);       /* ignored */
    TAP_EQ_INT(br_runs_finish(&r, 8), 0, "runs finish");
    TAP_EQ_INT(r.n, 5, "five runs: DD I UU D UU");
    if (r.n == 5) {
        TAP_CHECK(r.v[0].first == 0 && r.v[0].count == 2 && r.v[0].state == BR_DONE, "run 0");
        TAP_CHECK(r.v[1].first == 2 && r.v[1].count == 1 && r.v[1].state == BR_IN_PROGRESS,
                  "run 1");
        TAP_CHECK(r.v[2].first == 3 && r.v[2].count == 2 && r.v[2].state == BR_UNSENT,
                  "gap is unsent");
        TAP_CHECK(r.v[3].first == 5 && r.v[3].count == 1 && r.v[3].state == BR_DONE, "run 3");
        TAP_CHECK(r.v[4].first == 6 && r.v[4].count == 2 && r.v[4].state == BR_UNSENT,
                  "tail is unsent");
    }
    br_runs_finish(&r, 4);
    TAP_EQ_INT(r.n, 3, "finish at 4 cuts the runs");
    TAP_EQ_INT(r.n ? r.v[r.n - 1].first + r.v[r.n - 1].count : -1, 4, "runs end at job 4");
    br_runs_free(&r);
}

static void test_compute(void)
{
    struct br_batch b, p;
    struct br_cursor c[2];
    fixture(&b, c);
    TAP_EQ_INT(c[0].jobs.unsent, 2, "cursor 7: 1 unsent + 1 not generated");
    TAP_EQ_INT(c[1].jobs.unsent, 5, "cursor 8: 1 unsent + 4 not generated");
    TAP_EQ_INT(b.jobs.done, 2, "batch done");
    TAP_EQ_INT(b.jobs.in_progress, 3, "batch in progress");
    TAP_EQ_INT(b.jobs.unsent, 7, "batch unsent");
    TAP_EQ_DBL(b.fraction_done, 2.0 / 12, 1e-12, "batch fraction done");
    TAP_EQ_DBL(c[0].fraction_done, 2.0 / 6, 1e-12, "cursor fraction done");
    TAP_EQ_DBL(c[0].est_time_left, 8, 1e-12, "est_time_left = 800 / 100 days");
    TAP_CHECK(isinf(c[1].est_time_left), "empty team with work left: infinite");
    TAP_CHECK(isinf(b.est_time_left), "batch est is the slowest cursor's");
    br_batch_compute(&b);
    TAP_EQ_INT(b.jobs.done, 2, "compute is idempotent");
    br_runs_free(&b.runs);
    plain_fixture(&p);
    TAP_CHECK(isnan(p.est_time_left), "plain batch: est unknown");
    TAP_EQ_DBL(p.fraction_done, 1, 0, "plain batch all done");
    TAP_EQ_INT(p.jobs.unsent, 0, "plain batch nothing unsent");
}

static void test_bar(void)
{
    struct buf o;
    struct br_counts c = { 2, 3, 7 };
    buf_init(&o);
    br_bar(&o, &c, 12, 0);
    TAP_EQ_STR(o.p, "[##+++.......]", "ASCII bar 2/3/7 of 12 cells");
    buf_reset(&o);
    c.done = 999;
    c.in_progress = 0;
    c.unsent = 1;
    br_bar(&o, &c, 10, 0);
    TAP_EQ_STR(o.p, "[#########.]", "99.9%% done is not a full bar");
    buf_reset(&o);
    c.unsent = 0;
    br_bar(&o, &c, 10, 0);
    TAP_EQ_STR(o.p, "[##########]", "all done: full bar");
    buf_reset(&o);
    memset(&c, 0, sizeof c);
    br_bar(&o, &c, 5, 0);
    TAP_EQ_STR(o.p, "[.....]", "no jobs: empty bar");
    buf_reset(&o);
    c.done = 1;
    c.unsent = 1;
    br_bar(&o, &c, 4, BR_COLOR);
    TAP_EQ_STR(o.p, "[\033[32m##\033[0m\033[2m..\033[0m]", "colour bar");
    buf_reset(&o);
    br_bar(&o, &c, 2, BR_UTF8);
    TAP_EQ_STR(o.p, "[\u2588\u2591]", "UTF-8 bar");
    buf_free(&o);
}

static void test_text(void)
{
    struct br_batch b;
    struct br_cursor c[2];
    struct buf o;
    size_t i;
    int ascii = 1;
    fixture(&b, c);
    buf_init(&o);
    br_text_legend(&o, 0);
    br_text(&o, &b, 0);
    for (i = 0; i < o.len; i++)
        if ((unsigned char)o.p[i] >= 0x80 || o.p[i] == '\033')
            ascii = 0;
    TAP_CHECK(ascii, "plain text output is ASCII without escape codes");
    TAP_CHECK(strstr(o.p, "batch 5 'loc<&>\"q\"': locality, in_progress, 12 jobs, 14 files") !=
              NULL, "batch heading");
    TAP_CHECK(strstr(o.p, "[######++++++++++........................]  16.6%  2 done, "
                          "3 in progress, 7 unsent; est_time_left inf days") != NULL,
              "batch bar, counts and est");
    TAP_CHECK(strstr(o.p, "cursor 7     [#############+++++++++++++..............]  33.3%") !=
              NULL, "cursor 7 bar");
    TAP_CHECK(strstr(o.p, "jobs 0-5, first unfinished 2, first ungenerated 5; team 2 hosts, "
                          "100 credit/day (fastest 60), remaining 800 credit, est_time_left 8 "
                          "days") != NULL, "cursor 7 team line");
    TAP_CHECK(strstr(o.p, "team 0 hosts, 0 credit/day (fastest 0), remaining 1200 credit, "
                          "est_time_left inf days") != NULL, "cursor 8: empty team, inf");
    if (tap_failed)
        printf("# text:\n%s", o.p);
    buf_free(&o);
    br_runs_free(&b.runs);
}

static void test_json(void)
{
    struct br_batch b[2];
    struct br_cursor c[2];
    struct buf o;
    fixture(&b[0], c);
    plain_fixture(&b[1]);
    snprintf(b[1].name, sizeof b[1].name, "a\\b\n\x01");
    buf_init(&o);
    br_json(&o, b, 2);
    TAP_CHECK(!o.oom && json_valid(o.p), "JSON of two batches is valid");
    TAP_CHECK(strstr(o.p, "\"name\": \"loc<&>\\\"q\\\"\"") != NULL, "quotes escaped");
    TAP_CHECK(strstr(o.p, "\"name\": \"a\\\\b\\u000a\\u0001\"") != NULL,
              "backslash and control characters escaped");
    TAP_CHECK(strstr(o.p, "\"jobs\": {\"done\": 2, \"in_progress\": 3, \"unsent\": 7}") != NULL,
              "batch job counts");
    TAP_CHECK(strstr(o.p, "\"state\": \"in_progress\",\n      \"state_code\": 1") != NULL,
              "state and code");
    TAP_CHECK(strstr(o.p, "\"est_time_left\": 8}") != NULL, "cursor 7 est 8 days");
    TAP_CHECK(strstr(o.p, "\"remaining_credit\": 1200, \"est_time_left\": null}") != NULL,
              "infinite est is null");
    TAP_CHECK(strstr(o.p, "\"first_unfinished_job_num\": 2, \"first_ungenerated_job_num\": 5") !=
              NULL, "cursor job numbers");
    TAP_CHECK(strstr(o.p, "\"locality\": false") != NULL &&
              strstr(o.p, "\"cursors\": []") != NULL, "plain batch: no cursors");
    TAP_CHECK(strstr(o.p, "\"fraction_done\": 0.166666666666667") != NULL, "fraction done");
    if (tap_failed)
        printf("# json:\n%s", o.p);
    buf_reset(&o);
    br_json(&o, b, 0);
    TAP_CHECK(json_valid(o.p) && strstr(o.p, "\"batches\": []"), "no batches: valid, empty");
    TAP_CHECK(!json_valid("{\"a\": 1,}") && !json_valid("{\"a\": inf}"),
              "the checker rejects bad JSON");
    buf_free(&o);
    br_runs_free(&b[0].runs);
}

static void test_svg(void)
{
    struct br_batch b[2];
    struct br_cursor c[2];
    struct buf o;
    xmlDocPtr doc;
    char *s;
    fixture(&b[0], c);
    plain_fixture(&b[1]);
    buf_init(&o);
    br_svg(&o, b, 2);
    doc = parse_svg(&o);
    TAP_CHECK(doc != NULL, "SVG is well-formed XML");
    if (!doc) {
        printf("# svg:\n%s", o.p);
        buf_free(&o);
        return;
    }
    TAP_EQ_INT(xp_count(doc, "/s:svg"), 1, "root is svg in the SVG namespace");
    TAP_EQ_INT(xp_count(doc, "//s:g[@class='band']"), 3, "three bands (2 cursors + plain)");
    TAP_EQ_INT(xp_count(doc, "//s:g[@id='batch5-cursor7']"), 1, "band of cursor 7");
    TAP_EQ_INT(xp_count(doc, "//s:g[@id='batch5-cursor8']"), 1, "band of cursor 8");
    TAP_EQ_INT(xp_count(doc, "//s:g[@id='batch3-all']"), 1, "band of the plain batch");
    TAP_EQ_INT(xp_count(doc, "//s:g[@id='batch5-cursor7']/s:rect[@class='done']"), 1,
               "cursor 7: one done segment");
    TAP_EQ_INT(xp_count(doc, "//s:g[@id='batch5-cursor7']/s:rect[@class='in-progress']"), 1,
               "cursor 7: one in-progress segment");
    TAP_EQ_INT(xp_count(doc, "//s:g[@id='batch5-cursor7']/s:rect[@class='unsent']"), 1,
               "cursor 7: one unsent segment (unsent + not generated)");
    TAP_EQ_INT(xp_count(doc, "//s:g[@id='batch5-cursor8']/s:rect[@class='done']"), 0,
               "cursor 8: nothing done");
    s = xp_string(doc, "//s:g[@id='batch5-cursor7']/s:rect[@class='done']/@width");
    TAP_EQ_STR(s, "133.33", "done segment is 2 of 12 jobs of 800 px");
    free(s);
    s = xp_string(doc, "//s:g[@id='batch5-cursor8']/s:rect[@class='range']/@x");
    TAP_EQ_STR(s, "530.00", "cursor 8's range starts at job 6");
    free(s);
    TAP_EQ_INT(xp_count(doc, "//s:g[@class='band']/s:g[@class='marker']"), 2,
               "a marker per cursor, none for the plain batch");
    s = xp_string(doc, "//s:g[@id='batch5-cursor7']/s:g[@class='marker']/s:line/@x1");
    TAP_EQ_STR(s, "263.33", "cursor 7's marker at job 2");
    free(s);
    TAP_EQ_INT(xp_count(doc, "//s:g[@class='legend']/s:rect"), 3, "legend has three swatches");
    s = xp_string(doc, "//s:g[@id='batch5']/s:text[1]");
    TAP_CHECK(s && strstr(s, "loc<&>\"q\"") != NULL, "batch name survives escaping (%s)",
              s ? s : "");
    free(s);
    xmlFreeDoc(doc);
    br_runs_free(&b[0].runs);

    /* a big batch whose states alternate: at most a rect per pixel column */
    {
        struct br_cursor big;
        int j, nrect;
        memset(&b[0], 0, sizeof b[0]);
        memset(&big, 0, sizeof big);
        b[0].id = 9;
        snprintf(b[0].name, sizeof b[0].name, "big");
        b[0].njobs = 100000;
        b[0].locality = 1;
        big.id = 1;
        big.last_job_num = 99999;
        big.first_unfinished_job_num = 0;
        b[0].cursors = &big;
        b[0].ncursors = 1;
        br_runs_init(&b[0].runs);
        for (j = 0; j < 100000; j++)
            br_runs_add(&b[0].runs, j, j < 50000 ? (j % 3 ? BR_DONE : BR_IN_PROGRESS)
                                                 : BR_UNSENT);
        br_runs_finish(&b[0].runs, 100000);
        br_batch_compute(&b[0]);
        buf_reset(&o);
        br_svg(&o, b, 1);
        doc = parse_svg(&o);
        TAP_CHECK(doc != NULL, "big SVG is well-formed");
        nrect = doc ? xp_count(doc, "//s:g[@class='band']/s:rect") : -1;
        TAP_CHECK(nrect > 0 && nrect < 10, "runs merged per pixel column (%d rects)", nrect);
        s = doc ? xp_string(doc, "//s:g[@class='band']/s:rect[@class='done']/@width") : NULL;
        TAP_EQ_STR(s, "400.00", "the done half is 400 px");
        free(s);
        if (doc)
            xmlFreeDoc(doc);
        br_runs_free(&b[0].runs);
    }
    buf_reset(&o);
    br_svg(&o, b, 0);
    doc = parse_svg(&o);
    TAP_CHECK(doc != NULL, "SVG of no batches is well-formed");
    if (doc)
        xmlFreeDoc(doc);
    buf_free(&o);
}

int main(void)
{
    test_runs();
    test_compute();
    test_bar();
    test_text();
    test_json();
    test_svg();
    xmlCleanupParser();
    return tap_done();
}
