/*
 * job_source_locality.c - the locality job source (doc/locality.md,
 * "Scheduler"): team choice, the cursor's window in job order with
 * sticky-file preference, sticky-file deletion and host_file tracking.
 * Plain batches are served after the locality ones.
 */
#include "job_source.h"

#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "credit.h"
#include "cursor_choice.h"
#include "db_gpu.h"
#include "db_locality.h"
#include "handler.h"
#include "locality_pick.h"
#include "locality_stretch.h"
#include "log.h"

/* ---- the cursors of the active locality batches ---- */

struct cursor_list {
    struct db_cursor_row *rows;
    int n, cap;
};

static int add_cursor(void *vctx, const struct db_cursor_row *r)
{
    struct cursor_list *l = vctx;
    if (l->n == l->cap) {
        int cap = l->cap ? l->cap * 2 : 32;
        struct db_cursor_row *q = realloc(l->rows, sizeof *q * (size_t)cap);
        if (!q)
            return DB_ERR;
        l->rows = q;
        l->cap = cap;
    }
    l->rows[l->n++] = *r;
    return 0;
}

/* ---- the sticky files the host holds, as (batch, file_num) ---- */

static int cmp_held(const void *a, const void *b)
{
    const struct loc_held_file *x = a, *y = b;
    if (x->batch_id != y->batch_id)
        return x->batch_id < y->batch_id ? -1 : 1;
    return x->file_num < y->file_num ? -1 : x->file_num > y->file_num;
}

/* rs->held, for held_has() and file_nbytes() */
struct held_set {
    const struct loc_held_file *f;
    int n;
    struct sched_ctx *ctx;
    time_t now;
};

static void held_view(struct sched_ctx *ctx, const struct request_state *rs, struct held_set *h)
{
    h->f = rs->held;
    h->n = rs->nheld;
    h->ctx = ctx;
    h->now = rs->now;
}

static int held_has(void *vctx, int batch_id, int file_num)
{
    struct held_set *h = vctx;
    struct loc_held_file key = { batch_id, file_num, 0 };
    return h->n && bsearch(&key, h->f, (size_t)h->n, sizeof *h->f, cmp_held) != NULL;
}

static double file_nbytes(void *vctx, int batch_id, int file_num)
{
    struct held_set *h = vctx;
    const struct cached_file *f =
        batch_file(app_cache_batch(&h->ctx->apps, h->ctx->db, batch_id, h->now), file_num);
    return f && f->nbytes > 0 ? f->nbytes : 1;
}

/*
 * Map the host's sticky files to batches batch_ids[0..nbatches) into
 * rs->held, sorted.  A name that none of them has is marked batch 0 (to
 * be deleted).  So is a file the client failed to download (status < 0):
 * the client keeps such a file in error and fails every job that uses
 * it, so it must neither attract jobs that use it nor stay; once
 * deleted, the next job that needs it downloads it again.
 */
static int map_held(struct sched_ctx *ctx, struct request_state *rs, const int *batch_ids,
                    int nbatches)
{
    const struct sched_request *req = &rs->req;
    struct loc_held_file *f;
    int i, k;

    free(rs->held);
    rs->held = NULL;
    rs->nheld = 0;
    if (req->nsticky_files == 0)
        return DB_OK;
    f = calloc((size_t)req->nsticky_files, sizeof *f);
    if (!f)
        return DB_ERR;
    for (i = 0; i < req->nsticky_files; i++) {
        f[i].req_index = i;
        if (req->sticky_files[i].status < 0)
            continue;
        for (k = 0; k < nbatches; k++) {
            const struct batch_files *bf;
            const struct cached_file *cf;
            int r = app_cache_batch_get(&ctx->apps, ctx->db, batch_ids[k], rs->now, &bf);
            if (r != DB_OK) {
                free(f);
                return r;
            }
            cf = batch_file_by_name(bf, req->sticky_files[i].name);
            if (cf) {
                f[i].batch_id = batch_ids[k];
                f[i].file_num = cf->file_num;
                break;
            }
        }
    }
    qsort(f, (size_t)req->nsticky_files, sizeof *f, cmp_held);
    rs->held = f;
    rs->nheld = req->nsticky_files;
    return DB_OK;
}

