/*
 * test_emu_logic.c - unit tests of the emulator's pure parts: the
 * round-robin simulation, the metrics, the random distributions, the
 * availability process, and one client computing, reporting and backing
 * off.  No servers.
 */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "emu_client.h"
#include "emu_host.h"
#include "emu_metrics.h"
#include "emu_proto.h"
#include "emu_rng.h"
#include "emu_rrsim.h"
#include "emu_stub.h"
#include "tap.h"

static void test_rrsim(void)
{
    struct emu_rr_in in;
    struct emu_rr_out out;
    struct emu_rr_job j[3];

    /* one instance, one project: jobs run one after the other */
    memset(&in, 0, sizeof in);
    in.ninstances = 1;
    in.avail = 1;
    in.nproj = 1;
    in.share[0] = 1;
    in.window = 1000;
    memset(j, 0, sizeof j);
    j[0].remaining = 100;
    j[0].deadline = 150;
    j[1].remaining = 200;
    j[1].deadline = 250;
    TAP_EQ_INT(emu_rrsim(&in, j, 2, &out), 0, "rrsim runs");
    TAP_EQ_DBL(j[0].finish, 100, 1e-6, "first job by deadline finishes at 100");
    TAP_EQ_DBL(j[1].finish, 300, 1e-6, "second finishes at 300");
    TAP_CHECK(!j[0].misses && j[1].misses, "only the second misses its deadline");
    TAP_EQ_INT(out.nmiss, 1, "one miss counted");
    TAP_EQ_DBL(out.saturated, 300, 1e-6, "busy until 300");
    TAP_EQ_DBL(out.shortfall, 700, 1e-6, "idle 700 s of the 1000 s window");
    TAP_EQ_INT(out.nidle, 0, "no idle instance now");

    /* two instances, two projects of shares 3:1, availability 0.5 */
    in.ninstances = 2;
    in.avail = 0.5;
    in.nproj = 2;
    in.share[0] = 3;
    in.share[1] = 1;
    in.window = 100;
    memset(j, 0, sizeof j);
    j[0].proj = 0;
    j[0].remaining = 150;
    j[0].deadline = 1e9;
    j[1].proj = 1;
    j[1].remaining = 50;
    j[1].deadline = 1e9;
    TAP_EQ_INT(emu_rrsim(&in, j, 2, &out), 0, "rrsim runs with two projects");
    /* project 0 is capped at one instance (one job), project 1 gets the other */
    TAP_EQ_DBL(j[0].finish, 300, 1e-6, "capped project: 150 s at half speed");
    TAP_EQ_DBL(j[1].finish, 100, 1e-6, "other project: 50 s at half speed");
    TAP_EQ_DBL(out.shortfall, 0, 1e-6, "no shortfall within 100 s");
    TAP_EQ_DBL(out.saturated, 100, 1e-6, "an instance goes idle at 100");

    /* nothing queued: everything idle */
    TAP_EQ_INT(emu_rrsim(&in, j, 0, &out), 0, "rrsim with no jobs");
    TAP_EQ_INT(out.nidle, 2, "both instances idle");
    TAP_EQ_DBL(out.shortfall, 2 * 0.5 * 100, 1e-6, "shortfall is the whole window");
}

static void test_metrics(void)
{
    double used[2] = { 50, 50 }, share[2] = { 1, 1 }, sq[2] = { 0, 0 };
    TAP_EQ_DBL(emu_share_violation(used, share, 2), 0, 1e-12, "equal use: no violation");
    used[1] = 0;
    TAP_EQ_DBL(emu_share_violation(used, share, 2), 1, 1e-12, "one project only: violation 1");
    share[0] = 3;
    used[0] = 75;
    used[1] = 25;
    TAP_EQ_DBL(emu_share_violation(used, share, 2), 0, 1e-12, "3:1 use for 3:1 shares");
    TAP_EQ_DBL(emu_monotony(sq, 2, 1000, 3600), 0, 1e-12, "always running: monotony 0");
    /* round-robin on one CPU: X = 1 gives 0.5; a project waiting all the time
     * for an hour: RMS of a ramp to T over T is T / sqrt(3) */
    sq[0] = sq[1] = 3600.0 * 3600 * 3600 / 3;
    TAP_CHECK(emu_monotony(sq, 2, 3600, 3600) > 0 && emu_monotony(sq, 2, 3600, 3600) < 1,
              "waiting projects: monotony in (0, 1)");
}

