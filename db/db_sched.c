/*
 * db_sched.c - the scheduler's statements (see db_sched.h for the budget).
 *
 * Variable-length batches (reported results, claims) travel as one JSON
 * parameter expanded by JSON_TABLE on the server, so each batch is a single
 * prepared statement whatever its size, and no SQL text depends on data.
 */
#include "db_sched.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "db_internal.h"
#include "db_json.h"
#include "db_locality.h"
#include "db_slots.h"

/* ---- authentication ---- */

struct auth_ctx {
    struct db_user_row *user;
    struct db_host_row *host;
    struct db_hav_row *havs;
    int max_havs, *nhavs;
    struct db_reported_set *rep;
    struct db_team_set *teams;
    int kind;
    struct db_user_row u;
    struct db_host_row h;
    struct db_hav_row hv;
    struct db_reported_row rr;
    struct db_cursor_row cr;
    long accounts;
};

static int auth_row(void *vctx)
{
    struct auth_ctx *x = vctx;
    if (x->kind == 1) {              /* a reported result, by name */
        if (x->rep && x->rep->n < x->rep->max)
            x->rep->rows[x->rep->n++] = x->rr;
        return 0;
    }
    if (x->kind == 2) {              /* a team of the host */
        if (x->teams && x->teams->n < x->teams->max)
            x->teams->rows[x->teams->n++] = x->cr;
        return 0;
    }
    x->accounts++;
    *x->user = x->u;
    *x->host = x->h;
    if (x->hv.app_version_id > 0 && *x->nhavs < x->max_havs)
        x->havs[(*x->nhavs)++] = x->hv;
    return 0;
}

/* names[0..n) as a JSON array of strings into b (NULL names: []) */
static void names_json(struct jbuf *b, const char *const *names, int n)
{
    int i;
    jb_open(b);
    for (i = 0; i < n; i++)
        jb_str(b, names[i]);
    jb_close(b);
}

/*
 * One statement: the account, the host, its runtime corrections, the
 * census of its results in progress against what the client holds, and
 * the results the client reports.  The first part gives one row per
 * host_app_version row (kind 0); the census is one derived table,
 * computed once whatever the number of those, that reads each result in
 * progress and its workunit by primary key.  A result in progress is in
 * order when the client lists it and its workunit is still needed (no
 * canonical result, no error), or when the client reports it without
 * listing it; any other one (lost, or to be aborted) is odd.  So when no
 * result is odd and every listed name matched one, the lost-job check has
 * nothing to do and its read is skipped (lost_jobs.c).  The second part
 * (kind 1) reads the reported results by name, whoever's they are: the
 * caller, once it knows the host, counts only its own.  The third (kind
 * 2) reads the teams of the host id the client gave, as
 * db_locality_my_cursors does: the caller uses them only if that id is
 * the authenticated user's host.  The filler columns of each part keep
 * the types of the others'.
 */
int db_sched_auth(struct db_conn *c, const unsigned char auth_hash[32], int hostid,
                  const struct db_held_names *held,
                  struct db_user_row *user, struct db_host_row *host,
                  struct db_hav_row *havs, int max_havs, int *nhavs,
                  struct db_reported_set *rep, struct db_team_set *teams)
{
/* fillers: the columns of the other parts, typed as theirs */
#define AUTH_FILLER "0, '', '', 0, 0e0, 0e0, 0e0, 0, 0, 0, 0e0, 0e0, 0e0, 0, 0e0, 0e0, 0, " \
                    "0e0, 0, 0, 0, 0, 0e0, 0, 0, 0, 0, 0, 0e0, 0, "
#define REPORTED_FILLER "0, '', 0, 0, 0, 0, 0e0, 0e0, 0, 0, "
#define TEAM_FILLER "0, 0, 0, 0, 0, 0, 0, 0, 0e0, 0e0, 0e0, 0, 0, 0, 0, 0e0, 0, 0, 0, 0"
    static const char sql[] =
        "SELECT 0, u.id, u.authenticator, u.name, u.create_time, u.total_credit, "
        "u.expavg_credit, u.expavg_time, "
        "IFNULL(h.id,0), IFNULL(h.rpc_seqno,0), IFNULL(h.create_time,0), "
        "IFNULL(h.expavg_credit,0), IFNULL(h.expavg_time,0), IFNULL(h.total_credit,0), "
        "IFNULL(h.rpc_time,0), IFNULL(h.rpc_gap_avg,0), IFNULL(h.rpc_gap_dev,0), "
        "IFNULL(h.rpc_gap_n,0), IFNULL(h.avg_turnaround,0), IFNULL(h.turnaround_n,0), "
        "IFNULL(h.lost_time,0), "
        "IFNULL(v.app_version_id,0), IFNULL(v.et_n,0), IFNULL(v.correction,1), "
        "IFNULL(ip.n,0), IFNULL(ip.odd,0), IFNULL(ip.listed,0), "
        "IFNULL(h.max_results_day,0), IFNULL(h.consecutive_valid,0), IFNULL(h.error_rate,0), "
        "IFNULL(h.nresults_today,0), "
        REPORTED_FILLER TEAM_FILLER " "
        "FROM user u "
        "LEFT JOIN host h ON h.id = ? AND h.userid = u.id "
        "LEFT JOIN host_app_version v ON v.host_id = h.id "
        "LEFT JOIN (SELECT COUNT(*) AS n, "
        "  SUM(NOT IF(k.l, k.cr = 0 AND k.em = 0, k.r)) AS odd, SUM(k.l) AS listed "
        "  FROM (SELECT JSON_CONTAINS(?, JSON_QUOTE(x.name)) AS l, "
        "        JSON_CONTAINS(?, JSON_QUOTE(x.name)) AS r, "
        "        w.canonical_resultid AS cr, w.error_mask AS em "
        "        FROM result x FORCE INDEX (ind_res_host_state) "
        "        JOIN workunit w ON w.id = x.workunitid "
        "        WHERE x.hostid = ? AND x.server_state = 4) k) ip ON h.id IS NOT NULL "
        "WHERE u.auth_hash = ? "
        "UNION ALL "
        "SELECT 1, " AUTH_FILLER
        "r.id, r.name, r.hostid, r.server_state, r.outcome, r.app_version_id, "
        "r.flops_estimate, w.rsc_fpops_est, r.sent_time, r.batch, " TEAM_FILLER " "
        "FROM JSON_TABLE(?, '$[*]' COLUMNS (name VARCHAR(254) PATH '$')) j "
        "JOIN result r ON r.name = j.name JOIN workunit w ON w.id = r.workunitid "
        "UNION ALL "
        "SELECT 2, " AUTH_FILLER REPORTED_FILLER MY_TEAMS_COLUMNS MY_TEAMS_FROM;
    struct auth_ctx x;
    struct jbuf bl = { 0 }, br = { 0 };
    const char *rj;
    size_t rl;
    int r, team_host;