/*
 * map_held() to the active locality batches of the cursor cache, before
 * the request's teams are chosen (rs->loc is still empty then).  These
 * are the batches of rs->loc: the candidates make one team a batch of
 * the cache, in its order, up to LOC_MAX_BATCHES; so after_claim uses
 * this mapping too (rs->held_mapped).
 */
static int map_held_cached(struct sched_ctx *ctx, struct request_state *rs)
{
    const struct app_cache *ac = &ctx->apps;
    int ids[LOC_MAX_BATCHES], n = 0, i, r;
    for (i = 0; i < ac->ncursors && n < LOC_MAX_BATCHES; i++)
        if (n == 0 || ids[n - 1] != ac->cursors[i].batch_id)
            ids[n++] = ac->cursors[i].batch_id;
    r = map_held(ctx, rs, ids, n);
    rs->held_mapped = r == DB_OK;
    return r;
}

/* ---- team choice for one batch ---- */

/* Conditional joins a request tries before it joins whatever the team's
 * state (choose_team). */
#define JOIN_ATTEMPTS 3

/* What a team choice may write (choose_team). */
enum team_write {
    TEAM_READ_ONLY,      /* cached figures: a join or move only asks for fresh ones */
    TEAM_IF_UNCHANGED,   /* fresh figures: the write holds if the team is as read */
    TEAM_WHATEVER        /* after JOIN_ATTEMPTS lost races: write in any case */
};

/* The host's credit rate now (doc/locality.md, "Words and units").  A
 * GPU counts when the project has an app version for its type
 * (project-wide, as the locality daemon counts it). */
static double request_host_rate(const struct sched_ctx *ctx, const struct request_state *rs)
{
    struct host_speed hs;
    int i;
    memset(&hs, 0, sizeof hs);
    for (i = 0; i < rs->req.ncoprocs; i++) {
        const struct req_coproc *cp = &rs->req.coprocs[i];
        int g = db_gpu_type(cp->type);
        if (g >= 0 && cp->count > 0 && ctx->apps.gpu_versions[g])
            hs.gpu_flops += cp->count * cp->peak_flops * ctx->cfg.gpu_flops_scale;
    }
    hs.gpu_active_frac = rs->req.gpu_active_frac;
    hs.p_fpops = rs->req.p_fpops;
    hs.p_ncpus = rs->req.p_ncpus;
    hs.on_frac = rs->req.on_frac;
    hs.active_frac = rs->req.active_frac;
    hs.expavg_credit = rs->host.expavg_credit;
    hs.expavg_time = rs->host.expavg_time;
    return host_credit_rate(&hs, (double)rs->now, ctx->cfg.credit_half_life);
}

/*
 * Decide the host's team among the n cursors of one batch and fill lc,
 * and team with the chosen cursor (with the host's stretch in it);
 * starved: its own cursor had nothing for it in this request.
 * A join or a move writes, with the host's first stretch; with
 * TEAM_READ_ONLY it writes nothing and sets *needs_fresh instead (the
 * caller reads the cursors fresh and calls again), so that only fresh
 * figures ever change a team.  With TEAM_IF_UNCHANGED the write holds
 * only if the team still has room and the same frontier (another
 * scheduler may have filled it since the read); if not, it sets
 * *needs_fresh too.  With TEAM_WHATEVER (after JOIN_ATTEMPTS such
 * losses) it writes whatever the team's state.
 */
static int choose_team(struct sched_ctx *ctx, struct request_state *rs,
                       const struct db_cursor_row *rows, int n, int starved,
                       struct loc_choice *lc, struct loc_team *team, int limit,
                       enum team_write may_write, int *needs_fresh)
{
    struct cc_cursor cs[256];
    struct cc_host h;
    struct cc_params p;
    struct cc_choice ch;
    const struct db_cursor_row *to;
    int i, r;