/* The one-range bound, on batches small enough to count by hand. */
static void test_range_bound(void)
{
    /* replication 1: four jobs of one file each, two jobs per file */
    static const int first1[] = { 0, 0, 1, 1 }, one[] = { 1, 1, 1, 1 };
    /* neighbouring jobs share a file: job j reads files j and j + 1 */
    static const int first2[] = { 0, 1, 2, 3 }, two[] = { 2, 2, 2, 2 };
    /* files 10 and 12: the numbers need not start at 0 nor follow on */
    static const int first3[] = { 10, 12 };
    int h[4];

    /* 2 jobs: 3 places, reading 1, 2 and 1 files: 4/3 each, over 2 files */
    h[0] = 2, h[1] = 2;
    TAP_EQ_DBL(emu_range_bound(first1, one, 4, h, 2), 4.0 / 3, 1e-12,
               "R 1, two hosts of 2 jobs: ranges straddle a file boundary a third of the time");
    h[2] = 0;
    TAP_EQ_DBL(emu_range_bound(first1, one, 4, h, 3), 4.0 / 3, 1e-12,
               "a host with no job adds nothing");
    h[0] = 4;
    TAP_EQ_DBL(emu_range_bound(first1, one, 4, h, 1), 1, 1e-12,
               "one host of every job: one host per file");
    h[0] = 9;
    TAP_EQ_DBL(emu_range_bound(first1, one, 4, h, 1), 1, 1e-12,
               "more jobs than the batch has: every file once");
    /* replication 2: 8 results of 4 jobs */
    h[0] = h[1] = 4;
    TAP_EQ_DBL(emu_range_bound(first1, one, 4, h, 2), 2, 1e-12,
               "R 2, two hosts of every job: R hosts per file");
    h[0] = h[1] = h[2] = h[3] = 2;
    TAP_EQ_DBL(emu_range_bound(first1, one, 4, h, 4), 8.0 / 3, 1e-12,
               "R 2, four hosts of 2 jobs: 4 x 4/3 over 2 files");
    /* shared files: 5 files; 1 job reads 2, any 2 consecutive read 3,
     * any 3 read 4 */
    h[0] = h[1] = h[2] = h[3] = 1;
    TAP_EQ_DBL(emu_range_bound(first2, two, 4, h, 4), 8.0 / 5, 1e-12,
               "shared files, a job a host: 4 x 2 over 5 files");
    h[0] = h[1] = 2;
    TAP_EQ_DBL(emu_range_bound(first2, two, 4, h, 2), 6.0 / 5, 1e-12,
               "shared files, two hosts of 2 jobs: 2 x 3 over 5");
    h[0] = 3, h[1] = 1;
    TAP_EQ_DBL(emu_range_bound(first2, two, 4, h, 2), 6.0 / 5, 1e-12,
               "shared files, 3 jobs and 1 job: (4 + 2) / 5");
    h[0] = 1;
    TAP_EQ_DBL(emu_range_bound(first3, one, 2, h, 1), 0.5, 1e-12,
               "files 10 and 12: one job reads one of 2 files");
    h[0] = 2;
    TAP_EQ_DBL(emu_range_bound(first3, one, 2, h, 1), 1, 1e-12,
               "files 10 and 12: both jobs read both files, 11 is not one");
    TAP_EQ_DBL(emu_range_bound(first3, one, 0, h, 1), 0, 1e-12, "no job: 0");
    TAP_EQ_DBL(emu_range_bound(first3, one, 2, h, 0), 0, 1e-12, "no host: 0");
    h[0] = -1;
    TAP_EQ_DBL(emu_range_bound(first3, one, 2, h, 1), -1, 1e-12, "a negative count: -1");
}

