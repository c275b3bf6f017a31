/*
 * edf.c - the EDF feasibility check of edf.h (work-send policy WS2).
 *
 * Model.  One resource (the CPU, or one coprocessor type) has ninstances
 * identical instances, all free at time start_delay (>= 0); times are
 * seconds from now.  A job needs one instance for `duration` seconds of
 * wall-clock time (>= 0; zero is allowed) and should finish by `deadline`
 * (any finite number; a negative deadline is already past).
 *
 * Simulation (list scheduling in EDF order).  Jobs are taken in order of
 * deadline; jobs with equal deadlines keep the order in which they were
 * added (edf_job.seq), and a candidate goes after every job with the same
 * deadline.  Each job in turn starts on the instance that becomes free
 * first, at that instance's free time, and finishes at start + duration;
 * the instance is then free at that finish time.  The free times are kept
 * in a binary min-heap, so a simulation of n jobs costs O(n log k).  Only
 * k = min(ninstances, n + 1) heap slots are needed: while fewer jobs than
 * slots have started, some slot still holds start_delay, which is then the
 * minimum, exactly as with all ninstances slots.
 *
 * A job "meets its deadline" if finish <= deadline (finishing exactly at
 * the deadline is on time) and is "late" otherwise.
 *
 * Baseline.  The finish times of the queue's own jobs (without candidate)
 * are cached in jobs[].finish.  edf_add() only appends and raises `dirty`
 * (and `unsorted` when the new deadline is earlier than the last one);
 * the next edf_check()/edf_baseline() sorts if needed and re-simulates.
 *
 * Check.  edf_check() finds the candidate's position by binary search
 * (O(log n)), without inserting it, and simulates the queue once with the
 * candidate at that position.  Jobs before the position are unaffected, so
 * their cached finish times feed the heap directly.  Verdicts, tested in
 * this order:
 *   EDF_CANDIDATE_LATE    the candidate finishes after its deadline;
 *   EDF_MAKES_OTHER_LATE  a job whose baseline finish <= its deadline now
 *                         finishes after its deadline;
 *   EDF_MAKES_LATE_LATER  a job whose baseline finish > its deadline now
 *                         finishes later than its baseline finish by more
 *                         than EDF_LATE_REL_EPS * max(|baseline|, 1);
 *   EDF_OK                otherwise.
 * When both of the last two apply, EDF_MAKES_OTHER_LATE is reported.
 * Adding a job never makes another one finish earlier (the sorted vector
 * of instance free times only grows), so "later" is the only direction.
 *
 * Validation.  edf_init()/edf_reset() refuse ninstances < 1 and a
 * start_delay that is negative, NaN or infinite; edf_add() and edf_check()
 * refuse a duration that is negative, NaN or infinite and a deadline that
 * is NaN or infinite (-1 / EDF_ERROR; the queue is unchanged).  Deadline
 * comparisons are exact; only "later than the baseline" has a tolerance,
 * as it compares two computed times.
 *
 * Memory.  jobs[] and the heap (scratch) grow geometrically.  Only the
 * first check after edf_add() calls may allocate (growing the heap, and
 * whatever qsort() uses internally when the jobs must be re-sorted);
 * later checks allocate nothing.
 * Pure code: no I/O, no clock, no globals.
 */
#include "edf.h"

#include <math.h>
#include <stdlib.h>

#include "array_grow.h"

/* Arrays never grow beyond this many elements (2^28: keeps int arithmetic
 * on indexes and capacities far from overflow).  Written as a literal
 * because <limits.h> could find a header of ours first on the include path. */
#define EDF_MAX_ELEMS (1 << 28)

/* Is q a queue edf_init() accepted (and not since freed)? */
static int queue_ok(const struct edf_queue *q)
{
    return q && q->ninstances >= 1 && isfinite(q->start_delay) &&
           q->start_delay >= 0 && q->njobs >= 0 &&
           (q->njobs == 0 || q->jobs != NULL);
}

static int duration_ok(double d)
{
    return isfinite(d) && d >= 0;
}

int edf_init(struct edf_queue *q, int ninstances, double start_delay)
{
    if (!q)
        return -1;
    q->ninstances = 0;            /* "not initialised" until validated */
    q->start_delay = 0;
    q->jobs = NULL;
    q->njobs = 0;
    q->cap = 0;
    q->dirty = 1;
    q->unsorted = 0;
    q->scratch = NULL;
    q->scratch_cap = 0;
    if (ninstances < 1 || !isfinite(start_delay) || start_delay < 0)
        return -1;
    q->ninstances = ninstances;
    q->start_delay = start_delay;
    return 0;
}

void edf_free(struct edf_queue *q)
{
    if (!q)
        return;
    free(q->jobs);
    free(q->scratch);
    q->jobs = NULL;
    q->scratch = NULL;
    q->njobs = 0;
    q->cap = 0;
    q->scratch_cap = 0;
    q->ninstances = 0;
    q->dirty = 1;
    q->unsorted = 0;
}

int edf_reset(struct edf_queue *q, int ninstances, double start_delay)
{
    if (!q || ninstances < 1 || !isfinite(start_delay) || start_delay < 0)
        return -1;
    q->ninstances = ninstances;
    q->start_delay = start_delay;
    q->njobs = 0;
    q->dirty = 1;
    q->unsorted = 0;
    return 0;
}

