/*
 * floor.c - the stack floor for the load benchmark: a FastCGI program
 * under the same Apache and mod_fcgid set-up as the scheduler, doing the
 * I/O a scheduler request cannot avoid and no scheduling logic.
 *
 * Per request it reads the body, parses it with the scheduler's parser
 * (sched_request.h), and in one transaction issues the scheduler's own
 * statements through the same db/ functions and in the same order:
 * account and host lookup (which reads the reported results), a new
 * host's insert, for reports the update (and the runtime-correction
 * insert for a host's first report), for work the locked candidate read
 * and the claim, the host update (with the correction), and the commit.  The
 * jobs claimed are as many as the CPU request covers at the host's speed
 * (no EDF check, no app version choice: the first version of the job's
 * app), at most max_jobs_per_reply.  The reply carries what the load
 * replay needs (hostid, acks, the jobs' result, workunit and app version)
 * and is padded to the scheduler's size: QUERY_STRING
 * "base=B&per_job=P" asks for B + P * jobs bytes (defaults 1500, 1300).
 * For experiments, "cand=N" reads N candidates instead of the scheduler's
 * max_jobs_per_reply * candidate_factor.
 *
 * Not for production: it sends jobs a real client could not run.
 */
#include <math.h>
#include <openssl/sha.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <fcgiapp.h>

#include "buf.h"
#include "config.h"
#include "db_sched.h"
#include "fcgi_io.h"
#include "handler.h"
#include "log.h"
#include "sched_request.h"

struct floor_req {
    struct sched_ctx *ctx;
    struct sched_request *req;
    unsigned char auth_hash[32];
    struct db_user_row user;
    struct db_host_row host;
    struct db_hav_row havs[DB_MAX_HAV];
    int nhavs;
    int hostid, new_host, auth_failed, wanted, cand_limit;
    struct db_candidate cands[2 * LIM_JOBS_PER_REPLY];
    int ncands, njobs;
    struct db_reported_row reported[LIM_REPORTED_RESULTS];
    int nreported_rows;
    int report_ids[LIM_REPORTED_RESULTS];
    int nreport;
    struct db_hav_row hav_new;
    int hav_changed;
    int now;
};

static int collect_reported(void *vctx, const struct db_reported_row *row)
{
    struct floor_req *f = vctx;
    if (row->hostid == f->hostid && f->nreport < LIM_REPORTED_RESULTS)
        f->report_ids[f->nreport++] = row->id;
    return 0;
}

/* The first app version of an app, or NULL. */
static const struct app_version *av_of(const struct sched_ctx *ctx, int appid)
{
    int i;
    for (i = 0; i < ctx->apps.navs; i++)
        if (ctx->apps.avs[i].row.appid == appid)
            return &ctx->apps.avs[i];
    return NULL;
}

