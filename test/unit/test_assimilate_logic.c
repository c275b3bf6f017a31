/*
 * test_assimilate_logic.c - the assimilator's pure decisions: names,
 * success or error, the command's words, the error record, the count of
 * a workunit's failed command runs.
 */
#include <string.h>

#include "assimilate_logic.h"
#include "tap.h"

int main(void)
{
    char buf[64], why[64], small[8], rec[512], cmd[64];
    char *argv[AS_ARGV_MAX];
    struct as_tries t;
    int i;

    TAP_CHECK(as_safe_name("b1_job-3.x"), "plain name accepted");
    TAP_CHECK(!as_safe_name(""), "empty name refused");
    TAP_CHECK(!as_safe_name(".hidden"), "leading dot refused");
    TAP_CHECK(!as_safe_name("a/b"), "slash refused");
    TAP_CHECK(!as_safe_name("a b"), "blank refused");
    {
        char longname[300];
        memset(longname, 'a', 299);
        longname[299] = '\0';
        TAP_CHECK(!as_safe_name(longname), "name over 255 bytes refused");
    }

    TAP_EQ_INT(as_upload_name(buf, sizeof buf, "wu_7_1", 0), 0, "upload name fits");
    TAP_CHECK(strcmp(buf, "wu_7_1_0") == 0, "upload name is RESULT_0");
    TAP_EQ_INT(as_results_name(buf, sizeof buf, "wu_7", 0), 0, "results name fits");
    TAP_CHECK(strcmp(buf, "wu_7_0") == 0, "results name is WU_0");
    TAP_EQ_INT(as_error_name(buf, sizeof buf, "wu_7"), 0, "error name fits");
    TAP_CHECK(strcmp(buf, "wu_7.error") == 0, "error record is WU.error");
    TAP_EQ_INT(as_upload_name(small, sizeof small, "wu_7_1", 0), -1, "too small: -1");

    TAP_EQ_INT(as_decide(5, 0, "wu_1_0", why, sizeof why), AS_SUCCESS, "canonical: success");
    TAP_EQ_INT(as_decide(5, 0, "", why, sizeof why), AS_ERROR,
               "canonical result row gone: error");
    TAP_CHECK(strcmp(why, "canonical_result_missing") == 0, "... with its reason");
    TAP_EQ_INT(as_decide(0, 32, "", why, sizeof why), AS_ERROR, "error mask: error");
    TAP_CHECK(strcmp(why, "error_mask=0x20") == 0, "... reason names the mask");

    TAP_EQ_INT(as_split_command("  /bin/ingest  --db\tsci ", cmd, sizeof cmd, argv, 8), 3,
               "three words");
    TAP_CHECK(strcmp(argv[0], "/bin/ingest") == 0 && strcmp(argv[1], "--db") == 0 &&
              strcmp(argv[2], "sci") == 0 && argv[3] == NULL, "words split at blanks and tabs");
    TAP_EQ_INT(as_split_command("   ", cmd, sizeof cmd, argv, 8), -1, "blank command refused");
    TAP_EQ_INT(as_split_command("a b c d", cmd, sizeof cmd, argv, 4), -1,
               "more words than room refused");
    TAP_EQ_INT(as_split_command("a b c", cmd, 4, argv, 8), -1, "command longer than buffer");

    TAP_EQ_INT(as_error_record(rec, sizeof rec, "wu_3", 12, "b", 32, "error_mask=0x20", 100), 0,
               "record fits");
    TAP_CHECK(strstr(rec, "workunit wu_3\n") && strstr(rec, "workunit_id 12\n") &&
              strstr(rec, "batch b\n") && strstr(rec, "error_mask 32\n") &&
              strstr(rec, "reason error_mask=0x20\n") && strstr(rec, "time 100\n"),
              "record has every line");
    TAP_EQ_INT(as_error_record(small, sizeof small, "wu_3", 12, "b", 32, "x", 1), -1,
               "record too big: -1");

    memset(&t, 0, sizeof t);
    TAP_EQ_INT(as_tries_note(&t, 7), 1, "first failure");
    TAP_EQ_INT(as_tries_note(&t, 8), 1, "another workunit");
    TAP_EQ_INT(as_tries_note(&t, 7), 2, "second failure of the first");
    as_tries_forget(&t, 7);
    TAP_EQ_INT(as_tries_note(&t, 7), 1, "forgotten: counts from 1 again");
    for (i = 0; i < 100; i++)
        as_tries_note(&t, 1000 + i);
    TAP_EQ_INT(as_tries_note(&t, 8), 2, "kept across growth");
    as_tries_free(&t);
    return tap_done();
}
