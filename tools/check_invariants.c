/*
 * check_invariants.c - check that the database keeps locsched's promises
 * (doc/locality.md): no result sent twice, no two replicas of a job to
 * one user, no job lost, and cursor counters that agree with the jobs and
 * teams.  For administrators (after a crash, a restore, a hand edit) and
 * for the fault-injection tests.
 *
 * Reads only: the session is made read-only and every statement reads one
 * consistent snapshot (db_check.h); the read timeout is raised to ten
 * minutes, since checks scan whole tables (about 2 s for 200,000 results
 * and 100 cursors of 1000 jobs).  Each check reports how many entities
 * break it and the lowest few ids, as text or as one JSON document.
 * Exit status: 0 clean, 1 violations found, 2 the check could not run.
 *
 * Counters that the daemons update after the fact (a cursor's progress
 * and remaining credit follow its workunits' transitions) are exact only
 * once the transitioner has caught up: run this on a quiet system, or
 * after a transitioner pass, to tell a lag from a fault.
 */
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "credit.h"
#include "db_check.h"
#include "db_sched.h"
#include "config.h"
#include "tool_common.h"

#define PROG "check_invariants"
#define MAX_IDS_LIMIT 1000
#define DEFAULT_MAX_IDS 10

/* Relative tolerance of the credit comparisons (sums of doubles made in
 * a different order, and the scheduler's relative team updates). */
#define CREDIT_TOLERANCE 1e-6

/* Checks decided here from the cursor rows. */
enum cursor_check {
    CC_ORDER = 0,
    CC_NOT_GENERATED,
    CC_NOT_AHEAD,
    CC_UNFINISHED_BEHIND,
    CC_REMAINING_CREDIT,
    CC_TEAM,
    CC_N
};

/* Every check, in report order.  db is a db_check_id or -1; cc a
 * cursor_check or -1. */
struct check_def {
    const char *name;
    const char *invariant;
    const char *entity;
    int db, cc;
    const char *text;
};

static const struct check_def defs[] = {
    { "sent_without_host", "sent_once", "result", DBC_SENT_UNASSIGNED, -1,
      "results sent (in progress, or over with an outcome only a sent result has) whose "
      "hostid is 0, userid NULL or sent_time 0" },
    { "sent_to_missing_host", "sent_once", "result", DBC_SENT_HOST_MISSING, -1,
      "results in progress whose hostid names no host row: claimed in a transaction that "
      "did not commit the host (a new host's row and its claims are written together), so "
      "no computer holds them" },
    { "unsent_with_host", "sent_once", "result", DBC_UNSENT_ASSIGNED, -1,
      "results not sent (inactive, unsent) that carry a hostid, a userid or a sent_time: "
      "sent before, and would be sent again" },
    { "two_results_one_host", "sent_once", "workunit", DBC_SAME_HOST, -1,
      "workunits with two results on the same host" },
    { "duplicate_result_name", "sent_once", "result", DBC_DUP_NAME, -1,
      "results whose name an older result has (one name, two rows)" },
    { "two_results_one_user", "one_replica_per_user", "workunit", DBC_SAME_USER, -1,
      "workunits with two sent results of one user (the result's userid, else its host's)" },
    { "result_user_not_host_user", "one_replica_per_user", "result", DBC_USER_MISMATCH, -1,
      "results whose userid is not the user of their host, which defeats the one-replica "
      "rule" },
    { "workunit_stuck", "no_job_lost", "workunit", DBC_WU_STUCK, -1,
      "unfinished workunits of in-progress batches with no unsent or in-progress result, "
      "a transition_time not yet due and not waiting for the validator (need_validate): "
      "nothing will ever move them" },
    { "job_generated_twice", "no_job_lost", "workunit", DBC_JOB_TWICE, -1,
      "workunits with the cursor and job number of an older workunit" },
    { "cursor_job_not_generated", "no_job_lost", "cursor", -1, CC_NOT_GENERATED,
      "cursors of in-progress batches with a job in [first_job_num, "
      "first_ungenerated_job_num) that has no workunit" },
    { "cursor_jobs_not_ahead", "no_job_lost", "cursor", -1, CC_NOT_AHEAD,
      "cursors of in-progress batches whose jobs [first_ungenerated_job_num, last_job_num] "
      "are not all still to be generated (a batch_job row missing, or a workunit already "
      "there)" },
    { "cursor_order", "cursor_counters", "cursor", -1, CC_ORDER,
      "cursors without first_job_num <= first_unfinished_job_num <= "
      "first_ungenerated_job_num <= last_job_num + 1" },
    { "cursor_unfinished_behind", "cursor_counters", "cursor", -1, CC_UNFINISHED_BEHIND,
      "cursors of in-progress or complete batches with an unfinished job below "
      "first_unfinished_job_num" },
    { "cursor_remaining_credit", "cursor_counters", "cursor", -1, CC_REMAINING_CREDIT,
      "cursors of in-progress or complete batches whose remaining_credit is not the credit "
      "of their unfinished jobs" },
    { "cursor_team", "cursor_counters", "cursor", -1, CC_TEAM,
      "cursors whose nhosts is not their number of batch_host rows, whose expavg_credit is "
      "not the sum of the members' credit_rate, or whose max_host_credit is below the "
      "largest" },
    { "team_member_orphan", "cursor_counters", "host", DBC_MEMBER_ORPHAN, -1,
      "hosts with a batch_host row whose cursor is missing or belongs to another batch" },
    { "two_backups_in_progress", "tail_replicas", "workunit", DBC_TWO_BACKUPS, -1,
      "workunits with more than one backup replica in progress (one at a time)" },
    { "backup_not_sent", "tail_replicas", "result", DBC_BACKUP_UNSENT, -1,
      "backup replicas that are not sent (a backup is made claimed, for one host)" },
    { "too_many_results", "tail_replicas", "workunit", DBC_TOO_MANY_RESULTS, -1,
      "workunits with more results than max_total_results" },
    { "lost_host_result_unflagged", "no_job_lost", "result", DBC_LOST_UNFLAGGED, -1,
      "results in progress on a host presumed gone, due after it went silent, of an "
      "unfinished job, that are not flagged as such (they would get no replacement)" },
    { "lost_result_unreplaced", "no_job_lost", "workunit", DBC_LOST_UNREPLACED, -1,
      "unfinished workunits of in-progress batches whose result on a host presumed gone "
      "has no replacement (fewer live results than needed, room for more, no transition "
      "due)" },
    { "credit_not_valid", "valid_credit", "result", DBC_CREDIT_NOT_VALID, -1,
      "results with granted credit whose validate_state is not VALID (1): credit goes to "
      "valid results only" },
    { "validate_state_not_success", "valid_credit", "result", DBC_VALIDATE_STATE, -1,
      "results VALID (1) or INCONCLUSIVE (4) that are not reported successes, or INVALID "
      "(2) that are not over" },
    { "canonical_not_valid", "valid_credit", "workunit", DBC_CANONICAL_NOT_VALID, -1,
      "workunits whose canonical result is missing, of another workunit, or not a VALID "
      "reported success" },
};
#define NDEFS ((int)(sizeof defs / sizeof defs[0]))

