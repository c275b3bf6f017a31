/*
 * replay_out.c - the load replay's report (see replay_out.h).
 */
#include "replay_out.h"

#include <string.h>

static double per_sec(const struct replay_result *r, double v)
{
    return r->secs > 0 ? v / r->secs : 0;
}

static double per_req(double v, unsigned long n)
{
    return n ? v / (double)n : 0;
}

static double sql_statements(const struct replay_result *r)
{
    return rdb_statements(&r->db);
}

/* The reasons for no work: " name N, name N" (" none" when none given). */
static void print_reasons(FILE *out, const struct reason_counts *t)
{
    int i;

    for (i = 0; i < t->count; i++)
        fprintf(out, "%s %s %lu", i ? "," : "", t->name[i], t->n[i]);
    if (t->other)
        fprintf(out, "%s other %lu", t->count ? "," : "", t->other);
    if (!t->count && !t->other)
        fprintf(out, " none");
    fputc('\n', out);
}

void replay_print_text(FILE *out, const struct replay_result *r)
{
    const struct replay_counts *c = &r->c;
    int i;

    fprintf(out, "replay: %s, %d hosts, %d templates, %d accounts, ", r->url, r->nhosts,
            r->ntemplates, r->nauth);
    if (r->concurrency)
        fprintf(out, "closed loop, concurrency %d", r->concurrency);
    else
        fprintf(out, "open loop, %.1f req/s target", r->rate);
    fprintf(out, "; window %.2f s after %.1f s warm-up; jobs reported %.0f s after receipt\n",
            r->secs, r->warmup, r->run_seconds);
    fprintf(out, "  requests   %lu (%.1f/s), %lu without error; %lu asked for work, %lu of "
                 "those got none\n", c->requests, per_sec(r, (double)c->requests), c->ok,
            c->asked_work, c->no_work);
    fprintf(out, "  no work    by reason (per resource):");
    print_reasons(out, &c->reasons);
    fprintf(out, "  notices    %lu handled replies with a notice (no error)%s%s\n", c->notices,
            r->first_notice[0] ? "; first: " : "", r->first_notice);
    fprintf(out, "  jobs sent  %lu (%.1f/s, %.2f per reply with jobs)\n", c->jobs,
            per_sec(r, (double)c->jobs), per_req((double)c->jobs, c->with_jobs));
    fprintf(out, "  reported   %lu (%.1f/s)\n", c->reported, per_sec(r, (double)c->reported));
    fprintf(out, "  latency ms p50 %.2f, p90 %.2f, p99 %.2f, max %.2f, mean %.2f (%zu samples)\n",
            r->lat.p50, r->lat.p90, r->lat.p99, r->lat.max, r->lat.mean, r->lat.n);
    fprintf(out, "  bytes      request %.0f, reply %.0f (mean)\n",
            per_req((double)c->bytes_sent, c->requests),
            per_req((double)c->bytes_received, c->requests));
    fprintf(out, "  errors     %lu failed requests (whole run):", r->failed);
    for (i = 0; i < RE_NKINDS; i++)
        fprintf(out, " %s %lu%s", replay_err_name((enum replay_err)i), r->errors_all[i],
                i + 1 < RE_NKINDS ? "," : "\n");
    for (i = 0; i < RE_NKINDS; i++)
        if (r->first_error[i][0])
            fprintf(out, "    first %s: %s\n", replay_err_name((enum replay_err)i),
                    r->first_error[i]);
    if (r->have_db) {
        const double *v = r->db.v;
        unsigned long n = r->between;
        fprintf(out, "  sql/req    %.2f statements (prepared executions %.2f, commits %.2f, "
                     "rollbacks %.2f) over %lu replies\n", per_req(sql_statements(r), n), n ?
                per_req(v[RDB_STMT_EXECUTE], n) : 0, per_req(v[RDB_COMMIT], n),
                per_req(v[RDB_ROLLBACK], n), n);
        fprintf(out, "             by kind: select %.2f, insert %.2f, update %.2f, delete %.2f; "
                     "questions %.2f; prepares %.2f\n", per_req(v[RDB_SELECT], n),
                per_req(v[RDB_INSERT] + v[RDB_INSERT_SELECT], n),
                per_req(v[RDB_UPDATE] + v[RDB_UPDATE_MULTI], n),
                per_req(v[RDB_DELETE] + v[RDB_DELETE_MULTI], n), per_req(v[RDB_QUESTIONS], n),
                per_req(v[RDB_STMT_PREPARE], n));
        fprintf(out, "             rows: read_key %.1f, read_next %.1f, read_rnd_next %.1f, "
                     "update %.1f, write %.1f, delete %.1f; lock waits %.0f, deadlocks %.0f\n",
                per_req(v[RDB_HANDLER_READ_KEY], n), per_req(v[RDB_HANDLER_READ_NEXT], n),
                per_req(v[RDB_HANDLER_READ_RND_NEXT], n), per_req(v[RDB_HANDLER_UPDATE], n),
                per_req(v[RDB_HANDLER_WRITE], n), per_req(v[RDB_HANDLER_DELETE], n),
                v[RDB_ROWS_LOCK_WAITS], v[RDB_DEADLOCKS]);
        fprintf(out, "             innodb writes: pages flushed %.2f, data %.1f KB, redo log "
                     "%.1f KB\n", per_req(v[RDB_PAGES_FLUSHED], n),
                per_req(v[RDB_DATA_WRITTEN], n) / 1024, per_req(v[RDB_LOG_WRITTEN], n) / 1024);
    }
    if (r->have_cpu) {
        unsigned long n = r->between;
        fprintf(out, "  cpu s      scheduler %.2f (%d processes, %.3f ms/req), apache %.2f "
                     "(%.3f ms/req), mariadbd %.2f (%.3f ms/req), replay %.2f (%.3f ms/req)\n",
                r->cpu[PC_SCHED], r->nprocs[PC_SCHED], 1000 * per_req(r->cpu[PC_SCHED], n),
                r->cpu[PC_APACHE], 1000 * per_req(r->cpu[PC_APACHE], n), r->cpu[PC_MARIADB],
                1000 * per_req(r->cpu[PC_MARIADB], n), r->self_cpu,
                1000 * per_req(r->self_cpu, n));
        fprintf(out, "             machine busy %.2f of %.2f CPU s (%.0f%%); not accounted "
                     "above: %.2f\n", r->machine_busy, r->machine_total,
                r->machine_total > 0 ? 100 * r->machine_busy / r->machine_total : 0,
                r->machine_busy - r->cpu[PC_SCHED] - r->cpu[PC_APACHE] - r->cpu[PC_MARIADB] -
                    r->self_cpu);
    }
}

