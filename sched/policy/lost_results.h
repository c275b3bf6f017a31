/*
 * lost_results.h - which of a host's jobs it has lost, and which of the
 * jobs it holds it should abort: a pure comparison of what the server has
 * in progress on the host with what the client says it holds.
 *
 * The client 7.20 lists in <other_results> every job it holds and is not
 * reporting, in every request; the jobs it reports in the same request are
 * not lost.  So, for one request:
 *   - a job the server has in progress on the host that the client neither
 *     lists nor reports is lost (the handler resends it or marks it lost);
 *   - a listed job the server has in progress, whose workunit reached its
 *     quorum, is no longer needed: abort it if it has not started;
 *   - a listed job the server has in progress, whose workunit has an
 *     error (its batch was aborted, too many errors): abort it;
 *   - a listed job the server does not have in progress on this host
 *     (unknown, another host's, timed out, or over): abort it.
 * A request without <other_results> allows no judgement at all: the
 * caller must not call lr_classify() for it.
 * No I/O, no allocation but the sorted index (freed before return).
 */
#ifndef LOCSCHED_LOST_RESULTS_H
#define LOCSCHED_LOST_RESULTS_H

/* The state of a job's workunit, as the server sees it. */
enum lr_wu_state {
    LR_WU_NEEDED = 0,       /* no canonical result, no error */
    LR_WU_QUORUM = 1,       /* has its canonical result */
    LR_WU_ERROR = 2         /* error_mask set: batch aborted, too many errors, ... */
};

/* The verdict on a job the server has in progress on the host. */
enum lr_verdict {
    LR_HELD = 0,                /* listed, still needed: nothing to do */
    LR_REPORTED,                /* reported in this request */
    LR_LOST,                    /* neither listed nor reported */
    LR_ABORT_IF_NOT_STARTED,    /* listed; its workunit reached its quorum */
    LR_ABORT                    /* listed; its workunit has an error */
};

/*
 * Classify.  server[0..nserver) are the names of the jobs the server has
 * in progress on the host, wu[i] the state of server[i]'s workunit;
 * verdict[i] gets the verdict on server[i].  listed[0..nlisted) are the
 * names in <other_results>, reported[0..nreported) the reported names;
 * listed_foreign[j] (may be NULL) gets 1 when listed[j] is not one of
 * server[] (to be aborted), else 0.  When server_complete is 0 (the
 * server's list was cut at a cap), listed_foreign[] is all 0: a listed
 * job beyond the cap may well be in progress.  Returns the number of
 * LR_LOST verdicts, or -1 when out of memory (nothing is filled then).
 */
int lr_classify(const char *const *server, const enum lr_wu_state *wu, int nserver,
                int server_complete, const char *const *listed, int nlisted,
                const char *const *reported, int nreported, enum lr_verdict *verdict,
                int *listed_foreign);

/* Name of a verdict, for logs. */
const char *lr_verdict_str(enum lr_verdict v);

#endif /* LOCSCHED_LOST_RESULTS_H */
