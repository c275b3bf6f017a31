/*
 * test_edf.c - unit tests of the EDF feasibility check (sched/policy/edf.c).
 *
 * A table of small hand-made queues, each with the arithmetic that gives
 * its verdict; then the reply flow (accepted jobs count), independent
 * CPU/GPU queues, invalid input, the cached baseline, a randomized
 * cross-check against a brute-force reference simulator written here, and
 * a scale check (2000 jobs, 10,000 checks) that prints the time per check.
 * Notation in comments: a job is (duration, deadline); [s,f] is the
 * interval it runs in.
 */
#include "edf.h"
#include "tap.h"

#include <stdint.h>
#include <stdlib.h>
#include <time.h>

#define MAXJ 8

struct tjob {
    double dur, dl;
};

struct edf_case {
    const char *name;
    int ninst;
    double delay;
    int njobs;
    struct tjob jobs[MAXJ];   /* added in this order */
    struct tjob cand;
    enum edf_verdict want;
};

static const struct edf_case cases[] = {
    /* (1) Nothing queued, 1 instance free at 0: the candidate runs [0,10],
     * 10 <= 20. */
    {"empty queue, candidate fits", 1, 0, 0, {{0, 0}}, {10, 20}, EDF_OK},
    /* Finishing exactly at the deadline is on time: [0,20], 20 <= 20. */
    {"empty queue, finishes exactly at its deadline", 1, 0, 0, {{0, 0}}, {20, 20}, EDF_OK},
    /* A zero-duration job at time 0 with deadline 0 finishes at 0. */
    {"zero-duration candidate", 1, 0, 0, {{0, 0}}, {0, 0}, EDF_OK},

    /* (2) The candidate alone takes 100 s but is due at 50: [0,100]. */
    {"late candidate refused", 1, 0, 0, {{0, 0}}, {100, 50}, EDF_CANDIDATE_LATE},
    /* Late because of the queue: (40,45) runs [0,40] first (earlier
     * deadline), the candidate (20,50) runs [40,60], 60 > 50. */
    {"candidate late behind an earlier-deadline job", 1, 0, 1, {{40, 45}}, {20, 50},
     EDF_CANDIDATE_LATE},

    /* (3) Existing (50,60) alone: [0,50], on time.  The candidate (20,30)
     * has the earlier deadline and runs [0,20] (on time), pushing the
     * existing job to [20,70], 70 > 60. */
    {"feasible candidate pushes another job late", 1, 0, 1, {{50, 60}}, {20, 30},
     EDF_MAKES_OTHER_LATE},
    /* Same job, candidate due later: (50,60) [0,50], candidate [50,70],
     * 70 <= 100. */
    {"candidate behind an on-time job", 1, 0, 1, {{50, 60}}, {20, 100}, EDF_OK},

    /* (4) Existing (50,40) is already late: [0,50], 50 > 40.  Candidate
     * (10,20) goes first, [0,10] (on time), and the late job moves to
     * [10,60]: later than 50. */
    {"already-late job made later", 1, 0, 1, {{50, 40}}, {10, 20}, EDF_MAKES_LATE_LATER},
    /* Both kinds of harm: baseline B=(20,15) [0,20] late, C=(5,26) [20,25]
     * on time.  Candidate (5,10) runs [0,5]; B [5,25] (later), C [25,30]
     * > 26 (now late).  Making an on-time job late is reported. */
    {"other-late wins over late-later", 1, 0, 2, {{20, 15}, {5, 26}}, {5, 10},
     EDF_MAKES_OTHER_LATE},

    /* (5) Late job (50,40) [0,50]; candidate (10,100) has a later deadline
     * so runs [50,60] <= 100 and the late job still finishes at 50. */
    {"late job unchanged by a later-deadline candidate", 1, 0, 1, {{50, 40}}, {10, 100},
     EDF_OK},
    /* 2 instances: the candidate (10,20) goes first on one instance
     * [0,10]; the late job (50,40) still runs [0,50] on the other. */
    {"late job unchanged on the other instance", 2, 0, 1, {{50, 40}}, {10, 20}, EDF_OK},

    /* (7) 2 instances, two jobs (30,30) run in parallel: [0,30] each.
     * Candidate (10,40) waits for the first free instance: [30,40]. */
    {"2 instances: third job fits after the parallel pair", 2, 0, 2, {{30, 30}, {30, 30}},
     {10, 40}, EDF_OK},
    /* Tighter: candidate (10,35) also runs [30,40], 40 > 35. */
    {"2 instances: third job with a tight deadline is late", 2, 0, 2, {{30, 30}, {30, 30}},
     {10, 35}, EDF_CANDIDATE_LATE},
    /* Tighter still: candidate (10,20) goes first [0,10] on instance A,
     * job 1 [0,30] on B, job 2 [10,40] on A: 40 > 30. */
    {"2 instances: urgent candidate delays a parallel job", 2, 0, 2, {{30, 30}, {30, 30}},
     {10, 20}, EDF_MAKES_OTHER_LATE},
    /* The same pair on 1 instance: [0,30], [30,60]; candidate [60,70]
     * > 40 (where 2 instances gave 40 <= 40). */
    {"1 instance: the pair runs serially", 1, 0, 2, {{30, 30}, {30, 30}}, {10, 40},
     EDF_CANDIDATE_LATE},
    /* Many instances, few jobs: all four (100,100) run in parallel. */
    {"1024 instances, few jobs", 1024, 0, 3, {{100, 100}, {100, 100}, {100, 100}},
     {100, 100}, EDF_OK},

    /* (8) start_delay 100: the candidate (10,105) runs [100,110], 110 > 105 ... */
    {"start_delay makes a candidate late", 1, 100, 0, {{0, 0}}, {10, 105},
     EDF_CANDIDATE_LATE},
    /* ... while without the delay it runs [0,10]. */
    {"same candidate without start_delay", 1, 0, 0, {{0, 0}}, {10, 105}, EDF_OK},
    /* Delay 100, candidate (10,110): [100,110], exactly on time. */
    {"start_delay, exactly on time", 1, 100, 0, {{0, 0}}, {10, 110}, EDF_OK},
    /* Delay 100, existing (10,115) [100,110].  Candidate (5,112) first:
     * [100,105]; existing [105,115] <= 115. */
    {"start_delay, candidate fits in the slack", 1, 100, 1, {{10, 115}}, {5, 112}, EDF_OK},
    /* Candidate (6,112): [100,106]; existing [106,116] > 115. */
    {"start_delay, candidate one second too long", 1, 100, 1, {{10, 115}}, {6, 112},
     EDF_MAKES_OTHER_LATE},

    /* (9) Existing (10,-5) is past due: [0,10], late.  Candidate (5,100)
     * runs after it, [10,15]; the late job is unchanged. */
    {"past-deadline job does not block", 1, 0, 1, {{10, -5}}, {5, 100}, EDF_OK},
    /* Candidate (0,-1) comes after the -5 job: [10,10], 10 > -1. */
    {"candidate with a past deadline is late", 1, 0, 1, {{10, -5}}, {0, -1},
     EDF_CANDIDATE_LATE},
    /* Candidate (1,-10) comes first: [0,1], 1 > -10.  A past deadline can
     * never be met (finish >= start_delay >= 0). */
    {"candidate with an earlier past deadline is late", 1, 0, 1, {{10, -5}}, {1, -10},
     EDF_CANDIDATE_LATE},
    /* (10,-5) [0,10] and (20,25) [10,30] are both late.  Candidate (5,20)
     * sits between them: [10,15] on time; (20,25) moves to [15,35] > 30. */
    {"late jobs with past and future deadlines", 1, 0, 2, {{10, -5}, {20, 25}}, {5, 20},
     EDF_MAKES_LATE_LATER},

    /* (10) Equal deadlines: existing (30,50) runs first [0,30], candidate
     * (30,50) after it [30,60] > 50.  (Had the candidate gone first, the
     * verdict would have been MAKES_OTHER_LATE.) */
    {"tie: candidate goes after the existing job", 1, 0, 1, {{30, 50}}, {30, 50},
     EDF_CANDIDATE_LATE},
    /* Existing (10,50) [0,10], candidate (40,50) [10,50]: on time. */
    {"tie: both fit", 1, 0, 1, {{10, 50}}, {40, 50}, EDF_OK},
    /* Existing (60,50) is late [0,60]; the zero-duration candidate due at
     * 50 goes after it: [60,60] > 50. */
    {"tie with a late job", 1, 0, 1, {{60, 50}}, {0, 50}, EDF_CANDIDATE_LATE},
    /* Ties among existing jobs keep insertion order: (40,50) [0,40] then
     * (5,50) [40,45].  Candidate (5,50) after both: [45,50] on time. */
    {"tie among three", 1, 0, 2, {{40, 50}, {5, 50}}, {5, 50}, EDF_OK},
};

