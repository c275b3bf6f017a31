/*
 * test_status_render.c - unit tests of tools/status_render and
 * tools/status_log: the daemon states and their thresholds, the number
 * formats, the scheduler log counting (plain lines and lines inside
 * Apache's error log, errors, lines outside the hour, partial first
 * line), and both pages: strict well-formed XML, one h1, captions and
 * header cells, every chart an <svg role="img"> with a <title>, states
 * in words, escaped names, the progress bars' titles and the numbers.
 */
#include <libxml/parser.h>
#include <libxml/tree.h>
#include <libxml/xpath.h>
#include <libxml/xpathInternals.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "status_log.h"
#include "status_render.h"
#include "tap.h"

#define NOW 1764045000   /* 2025-11-25 04:30:00 UTC */

static xmlXPathObjectPtr xp_eval(xmlDocPtr doc, const char *expr, xmlXPathContextPtr *ctx)
{
    *ctx = xmlXPathNewContext(doc);
    xmlXPathRegisterNs(*ctx, BAD_CAST "h", BAD_CAST "http://www.w3.org/1999/xhtml");
    xmlXPathRegisterNs(*ctx, BAD_CAST "s", BAD_CAST "http://www.w3.org/2000/svg");
    return xmlXPathEvalExpression(BAD_CAST expr, *ctx);
}

static int xp_count(xmlDocPtr doc, const char *expr)
{
    xmlXPathContextPtr ctx;
    xmlXPathObjectPtr res = xp_eval(doc, expr, &ctx);
    int n = -1;
    if (res && res->type == XPATH_NODESET)
        n = res->nodesetval ? res->nodesetval->nodeNr : 0;
    else if (res && res->type == XPATH_NUMBER)
        n = (int)res->floatval;
    xmlXPathFreeObject(res);
    xmlXPathFreeContext(ctx);
    return n;
}

/* The string value of expr, in a static buffer. */
static const char *xp_str(xmlDocPtr doc, const char *expr)
{
    static char s[1024];
    xmlXPathContextPtr ctx;
    xmlXPathObjectPtr res = xp_eval(doc, expr, &ctx);
    s[0] = '\0';
    if (res) {
        xmlChar *v = xmlXPathCastToString(res);
        snprintf(s, sizeof s, "%s", (const char *)v);
        xmlFree(v);
    }
    xmlXPathFreeObject(res);
    xmlXPathFreeContext(ctx);
    return s;
}

static xmlDocPtr parse(const struct buf *b)
{
    return xmlReadMemory(b->p, (int)b->len, "page.html", NULL,
                         XML_PARSE_NONET | XML_PARSE_NOERROR | XML_PARSE_NOWARNING);
}

/* Checks every page must pass. */
static void check_accessible(xmlDocPtr doc, const char *what)
{
    TAP_EQ_STR(xp_str(doc, "/h:html/@lang"), "en", "%s: html has lang", what);
    TAP_EQ_INT(xp_count(doc, "//h:h1"), 1, "%s: one h1", what);
    TAP_CHECK(xp_count(doc, "//h:h2") >= 3, "%s: sections have h2", what);
    TAP_CHECK(strlen(xp_str(doc, "/h:html/h:head/h:title")) > 0, "%s: has a title", what);
    TAP_EQ_INT(xp_count(doc, "//h:table[not(h:caption)]"), 0, "%s: every table has a caption",
               what);
    TAP_EQ_INT(xp_count(doc, "//h:table[not(.//h:th)]"), 0, "%s: every table has headers",
               what);
    TAP_EQ_INT(xp_count(doc, "//s:svg[not(@role='img')]"), 0, "%s: every svg is role=img",
               what);
    TAP_EQ_INT(xp_count(doc, "//s:svg[not(s:title) or string-length(s:title) = 0]"), 0,
               "%s: every svg has a title", what);
    TAP_EQ_INT(xp_count(doc, "//h:script"), 0, "%s: no script", what);
    TAP_EQ_INT(xp_count(doc, "//h:figure[not(h:figcaption) or not(s:svg)]"), 0,
               "%s: every chart in a figure with a visible caption", what);
    TAP_CHECK(xp_count(doc, "//h:figure") >= 1, "%s: has a chart figure", what);
    TAP_EQ_INT(xp_count(doc, "//h:img[not(@alt)]"), 0, "%s: images have alt text", what);
}

