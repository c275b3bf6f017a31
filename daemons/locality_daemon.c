/*
 * locality_daemon.c - the locality daemon: keeps the teams' figures true
 * (see doc/locality.md, "Daemons").
 *
 * Per cursor (those of IN_PROGRESS locality batches, and any cursor with a
 * member not seen for host_idle_timeout), one transaction with the cursor
 * row locked:
 *   - members whose host has not contacted the scheduler since
 *     now - host_idle_timeout leave the team (their batch_host row is
 *     deleted, unless the host came back meanwhile);
 *   - each remaining member's batch_host.credit_rate becomes its
 *     host_credit_rate() (sched/policy/credit.h) at now;
 *   - the cursor's expavg_credit becomes the sum of its members' rates,
 *     max_host_credit the largest, nhosts their number.
 * A rate is only rewritten when it moved by more than LD_TOLERANCE
 * (relative): averages decay every second, and rewriting every row at
 * every pass would only contend with the schedulers.  Sums are always of
 * the stored rates, so that a member leaving subtracts exactly what the
 * cursor holds for it.  An empty team keeps its cursor.
 *
 * Locking the cursor first orders this with the schedulers, which change
 * a cursor's figures with relative updates of the same row when a host
 * joins or moves: either their change is committed before we read the
 * members, or it waits for our commit and then applies on top.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "credit.h"
#include "daemon.h"
#include "daemon_passes.h"
#include "db_daemon.h"
#include "log.h"

#define LD_CHUNK 500           /* cursors listed at a time */
#define LD_TOLERANCE 1e-3      /* relative change worth a write */

struct member_list {
    struct db_ld_member *v;
    int n, cap;
};

static int add_member(void *ctx, const struct db_ld_member *m)
{
    struct member_list *l = ctx;
    if (l->n == l->cap) {
        int cap = l->cap ? l->cap * 2 : 32;
        struct db_ld_member *v = realloc(l->v, sizeof *v * (size_t)cap);
        if (!v)
            return DB_ERR;
        l->v = v;
        l->cap = cap;
    }
    l->v[l->n++] = *m;
    return 0;
}

/* a and b differ by more than the tolerance (relative to the larger) */
static int differs(double a, double b)
{
    double scale = fabs(a) > fabs(b) ? fabs(a) : fabs(b);
    return fabs(a - b) > LD_TOLERANCE * scale;
}

struct team_tx {
    struct daemon *d;
    int cursor_id;
    int idle_before;
    struct member_list members;
    struct db_ld_cursor cur;
    int found, removed, rates_written, team_written;
    int nhosts;
    double sum, max;
};

static int team_body(struct db_conn *c, void *arg)
{
    struct team_tx *t = arg;
    double now = (double)t->d->now, half_life = t->d->cfg.credit_half_life;
    int i, r;

    t->found = t->removed = t->rates_written = t->team_written = t->nhosts = 0;
    t->sum = t->max = 0;
    t->members.n = 0;
    r = db_ld_cursor_lock(c, t->cursor_id, &t->cur);
    if (r == DB_NOTFOUND)
        return DB_OK;
    if (r != DB_OK)
        return r;
    t->found = 1;
    r = db_ld_members(c, t->cursor_id, add_member, &t->members);
    if (r != DB_OK)
        return r;
    for (i = 0; i < t->members.n; i++) {
        struct db_ld_member *m = &t->members.v[i];
        struct host_speed hs;
        double rate;
        if (m->rpc_time < t->idle_before) {
            long long gone = 0;
            r = db_ld_member_remove(c, m->host_id, m->batch_id, t->cursor_id, t->idle_before,
                                    &gone);
            if (r != DB_OK)
                return r;
            if (gone) {
                m->host_id = -m->host_id;     /* marks it removed, for the log */
                t->removed++;
                continue;
            }
        }
        memset(&hs, 0, sizeof hs);
        hs.p_fpops = m->p_fpops;
        hs.p_ncpus = m->p_ncpus;
        hs.on_frac = m->on_frac;
        hs.active_frac = m->active_frac;
        hs.expavg_credit = m->expavg_credit;
        hs.expavg_time = m->expavg_time;
        hs.gpu_flops = m->gpu_peak_flops * t->d->cfg.gpu_flops_scale;
        hs.gpu_active_frac = m->gpu_active_frac;
        rate = host_credit_rate(&hs, now, half_life);
        if (differs(rate, m->credit_rate)) {
            r = db_ld_member_rate(c, m->host_id, m->batch_id, t->cursor_id, rate);
            if (r != DB_OK)
                return r;
            m->credit_rate = rate;
            t->rates_written++;
        }
        t->nhosts++;
        t->sum += m->credit_rate;
        if (m->credit_rate > t->max)
            t->max = m->credit_rate;
    }
    if (t->nhosts == t->cur.nhosts && !t->rates_written && !differs(t->sum, t->cur.expavg_credit) &&
        !differs(t->max, t->cur.max_host_credit))
        return DB_OK;
    t->team_written = 1;
    return db_ld_cursor_team(c, t->cursor_id, t->sum, t->max, t->nhosts, (int)t->d->now);
}