/* Build the queue of one table case.  Returns 0 or -1. */
static int build(struct edf_queue *q, const struct edf_case *c)
{
    int i;

    if (edf_init(q, c->ninst, c->delay) < 0)
        return -1;
    for (i = 0; i < c->njobs; i++)
        if (edf_add(q, c->jobs[i].dur, c->jobs[i].dl) < 0)
            return -1;
    return 0;
}

static void test_table(void)
{
    size_t i;

    for (i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        const struct edf_case *c = &cases[i];
        struct edf_queue q;
        enum edf_verdict v;

        if (!TAP_CHECK(build(&q, c) == 0, "%s: queue built", c->name)) {
            edf_free(&q);
            continue;
        }
        v = edf_check(&q, c->cand.dur, c->cand.dl);
        TAP_EQ_INT(v, c->want, "%s: %s", c->name, edf_verdict_str(c->want));
        /* The check leaves the job list alone and is repeatable. */
        TAP_EQ_INT(q.njobs, c->njobs, "%s: job list unchanged", c->name);
        TAP_EQ_INT(edf_check(&q, c->cand.dur, c->cand.dl), v, "%s: same verdict again",
                   c->name);
        edf_free(&q);
    }
}

/* (6) Jobs accepted earlier in the same reply count.  1 instance, one
 * in-progress job (100,1000) [0,100]; candidates (200,1000) each.  After
 * k accepted ones the next runs [100+200k, 300+200k]: k = 0..3 finish by
 * 900 <= 1000, the 5th would finish at 1100 > 1000. */