static int floor_tx(struct db_conn *c, void *arg)
{
    struct floor_req *f = arg;
    struct sched_ctx *ctx = f->ctx;
    const struct sched_request *q = f->req;
    struct db_host_update hu;
    char version[32];
    int r, i;

    f->new_host = f->auth_failed = 0;
    f->ncands = f->njobs = f->nreport = 0;
    r = app_cache_refresh(&ctx->apps, c, f->now);
    if (r != DB_OK)
        return r;
    {
        const char *names[LIM_REPORTED_RESULTS];
        struct db_held_names held = { NULL, 0, names, 0 };
        struct db_reported_set rep = { f->reported, LIM_REPORTED_RESULTS, 0 };
        for (i = 0; i < q->nresults && i < LIM_REPORTED_RESULTS; i++)
            names[i] = q->results[i].name;
        held.nreported = i;
        r = db_sched_auth(c, f->auth_hash, (int)q->hostid, &held, &f->user, &f->host, f->havs,
                          DB_MAX_HAV, &f->nhavs, i > 0 ? &rep : NULL, NULL);
        f->nreported_rows = rep.n;
    }
    if (r == DB_NOTFOUND || (r == DB_OK && strcmp(f->user.authenticator, q->authenticator))) {
        f->auth_failed = 1;
        return DB_ABORT;
    }
    if (r != DB_OK)
        return r;
    f->hostid = f->host.id;
    if (!f->hostid) {
        r = db_host_insert(c, f->user.id, f->now, &f->hostid);
        if (r != DB_OK)
            return r;
        f->new_host = 1;
    }
    f->hav_changed = 0;
    if (q->nresults > 0) {
        struct db_report_update u[LIM_REPORTED_RESULTS];
        struct db_hav_row hav;
        for (i = 0; i < f->nreported_rows; i++)
            collect_reported(f, &f->reported[i]);
        memset(u, 0, sizeof u);
        for (i = 0; i < f->nreport; i++) {
            u[i].id = f->report_ids[i];
            u[i].outcome = RO_SUCCESS;
            u[i].client_state = CRS_FILES_UPLOADED;
            u[i].stderr_out = "";
        }
        r = db_report_update(c, f->hostid, f->now, u, f->nreport);
        if (r != DB_OK)
            return r;
        /* as the scheduler: an existing correction row is written with
         * the host, a new one inserted */
        hav.app_version_id = ctx->apps.navs ? ctx->apps.avs[0].row.id : 0;
        hav.et_n = f->nreport;
        hav.correction = 1;
        for (i = 0; i < f->nhavs && f->havs[i].app_version_id != hav.app_version_id; i++)
            ;
        if (f->nreport > 0 && i < f->nhavs && !f->new_host) {
            f->hav_new = hav;
            f->hav_changed = 1;
        } else {
            r = db_hav_upsert(c, f->hostid, &hav, f->nreport > 0 ? 1 : 0);
            if (r != DB_OK)
                return r;
        }
    }
    if (f->wanted > 0 && !q->dont_send_work) {
        struct db_claim claims[LIM_JOBS_PER_REPLY];
        int limit = ctx->cfg.max_jobs_per_reply * ctx->cfg.candidate_factor, n = 0;
        double speed = q->p_fpops > 0 ? q->p_fpops : 1e9, secs = 0;
        if (f->cand_limit > 0)
            limit = f->cand_limit;
        if (limit > 2 * LIM_JOBS_PER_REPLY)
            limit = 2 * LIM_JOBS_PER_REPLY;
        int appids[64], napps = 0, k;
        for (i = 0; i < ctx->apps.navs && napps < 64; i++) {   /* every app, as the scheduler
                                                                  passes the runnable ones */
            for (k = 0; k < napps && appids[k] != ctx->apps.avs[i].row.appid; k++)
                ;
            if (k == napps)
                appids[napps++] = ctx->apps.avs[i].row.appid;
        }
        r = db_candidates_plain(c, f->user.id, appids, napps, 0, limit, f->cands, &f->ncands);
        if (r != DB_OK)
            return r;
        for (i = 0; i < f->ncands && n < ctx->cfg.max_jobs_per_reply && n < f->wanted; i++) {
            const struct app_version *av = av_of(ctx, f->cands[i].appid);
            if (!av)
                continue;
            f->cands[n] = f->cands[i];
            claims[n].result_id = f->cands[i].result_id;
            claims[n].app_version_id = av->row.id;
            claims[n].report_deadline = f->now + f->cands[i].delay_bound;
            claims[n].flops_estimate = speed;
            secs += f->cands[i].rsc_fpops_est / speed;
            n++;
            if (secs >= q->cpu_req_secs && q->cpu_req_secs > 0)
                break;
        }
        r = db_claim_results(c, f->hostid, f->user.id, f->now, claims, n);
        if (r != DB_OK)
            return r;
        f->njobs = n;
    }
    memset(&hu, 0, sizeof hu);
    hu.id = f->hostid;
    hu.rpc_seqno = f->new_host ? 0 : (int)q->rpc_seqno;
    hu.rpc_time = f->now;
    hu.timezone = q->timezone;
    hu.domain_name = q->domain_name;
    hu.last_ip_addr = q->ip_addr;
    hu.host_cpid = q->host_cpid;
    hu.p_vendor = q->p_vendor;
    hu.p_model = q->p_model;
    hu.os_name = q->os_name;
    hu.os_version = q->os_version;
    hu.coprocs = "";
    snprintf(version, sizeof version, "%d.%d.%d", q->core_client_major_version,
             q->core_client_minor_version, q->core_client_release);
    hu.core_client_version = version;
    hu.p_ncpus = q->p_ncpus;
    hu.p_fpops = q->p_fpops;
    hu.p_iops = q->p_iops;
    hu.p_membw = q->p_membw;
    hu.m_nbytes = q->m_nbytes;
    hu.d_total = q->d_total;
    hu.d_free = q->d_free;
    hu.on_frac = q->on_frac;
    hu.connected_frac = q->connected_frac;
    hu.active_frac = q->active_frac;
    hu.gpu_active_frac = q->gpu_active_frac;
    hu.duration_correction_factor = q->duration_correction_factor;
    hu.havs = &f->hav_new;
    hu.nhavs = f->hav_changed;
    return db_host_update(c, &hu);
}