static void test_rng(void)
{
    struct emu_rng r;
    double sum = 0, sum2 = 0, e = 0;
    int i, n = 200000, on = 0;
    struct emu_avail a;

    emu_rng_seed(&r, 42);
    for (i = 0; i < n; i++) {
        double x = emu_lognormal_factor(emu_normal(&r), 2.0);
        sum += x;
        sum2 += x * x;
        e += emu_exponential(&r, 10);
    }
    TAP_EQ_DBL(sum / n, 1.0, 0.05, "log-normal factor has mean 1 (%.4f)", sum / n);
    TAP_EQ_DBL(sqrt(sum2 / n - (sum / n) * (sum / n)), 2.0, 0.4, "and standard deviation 2");
    TAP_EQ_DBL(e / n, 10, 0.2, "exponential mean 10 (%.3f)", e / n);
    TAP_EQ_DBL(emu_lognormal_factor(1.5, 0), 1, 0, "sd 0 gives exactly 1");
    TAP_EQ_DBL(emu_job_fpops(1e12, 2, 0.5, 17, 3), emu_job_fpops(1e12, 2, 0.5, 17, 3), 0,
               "a job's size depends on its number only");
    TAP_CHECK(emu_hash("a", 1) != emu_hash("b", 1), "hash separates names");

    emu_avail_init(&a, 0.7, 1000, 0, &r);
    for (i = 0; i < 1000000; i++) {
        emu_avail_update(&a, i * 10.0, &r);
        on += a.on;
    }
    TAP_EQ_DBL(on / 1e6, 0.7, 0.02, "availability on 70%% of the time (%.3f)", on / 1e6);
}

static int ids_next;
static double bytes_got;

static int file_id(void *ctx, const char *name)
{
    (void)ctx;
    (void)name;
    return ids_next++;
}

static void downloaded(void *ctx, int file, double nbytes)
{
    (void)ctx;
    (void)file;
    bytes_got += nbytes;
}

/* A host of one CPU at 1 GFLOPS, always on; a client with an hour's
 * buffer (min and additional), CS2, JC2, work fetch checked every minute. */
static void one_cpu_client(struct emu_hw *hw, struct emu_client_params *par)
{
    memset(hw, 0, sizeof *hw);
    hw->ncpus = 1;
    hw->cpu_flops = 1e9;
    hw->on_frac = 1;
    memset(par, 0, sizeof *par);
    par->buf_min = 3600;
    par->buf_add = 3600;
    par->sched_period = 3600;
    par->cs = 2;
    par->jc = 2;
    par->poll = 60;
}

/* *a becomes a good reply with one job *nj (1 GFLOPS assumed, one input
 * file); the rest of *a is left as the caller set it. */
static void one_job_reply(struct emu_answer *a, struct emu_new_job *nj, const char *name,
                          double est_fpops, double fpops, double deadline,
                          const char *const *fname, const double *nbytes, const int *sticky)
{
    memset(nj, 0, sizeof *nj);
    nj->name = name;
    nj->est_fpops = est_fpops;
    nj->fpops = fpops;
    nj->flops_est = 1e9;
    nj->deadline = deadline;
    nj->file_names = fname;
    nj->file_nbytes = nbytes;
    nj->file_sticky = sticky;
    nj->nfiles = 1;
    a->ok = 1;
    a->jobs = nj;
    a->njobs = 1;
}