    if (n > (int)(sizeof cs / sizeof cs[0])) {
        log_warn("[batch#%d] has %d cursors; only the first %d are considered", rows[0].batch_id,
                 n, (int)(sizeof cs / sizeof cs[0]));
        n = (int)(sizeof cs / sizeof cs[0]);
    }
    memset(&h, 0, sizeof h);
    h.current = -1;
    for (i = 0; i < n; i++) {
        cs[i].id = rows[i].id;
        cs[i].remaining_credit =
            rows[i].first_unfinished_job_num > rows[i].last_job_num ? 0 : rows[i].remaining_credit;
        cs[i].expavg_credit = rows[i].expavg_credit;
        cs[i].max_host_credit = rows[i].max_host_credit;
        cs[i].nhosts = rows[i].nhosts;
        cs[i].user_in_team = rows[i].user_in_team;
        cs[i].nothing_unsent = rows[i].has_unsent == 0;
        if (rows[i].mine) {
            h.current = i;
            h.rate_counted = rows[i].my_credit_rate;
            h.assign_time = rows[i].my_assign_time;
        }
    }
    h.rate = request_host_rate(ctx, rs);
    h.now = rs->now;
    h.starved = starved;
    p.team_size_max = ctx->cfg.team_size_max;
    p.move_ratio = ctx->cfg.move_ratio;
    p.move_min_interval = ctx->cfg.move_min_interval;
    cursor_choose(cs, n, &h, &p, &ch);

    if ((ch.action == CC_JOIN || ch.action == CC_MOVE) && may_write == TEAM_READ_ONLY) {
        *needs_fresh = 1;
        return DB_OK;
    }
    lc->action = ch.action;
    lc->cursor_id = 0;
    lc->first_needed_file = 1;
    lc->last_needed_file = 0;
    if (ch.cursor < 0)
        return DB_OK;
    to = &rows[ch.cursor];
    lc->cursor_id = to->id;
    if (to->first_unfinished_job_num <= to->last_job_num && to->first_unfinished_file >= 0) {
        lc->first_needed_file = to->first_unfinished_file;
        lc->last_needed_file = to->last_file_num;
    }
    team->row = *to;
    team->rate = h.rate;
    if (ch.action == CC_JOIN || ch.action == CC_MOVE) {
        const struct db_cursor_row *from = ch.action == CC_MOVE ? &rows[ch.from] : NULL;
        int conditional = may_write == TEAM_IF_UNCHANGED;
        int first, last, frontier, max_nhosts, expect_frontier;
        int lost = 0;
        locality_stretch_on_join(ctx, to, h.rate, locality_request_jobs(ctx, limit), &first,
                                 &last, &frontier);
        /* the team's row first, on the condition that what this choice
         * read still holds (room in the team, the same frontier) */
        max_nhosts = conditional && !(ch.violations & CC_VIOL_SIZE) ? ctx->cfg.team_size_max
                                                                    : INT_MAX;
        expect_frontier = conditional && first >= 0 ? to->next_stretch : -1;
        r = db_cursor_adjust(ctx->db, to->id, h.rate, from ? from->id : 0,
                             from ? from->my_credit_rate : 0, frontier, max_nhosts,
                             expect_frontier, &lost);
        if (r == DB_OK && lost) {
            log_debug("[host#%d] [cursor#%d] changed since it was read: choose again",
                      rs->hostid, to->id);
            *needs_fresh = 1;
            lc->cursor_id = 0;
            return DB_OK;
        }
        if (r == DB_OK)
            r = db_batch_host_assign(ctx->db, rs->hostid, to->batch_id, to->id, rs->user.id,
                                     h.rate, (int)rs->now, first, last);
        if (r != DB_OK)
            return r;
        team->row.mine = 1;
        team->row.my_stretch_first = first;
        team->row.my_stretch_last = last;
        team->row.expavg_credit += h.rate;
        if (frontier > team->row.next_stretch)
            team->row.next_stretch = frontier;
        if (from)
            log_info("[host#%d] moves from [cursor#%d] to [cursor#%d] of [batch#%d]%s",
                     rs->hostid, from->id, to->id, to->batch_id,
                     ch.violations ? " (team rules relaxed)" : "");
        else
            log_info("[host#%d] joins [cursor#%d] of [batch#%d]%s", rs->hostid, to->id,
                     to->batch_id, ch.violations ? " (team rules relaxed)" : "");
    }
    return DB_OK;
}

/*
 * Decide the host's team in one batch: first on the cached rows, which
 * write nothing; a join or a move is then decided again on fresh rows,
 * and written if they still hold (up to JOIN_ATTEMPTS times), else
 * written whatever the team's state.
 */
static int decide_team(struct sched_ctx *ctx, struct request_state *rs,
                       const struct db_cursor_row *rows, int n, int starved,
                       struct loc_choice *lc, struct loc_team *team, int limit)
{
    int k, needs_fresh = 0, r;

