/*
 * emu_world.c - the emulation loop (emu_world.h).
 */
#include "emu_world.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "cursor_plan.h"
#include "db_sched.h"
#include "emu_metrics.h"
#include "emu_proto.h"
#include "emu_sets.h"

#define MAX_RPCS_PER_STEP 4
#define MAX_UNAVAILABLE 200        /* a run gives up after so many in a row */
#define RPC_SPACING 10.0          /* seconds between the RPCs of one host in a step */
#define SALT_REAL 0x7ea1u

void emu_scenario_defaults(struct emu_scenario *sc)
{
    memset(sc, 0, sizeof *sc);
    sc->nhosts = 50;
    sc->nusers = 10;
    sc->pop.cpus_min = 1;
    sc->pop.cpus_max = 4;
    sc->pop.cpu_gflops_min = 1;
    sc->pop.cpu_spread = 10;
    sc->pop.gpu_frac = 0;
    sc->pop.gpu_gflops_min = 100;
    sc->pop.gpu_spread = 10;
    sc->pop.gpu_eff = 0.25;
    sc->pop.on_frac_min = sc->pop.on_frac_max = 0.8;
    sc->pop.on_mean = 4 * 3600;
    sc->client.buf_min = 0.1 * 86400;
    sc->client.buf_add = 0.25 * 86400;
    sc->client.sched_period = 3600;
    sc->client.cs = 2;
    sc->client.jc = 2;
    sc->client.fetch = EMU_FETCH_720;
    sc->client.poll = 300;
    sc->client.max_reports = 64;
    sc->error_f = 1;
    sc->share = 100;
    sc->ws2 = 1;
    sc->file_pref = 1;
    sc->positions = 1;
    sc->nfiles = 0;
    sc->files_per_job = 1;
    sc->file_bytes = 1e6;
    sc->fpops_est = 1.3e13;
    sc->delay_bound = 9 * 86400;
    sc->replication = 1;
    sc->min_quorum = 1;
    sc->team_min = 10;
    sc->team_max = 20;
    sc->days = 3;
    sc->dt = 60;
    sc->wg_period = 300;
    sc->tr_period = 300;
    sc->ld_period = 3600;
    sc->seed = 1;
}

struct whost {
    struct emu_client c;
    struct emu_avail av;
    int user;
    int index;
    double depart;
    int gone;
};

struct world {
    const struct emu_scenario *sc;
    struct emu_outcome *out;
    struct emu_server srv;
    int server_open;
    struct emu_rng rng;
    struct whost *hosts;
    int nhosts, cap;
    double next_arrival;
    struct emu_stub stubs[EMU_MAX_PROJ - 1];
    double shares[EMU_MAX_PROJ];
    int nproj;
    struct emu_names files;        /* input file names -> ids */
    int *result_host;              /* result name id -> host index it was last sent to */
    long cap_result_host;
    long *file_hosts;              /* id -> distinct hosts that fetched it */
    long cap_file_hosts;
    struct emu_keyset file_host;   /* (file, host) pairs */
    struct emu_names results;      /* result names received */
    struct emu_metrics m;
    struct emu_timeline tl;        /* flops available and idle, hour by hour */
    struct buf req, reply;
    struct emu_reply *rp;
    struct emu_new_job *jobs;
    const char **names;            /* scratch for acks, deletes, files */
    char (*ack_copy)[EMU_NAME];
    double nbytes[EMU_R_MAX_JOBS][EMU_MAX_JOB_FILES];   /* per job of a reply, per file */
    int sticky[EMU_R_MAX_JOBS][EMU_MAX_JOB_FILES];
    int oom;
    int unavailable;               /* scheduler replies "unavailable" in a row */
    int cur_host;                  /* index of the host in an RPC */
};

/* ---- files ---- */

static int file_id(void *vctx, const char *name)
{
    struct world *w = vctx;
    int added, id = emu_names_add(&w->files, name, &added);
    if (id < 0) {
        w->oom = 1;
        return -1;
    }
    if (id >= w->cap_file_hosts) {
        long cap = w->cap_file_hosts ? w->cap_file_hosts * 2 : 4096, i;
        long *v;
        while (cap <= id)
            cap *= 2;
        v = realloc(w->file_hosts, sizeof *v * (size_t)cap);
        if (!v) {
            w->oom = 1;
            return -1;
        }
        for (i = w->cap_file_hosts; i < cap; i++)
            v[i] = 0;
        w->file_hosts = v;
        w->cap_file_hosts = cap;
    }
    return id;
}

