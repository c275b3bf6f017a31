/*
 * test_replay.c - unit tests of the load replay's pure parts: request
 * templates made from the recorded bodies, a host's request/reply cycle,
 * the reply parser, percentiles and the record of results sent.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "buf.h"
#include "replay_host.h"
#include "replay_reply.h"
#include "replay_seen.h"
#include "replay_stats.h"
#include "sched_request.h"
#include "tap.h"

static char *read_recorded(const char *name, size_t *len)
{
    const char *srcdir = getenv("srcdir");
    char path[4096];
    char *p;

    snprintf(path, sizeof path, "%s/recorded/%s", srcdir ? srcdir : "test", name);
    p = buf_read_file(path, len);
    if (!p) {
        printf("Bail out! cannot read %s (set srcdir to the test folder)\n", path);
        exit(1);
    }
    return p;
}

static int count(const char *hay, const char *needle)
{
    int n = 0;
    for (; (hay = strstr(hay, needle)); hay++)
        n++;
    return n;
}

static const char reply1[] =
    "<scheduler_reply>\n<project_name>x</project_name>\n<hostid>77</hostid>\n"
    "<send_full_workload/>\n<code_sign_key>\n1024\nabc\n.\n</code_sign_key>\n"
    "<message priority=\"low\">No GPU tasks sent.</message>\n"
    "<app><name>upper</name></app>\n"
    "<app_version>\n <app_name>upper</app_name>\n <version_num>101</version_num>\n"
    " <platform>x86_64-pc-linux-gnu</platform>\n <avg_ncpus>1</avg_ncpus>\n"
    " <flops>1000000000</flops>\n <file_ref><file_name>a</file_name></file_ref>\n"
    "</app_version>\n"
    "<file_info>\n <name>in_1</name>\n <nbytes>4096</nbytes>\n <sticky/>\n</file_info>\n"
    "<workunit>\n <name>wu_1</name>\n <rsc_fpops_est>10000000000000</rsc_fpops_est>\n"
    " <file_ref><file_name>in_1</file_name><open_name>in_0</open_name></file_ref>\n"
    "</workunit>\n"
    "<file_info>\n <name>r_1_0</name>\n <max_nbytes>1000</max_nbytes>\n</file_info>\n"
    "<result>\n <name>r_1</name>\n <wu_name>wu_1</wu_name>\n"
    " <report_deadline>1795847351</report_deadline>\n"
    " <platform>x86_64-pc-linux-gnu</platform>\n <version_num>101</version_num>\n"
    " <plan_class></plan_class>\n <file_ref><file_name>r_1_0</file_name></file_ref>\n"
    "</result>\n<request_delay>7</request_delay>\n</scheduler_reply>\n";

static void test_parse(struct rp_reply *r)
{
    const char bad[] = "<scheduler_reply><hostid>1</hostid>";
    const char err[] = "<scheduler_reply><message priority=\"notice\">Unknown account key"
                       "</message><result_ack><name>x_0</name></result_ack>"
                       "<delete_file_info>f_9</delete_file_info></scheduler_reply>";

    TAP_EQ_INT(rp_parse(r, reply1, strlen(reply1)), 0, "reply parses");
    TAP_EQ_INT(r->hostid, 77, "hostid");
    TAP_CHECK(r->send_full_workload && r->have_code_sign_key, "full workload and key seen");
    TAP_CHECK(strstr(r->code_sign_key, "1024\nabc") != NULL, "key text kept");
    TAP_EQ_INT(r->njobs, 1, "one job");
    TAP_EQ_STR(r->jobs[0].name, "r_1", "job name (not the file_ref inside)");
    TAP_EQ_INT(r->jobs[0].version_num, 101, "job version");
    TAP_EQ_INT(r->navs, 1, "one app version");
    TAP_EQ_DBL(r->avs[0].flops, 1e9, 1, "app version flops");
    TAP_EQ_INT(r->nfiles, 2, "two file_infos");
    TAP_CHECK(r->files[0].sticky && !r->files[1].sticky, "sticky flag");
    TAP_CHECK(rp_find_wu(r, "wu_1") && rp_find_wu(r, "wu_1")->rsc_fpops_est == 1e13,
              "workunit estimate");
    TAP_EQ_INT(r->nnotices, 0, "a low-priority message is no notice");
    TAP_EQ_INT(r->ninfo_messages, 1, "one informational message");
    TAP_EQ_DBL(r->request_delay, 7, 0, "request_delay");

    TAP_CHECK(rp_parse(r, bad, strlen(bad)) < 0, "truncated reply is refused");
    TAP_CHECK(rp_parse(r, "<html>x</html>", 14) < 0, "wrong root is refused");
    TAP_CHECK(rp_parse(r, "", 0) < 0, "empty body is refused");
    TAP_EQ_INT(rp_parse(r, err, strlen(err)), 0, "error reply parses");
    TAP_CHECK(rp_refused(r), "a reply without the account is a refusal");
    TAP_EQ_STR(r->first_notice, "Unknown account key", "error text");
    TAP_EQ_INT(r->nacks, 1, "one ack");
    TAP_EQ_STR(r->acks[0], "x_0", "ack name");
    TAP_EQ_INT(r->ndeletes, 1, "one delete_file_info");
    TAP_EQ_STR(r->deletes[0], "f_9", "deleted file");
}

static void test_template(void)
{
    struct rh_template t;
    char err[256];
    size_t len;
    char *body = read_recorded("04-report-success-no-work.xml", &len);

    TAP_EQ_INT(rh_template_init(&t, "04", body, len, err, sizeof err), 0, "template 04: %s",
               "made");
    TAP_CHECK(strstr(t.skel, "locA_0012_0") == NULL, "recorded results and jobs removed");
    TAP_CHECK(strstr(t.skel, "locality_data_A") == NULL, "recorded sticky file removed");
    TAP_CHECK(strstr(t.skel, "b15243b0") == NULL, "recorded key removed");
    TAP_CHECK(strstr(t.skel, "a1a1a1a1") == NULL, "recorded authenticator removed");
    TAP_CHECK(strstr(t.skel, "<host_info>") != NULL, "host_info kept");
    TAP_EQ_STR(t.cpu_secs, "0.000000", "recorded cpu_req_secs kept");
    rh_template_free(&t);
    free(body);
    TAP_CHECK(rh_template_init(&t, "x", "<a/>", 4, err, sizeof err) < 0,
              "a non-request is refused");
    TAP_CHECK(rh_template_init(&t, "y", "<scheduler_request><hostid>0</hostid>"
                               "</scheduler_request>", 55, err, sizeof err) < 0,
              "a request without authenticator is refused");
}

static void test_cycle(struct rp_reply *r)
{
    struct rh_template t;
    struct rh_host h;
    struct rh_opts o = { .run_seconds = 10, .work_secs = 40000, .upload_url = "http://u/f",
                         .max_report = 64, .max_files = 100 };
    struct rh_outcome oc;
    struct sched_request q;
    struct buf b;
    char err[512], ack[600];
    size_t len;
    int nrep = -1;
    char *body = read_recorded("02-hostid-assigned-work-request.xml", &len);

    buf_init(&b);
    sched_request_init();
    TAP_EQ_INT(rh_template_init(&t, "02", body, len, err, sizeof err), 0, "template 02 made");
    TAP_CHECK(rh_template_asks_work(&t, &o), "02 asks for work");
    rh_host_init(&h, 5, &t, "0123456789abcdef0123");

    /* first request: no id, no key, no in-progress list */
    TAP_EQ_INT(rh_build(&h, &o, 0, NULL, &b, &nrep), 0, "first request built");
    TAP_EQ_INT(nrep, 0, "nothing to report");
    memset(&q, 0, sizeof q);
    TAP_EQ_INT(sched_request_parse(b.p, b.len, &q, err, sizeof err), SRQ_OK,
               "the scheduler's parser accepts it: %s", err);
    TAP_EQ_STR(q.authenticator, "0123456789abcdef0123", "authenticator rewritten");
    TAP_EQ_INT(q.hostid, 0, "hostid 0 on first contact");
    TAP_EQ_DBL(q.cpu_req_secs, 40000, 0, "work request overridden");
    TAP_EQ_INT(q.have_ip_results, 0, "no in_progress_results before send_full_workload");
    TAP_EQ_INT(q.have_code_sign_key, 0, "no key yet");
    sched_request_free(&q);

    /* the reply gives id, key, a job and a sticky file */
    TAP_EQ_INT(rp_parse(r, reply1, strlen(reply1)), 0, "reply parsed");
    TAP_EQ_INT(rh_apply(&h, r, &o, 0, &oc), 0, "reply applied");
    TAP_EQ_INT(oc.new_jobs, 1, "one new job");
    TAP_CHECK(oc.new_hostid && !oc.no_hostid, "hostid taken");
    TAP_EQ_INT(h.hostid, 77, "host id 77");
    TAP_EQ_INT(h.seqno, 0, "rpc_seqno restarts at 0");
    TAP_EQ_DBL(h.jobs[0].est_secs, 10000, 0.001, "estimate from fpops and flops");

    /* second request: before the run is over, the job is in progress */
    TAP_EQ_INT(rh_build(&h, &o, 5, "\n1024\nabc\n.\n", &b, &nrep), 0, "second request built");
    TAP_EQ_INT(nrep, 0, "job still running");
    memset(&q, 0, sizeof q);
    TAP_EQ_INT(sched_request_parse(b.p, b.len, &q, err, sizeof err), SRQ_OK, "parses: %s", err);
    TAP_EQ_INT(q.hostid, 77, "hostid sent");
    TAP_EQ_INT(q.have_code_sign_key, 1, "key echoed");
    TAP_EQ_INT(q.nip_results, 1, "one ip_result");
    TAP_EQ_INT(q.nother_results, 1, "one other_result");
    TAP_EQ_INT(q.other_results[0].app_version, 0, "other_result names app version 0");
    TAP_EQ_INT(q.napp_versions, 1, "app version listed");
    TAP_EQ_INT(q.nsticky_files, 1, "sticky file listed");
    TAP_EQ_STR(q.sticky_files[0].name, "in_1", "sticky file name");
    TAP_EQ_DBL(q.ip_results[0].time_remaining, 5000, 1, "half the run left");
    sched_request_free(&q);
    h.seqno = 3;

    /* third request: the run is over, the job is reported */
    TAP_EQ_INT(rh_build(&h, &o, 12, NULL, &b, &nrep), 0, "third request built");
    TAP_EQ_INT(nrep, 1, "one job reported");
    memset(&q, 0, sizeof q);
    TAP_EQ_INT(sched_request_parse(b.p, b.len, &q, err, sizeof err), SRQ_OK, "parses: %s", err);
    TAP_EQ_INT(q.nresults, 1, "one reported result");
    TAP_EQ_STR(q.results[0].name, "r_1", "its name");
    TAP_EQ_INT(q.results[0].state, CRS_FILES_UPLOADED, "success state");
    TAP_EQ_INT(q.results[0].upload_failed, 0, "upload did not fail");
    TAP_EQ_DBL(q.results[0].final_elapsed_time, 10000, 0.001, "elapsed = estimate");
    TAP_EQ_INT(q.nip_results, 0, "no longer in progress");
    TAP_EQ_INT(q.rpc_seqno, 3, "rpc_seqno sent");
    sched_request_free(&q);

    /* a reply without the ack: reported again; with it: forgotten */
    TAP_EQ_INT(rp_parse(r, "<scheduler_reply/>", 18), 0, "empty reply parsed");
    TAP_EQ_INT(rh_apply(&h, r, &o, 13, &oc), 0, "applied");
    TAP_EQ_INT(oc.unacked, 1, "report not acknowledged");
    TAP_EQ_INT(h.seqno, 4, "rpc_seqno counts");
    TAP_EQ_INT(rh_build(&h, &o, 14, NULL, &b, &nrep), 0, "built");
    TAP_EQ_INT(nrep, 1, "reported again");
    snprintf(ack, sizeof ack, "<scheduler_reply><result_ack><name>r_1</name></result_ack>"
             "<delete_file_info>in_1</delete_file_info></scheduler_reply>");
    TAP_EQ_INT(rp_parse(r, ack, strlen(ack)), 0, "ack parsed");
    TAP_EQ_INT(rh_apply(&h, r, &o, 15, &oc), 0, "applied");
    TAP_EQ_INT(oc.acked, 1, "acknowledged");
    TAP_EQ_INT(oc.unacked, 0, "nothing left");
    TAP_EQ_INT(h.nfiles, 0, "sticky file deleted");
    TAP_EQ_INT(rh_build(&h, &o, 16, NULL, &b, &nrep), 0, "built");
    TAP_EQ_INT(nrep, 0, "nothing more to report");
    TAP_EQ_INT(count(b.p, "<result>"), 0, "no result element");

    rh_host_free(&h);
    rh_template_free(&t);
    buf_free(&b);
    free(body);
}