struct outcome {
    long long count;
    int *ids;
    int nids;
};

static void usage(FILE *out)
{
    int i;
    fprintf(out,
        "usage: check_invariants [--config FILE] [--json] [--max-ids N]\n"
        "\n"
        "Checks the database for broken invariants and reports, per check, how many\n"
        "entities break it and the lowest ids (default %d, --max-ids 0..%d).\n"
        "Reads only, in one consistent snapshot.  The invariants:\n"
        "  sent_once             no result is sent twice\n"
        "  one_replica_per_user  no two replicas of one workunit go to one user\n"
        "  no_job_lost           every job is finished or still schedulable\n"
        "  cursor_counters       cursors agree with their jobs and teams\n"
        "  tail_replicas         backups: made sent, one at a time, within the job's limit\n"
        "The checks:\n", DEFAULT_MAX_IDS, MAX_IDS_LIMIT);
    for (i = 0; i < NDEFS; i++)
        fprintf(out, "  %-26s (%s) %s.\n", defs[i].name, defs[i].invariant, defs[i].text);
    fprintf(out,
        "A job is finished when its workunit has a canonical result or an error.\n"
        "Credit is compared with a relative tolerance of %g.  Cursor progress and\n"
        "remaining credit lag their workunits until the transitioner has passed:\n"
        "run this on a quiet system to tell a lag from a fault.\n"
        "\n"
        "--json  print one JSON document: {\"version\": 1, \"clean\": true|false,\n"
        "  \"violations\": N (sum of the counts), \"now\": UNIX time, \"checks\": [{\"name\",\n"
        "  \"invariant\", \"entity\" (result|workunit|cursor|host), \"description\",\n"
        "  \"count\", \"ids\": [...]}]}\n"
        "--config FILE  the configuration (default $LOCSCHED_CONFIG, else\n"
        "  ./locsched.conf).\n"
        "\n"
        "Exit status: 0 no violation, 1 violations found, 2 the check could not run\n"
        "(bad arguments, configuration or database error).\n", CREDIT_TOLERANCE);
}

/* ---- the comparisons of the cursor checks (pure) ---- */

static int close_enough(double a, double b)
{
    double scale = fmax(1.0, fmax(fabs(a), fabs(b)));
    if (!isfinite(a) || !isfinite(b))
        return 0;
    return fabs(a - b) <= CREDIT_TOLERANCE * scale;
}