static void downloaded(void *vctx, int file, double nbytes)
{
    struct world *w = vctx;
    int r = emu_keyset_add(&w->file_host, ((uint64_t)(uint32_t)file << 32) |
                                               (uint32_t)w->cur_host);
    w->out->bytes_total += nbytes;
    if (r < 0)
        w->oom = 1;
    else if (r == 1)
        w->file_hosts[file]++;
}

/* ---- hosts ---- */

static int add_host(struct world *w, double now)
{
    const struct emu_scenario *sc = w->sc;
    struct whost *h;
    struct emu_hw hw;

    if (w->nhosts == w->cap) {
        int cap = w->cap ? w->cap * 2 : 64;
        struct whost *v = realloc(w->hosts, sizeof *v * (size_t)cap);
        if (!v)
            return -1;
        w->hosts = v;
        w->cap = cap;
    }
    h = &w->hosts[w->nhosts];
    memset(h, 0, sizeof *h);
    emu_hw_draw(&hw, &sc->pop, &w->rng);
    if (emu_client_init(&h->c, &hw, &sc->client, w->shares, w->nproj,
                        sc->seed * 1000003 + (uint64_t)w->nhosts, now) < 0)
        return -1;
    emu_avail_init(&h->av, hw.on_frac, sc->pop.on_mean, now, &w->rng);
    h->index = w->nhosts;
    h->user = w->nhosts % (sc->nusers > 0 ? sc->nusers : 1);
    h->depart = sc->life_days > 0 ? now + emu_exponential(&w->rng, sc->life_days * 86400)
                                  : INFINITY;
    w->nhosts++;
    w->out->hosts_total++;
    return 0;
}

/* ---- RPCs ---- */

static int rsc_of_type(const char *type)
{
    if (strcmp(type, "CPU") == 0)
        return 0;
    if (strcmp(type, EMU_GPU_TYPE) == 0)
        return 1;
    return -1;
}

/* The job number at the end of a workunit name ("..._0000012", "...__12"). */
static uint64_t job_key(const char *wu_name)
{
    const char *u = strrchr(wu_name, '_');
    return u ? strtoull(u + 1, NULL, 10) : 0;
}

/* Make room for result name id in result_host.  Returns 0 or -1. */
static int result_host_grow(struct world *w, int id)
{
    if (id >= w->cap_result_host) {
        long cap = w->cap_result_host ? w->cap_result_host * 2 : 4096, i;
        int *v;
        while (cap <= id)
            cap *= 2;
        v = realloc(w->result_host, sizeof *v * (size_t)cap);
        if (!v)
            return -1;
        for (i = w->cap_result_host; i < cap; i++)
            v[i] = -1;
        w->result_host = v;
        w->cap_result_host = cap;
    }
    return 0;
}