    r = choose_team(ctx, rs, rows, n, starved, lc, team, limit, TEAM_READ_ONLY, &needs_fresh);
    for (k = 1; r == DB_OK && needs_fresh && k <= JOIN_ATTEMPTS + 1; k++) {
        struct cursor_list fresh = { 0 };
        needs_fresh = 0;
        r = db_locality_cursors(ctx->db, lc->batch_id, rs->hostid, rs->user.id, add_cursor,
                                &fresh);
        if (r == DB_OK && fresh.n > 0)
            r = choose_team(ctx, rs, fresh.rows, fresh.n, starved, lc, team, limit,
                            k <= JOIN_ATTEMPTS ? TEAM_IF_UNCHANGED : TEAM_WHATEVER,
                            &needs_fresh);
        free(fresh.rows);
    }
    return r;
}

/*
 * A member whose own cursor had nothing for it (its stretch, its files'
 * jobs, a new stretch and the front all empty: the cursor's work is in
 * its members' queues, as at a batch's end) moves to the cursor that
 * needs help most among those with unsent work, and takes a stretch
 * there (open work or a take-over), in this request.  Its later
 * requests go on in that stretch: a helper that took a few jobs from
 * the helped cursor's end at each request brought their files to a new
 * host each time (doc/emulator.md, "A starved host moves").  Not called
 * when another member was deciding the stretch (team->busy): no new
 * stretch was looked for then.  *got: the candidates found; lc and team
 * are the new cursor's when the host moved, unchanged otherwise.
 */
static int move_when_starved(struct sched_ctx *ctx, struct request_state *rs,
                             const struct db_cursor_row *rows, int n, struct loc_choice *lc,
                             struct loc_team *team, const struct loc_held *held, int limit,
                             struct db_candidate *out, int *got)
{
    struct loc_choice was = *lc;
    struct loc_team was_team = *team;
    int r;

    *got = 0;
    r = decide_team(ctx, rs, rows, n, 1, lc, team, limit);
    if (r != DB_OK || lc->action != CC_MOVE || lc->cursor_id <= 0) {
        *lc = was;
        *team = was_team;
        return r;
    }
    /* a stretch decided in the cursor it left is void: the host update
     * writes the stretch into the host's row of the batch, now the new
     * cursor's */
    if (rs->stretch.batch_id == lc->batch_id)
        memset(&rs->stretch, 0, sizeof rs->stretch);
    return locality_stretch_candidates(ctx, rs, team, held, limit, out, got);
}

/* ---- the source ---- */

/* Reload the process's cursor cache when it is CURSOR_CACHE_TTL old. */
static int refresh_cursor_cache(struct sched_ctx *ctx, time_t now)
{
    struct app_cache *ac = &ctx->apps;
    struct cursor_list cl = { 0 };
    int r;

    if (ac->cursors_loaded_at && now - ac->cursors_loaded_at < CURSOR_CACHE_TTL &&
        now >= ac->cursors_loaded_at)
        return DB_OK;
    r = db_locality_all_cursors(ctx->db, add_cursor, &cl);
    if (r != DB_OK) {
        free(cl.rows);
        return r;
    }
    free(ac->cursors);
    ac->cursors = cl.rows;
    ac->ncursors = cl.n;
    ac->cursors_loaded_at = now;
    return DB_OK;
}

/* The file numbers the host holds in batch_id (from the sorted held set). */
static void held_in_batch(const struct held_set *h, int batch_id, int *nums, struct loc_held *out)
{
    int i;
    out->file_nums = nums;
    out->n = 0;
    for (i = 0; i < h->n; i++)
        if (h->f[i].batch_id == batch_id)
            nums[out->n++] = h->f[i].file_num;
}

/*
 * No empty reply while work exists: a host whose own cursor has nothing
 * for it takes, in this request, the unsent jobs of the cursor of the
 * same batch that needs help most (the greatest est_time_left among the
 * unfinished ones that have unsent results), from its end: the jobs its
 * members reach last, which are neighbours (few files) and the ones that
 * would make its tail.  It stays in its own team: the move rules decide
 * that, at its next request.
 *
 * The neediest cursor often has nothing unsent: at a batch's end its
 * work is in its members' queues, while other cursors still hold unsent
 * replicas.  Helping it gave nothing, and every host that ran dry got
 * "no work" while thousands of results waited (the 1,000-host emulator
 * run, doc/emulator.md).  So cursors the cache knows to have nothing
 * unsent are passed over, and when the chosen one gives nothing (drained
 * since the cache was read, or all of its jobs held by the user) the next
 * one is tried, HELP_MAX_TRIES statements at most.
 */