static void test_reply_sequence(void)
{
    struct edf_queue q, fresh;
    int accepted = 0, k;
    enum edf_verdict v = EDF_OK;

    edf_init(&q, 1, 0);
    edf_add(&q, 100, 1000);
    for (k = 0; k < 10; k++) {
        v = edf_check(&q, 200, 1000);
        if (v != EDF_OK)
            break;
        TAP_EQ_INT(edf_add(&q, 200, 1000), 0, "reply: accepted job %d added", k + 1);
        accepted++;
    }
    TAP_EQ_INT(accepted, 4, "reply: 4 candidates accepted before the instance is full");
    TAP_EQ_INT(v, EDF_CANDIDATE_LATE, "reply: the 5th candidate is refused");
    TAP_EQ_INT(edf_baseline(&q), 0, "reply: baseline");
    TAP_EQ_DBL(q.jobs[q.njobs - 1].finish, 900, 0, "reply: last accepted job finishes at 900");

    /* The same candidate is fine on a queue without the accepted jobs. */
    edf_init(&fresh, 1, 0);
    edf_add(&fresh, 100, 1000);
    TAP_EQ_INT(edf_check(&fresh, 200, 1000), EDF_OK, "reply: fresh queue accepts it");
    edf_free(&fresh);

    /* A shorter job still fits the remaining 100 s: [900,1000]. */
    TAP_EQ_INT(edf_check(&q, 100, 1000), EDF_OK, "reply: a 100 s job still fits");
    edf_free(&q);
}

/* (11) The CPU queue (4 instances) and the GPU queue (1 instance) are
 * separate objects: filling the GPU does not change CPU verdicts. */