    names_json(&bl, held ? held->listed : NULL, held ? held->nlisted : 0);
    names_json(&br, held ? held->reported : NULL, held ? held->nreported : 0);
    if (jb_failed(c, &bl, "look up account and host") ||
        jb_failed(c, &br, "look up account and host")) {
        free(bl.p);
        free(br.p);
        return DB_ERR;
    }
    memset(&x, 0, sizeof x);
    x.user = user;
    x.host = host;
    x.havs = havs;
    x.max_havs = max_havs;
    x.nhavs = nhavs;
    x.rep = rep;
    x.teams = teams;
    x.cr.has_unsent = -1;            /* not read with the teams */
    *nhavs = 0;
    if (rep)
        rep->n = 0;
    if (teams)
        teams->n = 0;
    rj = rep ? br.p : "[]";
    rl = rep ? br.len : 2;
    team_host = teams ? hostid : 0;     /* no host has id 0: no team read */
    {
        /* the census lists what the client holds; the second part reads
         * the reported names, which the client need not list */
        struct db_val params[] = { DBV_INT(hostid), DBV_STRN(bl.p, bl.len),
                                   DBV_STRN(br.p, br.len), DBV_INT(hostid),
                                   DBV_BIN(auth_hash, 32),
                                   DBV_STRN(rj, rl), DBV_INT(team_host) };
        struct db_val cols[] = {
            DBV_INT(x.kind),
            DBV_INT(x.u.id), DBV_BUF(x.u.authenticator), DBV_BUF(x.u.name),
            DBV_INT(x.u.create_time), DBV_DBL(x.u.total_credit), DBV_DBL(x.u.expavg_credit),
            DBV_DBL(x.u.expavg_time),
            DBV_INT(x.h.id), DBV_INT(x.h.rpc_seqno), DBV_INT(x.h.create_time),
            DBV_DBL(x.h.expavg_credit), DBV_DBL(x.h.expavg_time), DBV_DBL(x.h.total_credit),
            DBV_INT(x.h.rpc_time), DBV_DBL(x.h.rpc_gap_avg), DBV_DBL(x.h.rpc_gap_dev),
            DBV_INT(x.h.rpc_gap_n), DBV_DBL(x.h.avg_turnaround), DBV_INT(x.h.turnaround_n),
            DBV_INT(x.h.lost_time),
            DBV_INT(x.hv.app_version_id), DBV_INT(x.hv.et_n), DBV_DBL(x.hv.correction),
            DBV_INT(x.h.n_in_progress), DBV_INT(x.h.n_ip_odd), DBV_INT(x.h.n_ip_listed),
            DBV_INT(x.h.standing.max_results_day), DBV_INT(x.h.standing.consecutive_valid),
            DBV_DBL(x.h.standing.error_rate), DBV_INT(x.h.nresults_today),
            DBV_INT(x.rr.id), DBV_BUF(x.rr.name), DBV_INT(x.rr.hostid),
            DBV_INT(x.rr.server_state), DBV_INT(x.rr.outcome), DBV_INT(x.rr.app_version_id),
            DBV_DBL(x.rr.flops_estimate), DBV_DBL(x.rr.rsc_fpops_est), DBV_INT(x.rr.sent_time),
            DBV_INT(x.rr.batch),
            CURSOR_ROW_BINDINGS(x.cr),
        };
        r = db_query(c, SLOT_AUTH, sql, params, 7, cols, 61, auth_row, &x, NULL,
                     "look up account and host");
    }
    free(bl.p);
    free(br.p);
    if (r != DB_OK)
        return r;
    return x.accounts ? DB_OK : DB_NOTFOUND;
}

int db_host_insert(struct db_conn *c, int userid, int now, int *hostid)
{
    static const char sql[] = "INSERT INTO host (create_time, userid, rpc_time) VALUES (?, ?, ?)";
    struct db_val params[] = { DBV_INT(now), DBV_INT(userid), DBV_INT(now) };
    char what[64];
    int r;

    snprintf(what, sizeof what, "create host for [user#%d]", userid);
    r = db_exec(c, SLOT_HOST_INSERT, sql, params, 3, NULL, what);
    if (r == DB_OK)
        *hostid = (int)db_insert_id(c, SLOT_HOST_INSERT);
    return r;
}

/* Runtime corrections as a JSON array of [app_version_id, et_n, correction]. */
static void hav_json(struct jbuf *b, const struct db_hav_row *h, int n)
{
    int i;
    jb_open(b);
    for (i = 0; i < n; i++) {
        jb_open(b);
        jb_int(b, h[i].app_version_id);
        jb_int(b, h[i].et_n);
        jb_num(b, h[i].correction);
        jb_close(b);
    }
    jb_close(b);
}

