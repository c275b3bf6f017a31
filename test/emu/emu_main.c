/*
 * emu_main.c - the host-population emulator's command: one run with any
 * scenario ("run"), or one of the experiments (emu_exp.h).  Runs against
 * the private database of a sandbox: start one and eval its environment
 * first (test/emu/run_experiment does both).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "emu_exp.h"
#include "emu_opts.h"
#include "emu_world.h"
#include "sched_request.h"

static void usage(FILE *out)
{
    fprintf(out,
            "usage: emu run|ws|slack|locality|churn [options]\n"
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
            "\n"
            "Options (each experiment sets its own defaults first):\n");
    emu_opts_usage(out);
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