#define HELP_MAX_TRIES 2        /* each try skips only the one before it */

/* The neediest cursor of rows[0..n) that may be helped, other than
 * rows[skip] (skip < 0: none skipped); -1 if none. */
static int neediest_cursor(const struct db_cursor_row *rows, int n, int own_cursor, int skip)
{
    int i, best = -1;
    double best_est = -1;

    for (i = 0; i < n; i++) {
        double est;
        if (i == skip || rows[i].id == own_cursor ||
            rows[i].first_unfinished_job_num > rows[i].last_job_num ||
            !(rows[i].remaining_credit > 0) || rows[i].has_unsent == 0)
            continue;
        est = est_time_left(rows[i].remaining_credit, rows[i].expavg_credit);
        if (best < 0 || est > best_est) {
            best = i;
            best_est = est;
        }
    }
    return best;
}

static int help_neediest(struct sched_ctx *ctx, struct request_state *rs,
                         const struct db_cursor_row *rows, int n, int own_cursor, int limit,
                         struct db_candidate *out, int *got)
{
    int tries, best = -1, r = DB_OK;

    *got = 0;
    for (tries = 0; tries < HELP_MAX_TRIES && *got == 0 && r == DB_OK; tries++) {
        best = neediest_cursor(rows, n, own_cursor, best);
        if (best < 0)
            break;
        log_debug("[host#%d] nothing in [cursor#%d]: helps [cursor#%d]", rs->hostid, own_cursor,
                  rows[best].id);
        r = db_candidates_cursor_top(ctx->db, rows[best].id, rs->user.id, limit, out, got);
    }
    return r;
}

static int locality_candidates(struct sched_ctx *ctx, struct request_state *rs, int limit,
                               struct db_candidate *out, int *n)
{
    struct cursor_list cl = { 0 };
    struct held_set held = { NULL, 0, ctx, 0 };   /* rs->held, once mapped */
    int *held_nums = NULL;
    int i, r = DB_OK, nloc_cands;

    *n = 0;
    rs->nloc = 0;
    rs->loc_chosen = 1;
    /* The cursors are read when the cache knows of locality batches.
     * Without any, every sticky file a host lists belongs to a batch that
     * has ended, and after_claim deletes it with no statement. */
    if (ctx->apps.nactive_locality > 0) {
        struct app_cache *ac = &ctx->apps;
        r = refresh_cursor_cache(ctx, rs->now);
        if (r == DB_OK)
            r = map_held_cached(ctx, rs);
        if (r != DB_OK)
            return r;
        held_view(ctx, rs, &held);
        held_nums = malloc(sizeof *held_nums * (size_t)(rs->nheld ? rs->nheld : 1));
        if (!held_nums)
            r = DB_ERR;
        if (r == DB_OK && rs->teams_read && rs->hostid > 0 && rs->hostid == rs->host.id &&
            !rs->send_hostid) {
            /* the look-up read them (db_sched_auth) */
            for (i = 0; r == DB_OK && i < rs->nteams; i++)
                r = add_cursor(&cl, &rs->teams[i]);
        } else if (r == DB_OK) {
            r = db_locality_my_cursors(ctx->db, rs->hostid, add_cursor, &cl);
        }
        for (i = 0; r == DB_OK && i < ac->ncursors;) {
            int j = i, k, m;
            struct loc_choice *lc;
            struct loc_team team;
            struct db_cursor_row *rows = NULL;
            while (j < ac->ncursors && ac->cursors[j].batch_id == ac->cursors[i].batch_id)
                j++;
            if (rs->nloc == LOC_MAX_BATCHES) {
                log_warn("[host#%d] more than %d active locality batches", rs->hostid,
                         LOC_MAX_BATCHES);
                break;
            }
            lc = &rs->loc[rs->nloc++];
            memset(lc, 0, sizeof *lc);
            memset(&team, 0, sizeof team);
            lc->batch_id = ac->cursors[i].batch_id;
            lc->first_needed_file = 1;
            if (handler_app_runnable(ctx, rs, ac->cursors[i].appid)) {
                /* the cached cursors, with the host's own read fresh */
                rows = malloc(sizeof *rows * (size_t)(j - i));
                if (!rows) {
                    r = DB_ERR;
                    break;
                }
                memcpy(rows, &ac->cursors[i], sizeof *rows * (size_t)(j - i));
                for (k = 0; k < j - i; k++)
                    for (m = 0; m < cl.n; m++)
                        if (cl.rows[m].id == rows[k].id)
                            rows[k] = cl.rows[m];
                r = decide_team(ctx, rs, rows, j - i, 0, lc, &team, limit - *n);
            }
            if (r == DB_OK && lc->cursor_id > 0 && *n < limit) {
                struct loc_held hb;
                held_in_batch(&held, lc->batch_id, held_nums, &hb);
                r = locality_stretch_candidates(ctx, rs, &team, &hb, limit - *n, out + *n, &k);
                if (r == DB_OK && k == 0 && rows && lc->action == CC_STAY && !team.busy &&
                    ctx->cfg.locality_positions)
                    r = move_when_starved(ctx, rs, rows, j - i, lc, &team, &hb, limit - *n,
                                          out + *n, &k);
                if (r == DB_OK && k == 0 && rows)
                    r = help_neediest(ctx, rs, rows, j - i, lc->cursor_id, limit - *n,
                                      out + *n, &k);
                if (r == DB_OK)
                    *n += k;
            }
            free(rows);
            i = j;
        }
    }
    free(cl.rows);
    free(held_nums);
    if (r != DB_OK)
        return r;