static void test_independent_queues(void)
{
    struct edf_queue cpu, gpu;
    int i;

    edf_init(&cpu, 4, 0);
    edf_init(&gpu, 1, 0);
    edf_add(&cpu, 500, 2000);
    /* CPU candidate (1000,1500): a free instance, [0,1000]. */
    TAP_EQ_INT(edf_check(&cpu, 1000, 1500), EDF_OK, "cpu: candidate fits before");
    TAP_EQ_INT(edf_check(&gpu, 1000, 1500), EDF_OK, "gpu: candidate fits before");
    /* Fill the GPU: (1000,1500) [0,1000], then (400,1500) [1000,1400]. */
    edf_add(&gpu, 1000, 1500);
    edf_add(&gpu, 400, 1500);
    TAP_EQ_INT(edf_check(&gpu, 1000, 1500), EDF_CANDIDATE_LATE,
               "gpu: full, candidate now late ([1400,2400] > 1500)");
    TAP_EQ_INT(edf_check(&cpu, 1000, 1500), EDF_OK, "cpu: unaffected by the full gpu");
    /* Fill the CPU too (4 x (1500,1500) more); the GPU verdict for a
     * small job (100,1500) [1400,1500] stays OK. */
    for (i = 0; i < 4; i++)
        edf_add(&cpu, 1500, 1500);
    TAP_EQ_INT(edf_check(&cpu, 1000, 1500), EDF_CANDIDATE_LATE, "cpu: now full");
    TAP_EQ_INT(edf_check(&gpu, 100, 1500), EDF_OK, "gpu: unaffected by the full cpu");
    TAP_EQ_INT(gpu.njobs, 2, "gpu: 2 jobs");
    TAP_EQ_INT(cpu.njobs, 5, "cpu: 5 jobs");
    edf_free(&cpu);
    edf_free(&gpu);
}

/* (12) Invalid input is refused and leaves the queue as it was. */
static void test_invalid(void)
{
    struct edf_queue q;
    double nan = NAN, inf = INFINITY;

    TAP_EQ_INT(edf_init(&q, 0, 0), -1, "init: 0 instances");
    edf_free(&q);
    TAP_EQ_INT(edf_init(&q, -3, 0), -1, "init: negative instances");
    TAP_EQ_INT(edf_init(&q, 1, -1), -1, "init: negative start_delay");
    TAP_EQ_INT(edf_init(&q, 1, nan), -1, "init: NaN start_delay");
    TAP_EQ_INT(edf_init(&q, 1, inf), -1, "init: infinite start_delay");
    TAP_EQ_INT(edf_init(NULL, 1, 0), -1, "init: NULL queue");
    /* A refused queue refuses everything. */
    TAP_EQ_INT(edf_add(&q, 1, 1), -1, "add on a refused queue");
    TAP_EQ_INT(edf_check(&q, 1, 1), EDF_ERROR, "check on a refused queue");
    TAP_EQ_INT(edf_baseline(&q), -1, "baseline on a refused queue");
    edf_free(&q);
    edf_free(&q);                 /* twice is safe */

    TAP_EQ_INT(edf_init(&q, 2, 0), 0, "init ok");
    TAP_EQ_INT(edf_add(&q, 5, 10), 0, "add ok");
    TAP_EQ_INT(edf_add(&q, nan, 10), -1, "add: NaN duration");
    TAP_EQ_INT(edf_add(&q, -1, 10), -1, "add: negative duration");
    TAP_EQ_INT(edf_add(&q, inf, 10), -1, "add: infinite duration");
    TAP_EQ_INT(edf_add(&q, 1, nan), -1, "add: NaN deadline");
    TAP_EQ_INT(edf_add(&q, 1, inf), -1, "add: infinite deadline");
    TAP_EQ_INT(edf_add(&q, 1, -inf), -1, "add: -infinite deadline");
    TAP_EQ_INT(edf_add(NULL, 1, 1), -1, "add: NULL queue");
    TAP_EQ_INT(q.njobs, 1, "refused adds left the queue alone");
    TAP_EQ_INT(edf_check(&q, nan, 10), EDF_ERROR, "check: NaN duration");
    TAP_EQ_INT(edf_check(&q, -0.5, 10), EDF_ERROR, "check: negative duration");
    TAP_EQ_INT(edf_check(&q, inf, 10), EDF_ERROR, "check: infinite duration");
    TAP_EQ_INT(edf_check(&q, 1, nan), EDF_ERROR, "check: NaN deadline");
    TAP_EQ_INT(edf_check(&q, 1, inf), EDF_ERROR, "check: infinite deadline");
    TAP_EQ_INT(edf_check(NULL, 1, 1), EDF_ERROR, "check: NULL queue");
    TAP_EQ_INT(edf_add(&q, 0, -7), 0, "add: zero duration, past deadline is valid");
    TAP_EQ_INT(edf_check(&q, 0, 10), EDF_OK, "check: zero-duration candidate");
    TAP_EQ_INT(edf_reset(&q, 0, 0), -1, "reset: 0 instances");
    TAP_EQ_INT(edf_reset(&q, 1, nan), -1, "reset: NaN start_delay");
    TAP_EQ_INT(q.njobs, 2, "refused reset left the queue alone");
    edf_free(&q);
    TAP_EQ_INT(edf_add(&q, 1, 1), -1, "add after free");

    TAP_EQ_STR(edf_verdict_str(EDF_OK), "ok", "verdict string: ok");
    TAP_CHECK(strstr(edf_verdict_str(EDF_CANDIDATE_LATE), "miss") != NULL,
              "verdict string: candidate late");
    TAP_CHECK(strstr(edf_verdict_str(EDF_MAKES_OTHER_LATE), "another") != NULL,
              "verdict string: other late");
    TAP_CHECK(strstr(edf_verdict_str(EDF_MAKES_LATE_LATER), "later") != NULL,
              "verdict string: late later");
    TAP_CHECK(strstr(edf_verdict_str(EDF_ERROR), "invalid") != NULL, "verdict string: error");
    TAP_CHECK(strstr(edf_verdict_str((enum edf_verdict)42), "unknown") != NULL,
              "verdict string: out of range");
}