static void test_client(void)
{
    struct emu_client c;
    struct emu_client_params par;
    struct emu_hw hw;
    struct emu_ask ask;
    struct emu_answer a;
    struct emu_new_job nj;
    struct emu_files_cb cb = { file_id, downloaded, NULL };
    const char *fname[1] = { "f0" };
    double nbytes[1] = { 1000 }, share = 1, t;
    int sticky[1] = { 1 };
    const char *ack[1];

    one_cpu_client(&hw, &par);
    TAP_EQ_INT(emu_client_init(&c, &hw, &par, &share, 1, 1, 0), 0, "client set up");
    TAP_EQ_INT(emu_client_plan(&c, 0, 1, &ask), 1, "an idle client asks for work");
    TAP_EQ_INT(ask.proj, 0, "from the only project");
    TAP_EQ_DBL(ask.req_secs[0], 7200, 1e-6, "the whole buffer: 7200 s");
    TAP_EQ_DBL(ask.req_instances[0], 1, 0, "one idle CPU");

    /* the reply: one job of 100 s estimated that really takes 200 s */
    memset(&a, 0, sizeof a);
    one_job_reply(&a, &nj, "job_0", 1e11, 2e11, 150, fname, nbytes, sticky);
    a.request_delay = 7;
    TAP_EQ_INT(emu_client_answer(&c, 0, &ask, &a, &cb), 0, "reply taken");
    TAP_EQ_INT(c.njobs, 1, "one job queued");
    TAP_EQ_DBL(bytes_got, 1000, 0, "its input file was fetched");
    TAP_CHECK(emu_client_holds(&c, 0), "and is held sticky");
    TAP_EQ_DBL(emu_job_time_left(&c, &c.jobs[0]), 100, 1e-9, "estimate: 100 s");

    /* "reset project" on a copy of this state: the job and its file go */
    {
        struct emu_client r = c;
        struct emu_job job = c.jobs[0];
        struct emu_held_file held = c.files[0];
        r.jobs = &job;
        r.files = &held;
        job.done = 5e10;
        TAP_EQ_INT(emu_client_reset_project(&r, 0), 1, "reset: one job forgotten");
        TAP_EQ_INT(r.njobs + r.nfiles, 0, "reset: no job and no file left");
        TAP_EQ_DBL(r.wasted_flops - c.wasted_flops, 5e10, 1, "reset: its work is wasted");
        TAP_EQ_INT((int)r.proj[0].hostid, (int)c.proj[0].hostid, "reset: the host id stays");
    }
    for (t = 0; t < 300; t += 60)
        emu_client_advance(&c, t, 60);
    TAP_EQ_DBL(c.jobs[0].finished, 200, 1e-6, "it finished at 200 s");
    TAP_CHECK(c.jobs[0].late, "after its deadline: late");
    TAP_EQ_DBL(c.wasted_flops, 2e11, 1, "its flops count as waste");
    TAP_EQ_DBL(c.idle_flops, 100 * 1e9, 1, "the CPU idled the last 100 s");
    TAP_EQ_DBL(c.proj[0].dcf, 2, 1e-9, "duration correction rose to 2 at once");
    TAP_CHECK(c.jobs[0].finished > 0 && !emu_client_holds(&c, 1), "nothing else held");

    /* reporting: the request delay is over, so it reports and asks again */
    TAP_EQ_INT(emu_client_plan(&c, 300, 0, &ask), 1, "the client contacts the project");
    TAP_EQ_INT(ask.nreport, 1, "to report its job");
    memset(&a, 0, sizeof a);
    ack[0] = "job_0";
    a.ok = 1;
    a.acks = ack;
    a.nacks = 1;
    TAP_EQ_INT(emu_client_answer(&c, 300, &ask, &a, &cb), 0, "ack taken");
    TAP_EQ_INT(c.njobs, 0, "the acknowledged job is gone");
    TAP_CHECK(c.proj[0].bo_until[0] >= 300 + 300 && c.proj[0].bo_until[0] < 300 + 900,
              "no job for a request: CPU backed off 5 to 15 minutes, as client 7.20 (%.0f)",
              c.proj[0].bo_until[0] - 300);
    TAP_EQ_INT(emu_client_plan(&c, 310, 1, &ask), 0, "backed off: no request");

    /* an RPC failure defers all contact */
    memset(&a, 0, sizeof a);
    ask.proj = 0;
    TAP_EQ_INT(emu_client_answer(&c, 400, &ask, &a, &cb), 0, "failure taken");
    TAP_CHECK(c.proj[0].min_rpc >= 430 && c.proj[0].min_rpc <= 460, "deferred 30 to 60 s");
    emu_client_free(&c);
}

/*
 * The project's aborts as client 7.20 takes them: a job never started
 * goes at <result_abort_if_not_started>, one that ran goes only at
 * <result_abort>, and an aborted job is reported as such (state 6, exit
 * status 202).  With ignore (the emulator before) nothing goes.
 */