/* Recompute one team.  Returns the changes made (members removed, plus 1
 * if the cursor was rewritten), or a negative status. */
static long recompute(struct daemon *d, struct team_tx *t, int cursor_id)
{
    char what[64];
    int r, i;

    t->d = d;
    t->cursor_id = cursor_id;
    t->idle_before = (int)d->now - d->cfg.host_idle_timeout;
    snprintf(what, sizeof what, "recompute the team of [cursor#%d]", cursor_id);
    r = db_transaction(d->db, what, team_body, t);
    if (r != DB_OK) {
        log_error("[cursor#%d] %s", cursor_id, db_error(d->db));
        return r;
    }
    if (!t->found)
        return 0;
    for (i = 0; i < t->members.n; i++) {
        const struct db_ld_member *m = &t->members.v[i];
        if (m->host_id < 0)
            log_info("[cursor#%d] [batch#%d] [host#%d] left the team: last contact %ld s "
                     "ago (host_idle_timeout %d s)", cursor_id, t->cur.batch_id, -m->host_id,
                     (long)d->now - m->rpc_time, d->cfg.host_idle_timeout);
    }
    if (t->team_written) {
        if (t->nhosts != t->cur.nhosts)
            log_info("[cursor#%d] [batch#%d] team: %d hosts (was %d), %.4g credits/day, "
                     "fastest %.4g", cursor_id, t->cur.batch_id, t->nhosts, t->cur.nhosts,
                     t->sum, t->max);
        else
            log_debug("[cursor#%d] team: %d hosts, %.4g credits/day (was %.4g), fastest %.4g",
                      cursor_id, t->nhosts, t->sum, t->cur.expavg_credit, t->max);
    }
    return t->removed + t->team_written;
}

struct list_tx {
    struct daemon *d;
    int after;
    int ids[LD_CHUNK];
    int n;
};

static int list_body(struct db_conn *c, void *arg)
{
    struct list_tx *l = arg;
    struct daemon *d = l->d;
    l->n = 0;
    return db_ld_cursors(c, (int)d->now - d->cfg.host_idle_timeout, d->mod_n, d->mod_i,
                         l->after, LD_CHUNK, l->ids, &l->n);
}

long locality_daemon_pass(struct daemon *d)
{
    struct list_tx *l = d->state;
    struct team_tx t;
    long total = 0, failed = 0;
    int i, r;

    memset(&t, 0, sizeof t);
    l->d = d;
    l->after = 0;
    do {
        r = db_transaction(d->db, "list cursors", list_body, l);
        if (r != DB_OK) {
            log_error("%s", db_error(d->db));
            break;
        }
        for (i = 0; i < l->n && !daemon_should_stop(d); i++) {
            long n = recompute(d, &t, l->ids[i]);
            if (n < 0)
                failed++;
            else
                total += n;
        }
        if (l->n > 0)
            l->after = l->ids[l->n - 1];
    } while (l->n == LD_CHUNK && !daemon_should_stop(d));
    free(t.members.v);
    if (r != DB_OK)
        return r;
    if (failed && total == 0)
        return DB_ERR;
    return total;
}

void *locality_daemon_state_new(void)
{
    return calloc(1, sizeof(struct list_tx));
}

void locality_daemon_state_free(void *state)
{
    free(state);
}

#ifndef DAEMON_NO_MAIN
int main(int argc, char **argv)
{
    void *l = locality_daemon_state_new();
    int rc;
    if (!l) {
        fprintf(stderr, "locality_daemon: out of memory\n");
        return 1;
    }
    rc = daemon_main(argc, argv, "locality_daemon",
                     "The locsched locality daemon: removes team members not seen for\n"
                     "host_idle_timeout and recomputes each cursor's expavg_credit, nhosts\n"
                     "and max_host_credit (and each member's credit_rate) from the hosts'\n"
                     "current credit rates.",
                     locality_daemon_pass, l);
    locality_daemon_state_free(l);
    return rc;
}
#endif