/* Baseline finish times, sorting of out-of-order adds, ties, dirty flag,
 * reset, and no reallocation by checks. */
static void test_baseline(void)
{
    struct edf_queue q;
    const struct edf_job *jobs;
    double *scratch;
    int i, cap, scap, errs = 0;

    /* 1 instance, added out of deadline order: seq0 (30,90), seq1 (10,20),
     * seq2 (20,90), seq3 (5,20).  EDF order: seq1 [0,10], seq3 [10,15]
     * (tie at 20: added later), seq0 [15,45], seq2 [45,65] (tie at 90). */
    edf_init(&q, 1, 0);
    edf_add(&q, 30, 90);
    edf_add(&q, 10, 20);
    TAP_EQ_INT(q.unsorted, 1, "an earlier deadline marks the list unsorted");
    edf_add(&q, 20, 90);
    edf_add(&q, 5, 20);
    TAP_EQ_INT(edf_baseline(&q), 0, "baseline computed");
    TAP_EQ_INT(q.unsorted, 0, "sorted");
    TAP_EQ_INT(q.dirty, 0, "clean");
    {
        static const int want_seq[] = {1, 3, 0, 2};
        static const double want_fin[] = {10, 15, 45, 65};
        for (i = 0; i < 4; i++) {
            TAP_EQ_INT(q.jobs[i].seq, want_seq[i], "EDF position %d holds seq %d", i,
                       want_seq[i]);
            TAP_EQ_DBL(q.jobs[i].finish, want_fin[i], 0, "EDF position %d finishes at %g", i,
                       want_fin[i]);
        }
    }
    /* In-order add keeps it sorted but dirty; the next check refreshes:
     * (5,100) [65,70]; candidate (31,100) [70,101] > 100. */
    edf_add(&q, 5, 100);
    TAP_EQ_INT(q.unsorted, 0, "in-order add keeps the list sorted");
    TAP_EQ_INT(q.dirty, 1, "add marks dirty");
    TAP_EQ_INT(edf_check(&q, 31, 100), EDF_CANDIDATE_LATE, "check sees the new job");
    TAP_EQ_INT(q.dirty, 0, "check refreshed the baseline");
    TAP_EQ_DBL(q.jobs[4].finish, 70, 0, "new job's baseline finish 70");
    TAP_EQ_INT(edf_check(&q, 30, 100), EDF_OK, "(30,100) runs [70,100]");

    /* Checks do not reallocate or change the jobs. */
    jobs = q.jobs;
    scratch = q.scratch;
    cap = q.cap;
    scap = q.scratch_cap;
    for (i = 0; i < 1000; i++)
        (void)edf_check(&q, (double)(i % 50), (double)(i % 200) - 20);
    for (i = 0; i < q.njobs; i++) {
        static const double fin[] = {10, 15, 45, 65, 70};
        if (q.jobs[i].finish != fin[i])
            errs++;
    }
    TAP_CHECK(q.jobs == jobs && q.scratch == scratch && q.cap == cap &&
              q.scratch_cap == scap, "1000 checks: no reallocation");
    TAP_EQ_INT(errs, 0, "1000 checks: baseline untouched");
    TAP_EQ_INT(q.njobs, 5, "1000 checks: job list unchanged");

    /* Reset keeps the memory and starts afresh with new parameters. */
    TAP_EQ_INT(edf_reset(&q, 2, 10), 0, "reset");
    TAP_EQ_INT(q.njobs, 0, "reset empties the queue");
    TAP_CHECK(q.jobs == jobs, "reset keeps the job array");
    edf_add(&q, 10, 20);
    edf_add(&q, 10, 20);
    /* 2 instances free at 10: both (10,20) run [10,20]; candidate
     * (1,25) waits until 20: [20,21].  Candidate (1,15) goes first,
     * [10,11], and the second (10,20) moves to [11,21] > 20. */
    TAP_EQ_INT(edf_check(&q, 1, 25), EDF_OK, "after reset: fits");
    TAP_EQ_INT(edf_check(&q, 1, 15), EDF_MAKES_OTHER_LATE,
               "after reset: urgent candidate delays a job past 20");
    edf_free(&q);
}