static void test_client_aborts(int ignore)
{
    struct emu_client c;
    struct emu_client_params par;
    struct emu_hw hw;
    struct emu_ask ask;
    struct emu_answer a;
    struct emu_new_job nj;
    struct emu_files_cb cb = { file_id, downloaded, NULL };
    const char *fname[1] = { "f0" }, *names[2] = { "job_0", "job_1" };
    double nbytes[1] = { 1000 }, share = 1, t;
    int sticky[1] = { 1 }, always[2] = { 0, 0 }, i;
    const char *tag = ignore ? "ignored" : "7.20";

    one_cpu_client(&hw, &par);
    par.ignore_aborts = ignore;
    emu_client_init(&c, &hw, &par, &share, 1, 1, 0);
    for (i = 0; i < 2; i++) {
        emu_client_plan(&c, 0, 1, &ask);
        memset(&a, 0, sizeof a);
        one_job_reply(&a, &nj, names[i], 1e11, 1e11, 86400, fname, nbytes, sticky);
        emu_client_answer(&c, 0, &ask, &a, &cb);
    }
    for (t = 0; t < 60; t += 10)
        emu_client_advance(&c, t, 10);
    TAP_EQ_INT(c.njobs, 2, "aborts (%s): two jobs queued", tag);
    TAP_CHECK(c.jobs[0].done > 0 && c.jobs[1].done == 0, "aborts (%s): the first one runs", tag);

    /* both "if not started": only the second goes */
    memset(&a, 0, sizeof a);
    a.ok = 1;
    a.aborts = names;
    a.abort_always = always;
    a.naborts = 2;
    ask.proj = 0;
    emu_client_answer(&c, 60, &ask, &a, &cb);
    TAP_EQ_INT(c.jobs[0].aborted, 0, "aborts (%s): a started job stays at 'if not started'", tag);
    TAP_EQ_INT(c.jobs[1].aborted, !ignore, "aborts (%s): the job never started %s", tag,
               ignore ? "stays" : "goes");
    TAP_EQ_INT(c.jobs[1].finished > 0, !ignore, "aborts (%s): ... and is to be reported", tag);
    TAP_EQ_DBL(c.wasted_flops, 0, 0, "aborts (%s): nothing computed was wasted", tag);

    /* a plain abort ends the running one too, and its work is wasted */
    always[0] = 1;
    a.naborts = 1;
    emu_client_answer(&c, 60, &ask, &a, &cb);
    TAP_EQ_INT(c.jobs[0].aborted, !ignore, "aborts (%s): <result_abort> ends a running job",
               tag);
    TAP_EQ_DBL(c.wasted_flops, ignore ? 0 : 6e10, 1, "aborts (%s): its 60 s of work wasted",
               tag);
    TAP_EQ_INT((int)c.jobs_aborted, ignore ? 0 : 2, "aborts (%s): counted", tag);
    for (t = 60; t < 300; t += 10)
        emu_client_advance(&c, t, 10);
    TAP_EQ_INT(c.jobs_finished, ignore ? 2 : 0, "aborts (%s): %s", tag,
               ignore ? "both ran to the end" : "neither ran on");
    emu_client_free(&c);
}

/* The reply's aborts are read with their kind. */
static void test_reply_aborts(void)
{
    static const char xml[] =
        "<scheduler_reply>\n<result_abort>\n<name>r_1</name>\n</result_abort>\n"
        "<result_abort_if_not_started>\n<name>r_2</name>\n</result_abort_if_not_started>\n"
        "<result_abort_if_not_started>\n</result_abort_if_not_started>\n"
        "</scheduler_reply>\n";
    static struct emu_reply r;

    TAP_EQ_INT(emu_reply_parse(&r, xml, sizeof xml - 1), 0, "reply with aborts parsed");
    TAP_EQ_INT(r.naborts, 2, "two aborts with a name (one without is skipped)");
    TAP_CHECK(strcmp(r.aborts[0], "r_1") == 0 && r.abort_always[0] == 1,
              "<result_abort>: r_1, always");
    TAP_CHECK(strcmp(r.aborts[1], "r_2") == 0 && r.abort_always[1] == 0,
              "<result_abort_if_not_started>: r_2, only if not started");
}

/*
 * Resource backoffs as client 7.20 (fetch 2) against seed 002 alone
 * (fetch 1): a call back requested by the project while backed off asks
 * for work only as 7.20 ("piggyback") and does not lengthen the backoff;
 * a job that finishes clears the backoff only as 7.20.
 */