static void test_daemon_state(void)
{
    struct sr_daemon d;
    memset(&d, 0, sizeof d);
    d.sleep_secs = 5;
    d.last_pass_time = NOW - 20;
    d.last_items = 3;
    TAP_EQ_INT(sr_daemon_state(&d, NOW), SR_RUNNING, "a recent pass: running");
    TAP_EQ_INT(sr_silent_after(&d), 130, "silent after 120 s + 2 sleeps");
    d.last_pass_time = NOW - 130;
    TAP_EQ_INT(sr_daemon_state(&d, NOW), SR_RUNNING, "at the threshold: still running");
    d.last_pass_time = NOW - 131;
    TAP_EQ_INT(sr_daemon_state(&d, NOW), SR_SILENT, "past it: not heard from");
    d.last_pass_time = NOW - 1;
    d.last_items = -1;
    TAP_EQ_INT(sr_daemon_state(&d, NOW), SR_FAILING, "last pass failed: failing");
    d.stopped = 1;
    TAP_EQ_INT(sr_daemon_state(&d, NOW), SR_STOPPED, "stopped wins");
    TAP_EQ_STR(sr_daemon_state_name(SR_SILENT), "not heard from", "state in words");
    TAP_EQ_STR(sr_validate_state_name(1), "valid", "validate state 1");
    TAP_EQ_STR(sr_validate_state_name(9), "other", "unknown validate state");
}

static void test_formats(void)
{
    char s[64];
    sr_format_time(s, sizeof s, NOW);
    TAP_EQ_STR(s, "2025-11-25 04:30 UTC", "time format");
    sr_format_time(s, sizeof s, 0);
    TAP_EQ_STR(s, "-", "no time");
    sr_format_bytes(s, sizeof s, 812);
    TAP_EQ_STR(s, "812 B", "bytes");
    sr_format_bytes(s, sizeof s, 3.45e6);
    TAP_EQ_STR(s, "3.5 MB", "megabytes");
    sr_format_secs(s, sizeof s, 42);
    TAP_EQ_STR(s, "42 s", "seconds");
    sr_format_secs(s, sizeof s, 3 * 3600 + 1800);
    TAP_EQ_STR(s, "3.5 h", "hours");
    sr_batch_file(s, sizeof s, 17);
    TAP_EQ_STR(s, "batch_17.html", "batch file name");
}

static void test_log(void)
{
    static const char text[] =
        "partial line [scheduler:1] 2025-11-25 04:29:00\n"
        "2025-11-25 04:29:10 INFO [scheduler:42] [host#3] [user#1] rpc_seqno 5: 1 reported, "
        "2 sent (0 resent), 0 lost, 0 aborts, 0 retries\n"
        "[Tue Nov 25 04:29:11 2025] [fcgid:warn] [pid 9] mod_fcgid: stderr: 2025-11-25 04:29:11 "
        "INFO [scheduler:43] [host#4] [user#2] rpc_seqno 9: 0 reported, 1 sent (0 resent), "
        "0 lost, 0 aborts, 0 retries\n"
        "2025-11-25 04:29:20 WARN [scheduler:42] malformed request (syntax): bad\n"
        "2025-11-25 04:29:30 ERROR [scheduler:42] request not handled: gone away\n"
        "2025-11-25 04:29:31 INFO [scheduler:42] request with an unknown account key refused\n"
        "2025-11-25 04:28:05 INFO [scheduler:42] request answered 'project is down' (x)\n"
        "2025-11-25 04:29:40 INFO [transitioner:7] [host#3] rpc_seqno 5: 1 reported, x\n"
        "2025-11-25 04:29:41 INFO [scheduler:42] code-signing public key loaded from k\n"
        "2025-11-25 03:29:59 INFO [scheduler:42] [host#3] rpc_seqno 1: 0 reported, 0 sent\n"
        "2025-13-25 04:29:10 INFO [scheduler:42] [host#3] rpc_seqno 5: 1 reported, 2 sent\n";
    struct sr_sched_minutes m;
    long long t = 0, req = 0, err = 0;
    int i;

    static const char one[] = "2025-11-25 04:29:10 INFO [scheduler:42] [host#3] [user#1] "
                              "rpc_seqno 5: 1 reported, 2 sent";
    TAP_EQ_INT(sl_classify(one, strlen(one), &t), SL_REQUEST, "a served request");
    TAP_EQ_INT(t, NOW - 50, "its time");
    TAP_EQ_INT(sl_classify("garbage", 7, &t), SL_NONE, "garbage");

    memset(&m, 0, sizeof m);
    m.minute0 = NOW - NOW % 60 - (SR_MINUTES - 1) * 60;   /* 03:31 */
    sl_count(&m, text, strlen(text), 1);
    for (i = 0; i < SR_MINUTES; i++) {
        req += m.requests[i];
        err += m.errors[i];
    }
    TAP_EQ_INT(req, 6, "6 requests in the hour (not the old one, the bad date or others)");
    TAP_EQ_INT(err, 3, "3 of them errors");
    TAP_EQ_INT(m.requests[SR_MINUTES - 2], 5, "5 in minute 04:29");
    TAP_EQ_INT(m.errors[SR_MINUTES - 2], 3, "3 errors in minute 04:29");
    TAP_EQ_INT(m.requests[SR_MINUTES - 3], 1, "1 in minute 04:28");
}