static void json_str(FILE *out, const char *s)
{
    fputc('"', out);
    for (; *s; s++) {
        unsigned char ch = (unsigned char)*s;
        if (ch == '"' || ch == '\\')
            fprintf(out, "\\%c", ch);
        else if (ch < 0x20)
            fprintf(out, "\\u%04x", ch);
        else
            fputc(ch, out);
    }
    fputc('"', out);
}

void replay_print_json(FILE *out, const struct replay_result *r)
{
    const struct replay_counts *c = &r->c;
    int i;

    fprintf(out, "{\"url\":");
    json_str(out, r->url);
    fprintf(out, ",\"hosts\":%d,\"templates\":%d,\"accounts\":%d,\"concurrency\":%d,"
                 "\"rate_target\":%.3f,\"warmup_s\":%.3f,\"run_seconds\":%.3f,\"window_s\":%.3f",
            r->nhosts, r->ntemplates, r->nauth, r->concurrency, r->rate, r->warmup,
            r->run_seconds, r->secs);
    fprintf(out, ",\"requests\":%lu,\"ok\":%lu,\"req_per_s\":%.3f,\"jobs\":%lu,\"jobs_per_s\":%.3f,"
                 "\"replies_with_jobs\":%lu,\"asked_work\":%lu,\"no_work\":%lu,"
                 "\"reported\":%lu,\"reported_per_s\":%.3f",
            c->requests, c->ok, per_sec(r, (double)c->requests), c->jobs,
            per_sec(r, (double)c->jobs), c->with_jobs, c->asked_work, c->no_work, c->reported,
            per_sec(r, (double)c->reported));
    fprintf(out, ",\"latency_ms\":{\"p50\":%.3f,\"p90\":%.3f,\"p99\":%.3f,\"max\":%.3f,"
                 "\"mean\":%.3f,\"n\":%zu}",
            r->lat.p50, r->lat.p90, r->lat.p99, r->lat.max, r->lat.mean, r->lat.n);
    fprintf(out, ",\"request_bytes\":%.0f,\"reply_bytes\":%.0f",
            per_req((double)c->bytes_sent, c->requests),
            per_req((double)c->bytes_received, c->requests));
    fprintf(out, ",\"notices\":%lu,\"no_work_reasons\":{", c->notices);
    for (i = 0; i < c->reasons.count; i++) {
        fprintf(out, "%s", i ? "," : "");
        json_str(out, c->reasons.name[i]);
        fprintf(out, ":%lu", c->reasons.n[i]);
    }
    if (c->reasons.other)
        fprintf(out, "%s\"other\":%lu", c->reasons.count ? "," : "", c->reasons.other);
    fprintf(out, "}");
    fprintf(out, ",\"failed\":%lu,\"errors\":{", r->failed);
    for (i = 0; i < RE_NKINDS; i++)
        fprintf(out, "%s\"%s\":%lu", i ? "," : "", replay_err_name((enum replay_err)i),
                r->errors_all[i]);
    fprintf(out, "}");
    if (r->have_db) {
        fprintf(out, ",\"sql\":{\"replies\":%lu,\"statements_per_req\":%.3f", r->between,
                per_req(sql_statements(r), r->between));
        for (i = 0; i < RDB_NCOUNTERS; i++)
            fprintf(out, ",\"%s\":%.0f", rdb_name((enum rdb_counter)i), r->db.v[i]);
        fprintf(out, "}");
    }
    if (r->have_cpu)
        fprintf(out, ",\"cpu_s\":{\"scheduler\":%.3f,\"scheduler_procs\":%d,\"apache\":%.3f,"
                     "\"mariadbd\":%.3f,\"replay\":%.3f,\"machine_busy\":%.3f,"
                     "\"machine_total\":%.3f}",
                r->cpu[PC_SCHED], r->nprocs[PC_SCHED], r->cpu[PC_APACHE], r->cpu[PC_MARIADB],
                r->self_cpu, r->machine_busy, r->machine_total);
    fprintf(out, "}\n");
}

void replay_print_summary(FILE *out, const struct replay_result *r)
{
    fprintf(out, "replay: %.1f req/s, %.1f jobs/s, p50 %.2f ms, p99 %.2f ms, %lu errors\n",
            per_sec(r, (double)r->c.requests), per_sec(r, (double)r->c.jobs), r->lat.p50,
            r->lat.p99, r->failed);
}