/* Which cursor checks row r breaks, as a bit mask of 1 << CC_*. */
static unsigned cursor_violations(const struct db_check_cursor *r)
{
    int in_progress = r->batch_state == BS_IN_PROGRESS;
    int counted = in_progress || r->batch_state == BS_COMPLETE;
    long long first = r->first_job_num, last = r->last_job_num;
    long long fu = r->first_unfinished_job_num, fg = r->first_ungenerated_job_num;
    unsigned m = 0;

    if (!(first <= fu && fu <= fg && fg <= last + 1))
        m |= 1u << CC_ORDER;
    if (in_progress) {
        long long below = (fg < last + 1 ? fg : last + 1) - first;
        if (below > 0 && r->generated_below < below)
            m |= 1u << CC_NOT_GENERATED;
        if (r->generated_ahead > 0 || (fg <= last && r->jobs_ahead < last - fg + 1))
            m |= 1u << CC_NOT_AHEAD;
    }
    if (counted) {
        if (r->unfinished_behind > 0)
            m |= 1u << CC_UNFINISHED_BEHIND;
        if (!close_enough(r->remaining_credit, credit_of_fpops(r->unfinished_fpops)))
            m |= 1u << CC_REMAINING_CREDIT;
    }
    if (r->nhosts != r->members || !close_enough(r->expavg_credit, r->members_rate) ||
        (r->members > 0 && r->max_host_credit < r->members_max_rate &&
         !close_enough(r->max_host_credit, r->members_max_rate)))
        m |= 1u << CC_TEAM;
    return m;
}

/* ---- running the checks ---- */

struct run {
    struct outcome out[NDEFS];
    int cc_def[CC_N];        /* cursor check -> index in defs */
    int max_ids;
    struct db_check_cursor *cursors;
    int ncursors, cap;
};

static void note_id(struct outcome *o, int id, int max_ids)
{
    o->count++;
    if (o->nids < max_ids)
        o->ids[o->nids++] = id;
}

/* Collect the cursors (their jobs are counted once all are read). */
static int cursor_row(void *ctx, const struct db_check_cursor *r)
{
    struct run *run = ctx;
    if (run->ncursors == run->cap) {
        int cap = run->cap ? run->cap * 2 : 64;
        struct db_check_cursor *v = realloc(run->cursors, sizeof *v * (size_t)cap);
        if (!v)
            return DB_ERR;
        run->cursors = v;
        run->cap = cap;
    }
    run->cursors[run->ncursors++] = *r;
    return 0;
}

/* Run every check in one read-only snapshot.  Returns DB_OK or an error
 * (with the reason in db_error(), or out of memory). */
static int run_checks(struct db_conn *db, struct run *run, int now)
{
    int i, k, r;

    r = db_check_begin(db);
    for (i = 0; r == DB_OK && i < NDEFS; i++) {
        if (defs[i].db >= 0)
            r = db_check_ids(db, (enum db_check_id)defs[i].db, now, run->max_ids,
                             &run->out[i].count, run->out[i].ids, &run->out[i].nids);
    }
    if (r == DB_OK)
        r = db_check_cursors(db, cursor_row, run);
    for (i = 0; r == DB_OK && i < run->ncursors; i++) {
        struct db_check_cursor *c = &run->cursors[i];
        unsigned m;
        r = db_check_cursor_jobs(db, c);
        if (r != DB_OK)
            break;
        m = cursor_violations(c);
        for (k = 0; k < CC_N; k++)
            if (m & (1u << k))
                note_id(&run->out[run->cc_def[k]], c->id, run->max_ids);
    }
    db_rollback(db);   /* end the snapshot; nothing was written */
    return r;
}

/* Read the configuration and connect, like the other tools, but with a
 * read timeout of at least CHECK_TIMEOUT: a check scans whole tables. */
#define CHECK_TIMEOUT 600
static int open_db(const char *config_path, struct config *cfg, struct db_conn **db)
{
    struct db_params p;
    char err[1024];

    if (config_load(cfg, config_locate(config_path), err, sizeof err) < 0) {
        fprintf(stderr, PROG ": %s\n", err);
        return -1;
    }
    memset(&p, 0, sizeof p);
    p.host = cfg->db_host;
    p.user = cfg->db_user;
    p.password = cfg->db_password;
    p.name = cfg->db_name;
    p.socket = cfg->db_socket;
    p.port = cfg->db_port;
    p.timeout = cfg->db_timeout > CHECK_TIMEOUT ? cfg->db_timeout : CHECK_TIMEOUT;
    p.lock_wait_timeout = cfg->db_lock_wait_timeout;
    p.retries = cfg->db_retries;
    *db = db_open(&p, err, sizeof err);
    if (!*db) {
        fprintf(stderr, PROG ": %s\n", err);
        return -1;
    }
    return 0;
}