static void test_status_page(void)
{
    struct sr_daemon d[3];
    struct sr_batch_line bl[1];
    struct sr_status s;
    struct buf out;
    xmlDocPtr doc;
    int i;

    memset(&s, 0, sizeof s);
    memset(d, 0, sizeof d);
    snprintf(s.project, sizeof s.project, "Test & <Project>");
    s.now = NOW;
    snprintf(d[0].name, sizeof d[0].name, "transitioner");
    snprintf(d[0].hostname, sizeof d[0].hostname, "node<1>");
    d[0].mod_n = 1;
    d[0].sleep_secs = 5;
    d[0].last_pass_time = NOW - 3;
    d[0].npasses = 99;
    d[1] = d[0];
    snprintf(d[1].name, sizeof d[1].name, "work_generator");
    d[1].stopped = 1;
    d[2] = d[0];
    snprintf(d[2].name, sizeof d[2].name, "locality_daemon");
    d[2].last_pass_time = NOW - 3600;
    s.daemons = d;
    s.ndaemons = 3;
    s.sched.have_log = 1;
    s.sched.minute0 = NOW - (SR_MINUTES - 1) * 60;
    for (i = 0; i < SR_MINUTES; i++) {
        s.sched.requests[i] = i % 7;
        s.sched.errors[i] = i % 13 == 0;
    }
    s.unsent = 120;
    s.in_progress = 34;
    s.hour0 = NOW - (SR_HOURS - 1) * 3600;
    for (i = 0; i < SR_HOURS; i++)
        s.reported[i] = 10 * i;
    s.hosts_active_day = 17;
    s.db_bytes = 5.5e6;
    memset(bl, 0, sizeof bl);
    bl[0].id = 4;
    snprintf(bl[0].name, sizeof bl[0].name, "b'4\"");
    bl[0].njobs = 10;
    bl[0].done = 5;
    bl[0].fraction_done = 0.5;
    s.batches = bl;
    s.nbatches = 1;

    buf_init(&out);
    sr_status_html(&out, &s);
    TAP_CHECK(!out.oom, "status page rendered");
    TAP_CHECK(strncmp(out.p, "<!DOCTYPE html>", 15) == 0, "starts with the HTML5 doctype");
    doc = parse(&out);
    TAP_CHECK(doc != NULL, "status page is well-formed XML");
    if (doc) {
        check_accessible(doc, "status page");
        TAP_EQ_STR(xp_str(doc, "//h:h1"), "Server status of Test & <Project>",
                   "project name escaped and shown");
        TAP_EQ_INT(xp_count(doc, "//h:table[@id='daemon-table']/h:tbody/h:tr"), 3,
                   "one row per daemon");
        TAP_EQ_STR(xp_str(doc, "//h:tr[h:th='transitioner']/h:td[3]"), "running",
                   "transitioner running, in words");
        TAP_EQ_STR(xp_str(doc, "//h:tr[h:th='work_generator']/h:td[3]"), "stopped",
                   "work generator stopped");
        TAP_EQ_STR(xp_str(doc, "//h:tr[h:th='locality_daemon']/h:td[3]"), "not heard from",
                   "locality daemon silent");
        TAP_EQ_STR(xp_str(doc, "//h:tr[h:th='locality_daemon']/h:td[5]"), "60 min",
                   "its lag");
        TAP_EQ_STR(xp_str(doc, "//h:tr[h:th='transitioner']/h:td[1]"), "node<1>",
                   "host name escaped");
        TAP_EQ_STR(xp_str(doc, "//h:td[@id='unsent']"), "120", "unsent");
        TAP_EQ_STR(xp_str(doc, "//h:td[@id='in-progress']"), "34", "in progress");
        TAP_EQ_STR(xp_str(doc, "//h:td[@id='reported-day']"), "2760", "reported in 24 h");
        TAP_EQ_STR(xp_str(doc, "//h:td[@id='hosts-active']"), "17", "hosts active");
        TAP_EQ_STR(xp_str(doc, "//h:td[@id='db-size']"), "5.5 MB", "database size");
        TAP_EQ_INT(xp_count(doc, "//s:svg[@id='chart-sched']//s:rect[@class='bar']"), 51,
                   "a bar per minute with requests");
        TAP_EQ_INT(xp_count(doc, "//s:svg[@id='chart-sched']//s:rect[@class='bar-error']"), 5,
                   "an error bar per minute with errors");
        TAP_EQ_INT(xp_count(doc, "//s:svg[@id='chart-reported']//s:rect[@class='bar']"), 23,
                   "a bar per hour with results");
        TAP_CHECK(strstr(xp_str(doc, "//s:svg[@id='chart-reported']/s:desc"), "2760") != NULL,
                  "the chart's description has the total");
        TAP_EQ_STR(xp_str(doc, "//h:table[@id='batch-table']//h:a/@href"), "batch_4.html",
                   "batch link");
        TAP_EQ_STR(xp_str(doc, "//h:table[@id='batch-table']//h:a"), "b'4\"",
                   "batch name escaped");
        xmlFreeDoc(doc);
    }

    /* nothing known yet */
    memset(&s, 0, sizeof s);
    s.now = NOW;
    snprintf(s.project, sizeof s.project, "p");
    buf_reset(&out);
    sr_status_html(&out, &s);
    doc = parse(&out);
    TAP_CHECK(doc != NULL, "empty status page is well-formed");
    if (doc) {
        TAP_CHECK(strstr(xp_str(doc, "//h:main"), "No daemon has reported yet") != NULL,
                  "says no daemon reported");
        TAP_CHECK(strstr(xp_str(doc, "//h:main"), "log was not found") != NULL,
                  "says the log was not found");
        TAP_EQ_INT(xp_count(doc, "//s:svg"), 1, "only the hourly chart");
        xmlFreeDoc(doc);
    }
    buf_free(&out);
}

