/*
 * daemon_passes.h - the passes of the three daemons, for a program that
 * runs them in-process (the emulator, test/emu) with daemon_run_pass().
 *
 * Each daemon's source file holds its pass and, unless compiled with
 * DAEMON_NO_MAIN (as in libdaemonpass.a), its main().  A pass returns the
 * items it handled, or a negative db_status after logging the problem.
 * The transitioner and the locality daemon keep state between passes:
 * make it with *_state_new() (NULL when out of memory), put it in
 * struct daemon.state, and free it with *_state_free().
 */
#ifndef LOCSCHED_DAEMON_PASSES_H
#define LOCSCHED_DAEMON_PASSES_H

#include "daemon.h"

long work_generator_pass(struct daemon *d);       /* state: none (NULL) */

long transitioner_pass(struct daemon *d);
void *transitioner_state_new(void);
void transitioner_state_free(void *state);

long locality_daemon_pass(struct daemon *d);
void *locality_daemon_state_new(void);
void locality_daemon_state_free(void *state);

#endif /* LOCSCHED_DAEMON_PASSES_H */
