/*
 * abort_batch.c - stop a batch: in one transaction, its results not sent
 * yet become OVER / DIDNT_NEED, its unfinished workunits are cancelled
 * (error_mask |= WU_ERROR_CANCELLED, transition_time = now, so the
 * transitioner looks at them) and the batch becomes ABORTED.  Results in
 * progress are left to be reported.
 */
#include "batch_change.h"

static void usage(FILE *out)
{
    fprintf(out,
        "usage: abort_batch [--config FILE] BATCH\n"
        "\n"
        "Aborts a batch (BATCH: its name, else its id), in one transaction:\n"
        "  - its results that were not sent yet become over (outcome DIDNT_NEED);\n"
        "  - its unfinished workunits are cancelled (error_mask gets BOINC's\n"
        "    WU_ERROR_CANCELLED bit, 16) and handed to the transitioner;\n"
        "  - the batch becomes ABORTED: no more jobs are generated or sent.\n"
        "Results in progress on hosts are left alone: they are reported (and\n"
        "credited) as usual, or time out.  Jobs already done keep their results.\n"
        "A complete or retired batch cannot be aborted; aborting an aborted batch\n"
        "again cancels whatever is left.  Prints what it changed.\n"
        "\n"
        "--config FILE  the configuration (default $LOCSCHED_CONFIG, else\n"
        "  ./locsched.conf).\n"
        "Exit status: 0, 1 on any error (message naming the batch), 2 for usage.\n");
}

static int abortable(int state)
{
    return state != BS_COMPLETE && state != BS_RETIRED;
}

static int abort_jobs(struct db_conn *c, const struct db_batch_row *b, int now, void *counts)
{
    return db_batch_abort_jobs(c, b->id, now, counts);
}

static void report(const struct db_batch_row *b, const void *counts)
{
    const struct db_abort_counts *n = counts;
    printf("batch %d '%s' aborted (was %s): %lld unsent results -> over (didn't need), "
           "%lld unfinished workunits cancelled, %lld results in progress left to be "
           "reported\n", b->id, b->name, batch_state_text(b->state), n->results_cancelled,
           n->workunits_cancelled, n->results_in_progress);
}

int main(int argc, char **argv)
{
    static const struct batch_change abort_change = {
        .prog = "abort_batch",
        .what = "abort batch",
        .new_state = BS_ABORTED,
        .usage = usage,
        .allowed = abortable,
        .refusal = "a batch that is not complete or retired can be aborted",
        .apply = abort_jobs,
        .counts_size = sizeof(struct db_abort_counts),
        .report = report,
    };
    return batch_change_main(argc, argv, &abort_change);
}