static void rpc_real(struct world *w, struct whost *h, const struct emu_ask *ask, double now)
{
    const struct emu_scenario *sc = w->sc;
    struct emu_req_info ri;
    struct emu_answer a;
    struct sched_stats st;
    struct emu_reply *rp = w->rp;
    int i, k, nnames = 0;

    memset(&a, 0, sizeof a);
    ri.authenticator = w->srv.auths[h->user];
    ri.platform = EMU_PLATFORM;
    ri.app_name = EMU_APP;
    ri.version_num = EMU_VERSION;
    ri.gpu_plan_class = EMU_GPU_PLAN;
    ri.gpu_type = EMU_GPU_TYPE;
    ri.host_index = h->index;
    if (sc->rpc_fail > 0 && emu_uniform(&w->rng) < sc->rpc_fail) {
        w->out->rpcs_failed++;
        emu_client_answer(&h->c, now, ask, &a, NULL);
        return;
    }
    if (emu_request_write(&w->req, &h->c, ask, &ri, &w->files, now) < 0) {
        w->oom = 1;
        return;
    }
    emu_server_rpc(&w->srv, w->req.p, w->req.len, &w->reply, &st);
    w->out->rpcs++;
    w->unavailable = strcmp(st.outcome, "unavailable") == 0 ? w->unavailable + 1 : 0;
    if (strcmp(st.outcome, "ok") != 0 || emu_reply_parse(rp, w->reply.p, w->reply.len) < 0) {
        w->out->rpcs_failed++;
        if (sc->verbose)
            fprintf(stderr, "emu: [host#%lld] RPC failed (%s): %.300s\n", h->c.proj[0].hostid,
                    st.outcome, w->reply.p);
        emu_client_answer(&h->c, now, ask, &a, NULL);
        return;
    }
    a.ok = 1;
    if (rp->nresults == 0 && (ask->req_secs[0] > 0 || ask->req_secs[1] > 0 ||
                              ask->req_instances[0] > 0 || ask->req_instances[1] > 0))
        w->out->no_work_replies++;
    if (sc->verbose > 1)           /* one line per RPC, in simulated time */
        fprintf(stderr, "emu: rpc at %.0f [host#%lld] asks CPU %.0f s %.1f idle (delay %.0f s), "
                        "GPU %.0f s %.1f idle: %d jobs%s%s\n", now, h->c.proj[0].hostid,
                ask->req_secs[0], ask->req_instances[0], ask->estimated_delay[0], ask->req_secs[1],
                ask->req_instances[1], rp->nresults, rp->nno_work > 0 ? ", no work: " : "",
                rp->nno_work > 0 ? rp->no_work_reason[0] : "");
    a.request_delay = rp->request_delay;
    a.next_rpc_delay = rp->next_rpc_delay;
    a.hostid = rp->hostid;
    a.send_full_workload = rp->send_full_workload;
    for (i = 0; i < rp->nacks; i++)
        w->names[nnames++] = rp->acks[i];
    a.acks = w->names;
    a.nacks = rp->nacks;
    w->out->reports_acked += rp->nacks;
    for (i = 0; i < rp->nno_rsc_apps; i++) {
        int r = rsc_of_type(rp->no_rsc_apps[i]);
        if (r >= 0)
            a.no_apps[r] = 1;
    }
    for (i = 0; i < rp->nno_work; i++) {
        int r = rsc_of_type(rp->no_work_rsc[i]);
        if (r >= 0 && strcmp(rp->no_work_reason[i], "not_supported") == 0)
            a.no_apps[r] = 1;
    }
    for (i = 0; i < rp->nresults; i++) {
        const struct emu_rresult *res = &rp->results[i];
        const struct emu_rwu *wu = emu_reply_wu(rp, res->wu_name);
        const struct emu_rav *av = emu_reply_av(rp, res->version_num, res->plan_class);
        struct emu_new_job *j = &w->jobs[a.njobs];
        int added, id = emu_names_add(&w->results, res->name, &added);
        if (id < 0 || result_host_grow(w, id) < 0) {
            w->oom = 1;
            return;
        }
        w->out->results_received++;
        if (!added && w->result_host[id] == h->index) {
            /* sent again to the host that lost it ("resend lost results") */
            w->out->resends_received++;
        } else if (!added) {
            w->out->double_sends++;
            fprintf(stderr, "emu: result %s sent a second time (host index %d)\n", res->name,
                    h->index);
        }
        w->result_host[id] = h->index;
        if (!wu || !av) {
            fprintf(stderr, "emu: reply without the workunit or app version of %s\n", res->name);
            w->out->rpcs_failed++;
            continue;
        }
        j->name = res->name;
        j->rsc = av->coproc[0] ? 1 : 0;
        j->est_fpops = wu->rsc_fpops_est;
        j->fpops = emu_job_fpops(wu->rsc_fpops_est, sc->error_f, sc->size_sd,
                                 job_key(wu->name), SALT_REAL);
        j->flops_est = av->flops;
        j->deadline = res->report_deadline;
        j->file_names = w->names + nnames;
        j->file_nbytes = NULL;
        j->nfiles = 0;
        for (k = 0; k < wu->nfiles; k++)
            w->names[nnames++] = wu->files[k];
        j->nfiles = wu->nfiles;
        a.njobs++;
    }
    /* per-file sizes and flags, after the names (arrays of the job slots) */
    for (i = 0; i < a.njobs; i++) {
        struct emu_new_job *j = &w->jobs[i];
        for (k = 0; k < j->nfiles; k++) {
            const struct emu_rfile *f = emu_reply_file(rp, j->file_names[k]);
            w->nbytes[i][k] = f ? f->nbytes : 0;
            w->sticky[i][k] = f ? f->sticky : 0;
            if (!f)
                fprintf(stderr, "emu: reply without the file_info of %s\n", j->file_names[k]);
        }
        j->file_nbytes = w->nbytes[i];
        j->file_sticky = w->sticky[i];
    }
    a.jobs = w->jobs;
    for (i = 0; i < rp->ndeletes; i++)
        w->names[nnames++] = rp->deletes[i];
    w->out->deletes += rp->ndeletes;
    a.deletes = w->names + nnames - rp->ndeletes;
    a.ndeletes = rp->ndeletes;
    for (i = 0; i < rp->naborts; i++)
        w->names[nnames++] = rp->aborts[i];
    a.aborts = w->names + nnames - rp->naborts;
    a.abort_always = rp->abort_always;
    a.naborts = rp->naborts;
    {
        struct emu_files_cb cb = { file_id, downloaded, w };
        if (emu_client_answer(&h->c, now, ask, &a, &cb) < 0)
            w->oom = 1;
    }
}

