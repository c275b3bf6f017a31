/*
 * test_emu_smoke.c - the emulator's small version for make check: about
 * 50 hosts for a few simulated days against the real scheduler, daemons
 * and database of the test sandbox, with churn, a GPU share, a second
 * (stub) project and failing RPCs; asserts the invariants: every job of
 * the batch finishes (none lost: a canonical result, or an error only
 * where its replicas kept timing out), no result is sent twice, no user
 * gets two replicas of a job, and the paper's metrics lie in [0, 1].
 */
#include <stdio.h>
#include <string.h>

#include "emu_world.h"
#include "sched_request.h"
#include "tap.h"

static int in01(double x)
{
    return x >= 0 && x <= 1;
}

static void check_common(const char *what, const struct emu_outcome *o)
{
    TAP_EQ_INT(o->double_sends, 0, "%s: no result was sent twice (%ld received)", what,
               o->results_received);
    TAP_EQ_INT(o->db.user_dups, 0, "%s: no user got two replicas of a job", what);
    TAP_CHECK(in01(o->idleness), "%s: idleness %.4f in [0, 1]", what, o->idleness);
    TAP_CHECK(in01(o->waste), "%s: waste %.4f in [0, 1]", what, o->waste);
    TAP_CHECK(in01(o->share_violation), "%s: share violation %.4f in [0, 1]", what,
              o->share_violation);
    TAP_CHECK(in01(o->monotony), "%s: monotony %.4f in [0, 1]", what, o->monotony);
    TAP_CHECK(o->waste + o->idleness <= 1 + 1e-9, "%s: waste + idleness <= 1", what);
}

int main(void)
{
    struct emu_scenario sc;
    struct emu_outcome o;
    char err[1024];
    int r;

    sched_request_init();

    /* 1. a locality batch, worked to the end by a changing population */
    emu_scenario_defaults(&sc);
    sc.nhosts = 50;
    sc.nusers = 12;
    sc.pop.gpu_frac = 0.2;
    sc.pop.on_mean = 3 * 3600;
    sc.life_days = 4;              /* about half the hosts leave within the run */
    sc.rpc_fail = 0.02;
    sc.locality = 1;
    sc.njobs = 600;
    sc.nfiles = 60;
    sc.files_per_job = 2;
    sc.file_bytes = 1e6;
    sc.fpops_est = 3.6e12;
    sc.size_sd = 0.3;
    sc.delay_bound = 12 * 3600;
    sc.replication = 2;
    sc.min_quorum = 2;
    sc.team_min = 5;
    sc.team_max = 10;
    sc.nstubs = 1;
    sc.stubs[0].share = 50;
    sc.stubs[0].fpops_est = 2e13;
    sc.stubs[0].delay_bound = 4 * 86400;
    sc.stubs[0].max_jobs = 8;
    sc.stubs[0].request_delay = 7;
    sc.extra_config = "host_idle_timeout = 43200";
    sc.days = 4;
    sc.until_done = 1;
    sc.wg_period = 600;
    sc.tr_period = 600;
    sc.seed = 7;
    r = emu_run(&sc, &o, err, sizeof err);
    TAP_CHECK(r == 0, "locality run completed its loop%s%s", r ? ": " : "", r ? err : "");
    if (r == 0) {
        emu_outcome_print(&sc, &o);
        TAP_CHECK(o.batch_done, "the batch is complete after %.2f simulated days", o.sim_days);
        TAP_EQ_INT(o.db.workunits, sc.njobs, "the work generator made every job");
        TAP_EQ_INT(o.db.wu_finished, sc.njobs,
                   "no job lost: every job finished (%lld with a canonical result)",
                   o.db.wu_canonical);
        /* a job whose replicas keep timing out (hosts that leave or stay
         * off past the 12-hour deadline) ends in error by the batch's
         * max_error_results (3): the server's rule, not a lost job */
        TAP_CHECK(o.db.wu_error * 3 <= o.db.no_reply,
                  "the %lld jobs that ended in error are explained by timeouts (%lld NO_REPLY)",
                  o.db.wu_error, o.db.no_reply);
        TAP_CHECK(o.db.wu_canonical * 10 >= (long long)sc.njobs * 9,
                  "most jobs got a canonical result (%lld of %d)", o.db.wu_canonical, sc.njobs);
        TAP_CHECK(o.db.success >= o.db.wu_canonical * sc.min_quorum,
                  "each canonical result had its %d successes (%lld in all)", sc.min_quorum,
                  o.db.success);
        TAP_CHECK(o.reports_acked >= o.db.success,
                  "every success in the database was reported by an emulated host (%ld acked)",
                  o.reports_acked);
        TAP_CHECK(o.departures > 0 && o.hosts_total > sc.nhosts,
                  "hosts left (%ld) and arrived (%ld in all)", o.departures, o.hosts_total);
        /* abandoned results time out at their deadline, or get a new
         * replica when their host is presumed gone, or a backup in the
         * batch's tail; a batch that completes sooner (its jobs done by
         * other replicas) leaves them in progress */
        TAP_CHECK(o.abandoned == 0 || o.db.no_reply + o.db.host_lost + o.db.backups > 0 ||
                      (o.db.in_progress > 0 && o.makespan < sc.delay_bound),
                  "results abandoned by departing hosts (%ld) timed out, had their host "
                  "presumed gone or got backups (%lld NO_REPLY, %lld presumed gone, %lld "
                  "backups), or were still in progress when the batch completed (%lld, at "
                  "%.1f h)", o.abandoned, o.db.no_reply, o.db.host_lost, o.db.backups,
                  o.db.in_progress, o.makespan / 3600);
        TAP_CHECK(o.rpcs_failed > 0, "some RPCs failed (%ld) and were retried", o.rpcs_failed);
        TAP_CHECK(o.db.ncursors > 1, "the batch was cut into %d cursors", o.db.ncursors);
        TAP_CHECK(o.files_used == sc.nfiles, "every input file was sent (%ld)", o.files_used);
        TAP_CHECK(o.hosts_per_file >= 1, "hosts per file %.2f", o.hosts_per_file);
        TAP_CHECK(o.range_bound > 0 && o.range_bound <= o.hosts_per_file,
                  "one range per host gives %.2f hosts per file, no more than as run",
                  o.range_bound);
        TAP_CHECK(o.rpcs_stub > 0, "the hosts also worked for the stub project (%ld RPCs)",
                  o.rpcs_stub);
        TAP_CHECK(o.makespan_ratio >= 1, "makespan %.1f h is no shorter than the ideal %.1f h",
                  o.makespan / 3600, o.ideal / 3600);
        check_common("locality", &o);
    }

    /* 2. a plain batch under WS1, half a day, tight deadlines */
    emu_scenario_defaults(&sc);
    sc.nhosts = 20;
    sc.ws2 = 0;
    sc.njobs = 0;
    sc.fpops_est = 1.3e13;
    sc.size_sd = 1;
    sc.delay_bound = 8 * 3600;
    sc.days = 0.5;
    sc.tr_period = 1800;
    sc.seed = 11;
    r = emu_run(&sc, &o, err, sizeof err);
    TAP_CHECK(r == 0, "plain run completed its loop%s%s", r ? ": " : "", r ? err : "");
    if (r == 0) {
        emu_outcome_print(&sc, &o);
        TAP_CHECK(o.results_received > 0, "hosts got work (%ld results)", o.results_received);
        TAP_CHECK(o.reports_acked > 0, "hosts reported work (%ld)", o.reports_acked);
        TAP_EQ_INT(o.db.ncursors, 0, "a plain batch has no cursors");
        check_common("plain", &o);
    }
    return tap_done();
}
