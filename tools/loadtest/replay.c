/*
 * replay.c - load test of a locsched scheduler with recorded client
 * requests: N simulated hosts (replay_host.h) send requests made from
 * recorded bodies to a scheduler URL on this machine, in a closed loop
 * (a fixed number of requests in flight) or an open loop (a target
 * rate), for a time or a number of requests, and the figures are printed
 * (replay_out.h): throughput, latency percentiles, errors by kind, SQL
 * statements per request from the server's counters (replay_db.h) and the
 * CPU used by the scheduler, Apache, mariadbd and the replay itself
 * (replay_proc.h).
 *
 * One thread, libcurl's multi interface: each "slot" is one easy handle,
 * reused, so each keeps its keep-alive connection.  Loopback URLs only:
 * this is a tool for a test installation, not for someone else's server.
 */
#include <curl/curl.h>
#include <errno.h>
#include <dirent.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <arpa/inet.h>

#include "buf.h"
#include "replay_db.h"
#include "replay_host.h"
#include "replay_out.h"
#include "replay_proc.h"
#include "replay_reply.h"
#include "replay_seen.h"
#include "replay_stats.h"

#define MAX_TEMPLATES 256

/* Set by SIGINT or SIGTERM: end the run as its duration would (the
 * requests in flight finish, the figures are printed).  A second signal
 * kills, as the handler is reset by the first. */
static volatile sig_atomic_t stop_requested;

static void on_stop_signal(int sig)
{
    (void)sig;
    stop_requested = 1;
}

static void catch_stop_signals(void)
{
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_stop_signal;
    sa.sa_flags = (int)SA_RESETHAND;
    sigemptyset(&sa.sa_mask);
    sigaction(SIGINT, &sa, NULL);
    sigaction(SIGTERM, &sa, NULL);
}

struct opts {
    const char *url, *requests, *auth_file, *record, *sandbox;
    const char *apache_pid_file, *mysqld_pid_file, *sched_comm;
    const char *db_socket, *db_host, *db_user, *db_password, *db_name;
    int db_port;
    int hosts, concurrency, max_inflight, json, honor_delay, progress, quiet, warmup_all;
    int warmup_reported;
    int keepalive;
    double rate, duration, warmup, think_ms, timeout;
    long count;
    struct rh_opts rh;
};

struct slot {
    CURL *easy;
    int busy;
    int host;
    double t0;                /* when the request was due (latency starts here) */
    double ready_at;          /* closed loop with think time: next start */
    int counted;              /* due after the warm-up */
    int asks_work;
    int nreported;
    struct buf body, resp;
    char errbuf[CURL_ERROR_SIZE];
};

struct run {
    struct opts *o;
    struct rh_template *tpls;
    int ntpls;
    char **auths;
    int nauths;
    struct rh_host *hosts;
    int *idle;                /* ring of idle host indices */
    int idle_head, idle_n;
    struct slot *slots;
    int nslots, inflight;
    CURLM *multi;
    struct curl_slist *headers;
    struct rp_reply *reply;
    struct seen_set seen;
    FILE *record;
    char key[2048];           /* the code-signing key, echoed by hosts that got it */
    struct timespec t_origin;
    double t_measure;         /* start of the measured window */
    int measuring;
    double t_last;            /* last completion */
    long issued_counted;
    int hosts_known;          /* hosts that have had a successful reply */
    int hosts_reported;       /* hosts that have had a report acknowledged */
    struct lat_samples lat;
    struct replay_result res;
    /* counters */
    struct db_conn *db;
    struct rdb_snap db_a, db_self;
    struct proc_watch pw;
    struct proc_snap ps_a;
    double self_a;
};

static double now_s(const struct run *r)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)(t.tv_sec - r->t_origin.tv_sec) + (double)(t.tv_nsec - r->t_origin.tv_nsec) / 1e9;
}