static void rpc_stub(struct world *w, struct whost *h, const struct emu_ask *ask, double now)
{
    struct emu_stub *s = &w->stubs[ask->proj - 1];
    struct emu_stub_job sj[32];
    struct emu_answer a;
    struct emu_files_cb cb = { file_id, downloaded, w };
    int i, n;

    memset(&a, 0, sizeof a);
    w->out->rpcs_stub++;
    if (w->sc->rpc_fail > 0 && emu_uniform(&w->rng) < w->sc->rpc_fail) {
        emu_client_answer(&h->c, now, ask, &a, NULL);
        return;
    }
    a.ok = 1;
    a.request_delay = s->par.request_delay;
    for (i = 0; i < h->c.njobs && a.nacks < ask->nreport; i++) {
        const struct emu_job *j = &h->c.jobs[i];
        if (j->proj == ask->proj && j->finished > 0) {
            snprintf(w->ack_copy[a.nacks], EMU_NAME, "%s", j->name);
            w->names[a.nacks] = w->ack_copy[a.nacks];
            a.nacks++;
        }
    }
    a.acks = w->names;
    a.no_apps[1] = 1;              /* CPU jobs only */
    n = emu_stub_serve(s, &h->c, ask, now, sj, 32);
    for (i = 0; i < n; i++) {
        struct emu_new_job *j = &w->jobs[i];
        memset(j, 0, sizeof *j);
        j->name = sj[i].name;
        j->rsc = 0;
        j->est_fpops = sj[i].est_fpops;
        j->fpops = sj[i].fpops;
        j->flops_est = h->c.hw.cpu_flops;
        j->deadline = sj[i].deadline;
    }
    a.jobs = w->jobs;
    a.njobs = n;
    if (emu_client_answer(&h->c, now, ask, &a, &cb) < 0)
        w->oom = 1;
}

/* ---- the batch ---- */

static int make_batch(struct world *w, char *err, size_t errlen)
{
    const struct emu_scenario *sc = w->sc;
    struct emu_batch_spec b;
    int *first = NULL, *nf = NULL, i, r, njobs = sc->njobs, nfiles, k;
    double work = 0;

    if (njobs <= 0) {
        /* enough for the run: 1.5 times what the population could do */
        double flops = 0, shares = sc->share, frac;
        for (i = 0; i < w->nhosts; i++) {
            const struct emu_hw *hw = &w->hosts[i].c.hw;
            flops += (hw->ncpus * hw->cpu_flops + hw->ngpus * emu_hw_speed(hw, 1)) * hw->on_frac;
        }
        for (i = 0; i < sc->nstubs; i++)
            shares += sc->stubs[i].share;
        frac = shares > 0 ? sc->share / shares : 1;
        njobs = (int)(1.5 * flops * frac * sc->days * 86400 /
                      (sc->fpops_est * (sc->error_f > 0 ? sc->error_f : 1)) /
                      (sc->replication > 0 ? sc->replication : 1)) + 100;
    }
    k = sc->files_per_job > 0 ? sc->files_per_job : 1;
    nfiles = sc->nfiles > 0 ? sc->nfiles : (njobs + 99) / 100 + k - 1;
    if (k > nfiles)
        k = nfiles;
    first = malloc(sizeof *first * (size_t)njobs);
    nf = malloc(sizeof *nf * (size_t)njobs);
    if (!first || !nf) {
        free(first);
        free(nf);
        snprintf(err, errlen, "out of memory");
        return -1;
    }
    for (i = 0; i < njobs; i++) {
        first[i] = (int)((long long)i * (nfiles - k + 1) / njobs);
        nf[i] = k;
        work += emu_job_fpops(sc->fpops_est, sc->error_f, sc->size_sd, (uint64_t)i, SALT_REAL);
    }
    memset(&b, 0, sizeof b);
    {
        static int nbatches;
        snprintf(b.name, sizeof b.name, "emu%ld_%d_%d", (long)time(NULL) % 100000000,
                 (int)getpid(), nbatches++);
    }
    b.locality = sc->locality;
    b.njobs = njobs;
    b.nfiles = nfiles;
    b.first_file = first;
    b.nfiles_job = nf;
    b.fpops_est = sc->fpops_est;
    b.file_bytes = sc->file_bytes;
    b.delay_bound = sc->delay_bound;
    b.replication = sc->replication;
    b.min_quorum = sc->min_quorum;
    b.ncursors = sc->ncursors > 0 ? sc->ncursors
                                  : cursor_count(w->nhosts, sc->team_min, sc->team_max, njobs);
    r = emu_server_create_batch(&w->srv, &b, &w->out->batch_id, err, errlen);
    free(first);
    free(nf);
    w->out->work_flops = work * (sc->replication > 0 ? sc->replication : 1);
    if (sc->verbose)
        fprintf(stderr, "emu: batch %s: %d jobs, %d files, %s, %d cursors; policy %s, file "
                        "preference %d\n", b.name, njobs, nfiles,
                sc->locality ? "locality" : "plain", sc->locality ? b.ncursors : 0,
                w->srv.ctx.cfg.sched_policy == POLICY_WS2 ? "ws2" : "ws1",
                w->srv.ctx.cfg.locality_file_preference);
    return r;
}

