/*
 * batch_render.h - what batch_status shows, computed and rendered from an
 * in-memory description of batches: text progress bars, one JSON
 * document, and an SVG picture of each batch's job space.  Pure: no
 * database, no files; output is appended to a struct buf (check its oom
 * flag once at the end).
 */
#ifndef LOCSCHED_BATCH_RENDER_H
#define LOCSCHED_BATCH_RENDER_H

#include "buf.h"

/* The state of a job. */
enum br_state { BR_DONE = 0, BR_IN_PROGRESS = 1, BR_UNSENT = 2 };

/* count jobs from first on, all in one state. */
struct br_run {
    int first;
    int count;
    int state;
};

/* The states of a batch's jobs 0..njobs-1, run-length encoded, in job
 * order.  Built with br_runs_add (ascending job numbers; jobs skipped are
 * unsent) and br_runs_finish. */
struct br_runs {
    struct br_run *v;
    int n, cap;
    int next;        /* the job after the last one added */
    int oom;
};

void br_runs_init(struct br_runs *r);
void br_runs_free(struct br_runs *r);

/*
 * Record that job has the given state.  Jobs between the previous one and
 * this one are unsent (not generated yet).  A job number below the next
 * expected one (a duplicate) or negative is ignored.  Returns 0, or -1
 * when memory ran out (r->oom is then set and later calls do nothing).
 */
int br_runs_add(struct br_runs *r, int job, int state);

/* End the sequence at njobs jobs: runs past it are cut, jobs missing at
 * the end are unsent.  Returns 0 or -1 (out of memory). */
int br_runs_finish(struct br_runs *r, int njobs);

struct br_counts {
    long long done, in_progress, unsent;
};

struct br_cursor {
    /* input */
    int id;
    int first_job_num, last_job_num;
    int first_unfinished_job_num, first_ungenerated_job_num;
    long long done, in_progress;        /* counted from its workunits */
    int nhosts;
    double expavg_credit;                /* credit/day of the team */
    double max_host_credit;
    double remaining_credit;
    /* computed by br_batch_compute */
    struct br_counts jobs;               /* unsent includes jobs not generated */
    double fraction_done;
    double est_time_left;                /* days; HUGE_VAL: infinite */
};

struct br_batch {
    /* input */
    int id;
    char name[256];
    int state;                           /* batch.state code */
    int locality;
    int njobs, nfiles;
    long long other_done, other_in_progress;   /* workunits of no cursor of
                                                  the batch (plain batches) */
    struct br_cursor *cursors;           /* in job order */
    int ncursors;
    struct br_runs runs;                 /* per-job states, for the SVG;
                                            n == 0: unknown */
    /* computed by br_batch_compute */
    struct br_counts jobs;
    double fraction_done;
    double est_time_left;                /* days: the slowest cursor's;
                                            HUGE_VAL infinite, NAN unknown */
};

/* Fill the computed fields of b and of its cursors from the input ones.
 * Idempotent. */
void br_batch_compute(struct br_batch *b);

/* "init", "in_progress", "complete", "aborted", "retired" or "unknown". */
const char *br_state_name(int batch_state);

/* A number of days for people: "inf", "-" (NaN: unknown), "0.00357",
 * "12.3", "150". */
void br_format_days(char *out, size_t len, double days);

/* Flags of the text output. */
enum { BR_COLOR = 1, BR_UTF8 = 2 };

/*
 * A progress bar of width cells between brackets: done, in progress and
 * unsent cells ('#', '+', '.'; with BR_UTF8 block characters; with
 * BR_COLOR in green, yellow and dim).  Cells are floored, so the bar is
 * full of done cells only when everything is done.
 */
void br_bar(struct buf *out, const struct br_counts *c, int width, int flags);

/* One line explaining the bar's cells. */
void br_text_legend(struct buf *out, int flags);

/* The text report of one batch: a bar for the batch and one per cursor,
 * with counts, team figures and est_time_left. */
void br_text(struct buf *out, const struct br_batch *b, int flags);

/* One JSON document for n batches (keys listed in batch_status --help). */
void br_json(struct buf *out, const struct br_batch *b, int n);

/*
 * A standalone SVG picture of n batches: per batch, x is the job number;
 * one band per cursor (one for the whole batch without cursors) covering
 * its range, in done / in progress / unsent segments, with a marker at
 * the team's first unfinished job; a legend on top.  Bands are
 * <g class="band" id="batchB-cursorC"> (or id="batchB-all"), segments
 * <rect class="done|in-progress|unsent">, markers <g class="marker">.
 */
void br_svg(struct buf *out, const struct br_batch *b, int n);

/* The same picture as an <svg> element alone (no XML declaration), to be
 * put inline in an HTML page (role="img", its <title> names it). */
void br_svg_element(struct buf *out, const struct br_batch *b, int n);

#endif /* LOCSCHED_BATCH_RENDER_H */
