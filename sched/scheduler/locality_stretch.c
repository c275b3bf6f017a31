/*
 * locality_stretch.c - the candidates of one locality cursor for one
 * request (see locality_stretch.h): the host's stretch, the jobs of its
 * files, a new stretch chosen by sched/policy/stretch_choice.c.
 */
#include "locality_stretch.h"

#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "credit.h"
#include "handler.h"
#include "host_rhythm.h"
#include "log.h"
#include "stretch_choice.h"

/* Most team members a stretch decision considers. */
#define LS_MAX_MEMBERS 512

int locality_request_jobs(const struct sched_ctx *ctx, int limit)
{
    int per = 4 * (ctx->cfg.candidate_factor > 0 ? ctx->cfg.candidate_factor : 1);
    int jobs = (limit - 4) / per;
    return jobs > 1 ? jobs : 1;
}

static void sc_cursor_of(const struct db_cursor_row *row, double team_rate, int frontier,
                         int first_open, struct sc_cursor *c)
{
    memset(c, 0, sizeof *c);
    c->last_job_num = row->last_job_num;
    c->first_unfinished_job_num = row->first_unfinished_job_num;
    /* a cursor made without a frontier starts at its first job */
    c->next_stretch = frontier > row->first_job_num ? frontier : row->first_job_num;
    c->first_open = first_open;
    c->replication = row->replication > 0 ? row->replication : 1;
    c->team_rate = team_rate;
}

void locality_stretch_on_join(const struct sched_ctx *ctx, const struct db_cursor_row *row,
                              double rate, int min_jobs, int *first, int *last, int *frontier)
{
    struct sc_cursor c;
    struct sc_host h = { rate, min_jobs, -1 };
    struct sc_choice ch;

    *first = *last = -1;
    *frontier = 0;
    if (!ctx->cfg.locality_positions)
        return;
    sc_cursor_of(row, row->expavg_credit + rate, row->next_stretch, -1, &c);
    stretch_on_join(&c, &h, &ch);
    if (ch.action == SC_FRONTIER) {
        *first = ch.first;
        *last = ch.last;
        *frontier = ch.last + 1;
    }
}

struct member_list {
    struct sc_member *m;
    int n;
    const struct sched_ctx *ctx;
    time_t now;
};

static int add_member(void *vctx, const struct db_stretch_row *r)
{
    struct member_list *l = vctx;
    struct host_rhythm rh;
    struct lost_params lp;
    if (l->n >= LS_MAX_MEMBERS)
        return 0;
    memset(&rh, 0, sizeof rh);
    rh.gap_avg = r->rpc_gap_avg;
    rh.gap_dev = r->rpc_gap_dev;
    rh.gap_n = r->rpc_gap_n;
    lp.gap_factor = l->ctx->cfg.lost_host_gap_factor;
    lp.min_silence = l->ctx->cfg.lost_host_min_silence;
    lp.new_silence = l->ctx->cfg.lost_host_new_silence;
    l->m[l->n].gone = r->lost_time > 0 ||
                      (r->rpc_time > 0 &&
                       rhythm_presumed_lost(&rh, &lp, (double)(l->now - r->rpc_time)));
    l->m[l->n].host_id = r->host_id;
    l->m[l->n].same_user = r->same_user;
    l->m[l->n].rate = r->credit_rate;
    l->m[l->n].first = r->first;
    l->m[l->n].last = r->last;
    l->m[l->n].unsent = r->unsent;
    l->n++;
    return 0;
}

