/*
 * emu_opts.h - the emulator's command-line options, shared by every
 * subcommand: each sets one field of the scenario (emu_world.h) or of
 * the experiment's output.  Pure.
 */
#ifndef LOCSCHED_EMU_OPTS_H
#define LOCSCHED_EMU_OPTS_H

#include <stdio.h>

#include "emu_world.h"

struct emu_cli {
    struct emu_scenario sc;
    const char *out_dir;           /* where tables and plots go */
    const char *points;            /* the experiment's x values, comma-separated */
    const char *name;              /* base name of the outputs (default: the experiment's) */
    int quick;                     /* the experiment's small version */
    const char *reps;              /* churn: replication levels, comma-separated */
    const char *dispatch;          /* churn: "locality", "plain" or "both" */
    int seeds;                     /* churn: runs (seeds) per point */
};

/*
 * Apply argv[first..argc) to *cli.  Returns 0, or -1 with a message
 * naming the option in err.
 */
int emu_opts_parse(struct emu_cli *cli, int argc, char **argv, int first, char *err,
                   size_t errlen);

/* Print the options with what they set. */
void emu_opts_usage(FILE *out);

/* Parse a comma-separated list of up to max numbers; returns the count, -1 on error. */
int emu_parse_list(const char *s, double *v, int max);

#endif