/* ---- (13) randomized cross-check against a brute-force reference ---- */

static uint64_t rng_state = 0x9e3779b97f4a7c15ULL;

static uint64_t rng(void)
{
    rng_state ^= rng_state >> 12;
    rng_state ^= rng_state << 25;
    rng_state ^= rng_state >> 27;
    return rng_state * 0x2545f4914f6cdd1dULL;
}

/* Uniform integer in [lo, hi]. */
static int rint_in(int lo, int hi)
{
    return lo + (int)(rng() % (uint64_t)(hi - lo + 1));
}

/* Uniform double in [0, 1). */
static double runit(void)
{
    return (double)(rng() >> 11) / 9007199254740992.0;
}

/*
 * Reference simulation, written for clarity: order the n jobs by
 * deadline, ties by array index, with an insertion sort (O(n^2)); give
 * each in turn to the instance free first, found by a linear scan over
 * all m instances.  finish[i] is job i's finish time.
 */
static void ref_sim(const struct tjob *in, int n, int m, double delay, double *finish)
{
    int *ord = malloc(sizeof *ord * (size_t)(n > 0 ? n : 1));
    double *freet = malloc(sizeof *freet * (size_t)m);
    int i, j;

    for (i = 0; i < n; i++) {
        j = i;
        while (j > 0 && in[ord[j - 1]].dl > in[i].dl) {
            ord[j] = ord[j - 1];
            j--;
        }
        ord[j] = i;
    }
    for (i = 0; i < m; i++)
        freet[i] = delay;
    for (i = 0; i < n; i++) {
        int best = 0;
        for (j = 1; j < m; j++)
            if (freet[j] < freet[best])
                best = j;
        finish[ord[i]] = freet[best] + in[ord[i]].dur;
        freet[best] = finish[ord[i]];
    }
    free(ord);
    free(freet);
}

