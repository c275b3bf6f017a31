/*
 * retire_batch.c - retire a batch that is over: in one transaction a
 * COMPLETE or ABORTED batch becomes RETIRED, its teams are dissolved
 * (batch_host rows removed, its cursors' team figures set to 0).  Files
 * are not touched.
 */
#include "batch_change.h"

static void usage(FILE *out)
{
    fprintf(out,
        "usage: retire_batch [--config FILE] BATCH\n"
        "\n"
        "Retires a complete or aborted batch (BATCH: its name, else its id), in one\n"
        "transaction: the batch becomes RETIRED, the hosts of its teams leave them\n"
        "(its batch_host rows are removed) and its cursors' team figures (nhosts,\n"
        "expavg_credit, max_host_credit) become 0.  Any other batch is refused.\n"
        "This tool deletes no files: input files in the download folder and output\n"
        "files in the upload folder stay where they are.  Prints what it changed.\n"
        "\n"
        "--config FILE  the configuration (default $LOCSCHED_CONFIG, else\n"
        "  ./locsched.conf).\n"
        "Exit status: 0, 1 on any error (message naming the batch), 2 for usage.\n");
}

static int retirable(int state)
{
    return state == BS_COMPLETE || state == BS_ABORTED;
}

static const char *advice(int state)
{
    return state == BS_IN_PROGRESS ? " (abort it first with abort_batch)" : "";
}

static int retire_teams(struct db_conn *c, const struct db_batch_row *b, int now, void *counts)
{
    (void)now;
    return db_batch_retire_teams(c, b->id, counts);
}

static void report(const struct db_batch_row *b, const void *counts)
{
    const struct db_retire_counts *n = counts;
    printf("batch %d '%s' retired (was %s): %lld team members removed, %lld cursors reset; "
           "no files deleted\n", b->id, b->name, batch_state_text(b->state),
           n->members_removed, n->cursors_emptied);
}

int main(int argc, char **argv)
{
    static const struct batch_change retire_change = {
        .prog = "retire_batch",
        .what = "retire batch",
        .new_state = BS_RETIRED,
        .usage = usage,
        .allowed = retirable,
        .refusal = "a complete or aborted batch can be retired",
        .advice = advice,
        .apply = retire_teams,
        .counts_size = sizeof(struct db_retire_counts),
        .report = report,
    };
    return batch_change_main(argc, argv, &retire_change);
}