static void test_stats(void)
{
    struct lat_samples s = { 0 };
    struct lat_summary sum;
    double v[] = { 5, 1, 4, 2, 3, 10, 9, 8, 7, 6 };
    size_t i;

    for (i = 0; i < sizeof v / sizeof v[0]; i++)
        lat_add(&s, v[i]);
    lat_summarize(&s, &sum);
    TAP_EQ_INT(sum.n, 10, "ten samples");
    TAP_EQ_DBL(sum.p50, 5, 0, "p50 nearest rank");
    TAP_EQ_DBL(sum.p90, 9, 0, "p90 nearest rank");
    TAP_EQ_DBL(sum.p99, 10, 0, "p99 nearest rank");
    TAP_EQ_DBL(sum.max, 10, 0, "max");
    TAP_EQ_DBL(sum.mean, 5.5, 1e-9, "mean");
    lat_free(&s);
    for (i = 1; i <= 1000; i++)
        lat_add(&s, (double)i);
    lat_summarize(&s, &sum);
    TAP_EQ_DBL(sum.p99, 990, 0, "p99 of 1..1000");
    lat_free(&s);
    lat_summarize(&s, &sum);
    TAP_EQ_INT(sum.n, 0, "no samples, no figures");
}

static void test_seen(void)
{
    struct seen_set s = { 0 };
    char name[32];
    int prev = -1, i, dups = 0;

    for (i = 0; i < 20000; i++) {
        snprintf(name, sizeof name, "r_%d_0", i);
        if (seen_add(&s, name, i % 7, NULL) != 0)
            dups++;
    }
    TAP_EQ_INT(dups, 0, "20000 distinct names");
    TAP_EQ_INT(seen_add(&s, "r_123_0", 5, &prev), 1, "a second send is noticed");
    TAP_EQ_INT(prev, 123 % 7, "with the first host");
    TAP_EQ_INT(seen_host(&s, "r_19999_0"), 19999 % 7, "lookup");
    TAP_EQ_INT(seen_host(&s, "nope"), -1, "unknown name");
    seen_free(&s);
}

int main(void)
{
    struct rp_reply *r = malloc(sizeof *r);
    if (!r)
        return 1;
    test_parse(r);
    test_template();
    test_cycle(r);
    test_stats();
    test_seen();
    free(r);
    return tap_done();
}