/* ---- the run ---- */

static char *config_text(const struct emu_scenario *sc)
{
    static char text[4096];
    snprintf(text, sizeof text,
             "sched_policy = %s\nteam_size_min = %d\nteam_size_max = %d\n"
             "locality_file_preference = %d\nlocality_positions = %d\n%s\n",
             sc->ws2 ? "ws2" : "ws1", sc->team_min, sc->team_max, sc->file_pref ? 1 : 0,
             sc->positions ? 1 : 0,
             sc->extra_config ? sc->extra_config : "");
    return text;
}

/* What a host computed for the real project; when it departs, the work
 * it holds (finished but unreported, or partly done) is lost. */
static void count_real_flops(struct world *w, const struct emu_client *c, int departing)
{
    int i;
    w->out->computed_flops += c->proj[0].used_flops;
    if (!departing)
        return;
    for (i = 0; i < c->njobs; i++) {
        const struct emu_job *j = &c->jobs[i];
        if (j->proj == 0)
            w->out->lost_flops += j->finished > 0 ? j->fpops : j->done;
    }
}

static void host_leaves(struct world *w, struct whost *h, double now)
{
    count_real_flops(w, &h->c, 1);
    w->out->abandoned += emu_client_finish(&h->c, now, 1);
    emu_metrics_add(&w->m, &h->c);
    emu_client_free(&h->c);
    h->gone = 1;
    w->out->departures++;
}

static void world_free(struct world *w)
{
    int i;
    for (i = 0; i < w->nhosts; i++)
        if (!w->hosts[i].gone)
            emu_client_free(&w->hosts[i].c);
    free(w->hosts);
    free(w->file_hosts);
    free(w->result_host);
    emu_names_free(&w->files);
    emu_names_free(&w->results);
    emu_keyset_free(&w->file_host);
    buf_free(&w->req);
    buf_free(&w->reply);
    free(w->rp);
    free(w->jobs);
    free(w->names);
    free(w->ack_copy);
    if (w->server_open)
        emu_server_close(&w->srv);
}

static double wall_now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