/* Reference verdict for candidate c on jobs[0..n) (in add order). */
static enum edf_verdict ref_verdict(const struct tjob *jobs, int n, struct tjob c, int m,
                                    double delay)
{
    struct tjob *all = malloc(sizeof *all * (size_t)(n + 1));
    double *base = malloc(sizeof *base * (size_t)(n + 1));
    double *now = malloc(sizeof *now * (size_t)(n + 1));
    enum edf_verdict v = EDF_OK;
    int i, other = 0, later = 0;

    for (i = 0; i < n; i++)
        all[i] = jobs[i];
    all[n] = c;                   /* last: after equal deadlines */
    ref_sim(all, n, m, delay, base);
    ref_sim(all, n + 1, m, delay, now);
    for (i = 0; i < n; i++) {
        if (base[i] <= all[i].dl && now[i] > all[i].dl)
            other = 1;
        if (base[i] > all[i].dl && now[i] > base[i] + 1e-6 * fmax(fabs(base[i]), 1.0))
            later = 1;
    }
    if (now[n] > c.dl)
        v = EDF_CANDIDATE_LATE;
    else if (other)
        v = EDF_MAKES_OTHER_LATE;
    else if (later)
        v = EDF_MAKES_LATE_LATER;
    free(all);
    free(base);
    free(now);
    return v;
}

/* A random job: small integers (many ties, zero durations, exact
 * boundaries, past deadlines) or arbitrary reals. */
static struct tjob random_job(int real)
{
    struct tjob j;

    if (real) {
        j.dur = runit() < 0.05 ? 0 : runit() * 30;
        j.dl = runit() * 200 - 30;
    } else {
        j.dur = rint_in(0, 20);
        j.dl = rint_in(-10, 120);
    }
    return j;
}

static void test_random(void)
{
    const int nqueues = 3000;
    struct tjob *jobs = malloc(sizeof *jobs * 64);
    double *ref_fin = malloc(sizeof *ref_fin * 64);
    long checks = 0, mismatches = 0, base_mismatches = 0;
    long count[4] = {0, 0, 0, 0};
    int t;

    printf("# random cross-check: seed 0x%llx, %d queues\n",
           (unsigned long long)rng_state, nqueues);
    for (t = 0; t < nqueues; t++) {
        struct edf_queue q;
        int real = rint_in(0, 2) == 0;
        int m = rint_in(0, 4) == 0 ? rint_in(1, 12) : rint_in(1, 4);
        double delay = rint_in(0, 2) == 0 ? 0 : real ? runit() * 20 : rint_in(0, 10);
        int n = rint_in(0, 30), i, k;

        edf_init(&q, m, delay);
        for (i = 0; i < n; i++) {
            jobs[i] = random_job(real);
            edf_add(&q, jobs[i].dur, jobs[i].dl);
        }
        /* Several candidates per queue; accepted ones join the queue, as
         * in a reply. */
        for (k = 0; k < 8; k++) {
            struct tjob c = random_job(real);
            enum edf_verdict got = edf_check(&q, c.dur, c.dl);
            enum edf_verdict want = ref_verdict(jobs, n, c, m, delay);

            checks++;
            if (got >= 0 && got <= 3)
                count[got]++;
            if (got != want) {
                if (mismatches++ == 0)
                    printf("# first mismatch: queue %d, m=%d delay=%g n=%d candidate (%.17g,%.17g):"
                           " got %d want %d\n", t, m, delay, n, c.dur, c.dl, got, want);
            }
            if (got == EDF_OK && n < 64 && rint_in(0, 1)) {
                edf_add(&q, c.dur, c.dl);
                jobs[n++] = c;
            }
        }
        /* The cached baseline equals the reference, job by job. */
        edf_baseline(&q);
        ref_sim(jobs, n, m, delay, ref_fin);
        for (i = 0; i < q.njobs; i++)
            if (q.jobs[i].finish != ref_fin[q.jobs[i].seq])
                base_mismatches++;
        edf_free(&q);
    }
    printf("# %ld checks: ok %ld, candidate late %ld, other late %ld, late later %ld\n",
           checks, count[0], count[1], count[2], count[3]);
    TAP_EQ_INT(mismatches, 0, "random: %ld verdicts agree with the reference", checks);
    TAP_EQ_INT(base_mismatches, 0, "random: baseline finish times agree with the reference");
    TAP_CHECK(count[0] > 100 && count[1] > 100 && count[2] > 100 && count[3] > 100,
              "random: every verdict occurs often");
    free(jobs);
    free(ref_fin);
}

/* ---- (14) scale: 2000 jobs, 10,000 checks ---- */