/* A number from QUERY_STRING "name=N", or def. */
static long query_num(const char *qs, const char *name, long def)
{
    size_t n = strlen(name);
    const char *p = qs;
    while (p && *p) {
        if (strncmp(p, name, n) == 0 && p[n] == '=') {
            long v = strtol(p + n + 1, NULL, 10);
            return v >= 0 && v < 1000000 ? v : def;
        }
        p = strchr(p, '&');
        if (p)
            p++;
    }
    return def;
}

static void write_reply(struct buf *out, const struct floor_req *f, long base, long per_job)
{
    const struct sched_ctx *ctx = f->ctx;
    const struct sched_request *q = f->req;
    const struct app_version *av = NULL;
    long target;
    int i;

    buf_reset(out);
    buf_puts(out, "<scheduler_reply>\n");
    if (f->new_host)
        buf_printf(out, "<hostid>%d</hostid>\n", f->hostid);
    if (!q->have_ip_results)
        buf_puts(out, "<send_full_workload/>\n");
    if (!q->have_code_sign_key && ctx->code_sign_key[0]) {
        buf_puts(out, "<code_sign_key>\n");
        buf_put_xml(out, ctx->code_sign_key);
        buf_puts(out, "</code_sign_key>\n");
    }
    for (i = 0; i < q->nresults; i++) {
        buf_puts(out, "<result_ack>\n");
        buf_elem(out, "    ", "name", q->results[i].name);
        buf_puts(out, "</result_ack>\n");
    }
    for (i = 0; i < f->njobs; i++) {
        const struct db_candidate *c = &f->cands[i];
        const struct app_version *a = av_of(ctx, c->appid);
        if (a && a != av) {
            av = a;
            buf_puts(out, "<app_version>\n");
            buf_elem(out, "    ", "app_name", a->row.app_name);
            buf_printf(out, "    <version_num>%d</version_num>\n", a->row.version_num);
            buf_elem(out, "    ", "platform", a->row.platform);
            buf_printf(out, "    <flops>%.15g</flops>\n</app_version>\n",
                       q->p_fpops > 0 ? q->p_fpops : 1e9);
        }
        buf_puts(out, "<workunit>\n");
        buf_elem(out, "    ", "name", c->wu_name);
        buf_printf(out, "    <rsc_fpops_est>%.15g</rsc_fpops_est>\n</workunit>\n",
                   c->rsc_fpops_est);
        buf_puts(out, "<result>\n");
        buf_elem(out, "    ", "name", c->result_name);
        buf_elem(out, "    ", "wu_name", c->wu_name);
        buf_printf(out, "    <report_deadline>%d</report_deadline>\n", f->now + c->delay_bound);
        if (a) {
            buf_elem(out, "    ", "platform", a->row.platform);
            buf_printf(out, "    <version_num>%d</version_num>\n", a->row.version_num);
        }
        buf_puts(out, "</result>\n");
    }
    buf_printf(out, "<request_delay>%d</request_delay>\n", ctx->cfg.min_request_delay);
    target = base + per_job * f->njobs - (long)strlen("</scheduler_reply>\n");
    if ((long)out->len + 9 < target) {
        long pad = target - (long)out->len - 9;
        buf_puts(out, "<!--");
        while (pad-- > 0)
            buf_put(out, "x", 1);
        buf_puts(out, "-->\n");
    }
    buf_puts(out, "</scheduler_reply>\n");
}