static void test_batch_page(void)
{
    struct br_cursor c[2];
    struct br_batch b;
    struct sr_batch_page p;
    struct sr_hour hours[3] = { { NOW - 7200 - 1800, 2 }, { NOW - 3600 - 1800, 3 },
                                { NOW - 1800, 1 } };
    struct buf out;
    xmlDocPtr doc;

    memset(&b, 0, sizeof b);
    memset(c, 0, sizeof c);
    b.id = 9;
    snprintf(b.name, sizeof b.name, "loc<9>");
    b.state = 1;
    b.locality = 1;
    b.njobs = 12;
    b.nfiles = 24;
    c[0].id = 3;
    c[0].first_job_num = 0;
    c[0].last_job_num = 5;
    c[0].first_unfinished_job_num = 4;
    c[0].first_ungenerated_job_num = 6;
    c[0].done = 4;
    c[0].in_progress = 2;
    c[0].nhosts = 2;
    c[0].expavg_credit = 100;
    c[0].remaining_credit = 50;
    c[1].id = 4;
    c[1].first_job_num = 6;
    c[1].last_job_num = 11;
    c[1].first_unfinished_job_num = 8;
    c[1].first_ungenerated_job_num = 9;
    c[1].done = 2;
    c[1].in_progress = 1;
    c[1].nhosts = 1;
    c[1].expavg_credit = 100;
    c[1].remaining_credit = 200;
    b.cursors = c;
    b.ncursors = 2;
    br_runs_init(&b.runs);
    br_batch_compute(&b);

    memset(&p, 0, sizeof p);
    snprintf(p.project, sizeof p.project, "proj");
    p.now = NOW;
    p.b = &b;
    p.create_time = NOW - 4 * 3600;
    p.finish_eta = NOW + 7200;
    p.done_hours = hours;
    p.ndone_hours = 3;
    p.file_copies = 30;
    p.files_on_hosts = 20;
    p.bytes_sent = 3e6;
    p.validate[0] = 2;
    p.validate[1] = 6;
    p.validate[2] = 1;

    buf_init(&out);
    sr_batch_html(&out, &p);
    TAP_CHECK(!out.oom, "batch page rendered");
    doc = parse(&out);
    TAP_CHECK(doc != NULL, "batch page is well-formed XML");
    if (doc) {
        check_accessible(doc, "batch page");
        TAP_EQ_STR(xp_str(doc, "//h:h1"), "Batch loc<9> (9)", "heading, name escaped");
        TAP_EQ_STR(xp_str(doc, "//h:td[@id='batch-state']"), "in_progress", "state");
        TAP_EQ_STR(xp_str(doc, "//h:td[@id='batch-done']"), "6 (50.0%)", "done jobs");
        TAP_EQ_STR(xp_str(doc, "//h:td[@id='batch-eta']"), "2025-11-25 06:30 UTC", "ETA");
        TAP_EQ_INT(xp_count(doc, "//s:svg[@class='progress']"), 3,
                   "a bar for the batch and one per cursor");
        TAP_EQ_STR(xp_str(doc, "//s:svg[@id='bar-cursor-3']/s:title"),
                   "cursor 3, jobs 0-5, 2 hosts: 4 done, 2 in progress, 0 unsent",
                   "a cursor bar's title says it in words");
        TAP_EQ_STR(xp_str(doc, "//s:svg[@id='bar-all']/s:title"),
                   "whole batch: 6 done, 3 in progress, 3 unsent", "the batch bar's title");
        TAP_EQ_INT(xp_count(doc, "//s:svg[@id='bar-cursor-4']//s:rect[@class='in-progress']"),
                   1, "in progress part of cursor 4, hatched");
        TAP_CHECK(strstr(xp_str(doc, "//s:svg[@id='bar-cursor-4']//s:rect[@class='in-progress']"
                                "/@fill"), "url(#") != NULL, "hatched, not only coloured");
        TAP_CHECK(strstr(xp_str(doc, "//s:svg[@id='chart-completion']/s:desc"), "6 of 12 jobs")
                  != NULL, "completion chart described");
        TAP_EQ_INT(xp_count(doc, "//s:svg[@id='chart-completion']//s:polyline"), 1,
                   "completion line");
        TAP_EQ_INT(xp_count(doc, "//s:g[@class='band']"), 2, "job space: a band per cursor");
        TAP_EQ_STR(xp_str(doc, "//h:td[@id='hosts-per-file']"), "1.25", "hosts per file");
        TAP_EQ_STR(xp_str(doc, "//h:td[@id='bytes-sent']"), "3.0 MB", "bytes sent");
        TAP_EQ_STR(xp_str(doc, "//h:table[@id='validate-table']//h:tr[h:th='valid']/h:td"), "6",
                   "valid results");
        TAP_EQ_INT(xp_count(doc, "//h:table[@id='validate-table']/h:tbody/h:tr"), 3,
                   "only states that occur");
        TAP_EQ_INT(xp_count(doc, "//*[@id]") ,
                   xp_count(doc, "//*[@id][not(@id = preceding::*/@id) and "
                                 "not(@id = ancestor::*/@id)]"), "ids are unique");
        xmlFreeDoc(doc);
    }
    buf_free(&out);
    br_runs_free(&b.runs);
}

int main(void)
{
    test_daemon_state();
    test_formats();
    test_log();
    test_status_page();
    test_batch_page();
    xmlCleanupParser();
    return tap_done();
}