static double now_sec(void)
{
    struct timespec ts;

    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static void scale_run(int m)
{
    enum { N = 2000, NCHECK = 10000, NSPOT = 10 };
    struct tjob *jobs = malloc(sizeof *jobs * N);
    struct tjob *cands = malloc(sizeof *cands * NCHECK);
    enum edf_verdict *got = malloc(sizeof *got * NCHECK);
    long count[4] = {0, 0, 0, 0};
    struct edf_queue q;
    double t0, t1;
    int i, errs = 0, spot_errs = 0;

    /* 2000 jobs of 0..1200*m s (about 14 days of work per instance),
     * deadlines spread over 14 days, a tenth of them an hour late
     * already: a mix of every verdict, most checks scanning the queue. */
    edf_init(&q, m, 30);
    for (i = 0; i < N; i++) {
        jobs[i].dur = runit() * 1200 * m;
        jobs[i].dl = runit() * 14 * 86400 + (i % 10 == 0 ? -3600 : 3600);
        if (edf_add(&q, jobs[i].dur, jobs[i].dl) < 0)
            errs++;
    }
    for (i = 0; i < NCHECK; i++) {
        cands[i].dur = runit() * 1200 * m;
        cands[i].dl = runit() * 16 * 86400;
    }
    (void)edf_check(&q, 1, 1);    /* warm-up: sort, baseline, heap */
    t0 = now_sec();
    for (i = 0; i < NCHECK; i++)
        got[i] = edf_check(&q, cands[i].dur, cands[i].dl);
    t1 = now_sec();
    for (i = 0; i < NCHECK; i++)
        if (got[i] >= 0 && got[i] <= 3)
            count[got[i]]++;
        else
            errs++;
    printf("# scale n=%d m=%d: %.2f us per edf_check (%d checks in %.3f s);"
           " ok %ld, candidate late %ld, other late %ld, late later %ld\n",
           N, m, (t1 - t0) * 1e6 / NCHECK, NCHECK, t1 - t0, count[0], count[1], count[2],
           count[3]);
    TAP_EQ_INT(errs, 0, "scale m=%d: %d jobs added, %d checks gave verdicts", m, N, NCHECK);
    TAP_EQ_INT(q.njobs, N, "scale m=%d: job list unchanged", m);
    for (i = 0; i < NSPOT; i++) {
        int idx = rint_in(0, NCHECK - 1);
        if (ref_verdict(jobs, N, cands[idx], m, 30) != got[idx])
            spot_errs++;
    }
    TAP_EQ_INT(spot_errs, 0, "scale m=%d: %d spot checks agree with the reference", m, NSPOT);

    /* Full-queue case: every deadline at least a day away, and a 1 s
     * candidate due at 31 (start_delay 30 + 1).  It goes in front of every
     * job and delays them by at most 1 s, so the whole queue is simulated
     * and compared (no early exit) and the verdict is OK (the queue holds
     * about 14 days of work per instance: none of it becomes late by 1 s,
     * as the reference confirms). */
    edf_reset(&q, m, 30);
    for (i = 0; i < N; i++) {
        jobs[i].dur = runit() * 1200 * m;
        jobs[i].dl = 86400 + runit() * 14 * 86400;
        errs += edf_add(&q, jobs[i].dur, jobs[i].dl) < 0;
    }
    {
        struct tjob c = {1, 31};
        TAP_EQ_INT(ref_verdict(jobs, N, c, m, 30), EDF_OK,
                   "scale m=%d: full-queue candidate is OK by the reference", m);
    }
    errs += edf_check(&q, 1, 31) != EDF_OK;   /* warm-up */
    t0 = now_sec();
    for (i = 0; i < NCHECK; i++)
        errs += edf_check(&q, 1, 31) != EDF_OK;
    t1 = now_sec();
    printf("# scale n=%d m=%d full queue simulated: %.2f us per edf_check\n",
           N, m, (t1 - t0) * 1e6 / NCHECK);
    TAP_EQ_INT(errs, 0, "scale m=%d: full queue, %d checks all OK", m, NCHECK);
    edf_free(&q);
    free(jobs);
    free(cands);
    free(got);
}

int main(void)
{
    test_table();
    test_reply_sequence();
    test_independent_queues();
    test_invalid();
    test_baseline();
    test_random();
    scale_run(1);
    scale_run(8);
    return tap_done();
}