static void usage(FILE *out)
{
    fprintf(out,
        "usage: replay --url SCHED_URL --requests DIR --auth-file FILE [--hosts N]\n"
        "              [--concurrency C | --rate R [--max-inflight N]] [--duration S]\n"
        "              [--count N] [--warmup S [--warmup-all | --warmup-reported]]\n"
        "              [--think-ms MS] [--run-seconds X]\n"
        "              [--work-secs S] [--honor-delay] [--keepalive] [--timeout S]\n"
        "              [--db-socket S | --db-host H [--db-port P]] [--db-user U]\n"
        "              [--db-password P] [--db-name D]\n"
        "              [--sandbox DIR | --apache-pid-file F --mariadb-pid-file F]\n"
        "              [--sched-comm NAME] [--record FILE] [--json] [--progress] [--quiet]\n"
        "\n"
        "Plays N BOINC hosts against a scheduler on this machine (loopback URLs only),\n"
        "with request bodies made from the recorded <scheduler_request> files (*.xml) in\n"
        "DIR.  Each host rewrites authenticator, hostid and rpc_seqno, keeps the jobs it\n"
        "was sent (other_results, in_progress_results after <send_full_workload/>) and\n"
        "reports each one --run-seconds after receiving it.\n"
        "\n"
        "  --hosts N          simulated hosts (default 100), spread over the authenticators\n"
        "                     of --auth-file (one per line)\n"
        "  --concurrency C    closed loop: C requests in flight (default 4)\n"
        "  --rate R           open loop: R requests/s, latency counted from the due time\n"
        "  --duration S       measured seconds (default 10), after --warmup S (default 0)\n"
        "  --warmup-all       the warm-up also lasts until every host has had a reply\n"
        "                     (its first contact), so that the window holds only known hosts\n"
        "  --warmup-reported  ... and until every host has had a report acknowledged, so\n"
        "                     that the window holds no host's first report (the steady state)\n"
        "  --count N          stop after N measured requests\n"
        "  --think-ms MS      closed loop: pause between a reply and the slot's next request\n"
        "  --run-seconds X    simulated run time of a job before it is reported (default 60;\n"
        "                     0: report at the next request)\n"
        "  --work-secs S      override the recorded work request (cpu_req_secs, work_req_seconds)\n"
        "  --honor-delay      a host waits for the request_delay of its last reply\n"
        "  --keepalive        reuse connections (a real client opens one per scheduler RPC,\n"
        "                     which is the default); Apache closes idle kept-alive\n"
        "                     connections when all its workers are busy\n"
        "  --db-...           the server's status counters give SQL statements per request\n"
        "  --sandbox DIR      a tools/sandbox folder: Apache's and MariaDB's pid files, for\n"
        "                     the CPU figures (default $SANDBOX_DIR)\n"
        "  --sched-comm NAME  process name of the FastCGI program (default: the URL's last\n"
        "                     path component)\n"
        "  --record FILE      write 'result_name hostid' for every job received\n"
        "  --json             also print the figures as one JSON line\n"
        "\n"
        "SIGINT or SIGTERM ends the run early, as --duration would: the requests in\n"
        "flight finish and the figures are printed (a second signal kills).\n"
        "\n"
        "The last line is: replay: R req/s, J jobs/s, p50 A ms, p99 B ms, E errors\n");
}

static int die_opt(const char *msg, const char *arg)
{
    fprintf(stderr, "replay: %s%s%s\n", msg, arg ? ": " : "", arg ? arg : "");
    return -1;
}

/* Parse a number option; -1 on junk. */
static int num(const char *s, double lo, double hi, double *out)
{
    char *end;
    double v;
    errno = 0;
    v = strtod(s, &end);
    if (errno || end == s || *end || !isfinite(v) || v < lo || v > hi)
        return -1;
    *out = v;
    return 0;
}