static void write_error(struct buf *out, const char *msg)
{
    buf_reset(out);
    buf_puts(out, "<scheduler_reply>\n<message priority=\"notice\">");
    buf_put_xml(out, msg);
    buf_puts(out, "</message>\n<request_delay>60</request_delay>\n</scheduler_reply>\n");
}

static void handle(struct sched_ctx *ctx, const char *body, size_t len, const char *qs,
                   struct buf *out)
{
    struct floor_req *f = calloc(1, sizeof *f);
    struct sched_request req;
    char err[512];
    int r;

    memset(&req, 0, sizeof req);
    if (!f) {
        write_error(out, "floor: out of memory");
        return;
    }
    if (sched_request_parse(body, len, &req, err, sizeof err) != SRQ_OK) {
        write_error(out, err);
        free(f);
        return;
    }
    f->ctx = ctx;
    f->req = &req;
    f->now = (int)time(NULL);
    SHA256((const unsigned char *)req.authenticator, strlen(req.authenticator), f->auth_hash);
    /* jobs wanted: the CPU request at the host's speed (the scheduler also
     * caps by max_jobs_per_reply); the actual count depends on the jobs */
    f->wanted = (req.cpu_req_secs > 0 || req.cpu_req_instances > 0) ? LIM_JOBS_PER_REPLY : 0;
    f->cand_limit = (int)query_num(qs, "cand", 0);
    if (!ctx->db) {
        ctx->db = db_open(&ctx->dbp, err, sizeof err);
        if (!ctx->db)
            log_error("floor: database unavailable: %s", err);
    }
    r = ctx->db ? db_transaction(ctx->db, "floor request", floor_tx, f) : DB_UNAVAILABLE;
    if (r == DB_ABORT && f->auth_failed)
        write_error(out, "Unknown account key (authenticator).");
    else if (r != DB_OK)
        write_error(out, "floor: database error");
    else
        write_reply(out, f, query_num(qs, "base", 1500), query_num(qs, "per_job", 1300));
    sched_request_free(&req);
    free(f);
}

int main(int argc, char **argv)
{
    const char *config = NULL;
    struct sched_ctx *ctx;
    FCGX_Request request;
    struct buf out;
    char err[1024];

    if (argc == 2 && strcmp(argv[1], "--help") == 0) {
        printf("usage: floor [--config FILE]   (a FastCGI program; see "
               "doc/load-testing.md)\n\n"
               "  --config FILE   the project's configuration [$LOCSCHED_CONFIG, else\n"
               "                  ./locsched.conf]\n"
               "  --help          this text\n");
        return 0;
    }
    if (argc == 3 && strcmp(argv[1], "--config") == 0)
        config = argv[2];
    else if (argc != 1) {
        fprintf(stderr, "usage: floor [--config FILE]   (a FastCGI program; see "
                        "doc/load-testing.md)\n");
        return 2;
    }
    signal(SIGPIPE, SIG_IGN);
    log_init("floor", LOG_INFO, NULL);
    sched_request_init();
    ctx = calloc(1, sizeof *ctx);
    if (!ctx || sched_ctx_init(ctx, config_locate(config), err, sizeof err) < 0) {
        fprintf(stderr, "floor: %s\n", ctx ? err : "out of memory");
        return 1;
    }
    FCGX_Init();
    FCGX_InitRequest(&request, 0, 0);
    buf_init(&out);
    while (FCGX_Accept_r(&request) >= 0) {
        char *body = NULL;
        size_t len = 0;
        const char *qs = FCGX_GetParam("QUERY_STRING", request.envp);
        if (fcgi_read_body(request.in, request.envp, LIM_REQUEST_BYTES, &body, &len) != FIO_OK)
            write_error(&out, "floor: cannot read the body");
        else
            handle(ctx, body, len, qs ? qs : "", &out);
        free(body);
        fcgi_write_xml(request.out, out.p, out.len);
        FCGX_Finish_r(&request);
    }
    buf_free(&out);
    sched_ctx_free(ctx);
    free(ctx);
    return 0;
}
