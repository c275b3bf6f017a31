/*
 * replay_proc.c - CPU accounting of the server processes from /proc (see
 * replay_proc.h).
 */
#include "replay_proc.h"

#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <unistd.h>

struct stat_line {
    int pid, ppid;
    char comm[32];
    unsigned long long ticks, start;
};

/* Read /proc/PID/stat.  Returns 0 or -1 (gone, unreadable). */
static int read_stat(int pid, struct stat_line *out)
{
    char path[64], line[1024], *open_p, *close_p, *f[24];
    FILE *fp;
    size_t n;
    int i;

    snprintf(path, sizeof path, "/proc/%d/stat", pid);
    fp = fopen(path, "r");
    if (!fp)
        return -1;
    n = fread(line, 1, sizeof line - 1, fp);
    fclose(fp);
    line[n] = '\0';
    open_p = strchr(line, '(');
    close_p = strrchr(line, ')');
    if (!open_p || !close_p || close_p < open_p)
        return -1;
    n = (size_t)(close_p - open_p - 1);
    if (n >= sizeof out->comm)
        n = sizeof out->comm - 1;
    memcpy(out->comm, open_p + 1, n);
    out->comm[n] = '\0';
    /* fields after the command: state(3) ppid(4) ... utime(14) stime(15) ... starttime(22) */
    {
        char *p = close_p + 2, *save = NULL;
        for (i = 0; i < 20; i++) {
            f[i] = strtok_r(i == 0 ? p : NULL, " ", &save);
            if (!f[i])
                return -1;
        }
    }
    out->pid = pid;
    out->ppid = atoi(f[1]);
    out->ticks = strtoull(f[11], NULL, 10) + strtoull(f[12], NULL, 10);
    out->start = strtoull(f[19], NULL, 10);
    return 0;
}

int proc_pid_from_file(const char *path)
{
    FILE *fp = fopen(path, "r");
    int pid = 0;
    struct stat_line st;
    if (!fp)
        return 0;
    if (fscanf(fp, "%d", &pid) != 1)
        pid = 0;
    fclose(fp);
    if (pid > 0 && read_stat(pid, &st) == 0)
        return pid;
    return 0;
}

/* All processes, or NULL; *n gets the count. */
static struct stat_line *all_procs(int *n)
{
    DIR *d = opendir("/proc");
    struct dirent *e;
    struct stat_line *v = NULL;
    int cap = 0;

    *n = 0;
    if (!d)
        return NULL;
    while ((e = readdir(d))) {
        int pid = atoi(e->d_name);
        if (pid <= 0)
            continue;
        if (*n == cap) {
            struct stat_line *q;
            cap = cap ? cap * 2 : 512;
            q = realloc(v, sizeof *v * (size_t)cap);
            if (!q) {
                free(v);
                closedir(d);
                return NULL;
            }
            v = q;
        }
        if (read_stat(pid, &v[*n]) == 0)
            (*n)++;
    }
    closedir(d);
    return v;
}

int proc_find_by_comm(const char *comm)
{
    int n, i, pid = 0;
    struct stat_line *v = all_procs(&n);
    for (i = 0; v && i < n && !pid; i++)
        if (strcmp(v[i].comm, comm) == 0)
            pid = v[i].pid;
    free(v);
    return pid;
}

/* Is pid a descendant of (or equal to) root? */
static int descends(const struct stat_line *v, int n, int pid, int root)
{
    int depth, i;
    for (depth = 0; depth < 64 && pid > 1; depth++) {
        if (pid == root)
            return 1;
        for (i = 0; i < n && v[i].pid != pid; i++)
            ;
        if (i == n)
            return 0;
        pid = v[i].ppid;
    }
    return pid == root;
}

static int add_sample(struct proc_snap *s, const struct stat_line *l, int cls)
{
    if (s->n == s->cap) {
        int cap = s->cap ? s->cap * 2 : 64;
        struct proc_sample *q = realloc(s->s, sizeof *q * (size_t)cap);
        if (!q)
            return -1;
        s->s = q;
        s->cap = cap;
    }
    s->s[s->n].pid = l->pid;
    s->s[s->n].start = l->start;
    s->s[s->n].ticks = l->ticks;
    s->s[s->n].cls = cls;
    s->n++;
    return 0;
}

static void machine_ticks(unsigned long long *busy, unsigned long long *total)
{
    FILE *fp = fopen("/proc/stat", "r");
    unsigned long long v[8] = { 0 };
    *busy = *total = 0;
    if (!fp)
        return;
    if (fscanf(fp, "cpu %llu %llu %llu %llu %llu %llu %llu %llu", &v[0], &v[1], &v[2], &v[3],
               &v[4], &v[5], &v[6], &v[7]) == 8) {
        *total = v[0] + v[1] + v[2] + v[3] + v[4] + v[5] + v[6] + v[7];
        *busy = *total - v[3] - v[4];       /* minus idle and iowait */
    }
    fclose(fp);
}

int proc_snapshot(const struct proc_watch *w, struct proc_snap *out)
{
    int n, i, r = 0;
    struct stat_line *v = all_procs(&n);

    out->n = 0;
    machine_ticks(&out->machine_busy, &out->machine_total);
    if (!v)
        return -1;
    for (i = 0; i < n && r == 0; i++) {
        const struct stat_line *l = &v[i];
        if (w->mysqld_pid && l->pid == w->mysqld_pid)
            r = add_sample(out, l, PC_MARIADB);
        else if (w->apache_pid && descends(v, n, l->pid, w->apache_pid))
            r = add_sample(out, l, strcmp(l->comm, w->sched_comm) == 0 ? PC_SCHED : PC_APACHE);
    }
    free(v);
    return r;
}

void proc_snap_free(struct proc_snap *s)
{
    free(s->s);
    memset(s, 0, sizeof *s);
}

void proc_delta(const struct proc_snap *a, const struct proc_snap *b, double secs[PC_NCLASSES],
                int nprocs[PC_NCLASSES], double *machine_busy, double *machine_total)
{
    double hz = (double)sysconf(_SC_CLK_TCK);
    int i, j;

    if (hz <= 0)
        hz = 100;
    for (i = 0; i < PC_NCLASSES; i++) {
        secs[i] = 0;
        nprocs[i] = 0;
    }
    for (i = 0; i < b->n; i++) {
        const struct proc_sample *s = &b->s[i];
        unsigned long long before = 0;
        for (j = 0; j < a->n; j++)
            if (a->s[j].pid == s->pid && a->s[j].start == s->start) {
                before = a->s[j].ticks;
                break;
            }
        if (s->ticks >= before)
            secs[s->cls] += (double)(s->ticks - before) / hz;
        nprocs[s->cls]++;
    }
    *machine_busy = (double)(b->machine_busy - a->machine_busy) / hz;
    *machine_total = (double)(b->machine_total - a->machine_total) / hz;
}

double proc_self_cpu(void)
{
    struct rusage ru;
    if (getrusage(RUSAGE_SELF, &ru) != 0)
        return 0;
    return (double)ru.ru_utime.tv_sec + (double)ru.ru_utime.tv_usec / 1e6 +
           (double)ru.ru_stime.tv_sec + (double)ru.ru_stime.tv_usec / 1e6;
}