/* Returns 0, 1 after --help, or -1 (message printed) on a bad command line. */
static int parse_opts(int argc, char **argv, struct opts *o)
{
    int i;
    double v;

    memset(o, 0, sizeof *o);
    o->hosts = 100;
    o->duration = 10;
    o->timeout = 120;
    o->max_inflight = 256;
    o->rh.run_seconds = 60;
    o->rh.work_secs = -1;
    o->rh.max_report = 64;
    o->rh.max_files = 1000;
    o->sandbox = getenv("SANDBOX_DIR");
    for (i = 1; i < argc; i++) {
        const char *a = argv[i], *val = i + 1 < argc ? argv[i + 1] : NULL;
        int flag = 1;
        if (strcmp(a, "--help") == 0 || strcmp(a, "-h") == 0) {
            usage(stdout);
            return 1;
        } else if (strcmp(a, "--json") == 0) {
            o->json = 1;
        } else if (strcmp(a, "--honor-delay") == 0) {
            o->honor_delay = 1;
        } else if (strcmp(a, "--keepalive") == 0) {
            o->keepalive = 1;
        } else if (strcmp(a, "--warmup-all") == 0) {
            o->warmup_all = 1;
        } else if (strcmp(a, "--warmup-reported") == 0) {
            o->warmup_all = o->warmup_reported = 1;
        } else if (strcmp(a, "--progress") == 0) {
            o->progress = 1;
        } else if (strcmp(a, "--quiet") == 0) {
            o->quiet = 1;
        } else {
            flag = 0;
        }
        if (flag)
            continue;
        if (!val)
            return die_opt("unknown option, or no value after it", a);
        i++;
        if (strcmp(a, "--url") == 0) o->url = val;
        else if (strcmp(a, "--requests") == 0) o->requests = val;
        else if (strcmp(a, "--auth-file") == 0) o->auth_file = val;
        else if (strcmp(a, "--record") == 0) o->record = val;
        else if (strcmp(a, "--sandbox") == 0) o->sandbox = val;
        else if (strcmp(a, "--apache-pid-file") == 0) o->apache_pid_file = val;
        else if (strcmp(a, "--mariadb-pid-file") == 0) o->mysqld_pid_file = val;
        else if (strcmp(a, "--sched-comm") == 0) o->sched_comm = val;
        else if (strcmp(a, "--db-socket") == 0) o->db_socket = val;
        else if (strcmp(a, "--db-host") == 0) o->db_host = val;
        else if (strcmp(a, "--db-user") == 0) o->db_user = val;
        else if (strcmp(a, "--db-password") == 0) o->db_password = val;
        else if (strcmp(a, "--db-name") == 0) o->db_name = val;
        else {
            if (strcmp(a, "--hosts") == 0 && num(val, 1, 10000000, &v) == 0) o->hosts = (int)v;
            else if (strcmp(a, "--concurrency") == 0 && num(val, 1, 100000, &v) == 0)
                o->concurrency = (int)v;
            else if (strcmp(a, "--max-inflight") == 0 && num(val, 1, 100000, &v) == 0)
                o->max_inflight = (int)v;
            else if (strcmp(a, "--rate") == 0 && num(val, 0.001, 1e7, &v) == 0) o->rate = v;
            else if (strcmp(a, "--duration") == 0 && num(val, 0.001, 1e7, &v) == 0)
                o->duration = v;
            else if (strcmp(a, "--warmup") == 0 && num(val, 0, 1e7, &v) == 0) o->warmup = v;
            else if (strcmp(a, "--think-ms") == 0 && num(val, 0, 1e9, &v) == 0) o->think_ms = v;
            else if (strcmp(a, "--timeout") == 0 && num(val, 0.1, 1e6, &v) == 0) o->timeout = v;
            else if (strcmp(a, "--count") == 0 && num(val, 1, 1e15, &v) == 0) o->count = (long)v;
            else if (strcmp(a, "--run-seconds") == 0 && num(val, 0, 1e9, &v) == 0)
                o->rh.run_seconds = v;
            else if (strcmp(a, "--work-secs") == 0 && num(val, 0, 28.0 * 86400, &v) == 0)
                o->rh.work_secs = v;
            else if (strcmp(a, "--db-port") == 0 && num(val, 1, 65535, &v) == 0)
                o->db_port = (int)v;
            else
                return die_opt("unknown option or bad value", a);
        }
    }
    if (!o->url || !o->requests || !o->auth_file)
        return die_opt("--url, --requests and --auth-file are required (see --help)", NULL);
    if (o->rate > 0 && o->concurrency > 0)
        return die_opt("--concurrency (closed loop) and --rate (open loop) exclude each other",
                       NULL);
    if (o->rate <= 0 && o->concurrency <= 0)
        o->concurrency = 4;
    if (o->concurrency > o->hosts)
        return die_opt("--concurrency must not exceed --hosts (a host has one request at a "
                       "time)", NULL);
    return 0;
}

/*
 * Only http:// URLs whose host is a loopback address.  Returns 0 or -1.
 */
static int loopback_url(const char *url, char *err, size_t errlen)
{
    const char *h, *e;
    char host[64];
    size_t n;
    struct in_addr a4;

    if (strncmp(url, "http://", 7) != 0) {
        snprintf(err, errlen, "only http:// URLs on this machine are allowed");
        return -1;
    }
    h = url + 7;
    if (*h == '[') {
        e = strchr(h, ']');
        if (!e) {
            snprintf(err, errlen, "malformed URL");
            return -1;
        }
        n = (size_t)(e - h - 1);
        if (n >= sizeof host)
            n = sizeof host - 1;
        memcpy(host, h + 1, n);
        host[n] = '\0';
        if (strcmp(host, "::1") == 0)
            return 0;
    } else {
        n = strcspn(h, ":/?#");
        if (n >= sizeof host) {
            snprintf(err, errlen, "host name too long");
            return -1;
        }
        memcpy(host, h, n);
        host[n] = '\0';
        if (strcmp(host, "localhost") == 0)
            return 0;
        if (inet_pton(AF_INET, host, &a4) == 1 && (ntohl(a4.s_addr) >> 24) == 127)
            return 0;
    }
    snprintf(err, errlen, "host '%s' is not a loopback address (127.0.0.0/8, [::1], localhost)",
             host);
    return -1;
}