    /* sticky preference among the candidates (unless configured off);
     * file_nbytes() reads the batches' file lists, loaded here so that a
     * failed load is passed on */
    nloc_cands = *n;
    for (i = 0; nloc_cands > 1 && ctx->cfg.locality_file_preference && i < rs->nloc; i++) {
        const struct batch_files *bf;
        r = app_cache_batch_get(&ctx->apps, ctx->db, rs->loc[i].batch_id, rs->now, &bf);
        if (r != DB_OK)
            return r;
    }
    if (nloc_cands > 1 && ctx->cfg.locality_file_preference) {
        struct lp_job *jobs = calloc((size_t)nloc_cands, sizeof *jobs);
        int *order = calloc((size_t)nloc_cands, sizeof *order);
        struct db_candidate *copy = malloc(sizeof *copy * (size_t)nloc_cands);
        struct lp_files lf = { held_has, file_nbytes, &held };
        if (!jobs || !order || !copy) {
            free(jobs);
            free(order);
            free(copy);
            return DB_ERR;
        }
        for (i = 0; i < nloc_cands; i++) {
            jobs[i].batch_id = out[i].batch;
            jobs[i].job_num = out[i].job_num;
            jobs[i].first_file = out[i].first_file_num;
            jobs[i].nfiles = out[i].nfiles;
        }
        if (locality_pick(jobs, nloc_cands, &lf, order) == 0) {
            memcpy(copy, out, sizeof *copy * (size_t)nloc_cands);
            for (i = 0; i < nloc_cands; i++)
                out[i] = copy[order[i]];
        }
        free(jobs);
        free(order);
        free(copy);
    }

    /* plain batches: when the cache knows of some, or of no batch at all
     * (a batch created since the cache was loaded is then still served).
     * The locality window is 4 times the plain one for the choice of
     * files; plain jobs need no such choice, so they fill the plain
     * window only (the jobs the request takes, times candidate_factor),
     * less the locality candidates already read: every row read here is
     * locked until the commit.  When there are locality candidates, the
     * plain ones are read only if those do not fill the request
     * (rs->plain_later, read by send_work()): in the locality steady state
     * they do, and the plain read was a statement whose rows went unused. */
    if (ctx->apps.nactive_plain > 0 || ctx->apps.nactive_locality == 0) {
        int plain_limit = limit, k = 0;
        if (ctx->apps.nactive_locality > 0 && rs->plain_window > 0 && rs->plain_window < limit)
            plain_limit = rs->plain_window;
        if (*n > 0 && *n < plain_limit) {
            rs->plain_later = plain_limit - *n;
        } else if (*n < plain_limit) {
            r = job_source_plain.candidates(ctx, rs, plain_limit - *n, out + *n, &k);
            if (r == DB_OK)
                *n += k;
        }
    }
    return r;
}

static const struct loc_choice *loc_of(const struct request_state *rs, int batch_id)
{
    int i;
    for (i = 0; i < rs->nloc; i++)
        if (rs->loc[i].batch_id == batch_id)
            return &rs->loc[i];
    return NULL;
}

