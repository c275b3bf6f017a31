/*
 * test_concurrency.c - many scheduler processes at once must never send a
 * result twice nor two replicas of one job to one user.
 *
 * 8 processes, each with its own scheduler context and database
 * connection, play 25 hosts apiece (40 users, so one user's hosts are
 * spread over processes) and send 625 work requests each: 5,000 in all.
 * Each process writes the result names it received to a file; the parent
 * then checks the replies against each other and against the database.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "db_test_util.h"
#include "tap.h"

#define NPROC 8
#define HOSTS_PER_PROC 25
#define NUSERS 40
#define REQS_PER_PROC 625

struct thost {
    int user;
    int hostid;
    int seqno;
};

static char auths[NUSERS][65];
static int user_ids[NUSERS];

static void child(int p, const char *tmpl, const char *outpath)
{
    struct sched_ctx ctx;
    struct thost hosts[HOSTS_PER_PROC];
    FILE *out = fopen(outpath, "w");
    struct buf req, reply;
    int i, h;

    tu_ctx_open(&ctx);
    /* these hosts list no jobs in <other_results>: each request would find
     * all of its host's jobs lost and send them again (test_lost_jobs.c
     * tests that); here every job must be sent once */
    ctx.cfg.resend_lost_results = 0;
    buf_init(&reply);
    for (h = 0; h < HOSTS_PER_PROC; h++) {
        hosts[h].user = (p * HOSTS_PER_PROC + h) % NUSERS;
        hosts[h].hostid = 0;
        hosts[h].seqno = 0;
    }
    for (i = 0; i < REQS_PER_PROC; i++) {
        struct thost *t = &hosts[i % HOSTS_PER_PROC];
        struct sched_stats st;
        char num[32];
        const char *s;
        long long id;

        buf_init(&req);
        buf_puts(&req, tmpl);
        tu_set_elem(&req, "authenticator", auths[t->user]);
        snprintf(num, sizeof num, "%d", t->hostid);
        tu_set_elem(&req, "hostid", num);
        snprintf(num, sizeof num, "%d", t->seqno);
        tu_set_elem(&req, "rpc_seqno", num);
        sched_handle(&ctx, req.p, req.len, &reply, &st);
        buf_free(&req);
        if (strcmp(st.outcome, "ok") != 0) {
            fprintf(out, "ERROR %s\n", st.outcome);
            continue;
        }
        id = tu_elem_ll(reply.p, "hostid");
        if (id > 0) {
            t->hostid = (int)id;
            t->seqno = 0;
        } else {
            t->seqno++;
        }
        for (s = reply.p; (s = strstr(s, "<result>\n    <name>")); ) {
            const char *e;
            s += strlen("<result>\n    <name>");
            e = strchr(s, '<');
            fprintf(out, "%d %d %.*s\n", user_ids[t->user], t->hostid, (int)(e - s), s);
        }
    }
    fclose(out);
    buf_free(&reply);
    sched_ctx_free(&ctx);
    exit(0);
}

static int cmp_str(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

int main(void)
{
    struct sched_ctx ctx;
    char *tmpl, path[NPROC][256], batch_name[64];
    pid_t pids[NPROC];
    int i, errors = 0, dup = 0, nnames = 0, cap = 0;
    char **names = NULL;
    long long in_db, same_user;

    tu_ctx_open(&ctx);
    tu_app(&ctx, NULL);
    for (i = 0; i < NUSERS; i++)
        user_ids[i] = tu_user(&ctx, "conc", auths[i]);
    snprintf(batch_name, sizeof batch_name, "conc%ld", (long)time(NULL) % 100000000);
    /* each job is an hour at 1 GFLOPS; a request for 3600 s on 1 CPU gets one */
    (void)tu_batch(&ctx, batch_name, 3500, 2, 3.6e12, 0, 7 * 86400);
    tmpl = tu_read_file(tu_src_path("recorded/02-hostid-assigned-work-request.xml"), NULL);
    {
        struct buf b;
        buf_init(&b);
        buf_puts(&b, tmpl);
        tu_set_elem(&b, "work_req_seconds", "3600");
        tu_set_elem(&b, "cpu_req_secs", "3600");
        tu_set_elem(&b, "cpu_req_instances", "1");
        free(tmpl);
        tmpl = b.p;
    }

    for (i = 0; i < NPROC; i++) {
        snprintf(path[i], sizeof path[i], "/tmp/locsched-conc-%d-%d.txt", (int)getpid(), i);
        pids[i] = fork();
        if (pids[i] == 0)
            child(i, tmpl, path[i]);
    }
    for (i = 0; i < NPROC; i++) {
        int status;
        waitpid(pids[i], &status, 0);
        TAP_CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 0, "process %d finished", i);
    }

    for (i = 0; i < NPROC; i++) {
        FILE *f = fopen(path[i], "r");
        char line[512];
        while (f && fgets(line, sizeof line, f)) {
            int u, h;
            char name[300];
            if (strncmp(line, "ERROR", 5) == 0) {
                errors++;
                continue;
            }
            if (sscanf(line, "%d %d %299s", &u, &h, name) != 3)
                continue;
            if (nnames == cap) {
                cap = cap ? cap * 2 : 8192;
                names = realloc(names, sizeof *names * (size_t)cap);
            }
            names[nnames++] = strdup(name);
        }
        if (f)
            fclose(f);
        unlink(path[i]);
    }
    TAP_EQ_INT(errors, 0, "no request failed");
    TAP_CHECK(nnames >= 5000 * 9 / 10, "jobs were sent (%d for 5000 requests)", nnames);
    qsort(names, (size_t)nnames, sizeof *names, cmp_str);
    for (i = 1; i < nnames; i++)
        if (strcmp(names[i - 1], names[i]) == 0)
            dup++;
    TAP_EQ_INT(dup, 0, "no result name was sent twice");

    /* the plain source serves any batch: count by this run's users, whose
     * ids are the newest */
    in_db = tu_scalar(&ctx, 150, "SELECT COUNT(*) FROM result WHERE userid >= ? AND server_state = 4",
                      user_ids[0]);
    TAP_EQ_INT(in_db, nnames, "every job sent is one claimed row in the database");
    same_user = tu_scalar(&ctx, 151,
                          "SELECT COUNT(*) FROM (SELECT workunitid, userid FROM result "
                          "WHERE userid IS NOT NULL AND batch >= ? "
                          "GROUP BY workunitid, userid HAVING COUNT(*) > 1) x", 0);
    TAP_EQ_INT(same_user, 0, "no two replicas of a job went to one user");
    for (i = 0; i < nnames; i++)
        free(names[i]);
    free(names);
    free(tmpl);
    sched_ctx_free(&ctx);
    return tap_done();
}