/* Each GPU type's columns, and their values, in the order of db_gpu.h. */
#define HOST_UPDATE_GPU(id, name, col) "h.gpu_" #col "_count=?, h.gpu_" #col "_peak_flops=?, "
#define HOST_UPDATE_GPU_VALS(id, name, col) \
    DBV_INT(v.gpu_count[DB_GPU_##id]), DBV_DBL(v.gpu_peak_flops[DB_GPU_##id]),

/* The host's columns, written by both forms of the host update. */
#define HOST_UPDATE_SET \
    "h.rpc_seqno=?, h.rpc_time=?, h.timezone=?, h.domain_name=?, h.last_ip_addr=?, " \
    "h.host_cpid=?, h.p_ncpus=?, h.p_vendor=?, h.p_model=?, h.p_fpops=?, h.p_iops=?, " \
    "h.p_membw=?, h.os_name=?, h.os_version=?, h.m_nbytes=?, h.m_cache=?, h.m_swap=?, " \
    "h.d_total=?, h.d_free=?, h.d_boinc_used_total=?, h.d_boinc_used_project=?, " \
    "h.on_frac=?, h.connected_frac=?, h.active_frac=?, h.gpu_active_frac=?, " \
    "h.n_usable_coprocs=?, " DB_GPU_TYPES(HOST_UPDATE_GPU) \
    "h.coprocs=?, h.duration_correction_factor=?, " \
    "h.core_client_version=?, h.rpc_gap_avg=?, h.rpc_gap_dev=?, h.rpc_gap_n=?, " \
    "h.avg_turnaround=?, h.turnaround_n=?, h.lost_time=0, h.nresults_today=?, " \
    "h.max_results_day=IF(h.max_results_day=?, ?, h.max_results_day), " \
    "h.consecutive_valid=IF(h.consecutive_valid=?, ?, h.consecutive_valid), " \
    "h.error_rate=IF(h.error_rate=?, ?, h.error_rate)"

/*
 * Without changed corrections, a single-table UPDATE.  With them, the
 * same statement joins the host's host_app_version rows to the changes
 * (a JSON array of [app_version_id, et_n, correction]) and writes both
 * tables: one statement instead of two in a request that reports
 * results.  The LEFT JOIN keeps the host row when no change matches.
 * With a stretch, it also joins the host's batch_host row of the batch
 * (its stretch), that row's cursor when the frontier moves (GREATEST:
 * concurrent schedulers compose), and the victim's row of a take-over,
 * only if its stretch is still the one the decision read: the one or
 * two statements of a stretch decision are none.  Each joined row is
 * written at most once, however many corrections match.
 */
#define HOST_UPDATE_HAV_JOIN \
    "LEFT JOIN (JSON_TABLE(?, '$[*]' COLUMNS (" \
    "  av INT PATH '$[0]', n INT PATH '$[1]', cf DOUBLE PATH '$[2]')) j " \
    "  JOIN host_app_version v ON v.app_version_id = j.av) ON v.host_id = h.id "

int db_host_update(struct db_conn *c, const struct db_host_update *h)
{
    static const char sql[] = "UPDATE host h SET " HOST_UPDATE_SET " WHERE h.id=?";
    static const char sql_hav[] =
        "UPDATE host h " HOST_UPDATE_HAV_JOIN
        "SET " HOST_UPDATE_SET ", v.et_n = j.n, v.correction = j.cf WHERE h.id=?";
    static const char sql_stretch[] =
        "UPDATE host h " HOST_UPDATE_HAV_JOIN
        "LEFT JOIN batch_host s ON s.host_id = h.id AND s.batch_id = ? "
        "LEFT JOIN locality_cursor c ON c.id = s.cursor_id AND ? > 0 "
        "LEFT JOIN batch_host t ON t.host_id = ? AND t.batch_id = s.batch_id "
        "  AND t.stretch_first = ? AND t.stretch_last = ? "
        "SET " HOST_UPDATE_SET ", v.et_n = j.n, v.correction = j.cf, "
        "  s.stretch_first = ?, s.stretch_last = ?, "
        "  c.next_stretch_job_num = GREATEST(c.next_stretch_job_num, ?), "
        "  t.stretch_last = ? "
        "WHERE h.id=?";
    struct db_host_update v = *h;
    struct db_stretch_write sw;
    struct jbuf b = { 0 };
    long long found = -1;
    int r;
    struct db_val params[] = {
        DBV_STRN("[]", 2),             /* the corrections (sql_hav, sql_stretch) */
        /* the stretch's joins (sql_stretch only) */
        DBV_INT(sw.batch_id), DBV_INT(sw.frontier), DBV_INT(sw.victim_host),
        DBV_INT(sw.victim_first), DBV_INT(sw.victim_last),
        DBV_INT(v.rpc_seqno), DBV_INT(v.rpc_time), DBV_INT(v.timezone),
        DBV_STR(v.domain_name), DBV_STR(v.last_ip_addr), DBV_STR(v.host_cpid),
        DBV_INT(v.p_ncpus), DBV_STR(v.p_vendor), DBV_STR(v.p_model),
        DBV_DBL(v.p_fpops), DBV_DBL(v.p_iops), DBV_DBL(v.p_membw),
        DBV_STR(v.os_name), DBV_STR(v.os_version),
        DBV_DBL(v.m_nbytes), DBV_DBL(v.m_cache), DBV_DBL(v.m_swap),
        DBV_DBL(v.d_total), DBV_DBL(v.d_free),
        DBV_DBL(v.d_boinc_used_total), DBV_DBL(v.d_boinc_used_project),
        DBV_DBL(v.on_frac), DBV_DBL(v.connected_frac), DBV_DBL(v.active_frac),
        DBV_DBL(v.gpu_active_frac), DBV_INT(v.n_usable_coprocs),
        DB_GPU_TYPES(HOST_UPDATE_GPU_VALS)
        DBV_STR(v.coprocs), DBV_DBL(v.duration_correction_factor),
        DBV_STR(v.core_client_version), DBV_DBL(v.rpc_gap_avg), DBV_DBL(v.rpc_gap_dev),
        DBV_INT(v.rpc_gap_n), DBV_DBL(v.avg_turnaround), DBV_INT(v.turnaround_n),
        DBV_INT(v.nresults_today),
        DBV_INT(v.standing_was.max_results_day), DBV_INT(v.standing_now.max_results_day),
        DBV_INT(v.standing_was.consecutive_valid), DBV_INT(v.standing_now.consecutive_valid),
        DBV_DBL(v.standing_was.error_rate), DBV_DBL(v.standing_now.error_rate),
        /* the stretch's values (sql_stretch only) */
        DBV_INT(sw.first), DBV_INT(sw.last), DBV_INT(sw.frontier), DBV_INT(sw.victim_new_last),
        DBV_INT(v.id),
    };
    /* the parameters: [0] corrections, [1, 1 + NSJ) the stretch's joins,
     * then the host's columns, NSV stretch values, the host id */
    enum { NSJ = 5, NSV = 4 };
    const int nall = (int)(sizeof params / sizeof params[0]);
    struct db_val plain[sizeof params / sizeof params[0]];
    char what[96];
    const char **strs[] = { &v.domain_name, &v.last_ip_addr, &v.host_cpid, &v.p_vendor,
                            &v.p_model, &v.os_name, &v.os_version, &v.coprocs,
                            &v.core_client_version };
    size_t i;

    memset(&sw, 0, sizeof sw);
    if (h->stretch)
        sw = *h->stretch;
    for (i = 0; i < sizeof strs / sizeof strs[0]; i++)
        if (!*strs[i])
            *strs[i] = "";
    /* the DBV_STR entries captured the pointers before the "" fix-up */
    params[NSJ + 4].p = (void *)v.domain_name;
    params[NSJ + 5].p = (void *)v.last_ip_addr;
    params[NSJ + 6].p = (void *)v.host_cpid;
    params[NSJ + 8].p = (void *)v.p_vendor;
    params[NSJ + 9].p = (void *)v.p_model;
    params[NSJ + 13].p = (void *)v.os_name;
    params[NSJ + 14].p = (void *)v.os_version;
    params[NSJ + 33].p = (void *)v.coprocs;
    params[NSJ + 35].p = (void *)v.core_client_version;
    if (h->stretch)
        snprintf(what, sizeof what, "update [host#%d] with its stretch %d..%d of [batch#%d]",
                 h->id, sw.first, sw.last, sw.batch_id);
    else
        snprintf(what, sizeof what, "update [host#%d]", h->id);
    if (h->nhavs > 0) {
        hav_json(&b, h->havs, h->nhavs);
        if (jb_failed(c, &b, what))
            return DB_ERR;
        params[0].p = b.p;
        params[0].len = b.len;
    }
    if (h->stretch) {
        r = db_exec(c, SLOT_HOST_UPDATE_STRETCH, sql_stretch, params, nall, &found, what);
    } else {
        /* the same parameters without the stretch's (and, without
         * corrections, without those) */
        int n = 0, k;
        for (k = 0; k < nall; k++) {
            int corrections = k == 0, joins = k >= 1 && k < 1 + NSJ,
                values = k >= nall - 1 - NSV && k < nall - 1;
            if (joins || values || (corrections && h->nhavs <= 0))
                continue;
            plain[n++] = params[k];
        }
        r = h->nhavs > 0 ? db_exec(c, SLOT_HOST_UPDATE_HAV, sql_hav, plain, n, &found, what)
                         : db_exec(c, SLOT_HOST_UPDATE, sql, plain, n, &found, what);
    }
    free(b.p);
    if (r == DB_OK && found == 0) {
        /* The host's row was read or written earlier in this transaction
         * (the connection counts rows found, not changed), so it is gone
         * only if the server ended the transaction under us without the
         * error reaching us: the statements since then are a new
         * transaction, and committing it would leave claims whose host
         * does not exist.  Run the request again. */
        return db_fail_conflict(c, what, "the host's row is not there: the transaction was "
                                         "ended under this request");
    }
    return r;
}

/* ---- reported results ---- */

struct reported_ctx {
    struct db_reported_row r;
    int (*row)(void *ctx, const struct db_reported_row *r);
    void *ctx;
};

static int reported_row(void *vctx)
{
    struct reported_ctx *x = vctx;
    return x->row(x->ctx, &x->r);
}

int db_reported_read(struct db_conn *c, const char *const *names, int n,
                     int (*row)(void *ctx, const struct db_reported_row *r), void *ctx)
{
    static const char sql[] =
        "SELECT r.id, r.name, r.hostid, r.server_state, r.outcome, r.app_version_id, "
        "r.flops_estimate, w.rsc_fpops_est, r.sent_time "
        "FROM JSON_TABLE(?, '$[*]' COLUMNS (name VARCHAR(254) PATH '$')) j "
        "JOIN result r ON r.name = j.name JOIN workunit w ON w.id = r.workunitid";
    struct jbuf b = { 0 };
    struct reported_ctx x;
    int i, r;

    if (n <= 0)
        return DB_OK;
    jb_open(&b);
    for (i = 0; i < n; i++)
        jb_str(&b, names[i]);
    jb_close(&b);
    if (jb_failed(c, &b, "read reported results"))
        return DB_ERR;
    memset(&x, 0, sizeof x);
    x.row = row;
    x.ctx = ctx;
    {
        struct db_val params[] = { DBV_STRN(b.p, b.len) };
        struct db_val cols[] = {
            DBV_INT(x.r.id), DBV_BUF(x.r.name), DBV_INT(x.r.hostid), DBV_INT(x.r.server_state),
            DBV_INT(x.r.outcome), DBV_INT(x.r.app_version_id), DBV_DBL(x.r.flops_estimate),
            DBV_DBL(x.r.rsc_fpops_est), DBV_INT(x.r.sent_time),
        };
        r = db_query(c, SLOT_REPORTED_READ, sql, params, 1, cols, 9, reported_row, &x, NULL,
                     "read reported results");
    }
    free(b.p);
    return r;
}

/*
 * The workunit's transition_time is always changed (to now, or to now - 1
 * when it is now already): an UPDATE that changes nothing writes no row,
 * and on a Galera cluster a report must write the workunit row so that
 * it conflicts with a transitioner that decided, on another node, from
 * the results as they were before this report ("nothing to do until the
 * next report").  Without that write both commit and the workunit is
 * never looked at again.
 */
int db_report_update(struct db_conn *c, int hostid, int now, const struct db_report_update *u,
                     int n)
{
    static const char sql[] =
        "UPDATE result r JOIN JSON_TABLE(?, '$[*]' COLUMNS ("
        "  id INT PATH '$[0]', oc INT PATH '$[1]', cs INT PATH '$[2]', es INT PATH '$[3]',"
        "  ct DOUBLE PATH '$[4]', et DOUBLE PATH '$[5]', ws DOUBLE PATH '$[6]',"
        "  sw DOUBLE PATH '$[7]', dk DOUBLE PATH '$[8]', se VARBINARY(4096) PATH '$[9]')) j "
        "ON r.id = j.id "
        "JOIN workunit w ON w.id = r.workunitid "
        "SET r.server_state = 5, r.outcome = j.oc, r.client_state = j.cs, r.exit_status = j.es, "
        "r.cpu_time = j.ct, r.elapsed_time = j.et, r.peak_working_set_size = j.ws, "
        "r.peak_swap_size = j.sw, r.peak_disk_usage = j.dk, r.stderr_out = j.se, "
        "r.received_time = ?, w.transition_time = IF(w.transition_time = ?, ? - 1, ?) "
        "WHERE r.hostid = ? AND (r.server_state = 4 OR (r.server_state = 5 AND r.outcome = 4))";
    struct jbuf b = { 0 };
    char what[64];
    int i, r;

    if (n <= 0)
        return DB_OK;
    jb_open(&b);
    for (i = 0; i < n; i++) {
        const struct db_report_update *x = &u[i];
        jb_open(&b);
        jb_int(&b, x->id);
        jb_int(&b, x->outcome);
        jb_int(&b, x->client_state);
        jb_int(&b, x->exit_status);
        jb_num(&b, x->cpu_time);
        jb_num(&b, x->elapsed_time);
        jb_num(&b, x->peak_working_set_size);
        jb_num(&b, x->peak_swap_size);
        jb_num(&b, x->peak_disk_usage);
        jb_str(&b, x->stderr_out ? x->stderr_out : "");
        jb_close(&b);
    }
    jb_close(&b);
    if (jb_failed(c, &b, "update reported results"))
        return DB_ERR;
    snprintf(what, sizeof what, "mark results of [host#%d] reported", hostid);
    {
        struct db_val params[] = { DBV_STRN(b.p, b.len), DBV_INT(now), DBV_INT(now),
                                   DBV_INT(now), DBV_INT(now), DBV_INT(hostid) };
        r = db_exec(c, SLOT_REPORT_UPDATE, sql, params, 6, NULL, what);
    }
    free(b.p);
    return r;
}

int db_hav_upsert(struct db_conn *c, int hostid, const struct db_hav_row *h, int n)
{
    static const char sql[] =
        "INSERT INTO host_app_version (host_id, app_version_id, et_n, correction) "
        "SELECT ?, j.av, j.n, j.cf FROM JSON_TABLE(?, '$[*]' COLUMNS ("
        "  av INT PATH '$[0]', n INT PATH '$[1]', cf DOUBLE PATH '$[2]')) j "
        "ON DUPLICATE KEY UPDATE et_n = VALUES(et_n), correction = VALUES(correction)";
    struct jbuf b = { 0 };
    char what[64];
    int r;

    if (n <= 0)
        return DB_OK;
    hav_json(&b, h, n);
    if (jb_failed(c, &b, "store runtime corrections"))
        return DB_ERR;
    snprintf(what, sizeof what, "store runtime corrections of [host#%d]", hostid);
    {
        struct db_val params[] = { DBV_INT(hostid), DBV_STRN(b.p, b.len) };
        r = db_exec(c, SLOT_HAV_UPSERT, sql, params, 2, NULL, what);
    }
    free(b.p);
    return r;
}

/* ---- candidates and claims ---- */

struct cand_ctx {
    struct db_candidate cur;
    struct db_candidate *out;
    int *n;
    int limit;
};

static int cand_row(void *vctx)
{
    struct cand_ctx *x = vctx;
    if (*x->n >= x->limit)
        return 1;
    x->out[(*x->n)++] = x->cur;
    return 0;
}

#define CAND_COLUMNS \
    "r.id, r.name, w.id, w.name, w.appid, w.batch, w.cursor_id, w.job_num, " \
    "w.first_file_num, w.nfiles, w.command_line, w.rsc_fpops_est, w.rsc_fpops_bound, " \
    "w.rsc_memory_bound, w.rsc_disk_bound, w.max_out_nbytes, w.delay_bound "

static int run_candidates(struct db_conn *c, int slot, const char *sql, struct db_val *params,
                          int nparams, int limit, struct db_candidate *out, int *n,
                          const char *what)
{
    struct cand_ctx x;
    memset(&x, 0, sizeof x);
    x.out = out;
    x.n = n;
    x.limit = limit;
    *n = 0;
    {
        struct db_val cols[] = {
            DBV_INT(x.cur.result_id), DBV_BUF(x.cur.result_name), DBV_INT(x.cur.wu_id),
            DBV_BUF(x.cur.wu_name), DBV_INT(x.cur.appid), DBV_INT(x.cur.batch),
            DBV_INT(x.cur.cursor_id), DBV_INT(x.cur.job_num), DBV_INT(x.cur.first_file_num),
            DBV_INT(x.cur.nfiles), DBV_BUF(x.cur.command_line), DBV_DBL(x.cur.rsc_fpops_est),
            DBV_DBL(x.cur.rsc_fpops_bound), DBV_DBL(x.cur.rsc_memory_bound),
            DBV_DBL(x.cur.rsc_disk_bound), DBV_DBL(x.cur.max_out_nbytes),
            DBV_INT(x.cur.delay_bound),
        };
        return db_query(c, slot, sql, params, nparams, cols, 17, cand_row, &x, NULL, what);
    }
}

int db_candidates_plain(struct db_conn *c, int userid, const int *appids, int nappids,
                        int first_job, int limit, struct db_candidate *out, int *n)
{
    /* ind_res_unsent (unsent_cursor, job_num) from (0, first_job) */
    static const char sql[] =
        "SELECT " CAND_COLUMNS
        "FROM result r FORCE INDEX (ind_res_unsent) "
        "JOIN workunit w ON w.id = r.workunitid "
        "LEFT JOIN result o ON o.workunitid = r.workunitid AND o.userid = ? "
        "WHERE r.unsent_cursor = 0 AND r.job_num >= ? AND o.id IS NULL "
        "  AND JSON_CONTAINS(?, CAST(r.appid AS CHAR)) "
        "ORDER BY r.job_num, r.id LIMIT ? FOR UPDATE SKIP LOCKED";
    struct jbuf b = { 0 };
    int i, r;

    *n = 0;
    if (nappids <= 0)
        return DB_OK;
    jb_open(&b);
    for (i = 0; i < nappids; i++)
        jb_int(&b, appids[i]);
    jb_close(&b);
    if (jb_failed(c, &b, "select unsent results"))
        return DB_ERR;
    {
        struct db_val params[] = { DBV_INT(userid), DBV_INT(first_job), DBV_STRN(b.p, b.len),
                                   DBV_INT(limit) };
        r = run_candidates(c, SLOT_CAND_PLAIN, sql, params, 4, limit, out, n,
                           "select unsent results");
    }
    free(b.p);
    return r;
}

int db_candidates_cursor(struct db_conn *c, int cursor_id, int userid, int first_job,
                         int last_job, int limit, struct db_candidate *out, int *n)
{
    static const char sql[] =
        "SELECT " CAND_COLUMNS
        "FROM result r FORCE INDEX (ind_res_unsent) "
        "JOIN workunit w ON w.id = r.workunitid "
        "LEFT JOIN result o ON o.workunitid = r.workunitid AND o.userid = ? "
        "WHERE r.unsent_cursor = ? AND r.job_num BETWEEN ? AND ? "
        "  AND o.id IS NULL "
        "ORDER BY r.job_num, r.id LIMIT ? FOR UPDATE SKIP LOCKED";
    struct db_val params[] = { DBV_INT(userid), DBV_INT(cursor_id), DBV_INT(first_job),
                               DBV_INT(last_job), DBV_INT(limit) };
    char what[96];
    snprintf(what, sizeof what, "select unsent results %d..%d of [cursor#%d]", first_job,
             last_job, cursor_id);
    return run_candidates(c, SLOT_CAND_CURSOR, sql, params, 5, limit, out, n, what);
}

int db_candidates_cursor_top(struct db_conn *c, int cursor_id, int userid, int limit,
                             struct db_candidate *out, int *n)
{
    static const char sql[] =
        "SELECT " CAND_COLUMNS
        "FROM result r FORCE INDEX (ind_res_unsent) "
        "JOIN workunit w ON w.id = r.workunitid "
        "LEFT JOIN result o ON o.workunitid = r.workunitid AND o.userid = ? "
        "WHERE r.unsent_cursor = ? AND o.id IS NULL "
        "ORDER BY r.job_num DESC, r.id DESC LIMIT ? FOR UPDATE SKIP LOCKED";
    struct db_val params[] = { DBV_INT(userid), DBV_INT(cursor_id), DBV_INT(limit) };
    char what[80];
    snprintf(what, sizeof what, "select the last unsent results of [cursor#%d]", cursor_id);
    return run_candidates(c, SLOT_CAND_TOP, sql, params, 3, limit, out, n, what);
}

int db_candidates_files(struct db_conn *c, int cursor_id, int userid, const int *file_nums,
                        int nfile_nums, int limit, struct db_candidate *out, int *n)
{
    /* all unsent results of the cursor are read by the index; those whose
     * first and last input files the host holds are kept (and locked) */
    static const char sql[] =
        "SELECT " CAND_COLUMNS
        "FROM result r FORCE INDEX (ind_res_unsent) "
        "JOIN workunit w ON w.id = r.workunitid "
        "LEFT JOIN result o ON o.workunitid = r.workunitid AND o.userid = ? "
        "WHERE r.unsent_cursor = ? AND o.id IS NULL AND w.nfiles > 0 "
        "  AND JSON_CONTAINS(?, CAST(w.first_file_num AS CHAR)) "
        "  AND JSON_CONTAINS(?, CAST(w.first_file_num + w.nfiles - 1 AS CHAR)) "
        "ORDER BY r.job_num, r.id LIMIT ? FOR UPDATE SKIP LOCKED";
    struct jbuf b = { 0 };
    char what[96];
    int i, r;

    *n = 0;
    if (nfile_nums <= 0 || limit <= 0)
        return DB_OK;
    snprintf(what, sizeof what, "select unsent results of [cursor#%d] on %d held files",
             cursor_id, nfile_nums);
    jb_open(&b);
    for (i = 0; i < nfile_nums; i++)
        jb_int(&b, file_nums[i]);
    jb_close(&b);
    if (jb_failed(c, &b, what))
        return DB_ERR;
    {
        struct db_val params[] = { DBV_INT(userid), DBV_INT(cursor_id), DBV_STRN(b.p, b.len),
                                   DBV_STRN(b.p, b.len), DBV_INT(limit) };
        r = run_candidates(c, SLOT_CAND_FILES, sql, params, 5, limit, out, n, what);
    }
    free(b.p);
    return r;
}

int db_claim_results(struct db_conn *c, int hostid, int userid, int now,
                     const struct db_claim *claims, int n)
{
    static const char sql[] =
        "UPDATE result r JOIN JSON_TABLE(?, '$[*]' COLUMNS ("
        "  id INT PATH '$[0]', av INT PATH '$[1]', dl INT PATH '$[2]',"
        "  fe DOUBLE PATH '$[3]')) j ON r.id = j.id "
        "SET r.server_state = 4, r.outcome = 0, r.hostid = ?, r.userid = ?, r.sent_time = ?, "
        "r.report_deadline = j.dl, r.app_version_id = j.av, r.flops_estimate = j.fe "
        "WHERE r.server_state = 2";
    struct jbuf b = { 0 };
    long long affected = 0;
    char what[80];
    int i, r;

    if (n <= 0)
        return DB_OK;
    jb_open(&b);
    for (i = 0; i < n; i++) {
        jb_open(&b);
        jb_int(&b, claims[i].result_id);
        jb_int(&b, claims[i].app_version_id);
        jb_int(&b, claims[i].report_deadline);
        jb_num(&b, claims[i].flops_estimate);
        jb_close(&b);
    }
    jb_close(&b);
    if (jb_failed(c, &b, "claim results"))
        return DB_ERR;
    snprintf(what, sizeof what, "claim %d results for [host#%d] [user#%d]", n, hostid, userid);
    {
        struct db_val params[] = { DBV_STRN(b.p, b.len), DBV_INT(hostid), DBV_INT(userid),
                                   DBV_INT(now) };
        r = db_exec(c, SLOT_CLAIM, sql, params, 4, &affected, what);
    }
    free(b.p);
    if (r == DB_OK && affected != n) {
        /* The candidates were locked, so on one server this cannot
         * happen; on a multi-primary cluster (Galera) another node's
         * claim can be applied between our locking read and this
         * UPDATE.  Retry the request with fresh candidates. */
        char msg[96];
        snprintf(msg, sizeof msg, "only %lld of %d rows changed", affected, n);
        return db_fail_conflict(c, what, msg);
    }
    return r;
}

/* ---- lost results ---- */

struct inprog_ctx {
    struct db_in_progress_row cur;
    struct db_in_progress_row *out;
    int *n;
    int limit;
};

static int inprog_row(void *vctx)
{
    struct inprog_ctx *x = vctx;
    if (*x->n >= x->limit)
        return 1;
    x->out[(*x->n)++] = x->cur;
    return 0;
}

int db_host_in_progress(struct db_conn *c, int hostid, int limit,
                        struct db_in_progress_row *out, int *n)
{
    static const char sql[] =
        "SELECT " CAND_COLUMNS ", r.report_deadline, r.app_version_id, "
        "w.canonical_resultid, w.error_mask, r.replica_flags "
        "FROM result r FORCE INDEX (ind_res_host_state) "
        "JOIN workunit w ON w.id = r.workunitid "
        "WHERE r.hostid = ? AND r.server_state = 4 ORDER BY r.id LIMIT ?";
    struct inprog_ctx x;
    struct db_val params[] = { DBV_INT(hostid), DBV_INT(limit) };
    char what[64];

    memset(&x, 0, sizeof x);
    x.out = out;
    x.n = n;
    x.limit = limit;
    *n = 0;
    snprintf(what, sizeof what, "read results in progress of [host#%d]", hostid);
    {
        struct db_candidate *k = &x.cur.cand;
        struct db_val cols[] = {
            DBV_INT(k->result_id), DBV_BUF(k->result_name), DBV_INT(k->wu_id),
            DBV_BUF(k->wu_name), DBV_INT(k->appid), DBV_INT(k->batch),
            DBV_INT(k->cursor_id), DBV_INT(k->job_num), DBV_INT(k->first_file_num),
            DBV_INT(k->nfiles), DBV_BUF(k->command_line), DBV_DBL(k->rsc_fpops_est),
            DBV_DBL(k->rsc_fpops_bound), DBV_DBL(k->rsc_memory_bound),
            DBV_DBL(k->rsc_disk_bound), DBV_DBL(k->max_out_nbytes),
            DBV_INT(k->delay_bound), DBV_INT(x.cur.report_deadline),
            DBV_INT(x.cur.app_version_id), DBV_INT(x.cur.canonical_resultid),
            DBV_INT(x.cur.error_mask), DBV_INT(x.cur.replica_flags),
        };
        return db_query(c, SLOT_HOST_IN_PROGRESS, sql, params, 2, cols, 22, inprog_row, &x,
                        NULL, what);
    }
}

/*
 * One UPDATE for both fates.  Every matched result row has its workunit
 * row matched too (the SET names a workunit column for every row), and
 * the connection counts matched rows (CLIENT_FOUND_ROWS), so n rows still
 * in progress make exactly 2n.  A lost result's workunit gets
 * transition_time now, or now - 1 when it is now already, so that the row
 * is written (see db_report_update() on Galera).
 */
int db_lost_update(struct db_conn *c, int hostid, int now, const struct db_lost_update *u,
                   int n)
{
    static const char sql[] =
        "UPDATE result r JOIN JSON_TABLE(?, '$[*]' COLUMNS ("
        "  id INT PATH '$[0]', lost INT PATH '$[1]', av INT PATH '$[2]',"
        "  fe DOUBLE PATH '$[3]')) j ON r.id = j.id "
        "JOIN workunit w ON w.id = r.workunitid "
        "SET r.server_state = IF(j.lost, 5, 4), r.outcome = IF(j.lost, 3, 0), "
        "r.client_state = IF(j.lost, 0, r.client_state), "
        "r.validate_state = IF(j.lost, 2, r.validate_state), "
        "r.received_time = IF(j.lost, ?, r.received_time), "
        "r.sent_time = IF(j.lost, r.sent_time, ?), "
        "r.app_version_id = IF(j.lost, r.app_version_id, j.av), "
        "r.flops_estimate = IF(j.lost, r.flops_estimate, j.fe), "
        "w.transition_time = IF(j.lost, IF(w.transition_time = ?, ? - 1, ?), w.transition_time) "
        "WHERE r.hostid = ? AND r.server_state = 4";
    struct jbuf b = { 0 };
    long long affected = 0;
    char what[80];
    int i, r;

    if (n <= 0)
        return DB_OK;
    jb_open(&b);
    for (i = 0; i < n; i++) {
        jb_open(&b);
        jb_int(&b, u[i].result_id);
        jb_int(&b, u[i].lost ? 1 : 0);
        jb_int(&b, u[i].app_version_id);
        jb_num(&b, u[i].flops_estimate);
        jb_close(&b);
    }
    jb_close(&b);
    if (jb_failed(c, &b, "write lost results"))
        return DB_ERR;
    snprintf(what, sizeof what, "resend or mark lost %d results of [host#%d]", n, hostid);
    {
        struct db_val params[] = { DBV_STRN(b.p, b.len), DBV_INT(now), DBV_INT(now),
                                   DBV_INT(now), DBV_INT(now), DBV_INT(now), DBV_INT(hostid) };
        r = db_exec(c, SLOT_LOST_UPDATE, sql, params, 7, &affected, what);
    }
    free(b.p);
    if (r == DB_OK && affected != 2LL * n) {
        char msg[96];
        snprintf(msg, sizeof msg, "%lld of %d rows matched", affected, 2 * n);
        return db_fail_conflict(c, what, msg);
    }
    return r;
}

/* ---- read-mostly data ---- */

struct av_ctx {
    struct db_app_version_row r;
    int (*row)(void *ctx, const struct db_app_version_row *r);
    void *ctx;
};

static int av_row(void *vctx)
{
    struct av_ctx *x = vctx;
    return x->row(x->ctx, &x->r);
}

int db_load_app_versions(struct db_conn *c,
                         int (*row)(void *ctx, const struct db_app_version_row *r), void *ctx)
{
    static const char sql[] =
        "SELECT v.id, v.appid, a.name, a.user_friendly_name, v.version_num, p.name, "
        "v.plan_class, v.avg_ncpus, v.coproc_type, v.coproc_count, v.flops_scale, "
        "v.api_version, v.cmdline "
        "FROM app_version v JOIN app a ON a.id = v.appid JOIN platform p ON p.id = v.platformid "
        "WHERE v.deprecated = 0 AND a.deprecated = 0 ORDER BY v.id";
    struct av_ctx x;
    memset(&x, 0, sizeof x);
    x.row = row;
    x.ctx = ctx;
    {
        struct db_val cols[] = {
            DBV_INT(x.r.id), DBV_INT(x.r.appid), DBV_BUF(x.r.app_name),
            DBV_BUF(x.r.app_user_friendly_name), DBV_INT(x.r.version_num),
            DBV_BUF(x.r.platform), DBV_BUF(x.r.plan_class), DBV_DBL(x.r.avg_ncpus),
            DBV_BUF(x.r.coproc_type), DBV_DBL(x.r.coproc_count), DBV_DBL(x.r.flops_scale),
            DBV_BUF(x.r.api_version), DBV_BUF(x.r.cmdline),
        };
        return db_query(c, SLOT_LOAD_AV, sql, NULL, 0, cols, 13, av_row, &x, NULL,
                        "load app versions");
    }
}

struct avf_ctx {
    struct db_app_version_file_row r;
    int (*row)(void *ctx, const struct db_app_version_file_row *r);
    void *ctx;
};

static int avf_row(void *vctx)
{
    struct avf_ctx *x = vctx;
    return x->row(x->ctx, &x->r);
}

int db_load_app_version_files(struct db_conn *c,
                              int (*row)(void *ctx, const struct db_app_version_file_row *r),
                              void *ctx)
{
    static const char sql[] =
        "SELECT app_version_id, seqno, file_name, open_name, url, nbytes, md5_cksum, "
        "file_signature, main_program, copy_file FROM app_version_file "
        "ORDER BY app_version_id, seqno";
    struct avf_ctx x;
    memset(&x, 0, sizeof x);
    x.row = row;
    x.ctx = ctx;
    {
        struct db_val cols[] = {
            DBV_INT(x.r.app_version_id), DBV_INT(x.r.seqno), DBV_BUF(x.r.file_name),
            DBV_BUF(x.r.open_name), DBV_BUF(x.r.url), DBV_DBL(x.r.nbytes),
            DBV_BUF(x.r.md5_cksum), DBV_BUF(x.r.file_signature), DBV_INT(x.r.main_program),
            DBV_INT(x.r.copy_file),
        };
        return db_query(c, SLOT_LOAD_AVF, sql, NULL, 0, cols, 10, avf_row, &x, NULL,
                        "load app version files");
    }
}

struct file_ctx {
    struct db_file_row r;
    int (*row)(void *ctx, const struct db_file_row *r);
    void *ctx;
};

static int file_row(void *vctx)
{
    struct file_ctx *x = vctx;
    return x->row(x->ctx, &x->r);
}

int db_load_batch_files(struct db_conn *c, int batch_id,
                        int (*row)(void *ctx, const struct db_file_row *r), void *ctx)
{
    static const char sql[] =
        "SELECT id, file_num, name, nbytes, md5_cksum, url, sticky FROM file "
        "WHERE batch_id = ? ORDER BY file_num";
    struct file_ctx x;
    struct db_val params[] = { DBV_INT(batch_id) };
    char what[64];
    memset(&x, 0, sizeof x);
    x.row = row;
    x.ctx = ctx;
    snprintf(what, sizeof what, "load files of [batch#%d]", batch_id);
    {
        struct db_val cols[] = {
            DBV_INT(x.r.id), DBV_INT(x.r.file_num), DBV_BUF(x.r.name), DBV_DBL(x.r.nbytes),
            DBV_BUF(x.r.md5_cksum), DBV_BUF(x.r.url), DBV_INT(x.r.sticky),
        };
        return db_query(c, SLOT_LOAD_FILES, sql, params, 1, cols, 7, file_row, &x, NULL, what);
    }
}