static int int_seen(const int *a, int n, int v)
{
    int i;
    for (i = 0; i < n; i++)
        if (a[i] == v)
            return 1;
    return 0;
}

/*
 * Record the sticky files sent (host_file), and, when the candidates
 * chose the request's teams, decide which files the host holds that no
 * unfinished job of its cursor needs: those get a <delete_file_info> and
 * lose their host_file row.
 */
static int locality_after_claim(struct sched_ctx *ctx, struct request_state *rs)
{
    const struct sched_request *req = &rs->req;
    struct held_set held;
    int *add_ids = NULL, nadd = 0, i, k, r = DB_OK;
    const char **del_names = NULL;
    int cap_add = 0;

    if (rs->nloc == 0 && rs->req.nsticky_files == 0)
        return DB_OK;
    /* The candidates mapped the held files to the batches of the teams.
     * When they did not (no active locality batch, or no candidates were
     * read), the request has no team: every file is of no batch, as a
     * mapping to no batch says. */
    if (!rs->held_mapped) {
        r = map_held(ctx, rs, NULL, 0);
        if (r != DB_OK)
            return r;
    }
    held_view(ctx, rs, &held);

    for (i = 0; i < rs->njobs; i++)
        if (rs->jobs[i].cand.cursor_id > 0)
            cap_add += rs->jobs[i].cand.nfiles;
    add_ids = malloc(sizeof *add_ids * (size_t)(cap_add ? cap_add : 1));
    del_names = malloc(sizeof *del_names * (size_t)(held.n ? held.n : 1));
    rs->delete_files = malloc(sizeof *rs->delete_files * (size_t)(held.n ? held.n : 1));
    if (!add_ids || !del_names || !rs->delete_files) {
        r = DB_ERR;
        goto out;
    }

    /* files sent that the host did not list */
    for (i = 0; i < rs->njobs; i++) {
        const struct db_candidate *c = &rs->jobs[i].cand;
        const struct batch_files *bf;
        if (c->cursor_id <= 0)
            continue;
        r = app_cache_batch_get(&ctx->apps, ctx->db, c->batch, rs->now, &bf);
        if (r != DB_OK)
            goto out;
        for (k = 0; k < c->nfiles; k++) {
            const struct cached_file *f = batch_file(bf, c->first_file_num + k);
            if (f && !held_has(&held, c->batch, f->file_num) && !int_seen(add_ids, nadd, f->id))
                add_ids[nadd++] = f->id;
        }
    }

    /* files held that the host's cursor no longer needs: known only when
     * the candidates chose the request's teams; not when the daily quota
     * stopped the request before, nor for lost jobs sent again in reply to
     * a request for no work (the host's jobs may need every file then) */
    rs->ndelete_files = 0;
    for (i = 0; rs->loc_chosen && i < held.n; i++) {
        const struct loc_held_file *hf = &held.f[i];
        const struct loc_choice *lc = hf->batch_id ? loc_of(rs, hf->batch_id) : NULL;
        int needed = lc && lc->cursor_id > 0 && hf->file_num >= lc->first_needed_file &&
                     hf->file_num <= lc->last_needed_file;
        /* a file of a job sent now is needed, whatever the range says */
        for (k = 0; !needed && k < rs->njobs; k++) {
            const struct db_candidate *c = &rs->jobs[k].cand;
            needed = c->batch == hf->batch_id && hf->file_num >= c->first_file_num &&
                     hf->file_num < c->first_file_num + c->nfiles;
        }
        if (needed)
            continue;
        snprintf(rs->delete_files[rs->ndelete_files], sizeof rs->delete_files[0], "%s",
                 req->sticky_files[hf->req_index].name);
        del_names[rs->ndelete_files] = rs->delete_files[rs->ndelete_files];
        rs->ndelete_files++;
    }
    if (nadd)
        r = db_host_file_add(ctx->db, rs->hostid, add_ids, nadd, (int)rs->now);
    if (r == DB_OK && rs->ndelete_files)
        r = db_host_file_delete(ctx->db, rs->hostid, del_names, rs->ndelete_files);
out:
    free(add_ids);
    free(del_names);
    return r;
}

const struct job_source job_source_locality = { "locality", locality_candidates,
                                                locality_after_claim };