static int cmp_str(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

static int load_templates(struct run *r)
{
    DIR *d = opendir(r->o->requests);
    struct dirent *e;
    char *names[MAX_TEMPLATES];
    int n = 0, i;

    if (!d) {
        fprintf(stderr, "replay: cannot open %s: %s\n", r->o->requests, strerror(errno));
        return -1;
    }
    while ((e = readdir(d)) && n < MAX_TEMPLATES) {
        size_t l = strlen(e->d_name);
        if (l > 4 && strcmp(e->d_name + l - 4, ".xml") == 0 && e->d_name[0] != '.')
            names[n++] = strdup(e->d_name);
    }
    closedir(d);
    qsort(names, (size_t)n, sizeof *names, cmp_str);
    r->tpls = calloc((size_t)(n ? n : 1), sizeof *r->tpls);
    if (!r->tpls)
        return -1;
    for (i = 0; i < n; i++) {
        char path[4096], err[512];
        size_t len = 0;
        char *body;
        if (!names[i])
            continue;
        snprintf(path, sizeof path, "%s/%s", r->o->requests, names[i]);
        body = buf_read_file(path, &len);
        if (!body) {
            fprintf(stderr, "replay: cannot read %s\n", path);
        } else if (rh_template_init(&r->tpls[r->ntpls], names[i], body, len, err,
                                    sizeof err) < 0) {
            fprintf(stderr, "replay: skipping %s\n", err);
        } else {
            r->ntpls++;
        }
        free(body);
        free(names[i]);
    }
    if (r->ntpls == 0) {
        fprintf(stderr, "replay: no usable *.xml request in %s\n", r->o->requests);
        return -1;
    }
    return 0;
}

static int load_auths(struct run *r)
{
    FILE *f = fopen(r->o->auth_file, "r");
    char line[512];
    int cap = 0;

    if (!f) {
        fprintf(stderr, "replay: cannot read %s: %s\n", r->o->auth_file, strerror(errno));
        return -1;
    }
    while (fgets(line, sizeof line, f)) {
        char *p = line + strspn(line, " \t");
        p[strcspn(p, " \t\r\n")] = '\0';
        if (!*p || *p == '#')
            continue;
        if (r->nauths == cap) {
            char **q;
            cap = cap ? cap * 2 : 64;
            q = realloc(r->auths, sizeof *q * (size_t)cap);
            if (!q) {
                fclose(f);
                return -1;
            }
            r->auths = q;
        }
        r->auths[r->nauths] = strdup(p);
        if (!r->auths[r->nauths]) {
            fclose(f);
            return -1;
        }
        r->nauths++;
    }
    fclose(f);
    if (r->nauths == 0) {
        fprintf(stderr, "replay: no authenticator in %s\n", r->o->auth_file);
        return -1;
    }
    return 0;
}

static size_t on_data(char *p, size_t size, size_t n, void *vslot)
{
    struct slot *s = vslot;
    buf_put(&s->resp, p, size * n);
    return s->resp.oom ? 0 : size * n;
}

/* ---- hosts waiting for their next request ---- */

static void idle_push(struct run *r, int host)
{
    r->idle[(r->idle_head + r->idle_n) % r->o->hosts] = host;
    r->idle_n++;
}

/* The next idle host allowed to send now, or -1. */
static int idle_pop(struct run *r, double t)
{
    int tries;
    for (tries = 0; tries < r->idle_n; tries++) {
        int h = r->idle[r->idle_head];
        r->idle_head = (r->idle_head + 1) % r->o->hosts;
        r->idle_n--;
        if (!r->o->honor_delay || r->hosts[h].not_before <= t)
            return h;
        idle_push(r, h);
    }
    return -1;
}

/* ---- counters ---- */

static void snapshot_start(struct run *r)
{
    r->res.have_db = 0;
    if (r->db && rdb_calibrate(r->db, &r->db_a, &r->db_self) == DB_OK)
        r->res.have_db = 1;
    else if (r->db)
        fprintf(stderr, "replay: warning: no SQL counters: %s\n", db_error(r->db));
    r->res.have_cpu = proc_snapshot(&r->pw, &r->ps_a) == 0;
    r->self_a = proc_self_cpu();
    r->res.between = 0;
}

static void snapshot_end(struct run *r)
{
    struct proc_snap b = { 0 };
    r->res.self_cpu = proc_self_cpu() - r->self_a;
    if (r->res.have_cpu && proc_snapshot(&r->pw, &b) == 0)
        proc_delta(&r->ps_a, &b, r->res.cpu, r->res.nprocs, &r->res.machine_busy,
                   &r->res.machine_total);
    else
        r->res.have_cpu = 0;
    proc_snap_free(&b);
    proc_snap_free(&r->ps_a);
    if (r->res.have_db) {
        struct rdb_snap e;
        if (rdb_read(r->db, &e) == DB_OK)
            rdb_delta(&r->db_a, &e, &r->db_self, &r->res.db);
        else
            r->res.have_db = 0;
    }
}

/* ---- requests ---- */

static int start_request(struct run *r, struct slot *s, int host, double due)
{
    struct rh_host *h = &r->hosts[host];
    int nrep = 0;

    if (rh_build(h, &r->o->rh, due, r->key, &s->body, &nrep) < 0) {
        fprintf(stderr, "replay: out of memory building a request\n");
        return -1;
    }
    buf_reset(&s->resp);
    s->busy = 1;
    s->host = host;
    s->t0 = due;
    s->counted = r->measuring;
    s->nreported = nrep;
    s->asks_work = rh_template_asks_work(h->tpl, &r->o->rh);
    s->errbuf[0] = '\0';
    curl_easy_setopt(s->easy, CURLOPT_POSTFIELDS, s->body.p);
    curl_easy_setopt(s->easy, CURLOPT_POSTFIELDSIZE_LARGE, (curl_off_t)s->body.len);
    if (curl_multi_add_handle(r->multi, s->easy) != CURLM_OK) {
        fprintf(stderr, "replay: curl_multi_add_handle failed\n");
        return -1;
    }
    r->inflight++;
    if (s->counted)
        r->issued_counted++;
    return 0;
}

/* Count error kind e once for this request (kinds), keeping the first
 * message of each kind for the report. */
static void set_error(struct run *r, int *kinds, enum replay_err e, const char *msg)
{
    if (!kinds[e]) {
        kinds[e] = 1;
        r->res.errors_all[e]++;
    }
    if (!r->res.first_error[e][0])
        snprintf(r->res.first_error[e], sizeof r->res.first_error[e], "%s", msg);
}

/* Take in a finished request: classify, apply the reply to its host,
 * count.  Returns 0, or -1 when out of memory. */
static int finish_request(struct run *r, struct slot *s, CURLcode rc)
{
    struct rh_host *h = &r->hosts[s->host];
    struct replay_counts *c = &r->res.c;
    struct rp_reply *rp = r->reply;
    double t = now_s(r);
    long code = 0;
    int kinds[RE_NKINDS] = { 0 }, i, any = 0, parsed = 0;
    struct rh_outcome oc;

    curl_multi_remove_handle(r->multi, s->easy);
    r->inflight--;
    r->t_last = t;
    if (r->measuring)
        r->res.between++;
    memset(&oc, 0, sizeof oc);
    curl_easy_getinfo(s->easy, CURLINFO_RESPONSE_CODE, &code);
    if (rc != CURLE_OK) {
        set_error(r, kinds, RE_TRANSPORT, s->errbuf[0] ? s->errbuf : curl_easy_strerror(rc));
    } else if (code != 200) {
        char msg[64];
        snprintf(msg, sizeof msg, "HTTP status %ld", code);
        set_error(r, kinds, RE_HTTP, msg);
    } else if (rp_parse(rp, s->resp.p ? s->resp.p : "", s->resp.len) != 0) {
        char msg[96];
        snprintf(msg, sizeof msg, "not a well-formed <scheduler_reply> (%zu bytes)", s->resp.len);
        set_error(r, kinds, RE_UNPARSEABLE, msg);
    } else {
        parsed = 1;
        /* only a refusal is an error; a notice in a handled reply (a daily
         * quota reached) is shown to the volunteer, and the client goes on */
        if (rp_refused(rp))
            set_error(r, kinds, RE_MESSAGE, rp->first_notice[0] ? rp->first_notice :
                      "a reply that did not handle the request, without a message");
        else if (rp->nnotices && !r->res.first_notice[0])
            snprintf(r->res.first_notice, sizeof r->res.first_notice, "%s", rp->first_notice);
        if (rp->have_code_sign_key && !r->key[0])
            snprintf(r->key, sizeof r->key, "%s", rp->code_sign_key);
        if (h->hostid == 0 && rp->have_hostid && rp->hostid > 0)
            r->hosts_known++;
        if (rh_apply(h, rp, &r->o->rh, t, &oc) < 0)
            return -1;
        if (oc.acked > 0 && !h->reported_once) {
            h->reported_once = 1;
            r->hosts_reported++;
        }
        if (oc.no_hostid)
            set_error(r, kinds, RE_PROTOCOL, "a host without id got no <hostid>");
        if (oc.unacked) {
            char msg[96];
            snprintf(msg, sizeof msg, "%d reported results not acknowledged", oc.unacked);
            set_error(r, kinds, RE_PROTOCOL, msg);
        }
        if (rp->overflow)
            set_error(r, kinds, RE_PROTOCOL, "reply larger than the replay's arrays");
        for (i = 0; i < rp->njobs; i++) {
            int prev = -1, k = seen_add(&r->seen, rp->jobs[i].name, s->host, &prev);
            if (k < 0)
                return -1;
            if (k == 1) {
                char msg[400];
                snprintf(msg, sizeof msg, "result %.255s sent to host %lld, first sent to "
                         "host %lld", rp->jobs[i].name, h->hostid,
                         prev >= 0 ? r->hosts[prev].hostid : -1LL);
                kinds[RE_DOUBLE_SEND] = 0;        /* count every double send */
                set_error(r, kinds, RE_DOUBLE_SEND, msg);
            }
            if (r->record)
                fprintf(r->record, "%s %lld\n", rp->jobs[i].name, h->hostid);
        }
    }
    for (i = 0; i < RE_NKINDS; i++)
        any |= kinds[i];
    if (any)
        r->res.failed++;
    if (s->counted) {
        c->requests++;
        c->bytes_sent += s->body.len;
        c->bytes_received += s->resp.len;
        if (lat_add(&r->lat, (t - s->t0) * 1000.0) < 0)
            return -1;
        if (!any)
            c->ok++;
        if (s->asks_work) {
            c->asked_work++;
            if (parsed && rp->njobs == 0)
                c->no_work++;
        }
        if (parsed) {
            c->jobs += (unsigned long)rp->njobs;
            c->reported += (unsigned long)oc.acked;
            if (rp->njobs > 0)
                c->with_jobs++;
            if (rp->nnotices && !rp_refused(rp))
                c->notices++;
            for (i = 0; i < rp->nno_work; i++)
                reason_add(&c->reasons, rp->no_work[i].reason);
        }
        for (i = 0; i < RE_NKINDS; i++)
            c->errors[i] += (unsigned long)kinds[i];
    }
    s->busy = 0;
    s->ready_at = t + r->o->think_ms / 1000.0;
    idle_push(r, s->host);
    return 0;
}

/* ---- set-up ---- */

static int setup(struct run *r)
{
    struct opts *o = r->o;
    char upload[1024], err[256];
    const char *slash;
    int i;

    if (loopback_url(o->url, err, sizeof err) < 0) {
        fprintf(stderr, "replay: refusing %s: %s\n", o->url, err);
        return -1;
    }
    slash = strrchr(o->url + 7, '/');
    if (slash)
        snprintf(upload, sizeof upload, "%.*sfile_upload_handler", (int)(slash + 1 - o->url),
                 o->url);
    else
        snprintf(upload, sizeof upload, "%s/file_upload_handler", o->url);
    o->rh.upload_url = strdup(upload);
    if (load_templates(r) < 0 || load_auths(r) < 0)
        return -1;
    r->hosts = calloc((size_t)o->hosts, sizeof *r->hosts);
    r->idle = calloc((size_t)o->hosts, sizeof *r->idle);
    r->reply = malloc(sizeof *r->reply);
    if (!r->hosts || !r->idle || !r->reply || !o->rh.upload_url)
        return -1;
    for (i = 0; i < o->hosts; i++) {
        rh_host_init(&r->hosts[i], i, &r->tpls[i % r->ntpls], r->auths[i % r->nauths]);
        idle_push(r, i);
    }
    r->nslots = o->concurrency > 0 ? o->concurrency : o->max_inflight;
    if (r->nslots > o->hosts)
        r->nslots = o->hosts;
    r->slots = calloc((size_t)r->nslots, sizeof *r->slots);
    if (!r->slots)
        return -1;
    if (curl_global_init(CURL_GLOBAL_DEFAULT) != CURLE_OK)
        return -1;
    r->multi = curl_multi_init();
    if (!r->multi)
        return -1;
    curl_multi_setopt(r->multi, CURLMOPT_MAXCONNECTS, (long)r->nslots + 8);
    r->headers = curl_slist_append(NULL, "Content-Type: application/x-www-form-urlencoded");
    r->headers = curl_slist_append(r->headers, "Expect:");
    for (i = 0; i < r->nslots; i++) {
        struct slot *s = &r->slots[i];
        s->easy = curl_easy_init();
        if (!s->easy)
            return -1;
        buf_init(&s->body);
        buf_init(&s->resp);
        curl_easy_setopt(s->easy, CURLOPT_URL, o->url);
        curl_easy_setopt(s->easy, CURLOPT_POST, 1L);
        curl_easy_setopt(s->easy, CURLOPT_HTTPHEADER, r->headers);
        curl_easy_setopt(s->easy, CURLOPT_USERAGENT,
                         "BOINC client (x86_64-pc-linux-gnu 7.20.5) locsched-replay");
        curl_easy_setopt(s->easy, CURLOPT_WRITEFUNCTION, on_data);
        curl_easy_setopt(s->easy, CURLOPT_WRITEDATA, s);
        curl_easy_setopt(s->easy, CURLOPT_ERRORBUFFER, s->errbuf);
        curl_easy_setopt(s->easy, CURLOPT_NOSIGNAL, 1L);
        curl_easy_setopt(s->easy, CURLOPT_TCP_NODELAY, 1L);
        curl_easy_setopt(s->easy, CURLOPT_TIMEOUT_MS, (long)(o->timeout * 1000));
        curl_easy_setopt(s->easy, CURLOPT_PRIVATE, s);
        curl_easy_setopt(s->easy, CURLOPT_NOPROXY, "*");
        curl_easy_setopt(s->easy, CURLOPT_FOLLOWLOCATION, 0L);
        if (!o->keepalive) {
            curl_easy_setopt(s->easy, CURLOPT_FRESH_CONNECT, 1L);
            curl_easy_setopt(s->easy, CURLOPT_FORBID_REUSE, 1L);
        }
    }
    if (o->record) {
        r->record = fopen(o->record, "w");
        if (!r->record) {
            fprintf(stderr, "replay: cannot write %s: %s\n", o->record, strerror(errno));
            return -1;
        }
    }
    /* counters */
    if (o->db_socket || o->db_host) {
        struct db_params p;
        char dberr[512];
        memset(&p, 0, sizeof p);
        p.host = o->db_host;
        p.socket = o->db_socket;
        p.port = o->db_port;
        p.user = o->db_user ? o->db_user : "locsched";
        p.password = o->db_password ? o->db_password : getenv("DB_PASSWORD");
        p.name = o->db_name ? o->db_name : "locsched";
        p.timeout = 10;
        r->db = db_open(&p, dberr, sizeof dberr);
        if (!r->db)
            fprintf(stderr, "replay: warning: no SQL counters: %s\n", dberr);
    }
    {
        char path[4096];
        const char *comm = o->sched_comm;
        const char *last = strrchr(o->url + 7, '/');
        char base[64];
        if (o->apache_pid_file)
            r->pw.apache_pid = proc_pid_from_file(o->apache_pid_file);
        else if (o->sandbox) {
            snprintf(path, sizeof path, "%s/apache/httpd.pid", o->sandbox);
            r->pw.apache_pid = proc_pid_from_file(path);
        }
        if (o->mysqld_pid_file)
            r->pw.mysqld_pid = proc_pid_from_file(o->mysqld_pid_file);
        else if (o->sandbox) {
            snprintf(path, sizeof path, "%s/mysql/mysqld.pid", o->sandbox);
            r->pw.mysqld_pid = proc_pid_from_file(path);
        }
        if (!comm) {
            snprintf(base, sizeof base, "%s", last ? last + 1 : "scheduler");
            base[strcspn(base, "?#")] = '\0';
            comm = base;
        }
        snprintf(r->pw.sched_comm, sizeof r->pw.sched_comm, "%s", comm);
        if (!r->pw.apache_pid && !o->quiet)
            fprintf(stderr, "replay: note: Apache's pid unknown (--sandbox DIR): no CPU "
                            "figures for the scheduler and Apache\n");
    }
    return 0;
}

/* ---- the loop ---- */

static int run_loop(struct run *r)
{
    struct opts *o = r->o;
    double t_end, next_due = 0, next_progress = 1, interval = o->rate > 0 ? 1.0 / o->rate : 0;
    unsigned long last_req = 0;
    int stopping = 0;

    clock_gettime(CLOCK_MONOTONIC, &r->t_origin);
    r->t_measure = o->warmup;
    /* until the window starts, only a cap on the warm-up stops the run */
    t_end = o->warmup + (o->warmup_all ? 600 : o->duration);
    if (o->warmup <= 0) {
        snapshot_start(r);
        r->measuring = 1;
    }
    for (;;) {
        double t = now_s(r), wait_s = 0.05;
        int i, running = 0, finished;
        CURLMsg *m;
        int left;

        if (!r->measuring && t >= r->t_measure &&
            (!o->warmup_all || r->hosts_known >= o->hosts) &&
            (!o->warmup_reported || r->hosts_reported >= o->hosts)) {
            snapshot_start(r);
            r->measuring = 1;
            r->t_measure = t;
            t_end = t + o->duration;
            if (o->rate > 0 && next_due < t)
                next_due = t;
        }
        if (!stopping && (t >= t_end || stop_requested ||
                          (o->count && r->issued_counted >= o->count)))
            stopping = 1;
        if (stopping && r->inflight == 0)
            break;
        if (!stopping) {
            for (i = 0; i < r->nslots; i++) {
                struct slot *s = &r->slots[i];
                int host;
                double due;
                if (s->busy)
                    continue;
                if (o->count && r->measuring && r->issued_counted >= o->count)
                    break;
                if (o->rate > 0) {
                    if (next_due > t)
                        break;
                    due = next_due;
                } else {
                    if (s->ready_at > t) {
                        if (s->ready_at - t < wait_s)
                            wait_s = s->ready_at - t;
                        continue;
                    }
                    due = t;
                }
                host = idle_pop(r, t);
                if (host < 0)
                    break;
                if (start_request(r, s, host, due) < 0)
                    return -1;
                if (o->rate > 0)
                    next_due += interval;
            }
            if (o->rate > 0 && next_due > t && next_due - t < wait_s)
                wait_s = next_due - t;
        }
        curl_multi_perform(r->multi, &running);
        finished = 0;
        while ((m = curl_multi_info_read(r->multi, &left))) {
            char *priv = NULL;
            if (m->msg != CURLMSG_DONE)
                continue;
            curl_easy_getinfo(m->easy_handle, CURLINFO_PRIVATE, &priv);
            if (priv) {
                if (finish_request(r, (struct slot *)(void *)priv, m->data.result) < 0) {
                    fprintf(stderr, "replay: out of memory\n");
                    return -1;
                }
                finished++;
            }
        }
        if (!r->measuring && o->warmup_all && t >= t_end && !r->res.first_error[RE_PROTOCOL][0])
            snprintf(r->res.first_error[RE_PROTOCOL], sizeof r->res.first_error[RE_PROTOCOL],
                     "warm-up cut at %.0f s: only %d of %d hosts had a reply, %d a report "
                     "acknowledged", t, r->hosts_known, o->hosts, r->hosts_reported);
        if (o->progress && t >= next_progress) {
            fprintf(stderr, "replay: t=%.0fs %s requests %lu (+%lu), in flight %d, failed %lu\n",
                    t, r->measuring ? "measuring" : "warm-up", r->res.c.requests,
                    r->res.c.requests - last_req, r->inflight, r->res.failed);
            last_req = r->res.c.requests;
            next_progress += 1;
        }
        if (finished && !stopping && o->rate <= 0 && o->think_ms <= 0)
            continue;              /* a slot is free: start its next request now */
        if (r->inflight == 0 && wait_s > 0.05)
            wait_s = 0.05;
        {
            int ms = (int)(wait_s * 1000);
            curl_multi_poll(r->multi, NULL, 0, ms > 0 ? ms : 0, NULL);
        }
    }
    if (!r->measuring) {
        snapshot_start(r);
        r->measuring = 1;
        r->t_measure = now_s(r);
    }
    snapshot_end(r);
    r->res.secs = (r->t_last > r->t_measure ? r->t_last : now_s(r)) - r->t_measure;
    return 0;
}

int main(int argc, char **argv)
{
    struct opts o;
    struct run r;
    int i;

    i = parse_opts(argc, argv, &o);
    if (i != 0)
        return i > 0 ? 0 : 2;
    memset(&r, 0, sizeof r);
    r.o = &o;
    if (setup(&r) < 0) {
        fprintf(stderr, "replay: set-up failed\n");
        return 1;
    }
    catch_stop_signals();
    if (run_loop(&r) < 0)
        return 1;
    if (r.record)
        fclose(r.record);

    r.res.url = o.url;
    r.res.nhosts = o.hosts;
    r.res.ntemplates = r.ntpls;
    r.res.nauth = r.nauths;
    r.res.concurrency = o.concurrency;
    r.res.rate = o.rate;
    r.res.warmup = r.t_measure;
    r.res.run_seconds = o.rh.run_seconds;
    r.res.work_secs = o.rh.work_secs;
    lat_summarize(&r.lat, &r.res.lat);
    if (!o.quiet)
        replay_print_text(stdout, &r.res);
    if (o.json)
        replay_print_json(stdout, &r.res);
    replay_print_summary(stdout, &r.res);

    for (i = 0; i < r.nslots; i++) {
        curl_easy_cleanup(r.slots[i].easy);
        buf_free(&r.slots[i].body);
        buf_free(&r.slots[i].resp);
    }
    curl_multi_cleanup(r.multi);
    curl_slist_free_all(r.headers);
    curl_global_cleanup();
    for (i = 0; i < o.hosts; i++)
        rh_host_free(&r.hosts[i]);
    for (i = 0; i < r.ntpls; i++)
        rh_template_free(&r.tpls[i]);
    for (i = 0; i < r.nauths; i++)
        free(r.auths[i]);
    free(r.auths);
    free(r.tpls);
    free(r.hosts);
    free(r.idle);
    free(r.slots);
    free(r.reply);
    free((char *)o.rh.upload_url);
    seen_free(&r.seen);
    lat_free(&r.lat);
    db_close(r.db);
    return r.res.failed ? 3 : 0;
}