static void test_client_backoffs(int fetch)
{
    struct emu_client c;
    struct emu_client_params par;
    struct emu_hw hw;
    struct emu_ask ask;
    struct emu_answer a;
    struct emu_new_job nj;
    struct emu_files_cb cb = { file_id, downloaded, NULL };
    const char *fname[1] = { "g0" };
    double nbytes[1] = { 10 }, share = 1, t, until;
    int sticky[1] = { 0 };
    const char *tag = fetch == EMU_FETCH_720 ? "7.20" : "seed 002";

    one_cpu_client(&hw, &par);
    par.jc = 1;
    par.fetch = fetch;
    TAP_EQ_INT(emu_client_init(&c, &hw, &par, &share, 1, 7, 0), 0, "%s: client set up", tag);
    TAP_EQ_INT(emu_client_plan(&c, 0, 1, &ask), 1, "%s: asks for work", tag);
    memset(&a, 0, sizeof a);
    one_job_reply(&a, &nj, "bo_0", 1e11, 1e11, 1e6, fname, nbytes, sticky);
    emu_client_answer(&c, 0, &ask, &a, &cb);
    TAP_EQ_INT(emu_client_plan(&c, 10, 1, &ask), 1, "%s: 100 s queued: asks for more", tag);
    TAP_EQ_INT(ask.reason, EMU_RPC_NEED_WORK, "%s: because it needs work", tag);
    memset(&a, 0, sizeof a);
    a.ok = 1;
    a.next_rpc_delay = 50;
    emu_client_answer(&c, 10, &ask, &a, &cb);
    until = c.proj[0].bo_until[0];
    TAP_CHECK(until >= 10 + 300 && until < 10 + (fetch == EMU_FETCH_720 ? 900 : 600.001),
              "%s: no job: backed off (%.0f s)", tag, until - 10);

    TAP_EQ_INT(emu_client_plan(&c, 60, 0, &ask), 1, "%s: the project's call back", tag);
    TAP_EQ_INT(ask.reason, EMU_RPC_PROJECT_REQ, "%s: made on the project's request", tag);
    if (fetch == EMU_FETCH_720)
        TAP_CHECK(ask.req_secs[0] > 0 && ask.req_instances[0] == 0,
                  "7.20: asks for work although backed off (%.0f s)", ask.req_secs[0]);
    else
        TAP_CHECK(ask.req_secs[0] == 0 && ask.req_instances[0] == 0,
                  "seed 002: asks for no work while backed off");
    memset(&a, 0, sizeof a);
    a.ok = 1;
    emu_client_answer(&c, 60, &ask, &a, &cb);
    TAP_EQ_DBL(c.proj[0].bo_until[0], until, 0, "%s: a call back without work keeps the backoff",
               tag);

    for (t = 0; t < 120; t += 20)
        emu_client_advance(&c, t, 20);
    TAP_EQ_DBL(c.jobs[0].finished, 100, 1e-6, "%s: the job finished at 100 s", tag);
    TAP_EQ_INT(emu_client_plan(&c, 120, 0, &ask), 1, "%s: contacts the project", tag);
    TAP_EQ_INT(ask.nreport, 1, "%s: to report the job", tag);
    if (fetch == EMU_FETCH_720) {
        TAP_EQ_DBL(c.proj[0].bo_until[0], 0, 0, "7.20: the finished job cleared the backoff");
        TAP_CHECK(ask.reason == EMU_RPC_NEED_WORK && ask.req_instances[0] == 1,
                  "7.20: and asks for work for its idle CPU");
    } else {
        TAP_EQ_DBL(c.proj[0].bo_until[0], until, 0, "seed 002: still backed off");
        TAP_CHECK(ask.reason == EMU_RPC_RESULTS_DUE && ask.req_secs[0] == 0,
                  "seed 002: reports only");
    }
    emu_client_free(&c);
}

static void test_timeline(void)
{
    static struct emu_timeline tl;
    int k;

    /* 10 hours, 100 flops available each; idle 50 in hour 0, 10 in 9 */
    for (k = 0; k < 10; k++)
        emu_timeline_add(&tl, k * 3600 + 1800, 100, k == 0 ? 50 : k == 9 ? 10 : 0);
    TAP_EQ_DBL(emu_timeline_idle_share(&tl, 0, 36000), 0.06, 1e-12, "the whole run: idleness");
    TAP_EQ_DBL(emu_timeline_idle_share(&tl, 0, 3600), 0.05, 1e-12, "the first hour");
    TAP_EQ_DBL(emu_timeline_idle_share(&tl, 0, 1800), 0.025, 1e-12,
               "half an hour: half the hour's idle flops");
    TAP_EQ_DBL(emu_timeline_idle_share(&tl, 28800, 36000), 0.01, 1e-12, "the last fifth");
    TAP_EQ_DBL(emu_timeline_idle_share(&tl, 0, 3600) + emu_timeline_idle_share(&tl, 3600, 28800) +
                   emu_timeline_idle_share(&tl, 28800, 36000),
               0.06, 1e-12, "spans add up to the idleness");
    emu_timeline_add(&tl, -5, 0, 0);
    emu_timeline_add(&tl, 1e12, 1000, 0);
    TAP_EQ_DBL(emu_timeline_idle_share(&tl, 0, 36000), 0.06 * 1000 / 2000, 1e-12,
               "far beyond the slots: in the last, counted as available");
}

int main(void)
{
    test_rrsim();
    test_metrics();
    test_range_bound();
    test_timeline();
    test_rng();
    test_client();
    test_client_backoffs(EMU_FETCH_720);
    test_client_backoffs(EMU_FETCH_SEED);
    test_client_aborts(0);
    test_client_aborts(1);
    test_reply_aborts();
    return tap_done();
}
