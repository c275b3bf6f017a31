/*
 * emu_main.c - the host-population emulator's command: one run with any
 * scenario ("run"), or one of the experiments (emu_exp.h).  Runs against
 * the private database of a sandbox: start one and eval its environment
 * first (test/emu/run_experiment does both).  "range-bound" needs no
 * database: it reads a batch's shape from standard input
 * (test/emu/range_bound feeds it from any locsched database).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "array_grow.h"
#include "emu_exp.h"
#include "emu_metrics.h"
#include "emu_opts.h"
#include "emu_world.h"
#include "sched_request.h"

static void usage(FILE *out)
{
    fprintf(out,
            "usage: emu run|ws|slack|locality|churn [options]\n"
            "       emu range-bound <JOBS_AND_HOSTS\n"
            "\n"
            "The locsched host-population emulator: simulated hosts and clients against the\n"
            "real scheduler, daemons and database of a sandbox ($LOCSCHED_CONFIG), on a\n"
            "simulated clock.\n"
            "\n"
            "  run       one run of the scenario the options describe; prints its figures\n"
            "  ws        WS1 against WS2 as the job-size standard deviation grows (paper 5.3)\n"
            "  slack     waste against slack, 1 to 60 (paper 5.1.1)\n"
            "  locality  2,000 files on 1,000 hosts: cursors, cursors with the file\n"
            "            preference, plain in-order dispatch\n"
            "  churn     hosts that leave for good: makespan / ideal (median and worst over\n"
            "            --seeds), extra flops, idleness, hosts per file, for lifetimes\n"
            "            (--points, days; 0: no churn) x replication (--reps) x dispatch\n"
            "            (--dispatch locality|plain|both); --jobs is the batch at\n"
            "            replication 1 (N / R jobs at R)\n"
            "  range-bound  hosts per file if each host had been sent one contiguous\n"
            "            range of as many jobs as it was (emu_metrics.h), of a batch read\n"
            "            from standard input: a line \"j FIRST NFILES\" per job in job order,\n"
            "            a line \"h NJOBS\" per host; prints the figure\n"
            "\n"
            "Options (each experiment sets its own defaults first):\n");
    emu_opts_usage(out);
}

/* "emu range-bound": the batch's jobs and the hosts' job counts from in,
 * the bound to standard output.  Returns the exit status. */
static int range_bound_cmd(FILE *in)
{
    int *first = NULL, *nfiles = NULL, *hosts = NULL;
    int njobs = 0, nhosts = 0, cap_first = 0, cap_nfiles = 0, cap_hosts = 0, line = 0, rc = 1;
    char buf[256];
    double bound;

    while (fgets(buf, sizeof buf, in)) {
        int a, b;
        line++;
        if (sscanf(buf, "j %d %d", &a, &b) == 2 && a >= 0 && b >= 0) {
            if (array_grow((void **)&first, &cap_first, njobs + 1, 1024, sizeof *first) < 0 ||
                array_grow((void **)&nfiles, &cap_nfiles, njobs + 1, 1024, sizeof *nfiles) < 0)
                goto oom;
            first[njobs] = a;
            nfiles[njobs++] = b;
        } else if (sscanf(buf, "h %d", &a) == 1 && a >= 0) {
            if (array_grow((void **)&hosts, &cap_hosts, nhosts + 1, 256, sizeof *hosts) < 0)
                goto oom;
            hosts[nhosts++] = a;
        } else if (buf[strspn(buf, " \t\r\n")] != '\0') {
            fprintf(stderr, "emu range-bound: line %d is neither \"j FIRST NFILES\" nor "
                            "\"h NJOBS\": %s", line, buf);
            goto done;
        }
    }
    if (ferror(in)) {
        fprintf(stderr, "emu range-bound: reading standard input failed\n");
        goto done;
    }
    bound = emu_range_bound(first, nfiles, njobs, hosts, nhosts);
    if (bound < 0)
        goto oom;
    printf("%.6f\n", bound);
    rc = 0;
    goto done;
oom:
    fprintf(stderr, "emu range-bound: out of memory (%d jobs, %d hosts)\n", njobs, nhosts);
done:
    free(first);
    free(nfiles);
    free(hosts);
    return rc;
}

int main(int argc, char **argv)
{
    struct emu_cli cli;
    char err[1024];
    const char *cmd;

    if (argc < 2 || strcmp(argv[1], "--help") == 0 || strcmp(argv[1], "-h") == 0) {
        usage(argc < 2 ? stderr : stdout);
        return argc < 2 ? 2 : 0;
    }
    cmd = argv[1];
    if (strcmp(cmd, "range-bound") == 0)
        return argc == 2 ? range_bound_cmd(stdin) : (usage(stderr), 2);
    memset(&cli, 0, sizeof cli);
    emu_scenario_defaults(&cli.sc);
    cli.out_dir = ".";
    if (strcmp(cmd, "ws") == 0)
        emu_exp_ws_defaults(&cli);
    else if (strcmp(cmd, "slack") == 0)
        emu_exp_slack_defaults(&cli);
    else if (strcmp(cmd, "locality") == 0)
        emu_exp_locality_defaults(&cli);
    else if (strcmp(cmd, "churn") == 0)
        emu_exp_churn_defaults(&cli);
    else if (strcmp(cmd, "run") != 0) {
        fprintf(stderr, "emu: unknown command '%s'\n", cmd);
        usage(stderr);
        return 2;
    }
    if (emu_opts_parse(&cli, argc, argv, 2, err, sizeof err) < 0) {
        fprintf(stderr, "emu: %s\n", err);
        return 2;
    }
    sched_request_init();
    if (strcmp(cmd, "ws") == 0)
        return emu_exp_ws(&cli);
    if (strcmp(cmd, "slack") == 0)
        return emu_exp_slack(&cli);
    if (strcmp(cmd, "locality") == 0)
        return emu_exp_locality(&cli);
    if (strcmp(cmd, "churn") == 0)
        return emu_exp_churn(&cli);
    {
        struct emu_outcome o;
        if (emu_run(&cli.sc, &o, err, sizeof err) < 0) {
            fprintf(stderr, "emu: %s\n", err);
            return 1;
        }
        emu_outcome_print(&cli.sc, &o);
    }
    return 0;
}
