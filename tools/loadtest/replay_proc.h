/*
 * replay_proc.h - CPU time of the server processes during a load run,
 * read from /proc: the FastCGI program's processes (by command name,
 * among Apache's descendants), the rest of Apache, mariadbd, and the
 * whole machine.  Two snapshots give the CPU seconds each class used in
 * between; a process that started in between counts from zero, one that
 * ended in between is lost (mod_fcgid is configured not to recycle).
 */
#ifndef LOCSCHED_REPLAY_PROC_H
#define LOCSCHED_REPLAY_PROC_H

enum proc_class { PC_SCHED = 0, PC_APACHE, PC_MARIADB, PC_NCLASSES };

struct proc_watch {
    int apache_pid;          /* Apache's parent process, 0 if unknown */
    int mysqld_pid;          /* mariadbd, 0 if unknown */
    char sched_comm[16];     /* command name of the FastCGI program */
};

struct proc_sample {
    int pid;
    unsigned long long start;    /* start time, to tell a reused pid */
    unsigned long long ticks;    /* utime + stime */
    int cls;
};

struct proc_snap {
    struct proc_sample *s;
    int n, cap;
    unsigned long long machine_busy, machine_total;   /* /proc/stat ticks, all CPUs */
};

/* The pid in a pid file when that process is alive, else 0. */
int proc_pid_from_file(const char *path);

/* The first process whose command name is comm, else 0. */
int proc_find_by_comm(const char *comm);

/* Take a snapshot.  Returns 0, or -1 when /proc cannot be read. */
int proc_snapshot(const struct proc_watch *w, struct proc_snap *out);
void proc_snap_free(struct proc_snap *s);

/* CPU seconds per class between two snapshots, and the number of
 * processes of each class seen in b; machine busy and total CPU seconds. */
void proc_delta(const struct proc_snap *a, const struct proc_snap *b, double secs[PC_NCLASSES],
                int nprocs[PC_NCLASSES], double *machine_busy, double *machine_total);

/* CPU seconds (user + system) this process has used. */
double proc_self_cpu(void);

#endif
