/*
 * grant.h - granting a job's credit to results, their hosts and their
 * users in the caller's transaction; shared by the transitioner (no
 * validator: every success) and the validator (valid results only).
 */
#ifndef LOCSCHED_GRANT_H
#define LOCSCHED_GRANT_H

#include "db_daemon.h"

/*
 * Grant credit to each result sel[0..n): the result gets granted_credit
 * and validate_state VALID, its host and its user the credit in their
 * totals and averages at now.  Hosts, then users, are locked in id order
 * (sel is reordered) so that concurrent daemons do not deadlock.  A host
 * or user that is gone is skipped (logged for a host).  Returns DB_OK or
 * the failing statement's status.
 */
int grant_results(struct db_conn *c, int wuid, const struct db_tr_result **sel, int n,
                  double credit, double now, double half_life);

#endif