/* Choose and write the host's next stretch (team->row.my_stretch_* get it). */
static int new_stretch(struct sched_ctx *ctx, struct request_state *rs, struct loc_team *team,
                       int limit)
{
    struct db_cursor_row *row = &team->row;
    struct member_list ml = { NULL, 0, ctx, rs->now };
    struct sc_cursor c;
    struct sc_host h;
    struct sc_choice ch;
    int first_open = -1, frontier = -1, r;

    ml.m = malloc(sizeof *ml.m * LS_MAX_MEMBERS);
    if (!ml.m)
        return DB_ERR;
    r = db_stretch_read(ctx->db, row->id, rs->hostid, rs->user.id,
                        row->my_stretch_first >= 0 ? row->my_stretch_last + 1 : 0, add_member,
                        &ml, &first_open, &frontier);
    if (r != DB_OK || frontier < 0) {
        /* frontier < 0: another member is deciding; this request takes
         * from the cursor's front and the next one decides */
        if (r == DB_OK) {
            log_debug("[host#%d] [cursor#%d] busy: no stretch decision this time", rs->hostid,
                      row->id);
            team->busy = 1;
        }
        free(ml.m);
        return r;
    }
    sc_cursor_of(row, row->expavg_credit > 0 ? row->expavg_credit : team->rate, frontier,
                 first_open, &c);
    h.rate = team->rate;
    h.min_jobs = locality_request_jobs(ctx, limit);
    h.prev_first = row->my_stretch_first;
    stretch_choose(&c, ml.m, ml.n, &h, &ch);
    if (ch.action != SC_NONE) {
        struct db_stretch_write w;
        static const char *const how[] = { "", "open work", "the frontier", "a take-over" };
        memset(&w, 0, sizeof w);
        w.batch_id = row->batch_id;
        w.first = ch.first;
        w.last = ch.last;
        w.frontier = ch.action == SC_FRONTIER ? ch.last + 1 : 0;
        if (ch.action == SC_TAKE_OVER) {
            w.victim_host = ml.m[ch.victim].host_id;
            w.victim_first = ml.m[ch.victim].first;
            w.victim_last = ml.m[ch.victim].last;
            w.victim_new_last = ch.victim_last;
        }
        if (rs->stretch.batch_id == 0) {
            rs->stretch = w;       /* written by the host update, no statement now */
        } else {
            /* a second batch's stretch in one request: its own statements */
            if (w.victim_host > 0)
                r = db_stretch_shrink(ctx->db, w.victim_host, w.batch_id, w.victim_first,
                                      w.victim_last, w.victim_new_last);
            if (r == DB_OK)
                r = db_stretch_set(ctx->db, rs->hostid, w.batch_id, w.first, w.last,
                                   w.frontier);
        }
        if (r == DB_OK) {
            log_debug("[host#%d] [cursor#%d] stretch %d..%d (%s)", rs->hostid, row->id,
                      ch.first, ch.last, how[ch.action]);
            row->my_stretch_first = ch.first;
            row->my_stretch_last = ch.last;
        }
    }
    if (ch.action == SC_NONE)
        row->my_stretch_first = row->my_stretch_last = -1;
    free(ml.m);
    return r;
}

/* Append the candidates of [first, last] not already in out. */
static int add_range(struct sched_ctx *ctx, struct request_state *rs, int cursor_id, int first,
                     int last, int limit, struct db_candidate *out, int *n)
{
    struct db_candidate *tmp;
    int k = 0, i, j, r;

    if (*n >= limit || first > last)
        return DB_OK;
    tmp = malloc(sizeof *tmp * (size_t)(limit - *n));
    if (!tmp)
        return DB_ERR;
    r = db_candidates_cursor(ctx->db, cursor_id, rs->user.id, first, last, limit - *n, tmp, &k);
    for (i = 0; r == DB_OK && i < k && *n < limit; i++) {
        for (j = 0; j < *n && out[j].result_id != tmp[i].result_id; j++)
            ;
        if (j == *n)
            out[(*n)++] = tmp[i];
    }
    free(tmp);
    return r;
}

int locality_stretch_candidates(struct sched_ctx *ctx, struct request_state *rs,
                                struct loc_team *team, const struct loc_held *held, int limit,
                                struct db_candidate *out, int *n)
{
    struct db_cursor_row *row = &team->row;
    int r = DB_OK, k = 0;

    *n = 0;
    if (limit <= 0)
        return DB_OK;
    if (ctx->cfg.locality_positions && row->my_stretch_first >= 0)
        r = add_range(ctx, rs, row->id, row->my_stretch_first, row->my_stretch_last, limit, out,
                      n);
    if (r != DB_OK || *n > 0)
        return r;

    /* the stretch has nothing left for the host (or it has none): the
     * jobs of the files it holds, anywhere in the cursor */
    if (ctx->cfg.locality_file_preference && held->n > 0) {
        r = db_candidates_files(ctx->db, row->id, rs->user.id, held->file_nums, held->n, limit,
                                out, &k);
        if (r != DB_OK)
            return r;
        *n = k;
    }
    /* enough for this request: the new stretch can wait until those run out */
    if (*n >= locality_request_jobs(ctx, limit))
        return DB_OK;
    if (ctx->cfg.locality_positions) {
        /* then new work next to them: the next stretch */
        r = new_stretch(ctx, rs, team, limit);
        if (r == DB_OK && row->my_stretch_first >= 0)
            r = add_range(ctx, rs, row->id, row->my_stretch_first, row->my_stretch_last, limit,
                          out, n);
        if (r != DB_OK || *n > 0)
            return r;
    }
    /* the cursor's front, in job order: today's window, and what is left
     * when no stretch has work for the host (a cursor's tail) */
    return add_range(ctx, rs, row->id, 0, INT_MAX, limit, out, n);
}
