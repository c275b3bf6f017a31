/*
 * emu_exp.h - the emulator's experiments (doc/emulator.md).  Each sets
 * its scenario, lets the command line override it, runs its points,
 * prints a table and writes DIR/NAME.dat and DIR/NAME.svg.
 *
 *   ws        WS1 against WS2 as the job-size standard deviation goes
 *             from 1x to 1000x a base of 1% of the mean (paper 5.3)
 *   slack     waste and idleness against slack 1..60 (paper 5.1.1)
 *   locality  one batch of 2,000 files on 1,000 hosts: locality cursors
 *             without and with the file preference, and plain in-order
 *             dispatch
 *   churn     hosts that leave for good: makespan over the ideal, extra
 *             flops, idleness and hosts per file, for host lifetimes x
 *             replication levels x locality and plain dispatch, each
 *             point over several seeds (median and worst)
 *
 * Each returns 0, 1 when a run failed.
 */
#ifndef LOCSCHED_EMU_EXP_H
#define LOCSCHED_EMU_EXP_H

#include "emu_opts.h"

void emu_exp_ws_defaults(struct emu_cli *cli);
int emu_exp_ws(struct emu_cli *cli);

void emu_exp_slack_defaults(struct emu_cli *cli);
int emu_exp_slack(struct emu_cli *cli);

void emu_exp_locality_defaults(struct emu_cli *cli);
int emu_exp_locality(struct emu_cli *cli);

void emu_exp_churn_defaults(struct emu_cli *cli);
int emu_exp_churn(struct emu_cli *cli);

#endif
