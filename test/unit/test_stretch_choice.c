/*
 * test_stretch_choice.c - positions in a cursor (sched/policy/
 * stretch_choice.c): stretch size by speed and replication, the first
 * stretch of a joining host, the order of the rules for a host whose
 * stretch is done: open work, the frontier, a take-over; and where
 * stretches are cut (where the rates put them).
 */
#include <string.h>

#include "stretch_choice.h"
#include "tap.h"

static struct sc_cursor cursor(int last, int first_unfinished, int frontier, int first_open,
                               int r, double team_rate)
{
    struct sc_cursor c;
    memset(&c, 0, sizeof c);
    c.last_job_num = last;
    c.first_unfinished_job_num = first_unfinished;
    c.next_stretch = frontier;
    c.first_open = first_open;
    c.replication = r;
    c.team_rate = team_rate;
    return c;
}

static void test_size(void)
{
    struct sc_cursor c = cursor(299, 0, 0, -1, 2, 1500);
    struct sc_host h = { 100, 2, -1 };

    /* 300 jobs, R = 2: 600 replicas; a host of 1/15 of the team's rate does 40 */
    TAP_EQ_INT(stretch_size(&c, &h), 40, "share of the replicas: 300 x 2 / 15");
    h.rate = 1500;
    TAP_EQ_INT(stretch_size(&c, &h), 300, "never more than the jobs left");
    h.rate = 1;
    TAP_EQ_INT(stretch_size(&c, &h), 2, "never less than one request's jobs (got %d)",
               stretch_size(&c, &h));
    c.replication = 1;
    h.rate = 100;
    TAP_EQ_INT(stretch_size(&c, &h), 20, "R = 1: 300 / 15");
    c.first_unfinished_job_num = 150;
    TAP_EQ_INT(stretch_size(&c, &h), 10, "only the jobs left count");
    c.team_rate = 0;
    TAP_EQ_INT(stretch_size(&c, &h), 150, "a team of unknown rate: everything left");
    c.team_rate = 5000;
    TAP_EQ_INT(stretch_size(&c, &h), 3, "a team's share: 150 x 100 / 5000");
}

static void test_join(void)
{
    struct sc_cursor c = cursor(299, 0, 100, -1, 1, 1000);
    struct sc_host h = { 100, 1, -1 };
    struct sc_choice ch;

    stretch_on_join(&c, &h, &ch);
    TAP_EQ_INT(ch.action, SC_FRONTIER, "a joining host starts at the frontier");
    TAP_EQ_INT(ch.first, 100, "from the frontier");
    TAP_EQ_INT(ch.last, 129, "for its share (300 x 100 / 1000 = 30 jobs)");
    c.next_stretch = 290;
    stretch_on_join(&c, &h, &ch);
    TAP_EQ_INT(ch.last, 299, "a stretch ends with the cursor");
    c.next_stretch = 300;
    stretch_on_join(&c, &h, &ch);
    TAP_EQ_INT(ch.action, SC_NONE, "past the end: no stretch yet");
    TAP_EQ_INT(ch.first, -1, "none");
}

