/*
 * edf.h - server-side EDF feasibility check for one processing resource
 * (policy WS2 of Kondo, Anderson and McLeod).
 *
 * Pure logic: no I/O, no clock.  Times are seconds relative to "now".
 * A queue models one resource (the CPU, or one coprocessor type) with
 * ninstances identical instances that all become free at start_delay.
 * Jobs are run earliest deadline first; each job occupies one instance for
 * its (wall-clock) duration.  Jobs are: the host's in-progress jobs, the
 * jobs already accepted for this reply, and a candidate.
 *
 * edf_check() answers whether a candidate may be added:
 *   - the candidate itself finishes by its deadline;
 *   - every job that finished by its deadline without the candidate still does;
 *   - no job that was already late finishes later than it did.
 * Cost: the baseline (the queue without a candidate) is simulated once
 * after the queue changes and cached; each check then costs O(log n) to
 * place the candidate plus O(n log k) for one simulation, n = jobs in the
 * queue, k = min(ninstances, n + 1).  The exact semantics are in edf.c.
 */
#ifndef LOCSCHED_EDF_H
#define LOCSCHED_EDF_H

enum edf_verdict {
    EDF_OK = 0,
    EDF_CANDIDATE_LATE = 1,      /* the candidate would miss its deadline */
    EDF_MAKES_OTHER_LATE = 2,    /* a job that met its deadline would miss it */
    EDF_MAKES_LATE_LATER = 3,    /* an already-late job would finish later */
    EDF_ERROR = -1               /* invalid queue or candidate, or out of
                                  * memory: do not send the candidate */
};

/* Relative tolerance of "finishes later than it did": an already-late job
 * counts as made later only if its new finish exceeds the baseline one by
 * more than EDF_LATE_REL_EPS * max(|baseline finish|, 1 second). */
#define EDF_LATE_REL_EPS 1e-6

struct edf_job {
    double duration;   /* seconds of wall-clock time on one instance, >= 0 */
    double deadline;   /* seconds from now; may be negative (already past) */
    double finish;     /* baseline finish time, filled by the simulation */
    int seq;           /* order of edf_add() calls (0, 1, ...): breaks ties
                        * between equal deadlines and tells the caller which
                        * job is which once the array has been sorted */
};

struct edf_queue {
    int ninstances;          /* >= 1 */
    double start_delay;      /* when the instances become free, >= 0 */
    struct edf_job *jobs;    /* sorted by deadline (ties: insertion order,
                              * i.e. seq) whenever unsorted == 0 */
    int njobs;
    int cap;
    int dirty;               /* baseline finish times need recomputing */
    int unsorted;            /* jobs[] must be sorted before simulating */
    double *scratch;         /* internal */
    int scratch_cap;
};

/* Initialise an empty queue.  Returns 0, or -1 on bad arguments. */
int edf_init(struct edf_queue *q, int ninstances, double start_delay);

/* Release the queue's memory.  Safe on a queue that edf_init() refused
 * and on a queue already freed. */
void edf_free(struct edf_queue *q);

/* Empty the queue and set new instance parameters, keeping its memory
 * (for reuse across requests without allocating).  Returns 0, or -1 on
 * bad arguments (the queue is then unchanged). */
int edf_reset(struct edf_queue *q, int ninstances, double start_delay);

/* Add a job (in progress, or accepted for the reply).  Returns 0, -1 on
 * allocation failure or a NaN/negative/infinite duration or a NaN/infinite
 * deadline (the queue is then unchanged). */
int edf_add(struct edf_queue *q, double duration, double deadline);

/* Would adding (duration, deadline) be acceptable?  Does not modify the
 * queue's job list (it may sort jobs[] and refresh the cached baseline
 * finish times).  EDF_ERROR on invalid arguments or allocation failure. */
enum edf_verdict edf_check(struct edf_queue *q, double duration, double deadline);

/* Bring the baseline up to date: sort jobs[] into EDF order and fill each
 * job's finish (identify jobs by seq).  Returns 0, -1 on a bad queue or
 * allocation failure. */
int edf_baseline(struct edf_queue *q);

/* Human-readable verdict, for logs and reply messages. */
const char *edf_verdict_str(enum edf_verdict v);

#endif /* LOCSCHED_EDF_H */