int emu_run(const struct emu_scenario *sc, struct emu_outcome *out, char *err, size_t errlen)
{
    struct world w;
    double t0, t, end, last[EMU_NDAEMONS], speed_int = 0, wall0 = wall_now();
    double periods[EMU_NDAEMONS];
    int *order = NULL, i, rc = -1, step = 0;
    long next_report = 1;

    memset(out, 0, sizeof *out);
    memset(&w, 0, sizeof w);
    w.sc = sc;
    w.out = out;
    emu_rng_seed(&w.rng, sc->seed);
    emu_names_init(&w.files);
    emu_names_init(&w.results);
    emu_keyset_init(&w.file_host);
    emu_metrics_init(&w.m);
    buf_init(&w.req);
    buf_init(&w.reply);
    w.rp = malloc(sizeof *w.rp);
    w.jobs = calloc(EMU_R_MAX_JOBS, sizeof *w.jobs);
    w.names = calloc(EMU_R_MAX_ACKS + EMU_R_MAX_DELETES + EMU_R_MAX_ABORTS +
                     EMU_R_MAX_JOBS * EMU_MAX_JOB_FILES,
                     sizeof *w.names);
    w.ack_copy = calloc(EMU_R_MAX_ACKS, sizeof *w.ack_copy);
    if (!w.rp || !w.jobs || !w.names || !w.ack_copy) {
        snprintf(err, errlen, "out of memory");
        goto done;
    }
    w.shares[0] = sc->share;
    w.nproj = 1 + sc->nstubs;
    for (i = 0; i < sc->nstubs; i++) {
        w.stubs[i].par = sc->stubs[i];
        w.stubs[i].index = i + 1;
        w.stubs[i].error_f = sc->error_f;
        w.stubs[i].par.ws2 = sc->ws2;
        if (w.stubs[i].par.max_jobs <= 0)
            w.stubs[i].par.max_jobs = 16;
        w.shares[i + 1] = sc->stubs[i].share;
    }

    t0 = (double)EMU_EPOCH;
    emu_clock_set((time_t)t0);
    if (emu_server_open(&w.srv, config_text(sc), sc->verbose, err, errlen) < 0)
        goto done;
    w.server_open = 1;
    if (emu_server_retire_all(&w.srv, err, errlen) < 0 ||
        emu_server_users(&w.srv, sc->nusers > 0 ? sc->nusers : 1, err, errlen) < 0)
        goto done;
    for (i = 0; i < sc->nhosts; i++)
        if (add_host(&w, t0) < 0) {
            snprintf(err, errlen, "out of memory");
            goto done;
        }
    if (make_batch(&w, err, errlen) < 0)
        goto done;
    periods[EMU_WG] = sc->wg_period;
    periods[EMU_TR] = sc->tr_period;
    periods[EMU_LD] = sc->ld_period;
    for (i = 0; i < EMU_NDAEMONS; i++) {
        emu_server_daemon(&w.srv, (enum emu_daemon)i);
        last[i] = t0;
    }
    w.next_arrival = sc->life_days > 0
                         ? t0 + emu_exponential(&w.rng, sc->life_days * 86400 / sc->nhosts)
                         : INFINITY;

    end = t0 + sc->days * 86400;
    for (t = t0; t < end && !w.oom && w.unavailable < MAX_UNAVAILABLE;
         t = t0 + (double)(++step) * sc->dt) {
        int n = 0;
        double speed_on = 0;

        emu_clock_set((time_t)t);
        /* churn */
        while (w.next_arrival <= t) {
            if (add_host(&w, w.next_arrival) < 0) {
                w.oom = 1;
                break;
            }
            w.next_arrival += emu_exponential(&w.rng, sc->life_days * 86400 / sc->nhosts);
        }
        order = realloc(order, sizeof *order * (size_t)(w.nhosts + 1));
        if (!order) {
            w.oom = 1;
            break;
        }
        for (i = 0; i < w.nhosts; i++) {
            struct whost *h = &w.hosts[i];
            if (h->gone)
                continue;
            if (h->depart <= t) {
                host_leaves(&w, h, t);
                continue;
            }
            order[n++] = i;
        }
        for (i = n - 1; i > 0; i--) {
            int k = (int)(emu_uniform(&w.rng) * (i + 1)), x = order[i];
            if (k > i)
                k = i;
            order[i] = order[k];
            order[k] = x;
        }
        for (i = 0; i < n; i++) {
            struct whost *h = &w.hosts[order[i]];
            struct emu_ask ask;
            int k;
            if (sc->lose_queue_per_day > 0 &&
                emu_uniform(&w.rng) < sc->lose_queue_per_day * sc->dt / 86400) {
                w.out->jobs_forgotten += emu_client_reset_project(&h->c, 0);
                w.out->queue_losses++;
            }
            if (emu_avail_update(&h->av, t, &w.rng)) {
                h->c.need_sched = 1;
                h->c.need_check = 1;
            }
            if (!h->av.on)
                continue;
            w.cur_host = h->index;
            /* RPCs one after the other, RPC_SPACING apart, so that a
             * request_delay of a few seconds does not end the step's fetching */
            for (k = 0; k < MAX_RPCS_PER_STEP; k++) {
                double tk = t + k * RPC_SPACING;
                if (tk >= t + sc->dt || !emu_client_plan(&h->c, tk, 0, &ask))
                    break;
                emu_clock_set((time_t)tk);
                if (ask.proj == 0)
                    rpc_real(&w, h, &ask, tk);
                else
                    rpc_stub(&w, h, &ask, tk);
            }
            emu_clock_set((time_t)t);
            {
                double avail0 = h->c.avail_flops, idle0 = h->c.idle_flops;
                emu_client_advance(&h->c, t, sc->dt);
                emu_timeline_add(&w.tl, t - t0, h->c.avail_flops - avail0,
                                 h->c.idle_flops - idle0);
            }
            speed_on += h->c.hw.ncpus * h->c.hw.cpu_flops + h->c.hw.ngpus * emu_hw_speed(&h->c.hw, 1);
        }
        if (!out->batch_done)
            speed_int += speed_on * sc->dt;
        /* daemons, at the end of the step's time */
        emu_clock_set((time_t)(t + sc->dt));
        for (i = 0; i < EMU_NDAEMONS; i++) {
            if (t + sc->dt - last[i] < periods[i])
                continue;
            last[i] = t + sc->dt;
            emu_server_daemon(&w.srv, (enum emu_daemon)i);
            if (i == EMU_TR && !out->batch_done &&
                emu_server_batch_state(&w.srv, out->batch_id) == BS_COMPLETE) {
                out->batch_done = 1;
                out->makespan = t + sc->dt - t0;
            }
        }
        if (sc->verbose && t + sc->dt >= t0 + (double)next_report * 86400) {
            fprintf(stderr, "emu: day %ld: %d hosts, %ld RPCs, %ld results received, %ld acked, "
                            "%.0f s wall\n", next_report, n, out->rpcs, out->results_received,
                    out->reports_acked, wall_now() - wall0);
            next_report++;
        }
        if (out->batch_done && sc->until_done) {
            t += sc->dt;
            break;
        }
    }
    if (w.oom) {
        snprintf(err, errlen, "out of memory");
        goto done;
    }
    if (w.unavailable >= MAX_UNAVAILABLE) {
        snprintf(err, errlen, "the scheduler answered \"unavailable\" %d times in a row: is "
                              "the database down? (see the sandbox's mysql/error.log)",
                 w.unavailable);
        goto done;
    }

    /* the end: what every host still holds */
    for (i = 0; i < w.nhosts; i++) {
        struct whost *h = &w.hosts[i];
        if (h->gone)
            continue;
        emu_client_finish(&h->c, t, 0);
        emu_metrics_add(&w.m, &h->c);
        count_real_flops(&w, &h->c, 0);
    }
    out->idleness = emu_idleness(&w.m);
    out->waste = emu_waste(&w.m);
    out->share_violation = emu_mean_share_violation(&w.m);
    out->monotony = emu_mean_monotony(&w.m);
    out->cpu_idleness = emu_cpu_idleness(&w.m);
    out->gpu_idleness = emu_gpu_idleness(&w.m);
    out->gpu_flops_frac = w.m.avail_flops > 0 ? w.m.gpu_avail_flops / w.m.avail_flops : 0;
    out->jobs_finished = w.m.jobs_finished;
    out->jobs_late = w.m.jobs_late;
    out->jobs_aborted = w.m.jobs_aborted;
    out->files_used = w.files.n;
    if (w.files.n > 0) {
        long sum = 0;
        for (i = 0; i < w.files.n; i++)
            sum += w.file_hosts[i];
        out->hosts_per_file = (double)sum / w.files.n;
    }
    if (emu_server_batch_db(&w.srv, out->batch_id, &out->db, err, errlen) < 0)
        goto done;
    {
        struct emu_batch_work bw;
        if (emu_server_batch_work(&w.srv, out->batch_id, &bw, err, errlen) < 0)
            goto done;
        out->range_bound = emu_range_bound(bw.first_file, bw.nfiles, bw.njobs, bw.host_jobs,
                                           bw.nhosts);
        emu_batch_work_free(&bw);
        if (out->range_bound < 0) {
            snprintf(err, errlen, "out of memory");
            goto done;
        }
    }
    if (out->db.workunits > 0)
        out->bytes_per_job = out->bytes_total / (double)out->db.workunits;
    if (out->db.wu_finished > 0)
        out->rpcs_per_job = (double)out->rpcs / (double)out->db.wu_finished;
    if (out->batch_done && out->makespan > 0 && speed_int > 0) {
        double mean_speed = speed_int / out->makespan;
        out->ideal = out->work_flops / mean_speed;
        out->makespan_ratio = out->makespan / out->ideal;
    }
    if (out->batch_done) {
        out->extra_flops = out->computed_flops - out->lost_flops - out->work_flops;
        out->idle_head = emu_timeline_idle_share(&w.tl, 0, EMU_HEAD_SHARE * out->makespan);
        out->idle_tail = emu_timeline_idle_share(&w.tl, (1 - EMU_TAIL_SHARE) * out->makespan,
                                                 out->makespan);
    }
    out->sim_days = (t - t0) / 86400;
    out->handler_secs = w.srv.handler_secs;
    for (i = 0; i < EMU_NDAEMONS; i++) {
        out->daemon_secs += w.srv.daemon_secs[i];
        out->daemon_secs_each[i] = w.srv.daemon_secs[i];
        out->daemon_passes += (long)w.srv.d[i].passes;
    }
    out->statements = w.srv.statements;
    /* leave no batch of this run in progress for whatever uses the
     * database next (its unsent results would be served) */
    if (emu_server_retire_all(&w.srv, err, errlen) < 0)
        goto done;
    rc = 0;
done:
    out->wall_secs = wall_now() - wall0;
    free(order);
    world_free(&w);
    return rc;
}