static void test_rules(void)
{
    struct sc_member m[3];
    struct sc_host h = { 100, 1, -1 };
    struct sc_cursor c;
    struct sc_choice ch;

    memset(m, 0, sizeof m);
    /* R = 2: member 0 alone on 0..39, member 1 and 2 together on 40..79 */
    m[0] = (struct sc_member){ 11, 0, 100, 0, 39, 30, 0 };
    m[1] = (struct sc_member){ 12, 0, 100, 40, 79, 60, 0 };
    m[2] = (struct sc_member){ 13, 0, 100, 40, 79, 60, 0 };

    /* 1. open work first: job 5 is covered once; the stretch runs while
     * coverage stays below 2, and stops where 40..79 is fully staffed */
    c = cursor(299, 0, 80, 5, 2, 400);
    stretch_choose(&c, m, 3, &h, &ch);
    TAP_EQ_INT(ch.action, SC_OPEN_WORK, "an under-staffed lane comes first");
    TAP_EQ_INT(ch.first, 5, "from the first open job");
    TAP_EQ_INT(ch.last, 39, "up to the fully staffed stretch");

    /* its size still bounds it */
    h.min_jobs = 1;
    c.team_rate = 6000;           /* share 300 x 2 x 100 / 6000 = 10 jobs */
    stretch_choose(&c, m, 3, &h, &ch);
    TAP_EQ_INT(ch.last, 14, "an open stretch is no longer than the host's size");

    /* a lane next to a host of the same user stops before it */
    c = cursor(299, 0, 200, 5, 2, 400);
    m[1].first = 20;
    m[1].last = 30;
    m[1].same_user = 1;
    stretch_choose(&c, m, 3, &h, &ch);
    TAP_EQ_INT(ch.last, 19, "an open stretch stops where a host of the same user works");
    m[1].first = 40;
    m[1].last = 79;
    m[1].same_user = 0;

    /* an orphan (nobody covers it) past the others' stretches, below the
     * frontier */
    c = cursor(299, 0, 200, 120, 2, 400);
    stretch_choose(&c, m, 3, &h, &ch);
    TAP_EQ_INT(ch.action, SC_OPEN_WORK, "jobs of a member that left are open work");
    TAP_EQ_INT(ch.first, 120, "from the orphan job");
    TAP_EQ_INT(ch.last, 199, "to the frontier at most");

    /* 2. no open work: the frontier */
    c = cursor(299, 0, 80, -1, 2, 400);
    stretch_choose(&c, m, 3, &h, &ch);
    TAP_EQ_INT(ch.action, SC_FRONTIER, "then a new stretch at the frontier");
    TAP_EQ_INT(ch.first, 80, "at the frontier");
    TAP_EQ_INT(ch.last, 229, "share of 300 x 2 x 100 / 400 = 150 jobs");

    /* 3. frontier at the end: take over from the one with most time left */
    c = cursor(299, 0, 300, -1, 2, 400);
    m[0].rate = 10;               /* 30 unsent alone at 10/day: 3 days left */
    stretch_choose(&c, m, 3, &h, &ch);
    TAP_EQ_INT(ch.action, SC_TAKE_OVER, "then a take-over");
    TAP_EQ_INT(ch.victim, 0, "of the member with the most time left");
    /* 30 left, rates 100 : 10 -> the host takes 27 of them from the top */
    TAP_EQ_INT(ch.first, 13, "the top of its stretch, in proportion to the rates");
    TAP_EQ_INT(ch.last, 39, "to its end");
    TAP_EQ_INT(ch.victim_last, 12, "the victim keeps the bottom");

    /* a member presumed gone comes first and gives up everything */
    m[2].gone = 1;
    m[2].rate = 1000;
    stretch_choose(&c, m, 3, &h, &ch);
    TAP_EQ_INT(ch.victim, 2, "a member presumed gone is taken over first, however fast");
    TAP_EQ_INT(ch.first, 50, "all it has left (60 unsent over 2 lanes: its top 30 jobs)");
    TAP_EQ_INT(ch.victim_last, 49, "it keeps only what it was sent");
    m[2].gone = 0;
    m[2].rate = 100;

    /* the neighbour below the stretch the host finished (80..) is
     * preferred when it has at least half the most time left */
    h.prev_first = 80;
    stretch_choose(&c, m, 3, &h, &ch);
    TAP_EQ_INT(ch.victim, 0, "a neighbour far ahead (0.3 days against 3) is not preferred");
    m[0].rate = 50;               /* 30 / 50 = 0.6 days; the neighbours 0.3 */
    stretch_choose(&c, m, 3, &h, &ch);
    TAP_EQ_INT(ch.action, SC_TAKE_OVER, "a take-over");
    TAP_EQ_INT(ch.victim, 1, "of the neighbour below, next to the files the host took first");
    TAP_EQ_INT(ch.first, 65, "its top: 30 left per lane, rates 100 : 100");
    TAP_EQ_INT(ch.last, 79, "up to the host's old stretch");
    m[0].rate = 10;
    h.prev_first = -1;

    /* a member with one job left keeps it; nothing else: nothing to do */
    m[0].unsent = 1;
    m[1].unsent = m[2].unsent = 0;
    stretch_choose(&c, m, 3, &h, &ch);
    TAP_EQ_INT(ch.action, SC_NONE, "one job left is not split");
    stretch_choose(&c, m, 0, &h, &ch);
    TAP_EQ_INT(ch.action, SC_NONE, "no members, nothing open, no frontier: nothing");

    /* two lanes on one stretch: the unsent count is shared by both */
    m[0] = (struct sc_member){ 11, 0, 100, 0, 99, 100, 0 };
    m[1] = (struct sc_member){ 12, 0, 100, 0, 99, 100, 0 };
    stretch_choose(&c, m, 2, &h, &ch);
    TAP_EQ_INT(ch.action, SC_TAKE_OVER, "a shared stretch can be taken over");
    TAP_EQ_INT(ch.first, 75, "half of one lane's 50 left (rates equal): 25 jobs");
    m[1].same_user = 1;
    stretch_choose(&c, m, 2, &h, &ch);
    TAP_EQ_INT(ch.victim, 1, "not the stretch whose other lane is a host of the same user");
}

/* Where stretches end: where the rates put them, whatever the files
 * (moving the cuts to a change of files was measured and taken out:
 * doc/locality.md, "Where a stretch is cut"). */
static void test_cut_stretches(void)
{
    struct sc_cursor c = cursor(299, 0, 103, -1, 1, 1000);
    struct sc_host h = { 100, 1, -1 };
    struct sc_member m[2];
    struct sc_choice ch;

    /* a tenth of the team's rate: 30 of the 300 jobs left, from 103 */
    stretch_on_join(&c, &h, &ch);
    TAP_EQ_INT(ch.first, 103, "from the frontier");
    TAP_EQ_INT(ch.last, 132, "the end of a frontier stretch: its share as it is");
    c.next_stretch = 271;
    stretch_on_join(&c, &h, &ch);
    TAP_EQ_INT(ch.last, 299, "a stretch ends with the cursor");

    /* take-over: 40 left in 0..39 at rate 10 against the host's 100:
     * the host takes the top 36, from 4 */
    c = cursor(299, 0, 300, -1, 1, 400);
    m[0] = (struct sc_member){ 11, 0, 10, 0, 39, 40, 0 };
    stretch_choose(&c, m, 1, &h, &ch);
    TAP_EQ_INT(ch.action, SC_TAKE_OVER, "a take-over");
    TAP_EQ_INT(ch.first, 4, "in proportion to the rates");
    /* rates 100 : 80: 22 of 40, from 18 */
    m[0].rate = 80;
    stretch_choose(&c, m, 1, &h, &ch);
    TAP_EQ_INT(ch.first, 18, "a take-over's cut where the rates put it");
    TAP_EQ_INT(ch.victim_last, 17, "the victim keeps the jobs before it");
    /* a member presumed gone gives up all it has left, as it is */
    m[0].unsent = 22;
    m[0].gone = 1;
    stretch_choose(&c, m, 1, &h, &ch);
    TAP_EQ_INT(ch.first, 18, "a member presumed gone: its remaining jobs as they are");
}

int main(void)
{
    test_size();
    test_join();
    test_rules();
    test_cut_stretches();
    return tap_done();
}
