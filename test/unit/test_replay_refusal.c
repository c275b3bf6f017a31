/*
 * test_replay_refusal.c - unit tests of what the load replay counts as an
 * error reply (tools/loadtest/replay_reply.c): only a refusal, a reply
 * that did not handle the request; a notice in a handled reply (a daily
 * quota reached) is none.  And the reasons for no work, counted by name
 * (replay_stats.c).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "replay_reply.h"
#include "replay_stats.h"
#include "tap.h"

/* The scheduler's error reply (doc/protocol.md, "Error replies"). */
static const char refused[] =
    "<scheduler_reply>\n<project_name>x</project_name>\n"
    "<message priority=\"notice\">Unknown account key (authenticator).</message>\n"
    "<request_delay>3600</request_delay>\n</scheduler_reply>\n";

static const char down[] =
    "<scheduler_reply>\n<project_name>x</project_name>\n<project_is_down/>\n"
    "<message priority=\"notice\">The project is down for maintenance.</message>\n"
    "<request_delay>3600</request_delay>\n</scheduler_reply>\n";

/* A handled request: the account, a notice, and two resources without work. */
static const char quota[] =
    "<scheduler_reply>\n<project_name>x</project_name>\n<user_name>ann</user_name>\n"
    "<user_total_credit>0</user_total_credit>\n"
    "<message priority=\"notice\">This computer reached its daily quota of 8 tasks; it gets "
    "more tomorrow (UTC).</message>\n"
    "<result_ack>\n <name>r_1_0</name>\n</result_ack>\n"
    "<rsc_no_work>\n <rsc>CPU</rsc>\n <reason>daily_quota</reason>\n</rsc_no_work>\n"
    "<message priority=\"low\">No CPU tasks sent: daily quota.</message>\n"
    "<rsc_no_work>\n <rsc>NVIDIA</rsc>\n <reason>not_supported</reason>\n</rsc_no_work>\n"
    "<message priority=\"low\">No NVIDIA tasks sent.</message>\n"
    "<request_delay>600</request_delay>\n</scheduler_reply>\n";

/* What the benchmark's floor sends: no account, no message. */
static const char floor_reply[] =
    "<scheduler_reply>\n<hostid>5</hostid>\n<request_delay>7</request_delay>\n"
    "</scheduler_reply>\n";

static void test_classify(struct rp_reply *r)
{
    TAP_EQ_INT(rp_parse(r, refused, strlen(refused)), 0, "error reply parses");
    TAP_CHECK(rp_refused(r), "a reply without the account is a refusal");
    TAP_EQ_STR(r->first_notice, "Unknown account key (authenticator).", "its message kept");

    TAP_EQ_INT(rp_parse(r, down, strlen(down)), 0, "'project is down' parses");
    TAP_CHECK(rp_refused(r) && r->project_is_down, "the project down is a refusal");

    TAP_EQ_INT(rp_parse(r, floor_reply, strlen(floor_reply)), 0, "the floor's reply parses");
    TAP_CHECK(!rp_refused(r), "no account and no message: no refusal");

    TAP_EQ_INT(rp_parse(r, quota, strlen(quota)), 0, "handled reply parses");
    TAP_CHECK(r->have_account && !rp_refused(r), "a handled reply with a notice is no refusal");
    TAP_EQ_INT(r->nnotices, 1, "one notice");
    TAP_EQ_INT(r->ninfo_messages, 2, "two low-priority messages");
    TAP_CHECK(strncmp(r->first_notice, "This computer reached", 21) == 0, "the notice's text");
    TAP_EQ_INT(r->nno_work, 2, "two resources without work");
    TAP_EQ_STR(r->no_work[0].rsc, "CPU", "first resource");
    TAP_EQ_STR(r->no_work[0].reason, "daily_quota", "its reason");
    TAP_EQ_STR(r->no_work[1].reason, "not_supported", "second reason");
    TAP_EQ_INT(r->nacks, 1, "the ack is still read");

    TAP_EQ_INT(rp_parse(r, refused, strlen(refused)), 0, "parsed again");
    TAP_CHECK(!r->have_account && r->nno_work == 0 && r->nnotices == 1,
              "nothing left over from the reply before");
}

static void test_reasons(void)
{
    struct reason_counts t;
    char name[40];
    int i;

    memset(&t, 0, sizeof t);
    reason_add(&t, "no_work");
    reason_add(&t, "daily_quota");
    reason_add(&t, "no_work");
    reason_add(&t, "");
    reason_add(&t, NULL);
    TAP_EQ_INT(t.count, 3, "three distinct reasons");
    TAP_CHECK(strcmp(t.name[0], "no_work") == 0 && t.n[0] == 2, "no_work twice");
    TAP_CHECK(strcmp(t.name[1], "daily_quota") == 0 && t.n[1] == 1, "daily_quota once");
    TAP_CHECK(strcmp(t.name[2], "none given") == 0 && t.n[2] == 2, "empty reasons together");
    reason_add(&t, "a_reason_name_longer_than_the_table_holds");
    TAP_EQ_INT(t.other, 1, "a too long name counts as other");
    for (i = 0; i < 2 * REPLAY_MAX_REASONS; i++) {
        snprintf(name, sizeof name, "r%d", i);
        reason_add(&t, name);
    }
    TAP_EQ_INT(t.count, REPLAY_MAX_REASONS, "the table fills up");
    TAP_EQ_INT(t.other, 1 + 2 * REPLAY_MAX_REASONS - (REPLAY_MAX_REASONS - 3),
               "the rest counts as other");
    reason_add(&t, "no_work");
    TAP_EQ_INT(t.n[0], 3, "a known reason is still counted when the table is full");
}

int main(void)
{
    struct rp_reply *r = malloc(sizeof *r);
    if (!r)
        return 1;
    test_classify(r);
    test_reasons();
    free(r);
    return tap_done();
}