void emu_outcome_print(const struct emu_scenario *sc, const struct emu_outcome *o)
{
    printf("hosts %d (%ld in all, %ld left), %s batch #%d, %s, %.2f simulated days in %.1f s "
           "(handler %.1f s, daemons %.1f s: %.1f + %.1f + %.1f in %ld passes)\n",
           sc->nhosts, o->hosts_total, o->departures, sc->locality ? "locality" : "plain",
           o->batch_id, sc->ws2 ? "WS2" : "WS1", o->sim_days, o->wall_secs, o->handler_secs,
           o->daemon_secs, o->daemon_secs_each[0], o->daemon_secs_each[1], o->daemon_secs_each[2],
           o->daemon_passes);
    printf("  idleness %.4f (CPUs %.4f, GPUs %.4f: %.0f%% of the flops)  waste %.4f  "
           "share violation %.4f  monotony %.4f\n", o->idleness, o->cpu_idleness,
           o->gpu_idleness, 100 * o->gpu_flops_frac, o->waste, o->share_violation, o->monotony);
    if (o->batch_done)
        printf("  idleness in the batch's first %.0f%%: %.4f, middle: %.4f, last %.0f%%: %.4f\n",
               100 * EMU_HEAD_SHARE, o->idle_head, o->idleness - o->idle_head - o->idle_tail,
               100 * EMU_TAIL_SHARE, o->idle_tail);
    printf("  jobs finished %ld (%ld late), aborted by the project before they ran %ld; "
           "results received %ld, acked %ld; double sends %ld; abandoned %ld\n",
           o->jobs_finished, o->jobs_late, o->jobs_aborted, o->results_received,
           o->reports_acked, o->double_sends, o->abandoned);
    if (sc->lose_queue_per_day > 0)
        printf("  queues lost: %ld (%ld jobs forgotten), results resent to the same host %ld\n",
               o->queue_losses, o->jobs_forgotten, o->resends_received);
    printf("  RPCs %ld (%ld failed, %ld work requests answered without a job, %.2f per job), "
           "stub RPCs %ld, SQL statements %lu\n", o->rpcs, o->rpcs_failed, o->no_work_replies,
           o->rpcs_per_job, o->rpcs_stub, o->statements);
    printf("  files %ld: %.2f hosts per file (one range per host: %.2f), %.0f bytes per job, "
           "%ld sticky files deleted\n", o->files_used, o->hosts_per_file, o->range_bound,
           o->bytes_per_job, o->deletes);
    printf("  batch: %lld workunits, %lld finished, %lld unsent / %lld in progress results, "
           "%lld backups, %lld on hosts presumed gone, state %d%s", o->db.workunits,
           o->db.wu_finished, o->db.unsent, o->db.in_progress, o->db.backups, o->db.host_lost,
           o->db.state, o->batch_done ? "" : "\n");
    if (o->batch_done)
        printf(", makespan %.2f h, ideal %.2f h, ratio %.3f\n", o->makespan / 3600,
               o->ideal / 3600, o->makespan_ratio);
    printf("  flops: %.4g needed, %.4g computed, %.4g lost with departing hosts, extra %.4g "
           "(%.2f%% of the needed)\n", o->work_flops, o->computed_flops, o->lost_flops,
           o->extra_flops, o->work_flops > 0 ? 100 * o->extra_flops / o->work_flops : 0);
}