int edf_add(struct edf_queue *q, double duration, double deadline)
{
    struct edf_job *j;

    if (!queue_ok(q) || !duration_ok(duration) || !isfinite(deadline))
        return -1;
    if (q->njobs >= EDF_MAX_ELEMS - 1)    /* room for the candidate's slot */
        return -1;
    if (array_grow((void **)&q->jobs, &q->cap, q->njobs + 1, 16, sizeof *q->jobs) < 0)
        return -1;
    /* Appending keeps the order iff the deadline is not earlier than the
     * last one: equal deadlines belong after, by insertion order. */
    if (q->njobs > 0 && deadline < q->jobs[q->njobs - 1].deadline)
        q->unsorted = 1;
    j = &q->jobs[q->njobs];
    j->duration = duration;
    j->deadline = deadline;
    j->finish = 0;
    j->seq = q->njobs;
    q->njobs++;
    q->dirty = 1;
    return 0;
}

/* qsort order: deadline, then insertion order.  Deadlines are finite. */
static int job_cmp(const void *a, const void *b)
{
    const struct edf_job *x = a, *y = b;

    if (x->deadline < y->deadline)
        return -1;
    if (x->deadline > y->deadline)
        return 1;
    return (x->seq > y->seq) - (x->seq < y->seq);
}

/*
 * The heap holds instance free times; its minimum is h[0].  Replace the
 * minimum by v (v >= the old minimum, as finish >= start) and restore the
 * heap property by sifting down.  O(log k).
 */
static void heap_replace_min(double *h, int k, double v)
{
    int i = 0;

    for (;;) {
        int c = 2 * i + 1;
        if (c >= k)
            break;
        if (c + 1 < k && h[c + 1] < h[c])
            c++;
        if (!(h[c] < v))
            break;
        h[i] = h[c];
        i = c;
    }
    h[i] = v;
}

/*
 * Make the heap ready for a simulation of the queue plus one candidate:
 * k = min(ninstances, njobs + 1) slots, all at start_delay.  Returns k, or
 * -1 on allocation failure.  Allocates only when the queue has grown.
 */
static int heap_start(struct edf_queue *q)
{
    int k = q->ninstances;
    int i;

    if (k > q->njobs + 1)
        k = q->njobs + 1;
    if (array_grow((void **)&q->scratch, &q->scratch_cap, k, 16, sizeof *q->scratch) < 0)
        return -1;
    for (i = 0; i < k; i++)
        q->scratch[i] = q->start_delay;
    return k;
}

int edf_baseline(struct edf_queue *q)
{
    int i, k;

    if (!queue_ok(q))
        return -1;
    if (q->unsorted) {
        qsort(q->jobs, (size_t)q->njobs, sizeof *q->jobs, job_cmp);
        q->unsorted = 0;
        q->dirty = 1;
    }
    if (!q->dirty)
        return 0;
    k = heap_start(q);
    if (k < 0)
        return -1;
    for (i = 0; i < q->njobs; i++) {
        double f = q->scratch[0] + q->jobs[i].duration;
        q->jobs[i].finish = f;
        heap_replace_min(q->scratch, k, f);
    }
    q->dirty = 0;
    return 0;
}

/* Index of the first job whose deadline is greater than `deadline` (the
 * candidate's position: after all equal deadlines).  jobs[] is sorted. */
static int upper_bound(const struct edf_job *jobs, int n, double deadline)
{
    int lo = 0, hi = n;

    while (lo < hi) {
        int mid = lo + (hi - lo) / 2;
        if (jobs[mid].deadline <= deadline)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

enum edf_verdict edf_check(struct edf_queue *q, double duration, double deadline)
{
    int i, k, pos, later = 0;
    double cf;
    double *h;

    if (!queue_ok(q) || !duration_ok(duration) || !isfinite(deadline))
        return EDF_ERROR;
    if (edf_baseline(q) < 0)
        return EDF_ERROR;
    k = heap_start(q);            /* no allocation: edf_baseline sized it */
    if (k < 0)
        return EDF_ERROR;
    h = q->scratch;
    pos = upper_bound(q->jobs, q->njobs, deadline);

    /* Jobs before the candidate run exactly as in the baseline.  With a
     * single slot the heap is just the previous job's finish. */
    if (k == 1) {
        if (pos > 0)
            h[0] = q->jobs[pos - 1].finish;
    } else {
        for (i = 0; i < pos; i++)
            heap_replace_min(h, k, q->jobs[i].finish);
    }

    cf = h[0] + duration;
    if (cf > deadline)
        return EDF_CANDIDATE_LATE;
    heap_replace_min(h, k, cf);

    for (i = pos; i < q->njobs; i++) {
        const struct edf_job *j = &q->jobs[i];
        double f = h[0] + j->duration;
        heap_replace_min(h, k, f);
        if (j->finish <= j->deadline) {
            if (f > j->deadline)
                return EDF_MAKES_OTHER_LATE;
        } else if (f > j->finish + EDF_LATE_REL_EPS * fmax(fabs(j->finish), 1.0)) {
            later = 1;
        }
    }
    return later ? EDF_MAKES_LATE_LATER : EDF_OK;
}

const char *edf_verdict_str(enum edf_verdict v)
{
    switch (v) {
    case EDF_OK:
        return "ok";
    case EDF_CANDIDATE_LATE:
        return "job would miss its deadline";
    case EDF_MAKES_OTHER_LATE:
        return "job would make another job miss its deadline";
    case EDF_MAKES_LATE_LATER:
        return "job would make a late job later";
    case EDF_ERROR:
        return "invalid EDF check";
    }
    return "unknown EDF verdict";
}