/* ---- output ---- */

static void print_text(const struct run *run, long long total)
{
    const char *inv = "";
    int i, k;
    for (i = 0; i < NDEFS; i++) {
        const struct outcome *o = &run->out[i];
        if (strcmp(inv, defs[i].invariant) != 0) {
            inv = defs[i].invariant;
            printf("%s:\n", inv);
        }
        if (o->count == 0) {
            printf("  ok    %s\n", defs[i].name);
            continue;
        }
        printf("  FAIL  %s: %lld %s%s", defs[i].name, o->count, defs[i].entity,
               o->count == 1 ? "" : "s");
        for (k = 0; k < o->nids; k++)
            printf("%s%s#%d", k ? ", " : " (", defs[i].entity, o->ids[k]);
        printf("%s\n", o->nids ? (o->nids < o->count ? ", ...)" : ")") : "");
        printf("        %s\n", defs[i].text);
    }
    if (total == 0)
        printf("clean: no violation in %d checks\n", NDEFS);
    else
        printf("%lld violation%s\n", total, total == 1 ? "" : "s");
}

static void print_json(const struct run *run, long long total, long long now)
{
    int i, k;
    printf("{\"version\": 1, \"clean\": %s, \"violations\": %lld, \"now\": %lld, \"checks\": [",
           total ? "false" : "true", total, now);
    for (i = 0; i < NDEFS; i++) {
        const struct outcome *o = &run->out[i];
        /* names and descriptions are constants without quotes or backslashes */
        printf("%s\n  {\"name\": \"%s\", \"invariant\": \"%s\", \"entity\": \"%s\", "
               "\"description\": \"%s\", \"count\": %lld, \"ids\": [",
               i ? "," : "", defs[i].name, defs[i].invariant, defs[i].entity, defs[i].text,
               o->count);
        for (k = 0; k < o->nids; k++)
            printf("%s%d", k ? ", " : "", o->ids[k]);
        printf("]}");
    }
    printf("\n]}\n");
}

int main(int argc, char **argv)
{
    const char *config = NULL;
    int i, json = 0, rc = 2, r;
    long long total = 0;
    time_t now = time(NULL);
    struct config cfg;
    struct db_conn *db = NULL;
    struct run run;

    memset(&run, 0, sizeof run);
    run.max_ids = DEFAULT_MAX_IDS;
    for (i = 1; i < argc; i++) {
        const char *a = argv[i];
        if (strcmp(a, "--help") == 0 || strcmp(a, "-h") == 0) {
            usage(stdout);
            return 0;
        } else if (strcmp(a, "--json") == 0) {
            json = 1;
        } else if (strcmp(a, "--config") == 0 || strcmp(a, "--max-ids") == 0) {
            if (i + 1 >= argc) {
                fprintf(stderr, PROG ": %s needs a value (see --help)\n", a);
                return 2;
            }
            if (strcmp(a, "--config") == 0) {
                config = argv[++i];
            } else {
                long v;
                if (tool_parse_long(argv[++i], 0, MAX_IDS_LIMIT, &v) < 0) {
                    fprintf(stderr, PROG ": --max-ids wants a number from 0 to %d, not '%s'\n",
                            MAX_IDS_LIMIT, argv[i]);
                    return 2;
                }
                run.max_ids = (int)v;
            }
        } else {
            fprintf(stderr, PROG ": unknown argument '%s' (see --help)\n", a);
            return 2;
        }
    }
    for (i = 0; i < CC_N; i++)
        run.cc_def[i] = -1;
    for (i = 0; i < NDEFS; i++) {
        if (defs[i].cc >= 0)
            run.cc_def[defs[i].cc] = i;
        run.out[i].ids = calloc((size_t)(run.max_ids ? run.max_ids : 1), sizeof(int));
        if (!run.out[i].ids) {
            fprintf(stderr, PROG ": out of memory\n");
            goto out;
        }
    }
    if (open_db(config, &cfg, &db) < 0)
        goto out;
    r = run_checks(db, &run, now > INT_MAX ? INT_MAX : (int)now);
    if (r != DB_OK) {
        fprintf(stderr, PROG ": database %s: %s\n", cfg.db_name, db_error(db));
        goto out;
    }
    for (i = 0; i < NDEFS; i++)
        total += run.out[i].count;
    if (json)
        print_json(&run, total, (long long)now);
    else
        print_text(&run, total);
    if (fflush(stdout) != 0) {
        fprintf(stderr, PROG ": cannot write the report\n");
        goto out;
    }
    rc = total ? 1 : 0;

out:
    for (i = 0; i < NDEFS; i++)
        free(run.out[i].ids);
    free(run.cursors);
    db_close(db);
    return rc;
}
