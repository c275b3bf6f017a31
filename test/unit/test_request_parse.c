/*
 * test_request_parse.c - tests of the scheduler-request parser
 * (sched/wire/sched_request.c).
 *
 *  1. Golden tests: each real request body in test/recorded/ (sent by
 *     Debian's boinc-client 7.20.5) and the synthetic NVIDIA request must
 *     parse, and sched_request_dump() must equal recorded/expected/NAME.txt
 *     byte for byte.  Key facts of each body are also asserted one by one,
 *     so that the golden files are not merely what the code produced.
 *  2. Hostile inputs: every file of test/malformed/ with its expected
 *     error code and message substring (table below); nothing may reach
 *     stderr, and messages are one line.
 *  3. Generated inputs: each array cap and the element and body caps at
 *     the limit (accepted) and at limit + 1 (refused), number syntax and
 *     ranges, stderr truncation, GPU elements, validation.
 *  4. Timing of the 02 and 04 bodies (reported, not asserted).
 *
 * Corpus files are found under $srcdir (default "."), then $srcdir/test,
 * then test/, so the program runs from test/ or from the top of the tree.
 * "test_request_parse --write-expected" rewrites the golden files (then
 * read each one against its XML before committing it).
 */
#include "buf.h"
#include "sched_request.h"
#include "tap.h"

#include <dirent.h>
#include <locale.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static char corpus[1024];         /* folder holding recorded/ and malformed/ */
static int write_expected;

/* ------------------------------------------------------------------ */
/* Helpers                                                              */

/* Find the corpus folder; returns 0 or -1. */
static int find_corpus(void)
{
    const char *sd = getenv("srcdir");
    const char *base = sd && *sd ? sd : ".";
    for (int i = 0; i < 3; i++) {
        char probe[2048];
        int n;
        if (i == 0)
            n = snprintf(corpus, sizeof corpus, "%s", base);
        else if (i == 1)
            n = snprintf(corpus, sizeof corpus, "%s/test", base);
        else
            n = snprintf(corpus, sizeof corpus, "test");
        if (n < 0 || (size_t)n >= sizeof corpus)
            continue;
        n = snprintf(probe, sizeof probe, "%s/recorded/02-hostid-assigned-work-request.xml",
                     corpus);
        if (n > 0 && (size_t)n < sizeof probe && access(probe, R_OK) == 0)
            return 0;
    }
    corpus[0] = '\0';
    return -1;
}

/* sched_request_dump() into a malloc'd string. */
static char *dump_string(const struct sched_request *r)
{
    char *buf = NULL;
    size_t len = 0;
    FILE *m = open_memstream(&buf, &len);
    if (!m)
        return NULL;
    sched_request_dump(r, m);
    fclose(m);
    return buf;
}

/* A request body: a minimal valid head, the formatted middle, the tail.
 * Returns a malloc'd string (the test aborts on allocation failure). */
#define HEAD "<scheduler_request>\n" \
    "<authenticator>0123456789abcdef0123456789abcdef</authenticator>\n" \
    "<platform_name>x86_64-pc-linux-gnu</platform_name>\n"
#define TAIL "</scheduler_request>\n"

__attribute__((format(printf, 1, 2)))
static char *mk(const char *fmt, ...)
{
    char *buf = NULL;
    size_t len = 0;
    FILE *m = open_memstream(&buf, &len);
    if (!m)
        abort();
    fputs(HEAD, m);
    va_list ap;
    va_start(ap, fmt);
    vfprintf(m, fmt, ap);
    va_end(ap);
    fputs(TAIL, m);
    fclose(m);
    return buf;
}

/* Body with n repetitions of item (a format with one %d, the index)
 * between open and close. */
static char *mk_repeat(const char *open, const char *item, int n, const char *close)
{
    char *buf = NULL;
    size_t len = 0;
    FILE *m = open_memstream(&buf, &len);
    if (!m)
        abort();
    fputs(HEAD, m);
    fputs(open, m);
    for (int i = 0; i < n; i++)
        fprintf(m, item, i);
    fputs(close, m);
    fputs(TAIL, m);
    fclose(m);
    return buf;
}

static int parse(const char *body, size_t len, struct sched_request *r, char *err,
                 size_t errlen)
{
    return sched_request_parse(body, len, r, err, errlen);
}

static int parse_s(const char *body, struct sched_request *r, char *err, size_t errlen)
{
    return parse(body, strlen(body), r, err, errlen);
}

/* Compare a dump with the expected text; on mismatch print the first
 * differing line of each as TAP diagnostics. */
static void check_dump(const char *name, const char *got, const char *want)
{
    if (TAP_CHECK(strcmp(got, want) == 0, "%s: dump equals expected/%s.txt", name, name))
        return;
    int line = 1;
    const char *g = got, *w = want;
    while (*g && *g == *w) {
        if (*g == '\n')
            line++;
        g++;
        w++;
    }
    while (g > got && g[-1] != '\n') {
        g--;
        w--;
    }
    printf("#   first difference at line %d\n", line);
    printf("#   got:  %.*s\n", (int)strcspn(g, "\n"), g);
    printf("#   want: %.*s\n", (int)strcspn(w, "\n"), w);
    printf("#   (after checking the change, regenerate with --write-expected)\n");
}

/* ------------------------------------------------------------------ */
/* 1. Golden tests and key facts                                        */

static const char *const golden[] = {
    "01-first-contact-attach",
    "02-hostid-assigned-work-request",
    "03-in-progress-sticky-no-work",
    "04-report-success-no-work",
    "05-report-success-and-compute-error",
    "06-after-delete-file-info-and-request-delay",
    "07-no-new-tasks-report-only",
    "08-coproc-first-contact",
    "09-coproc-work-request",
    "10-coproc-in-progress",
    "11-coproc-report",
    "12-minimal-reply-first-contact",
    "13-minimal-reply-job-reported",
    "14-report-unsigned-app-download-errors",
    "15-report-plain-executable",
    "16-sticky-downloading-and-failed",
    "synthetic-nvidia-gpu",
};
#define NGOLDEN ((int)(sizeof golden / sizeof golden[0]))

static struct sched_request greq[NGOLDEN];
static int gok[NGOLDEN];

static void test_golden(void)
{
    for (int i = 0; i < NGOLDEN; i++) {
        char path[2048], err[256];
        size_t len = 0, elen = 0;
        snprintf(path, sizeof path, "%s/recorded/%s.xml", corpus, golden[i]);
        char *body = buf_read_file(path, &len);
        if (!TAP_CHECK(body != NULL, "%s: read %s", golden[i], path))
            continue;
        int rc = parse(body, len, &greq[i], err, sizeof err);
        if (!TAP_CHECK(rc == SRQ_OK, "%s: parses", golden[i]))
            printf("#   rc %d: %s\n", rc, err);
        free(body);
        if (rc != SRQ_OK)
            continue;
        gok[i] = 1;
        char *got = dump_string(&greq[i]);
        snprintf(path, sizeof path, "%s/recorded/expected/%s.txt", corpus, golden[i]);
        if (write_expected) {
            FILE *f = fopen(path, "w");
            TAP_CHECK(f && got && fputs(got, f) >= 0 && fclose(f) == 0, "%s: wrote %s",
                      golden[i], path);
        } else {
            char *want = buf_read_file(path, &elen);
            if (TAP_CHECK(want != NULL && got != NULL, "%s: read %s", golden[i], path))
                check_dump(golden[i], got, want);
            free(want);
        }
        if (got)
            TAP_CHECK(strstr(got, greq[i].authenticator) == NULL,
                      "%s: dump does not show the authenticator", golden[i]);
        free(got);
    }
}

/* Facts read by hand from the XML and the recorded README. */
static void test_facts(void)
{
    const struct sched_request *r;
    const char *a1 = "a1a1a1a1a1a1a1a1a1a1a1a1a1a1a1a1";

    if (gok[0]) {
        r = &greq[0];
        TAP_EQ_STR(r->authenticator, a1, "01: authenticator is the attach key");
        TAP_EQ_INT(r->hostid, 0, "01: hostid 0 on first contact");
        TAP_EQ_INT(r->rpc_seqno, 0, "01: rpc_seqno 0");
        TAP_EQ_DBL(r->cpu_req_secs, 1.0, 0, "01: token request of 1 s");
        TAP_EQ_DBL(r->cpu_req_instances, 0.0, 0, "01: 0 instances");
        TAP_EQ_INT(r->have_code_sign_key, 0, "01: no code_sign_key yet");
        TAP_EQ_INT(r->have_ip_results, 0, "01: no in_progress_results element");
        TAP_EQ_INT(r->core_client_major_version * 10000 + r->core_client_minor_version * 100 +
                   r->core_client_release, 72005, "01: client 7.20.5");
    }
    if (gok[1]) {
        r = &greq[1];
        TAP_EQ_INT(r->hostid, 3003, "02: hostid 3003");
        TAP_EQ_INT(r->rpc_seqno, 0, "02: rpc_seqno reset to 0");
        TAP_EQ_DBL(r->cpu_req_secs, 103680.0, 0, "02: cpu_req_secs 103680");
        TAP_EQ_DBL(r->cpu_req_instances, 2.0, 0, "02: cpu_req_instances 2");
        TAP_EQ_DBL(r->work_req_seconds, 103680.0, 0, "02: work_req_seconds 103680");
        TAP_EQ_INT(r->have_cpu_req_secs, 1, "02: have_cpu_req_secs");
        TAP_EQ_INT(r->p_ncpus, 2, "02: 2 CPUs");
        TAP_EQ_STR(r->platform_name, "x86_64-pc-linux-gnu", "02: platform");
        TAP_EQ_INT(r->n_alt_platforms, 1, "02: one alt platform");
        TAP_EQ_STR(r->alt_platforms[0], "i686-pc-linux-gnu", "02: alt platform i686");
        TAP_EQ_DBL(r->connected_frac, -1.0, 0, "02: connected_frac -1 as sent");
        TAP_EQ_DBL(r->work_buf_min_days, 0.1, 0, "02: work_buf_min_days 0.1");
        TAP_EQ_DBL(r->work_buf_additional_days, 0.5, 0, "02: work_buf_additional_days 0.5");
        TAP_EQ_STR(r->p_model, "AMD EPYC [Family 25 Model 1 Stepping 1]", "02: p_model");
        TAP_EQ_DBL(r->m_nbytes, 25274793984.0, 0, "02: m_nbytes");
        TAP_EQ_INT(r->have_ip_results, 1, "02: empty in_progress_results still counts");
        TAP_EQ_INT(r->nip_results, 0, "02: no ip_result");
    }
    if (gok[2]) {
        r = &greq[2];
        TAP_EQ_DBL(r->cpu_req_secs, 0.0, 0, "03: no work wanted");
        TAP_EQ_INT(r->have_code_sign_key, 1, "03: code_sign_key echoed");
        TAP_EQ_INT(r->nsticky_files, 1, "03: one sticky file");
        if (r->nsticky_files == 1) {
            TAP_EQ_STR(r->sticky_files[0].name, "locality_data_A", "03: sticky name");
            TAP_EQ_DBL(r->sticky_files[0].nbytes, 4053.0, 0, "03: sticky nbytes");
            TAP_EQ_INT(r->sticky_files[0].status, 1, "03: sticky present");
        }
        TAP_EQ_INT(r->napp_versions, 1, "03: one app version");
        TAP_EQ_INT(r->nother_results, 4, "03: 4 other_results");
        TAP_EQ_INT(r->nip_results, 4, "03: 4 ip_results");
        if (r->nother_results == 4)
            TAP_EQ_INT(r->other_results[3].app_version, 0, "03: other_result app_version 0");
        if (r->nip_results == 4)
            TAP_CHECK(r->ip_results[0].report_deadline > 1.7e9 &&
                      r->ip_results[0].avg_ncpus == 1.0, "03: ip_result deadline and avg_ncpus");
    }
    if (gok[3]) {
        r = &greq[3];
        TAP_EQ_INT(r->nresults, 2, "04: two reported results");
        for (int i = 0; i < r->nresults && i < 2; i++) {
            TAP_EQ_INT(r->results[i].state, CRS_FILES_UPLOADED, "04: result %d state 5", i);
            TAP_EQ_INT(r->results[i].exit_status, 0, "04: result %d exit 0", i);
            TAP_EQ_INT(r->results[i].upload_failed, 0, "04: result %d upload ok", i);
            TAP_CHECK(strstr(r->results[i].stderr_out, "<stderr_txt>") != NULL &&
                      strstr(r->results[i].stderr_out,
                             "<core_client_version>7.20.5</core_client_version>") != NULL,
                      "04: result %d stderr_out keeps text and CDATA", i);
        }
        TAP_EQ_INT(r->nother_results, 2, "04: 2 jobs still held");
        TAP_EQ_INT(r->nip_results, 2, "04: 2 ip_results");
    }
    if (gok[4]) {
        r = &greq[4];
        TAP_EQ_INT(r->nresults, 2, "05: two reported results");
        if (r->nresults == 2) {
            TAP_EQ_STR(r->results[0].name, "locA_0011_0", "05: first result name");
            TAP_EQ_INT(r->results[0].state, 5, "05: first result succeeded");
            TAP_EQ_INT(r->results[1].state, CRS_COMPUTE_ERROR, "05: second result state 3");
            TAP_EQ_INT(r->results[1].exit_status, 7, "05: second result exit 7");
            TAP_CHECK(strstr(r->results[1].stderr_out,
                             "process exited with code 7 (0x7, -249)") != NULL,
                      "05: stderr_out has the exit message");
            TAP_EQ_DBL(r->results[1].final_elapsed_time, 61.103259, 0, "05: elapsed time");
            TAP_EQ_DBL(r->results[1].peak_working_set_size, 4169728.0, 0, "05: peak wss");
            TAP_EQ_INT(r->results[1].version_num, 101, "05: version_num");
        }
        TAP_EQ_DBL(r->cpu_req_secs, 103680.0, 0, "05: full work request");
        TAP_EQ_DBL(r->duration_correction_factor, 0.970329, 0, "05: dcf");
        TAP_EQ_INT(r->nsticky_files, 1, "05: sticky file still listed");
    }
    if (gok[5]) {
        r = &greq[5];
        TAP_EQ_INT(r->nsticky_files, 0, "06: sticky file gone");
        TAP_EQ_INT(r->have_ip_results, 1, "06: empty in_progress_results present");
        TAP_EQ_INT(r->nip_results, 0, "06: no ip_result");
        TAP_EQ_DBL(r->cpu_req_secs, 103680.0, 0, "06: full work request");
    }
    if (gok[6]) {
        r = &greq[6];
        TAP_EQ_INT(r->dont_send_work, 1, "07: dont_send_work 1");
        TAP_EQ_DBL(r->cpu_req_secs, 0.0, 0, "07: work request 0");
        TAP_EQ_INT(r->nresults, 1, "07: one result");
        if (r->nresults == 1)
            TAP_EQ_INT(r->results[0].state, 5, "07: result succeeded");
    }
    if (gok[7]) {
        r = &greq[7];
        TAP_EQ_STR(r->authenticator, "c3c3c3c3c3c3c3c3c3c3c3c3c3c3c3c3", "08: key of host C");
        TAP_EQ_INT(r->p_ncpus, 3, "08: 3 CPUs (cc_config)");
        TAP_EQ_INT(r->n_usable_coprocs, 1, "08: 1 usable coprocessor");
        TAP_EQ_INT(r->ncoprocs, 1, "08: one coprocessor type");
        if (r->ncoprocs == 1) {
            TAP_EQ_STR(r->coprocs[0].type, "fpga_accel", "08: type fpga_accel");
            TAP_EQ_INT(r->coprocs[0].count, 1, "08: count 1");
            TAP_EQ_DBL(r->coprocs[0].req_secs, 1.0, 0, "08: coproc token request 1 s");
            TAP_EQ_DBL(r->coprocs[0].req_instances, 0.0, 0, "08: req_instances 0");
        }
    }
    if (gok[8]) {
        r = &greq[8];
        TAP_EQ_INT(r->hostid, 4004, "09: hostid 4004");
        TAP_EQ_DBL(r->cpu_req_secs, 155520.0, 0, "09: cpu_req_secs 155520");
        TAP_EQ_DBL(r->cpu_req_instances, 3.0, 0, "09: 3 instances");
        if (r->ncoprocs == 1) {
            TAP_EQ_STR(r->coprocs[0].type, "fpga_accel", "09: fpga_accel");
            TAP_EQ_DBL(r->coprocs[0].req_secs, 51840.0, 0, "09: coproc req_secs 51840");
            TAP_EQ_DBL(r->coprocs[0].req_instances, 1.0, 0, "09: coproc req_instances 1");
            TAP_EQ_DBL(r->coprocs[0].peak_flops, 2e10, 0, "09: peak_flops 2e10");
        } else {
            TAP_CHECK(0, "09: one coprocessor");
        }
    }
    if (gok[9]) {
        r = &greq[9];
        TAP_EQ_INT(r->napp_versions, 2, "10: two app versions");
        if (r->napp_versions == 2) {
            TAP_EQ_STR(r->app_versions[1].plan_class, "fpga", "10: plan_class fpga");
            TAP_EQ_STR(r->app_versions[1].coproc_type, "fpga_accel", "10: app version coproc");
            TAP_EQ_DBL(r->app_versions[1].coproc_count, 1.0, 0, "10: coproc count 1");
            TAP_EQ_DBL(r->app_versions[1].avg_ncpus, 0.1, 0, "10: avg_ncpus 0.1");
            TAP_EQ_STR(r->app_versions[0].coproc_type, "", "10: CPU version has no coproc");
        }
        if (r->nother_results == 2) {
            TAP_EQ_INT(r->other_results[1].app_version, 1, "10: other_result index 1");
            TAP_EQ_STR(r->other_results[1].plan_class, "fpga", "10: other_result plan_class");
            TAP_EQ_STR(r->other_results[0].plan_class, "", "10: CPU job no plan_class");
        } else {
            TAP_CHECK(0, "10: two other_results");
        }
        if (r->nip_results == 2) {
            TAP_EQ_DBL(r->ip_results[1].avg_ncpus, 0.1, 0, "10: coproc job avg_ncpus 0.1");
            TAP_EQ_DBL(r->ip_results[1].time_remaining, 0.23, 0, "10: time_remaining 0.23");
            TAP_EQ_DBL(r->ip_results[1].ncudas, 0.0, 0, "10: no GPU field");
        } else {
            TAP_CHECK(0, "10: two ip_results");
        }
        TAP_EQ_DBL(r->cpu_req_instances, 1.9, 0, "10: fractional cpu_req_instances");
    }
    if (gok[10]) {
        r = &greq[10];
        TAP_EQ_INT(r->nresults, 2, "11: two results");
        TAP_EQ_DBL(r->cpu_req_secs, 1.0, 0, "11: token CPU request");
        if (r->ncoprocs == 1)
            TAP_EQ_DBL(r->coprocs[0].req_secs, 1.0, 0, "11: token coproc request");
        if (r->nresults == 2)
            TAP_EQ_STR(r->results[1].plan_class, "fpga", "11: fpga result plan_class");
    }
    if (gok[11]) {
        r = &greq[11];
        TAP_EQ_STR(r->authenticator, "m5m5m5m5m5m5m5m5m5m5m5m5m5m5m5m5", "12: key of host M");
        TAP_EQ_INT(r->hostid, 0, "12: first contact");
    }
    if (gok[12]) {
        r = &greq[12];
        TAP_EQ_INT(r->hostid, 5005, "13: hostid 5005");
        TAP_EQ_INT(r->rpc_seqno, 1, "13: rpc_seqno 1");
        TAP_EQ_INT(r->nresults, 1, "13: one result");
        if (r->nresults == 1)
            TAP_EQ_INT(r->results[0].state, 5, "13: state 5");
        TAP_EQ_INT(r->have_ip_results, 0, "13: no send_full_workload on host M");
    }
    if (gok[13]) {
        r = &greq[13];
        TAP_EQ_STR(r->authenticator, "0123456789abcdef0123456789abcdef", "14: key of host D");
        TAP_EQ_INT(r->hostid, 1001, "14: hostid 1001");
        TAP_EQ_INT(r->nresults, 3, "14: three results");
        for (int i = 0; i < r->nresults && i < 3; i++) {
            TAP_EQ_INT(r->results[i].state, CRS_FILES_DOWNLOADING, "14: result %d state 1", i);
            TAP_EQ_INT(r->results[i].exit_status, -186, "14: result %d exit -186", i);
            TAP_EQ_DBL(r->results[i].final_cpu_time, 0.0, 0, "14: result %d cpu 0", i);
            TAP_CHECK(strstr(r->results[i].stderr_out, "-123 (no signature)") != NULL,
                      "14: result %d stderr has the download error", i);
        }
    }
    if (gok[14]) {
        r = &greq[14];
        TAP_EQ_INT(r->nresults, 1, "15: one result");
        if (r->nresults == 1)
            TAP_EQ_INT(r->results[0].state, 5, "15: success");
    }
    if (gok[15]) {
        r = &greq[15];
        TAP_EQ_INT(r->nsticky_files, 2, "16: two sticky files");
        if (r->nsticky_files == 2) {
            TAP_EQ_STR(r->sticky_files[0].name, "locality_data_A2", "16: downloading file");
            TAP_EQ_INT(r->sticky_files[0].status, 0, "16: status 0 (not yet present)");
            TAP_EQ_STR(r->sticky_files[1].name, "locality_data_A3", "16: failed file");
            TAP_EQ_INT(r->sticky_files[1].status, -224, "16: status -224");
            TAP_EQ_DBL(r->sticky_files[1].nbytes, 1354.0, 0, "16: nbytes 1354");
        }
        if (r->nresults == 1) {
            TAP_EQ_INT(r->results[0].state, 1, "16: job reported with state 1");
            TAP_EQ_INT(r->results[0].exit_status, -186, "16: exit -186");
        } else {
            TAP_CHECK(0, "16: one result");
        }
        TAP_EQ_INT(r->nother_results, 1, "16: one other_result");
        TAP_EQ_INT(r->nip_results, 1, "16: one ip_result");
    }
    if (gok[16]) {
        r = &greq[16];
        TAP_EQ_INT(r->hostid, 6006, "nvidia: hostid");
        TAP_EQ_INT(r->ncoprocs, 1, "nvidia: one coprocessor type");
        if (r->ncoprocs == 1) {
            TAP_EQ_STR(r->coprocs[0].type, "NVIDIA", "nvidia: <coproc_cuda> is type NVIDIA");
            TAP_EQ_INT(r->coprocs[0].count, 1, "nvidia: count 1");
            TAP_EQ_DBL(r->coprocs[0].peak_flops, 1.274e13, 0, "nvidia: peak_flops");
            TAP_EQ_DBL(r->coprocs[0].req_secs, 51840.0, 0, "nvidia: req_secs");
            TAP_EQ_DBL(r->coprocs[0].req_instances, 1.0, 0, "nvidia: req_instances");
            TAP_EQ_DBL(r->coprocs[0].estimated_delay, 120.5, 0, "nvidia: estimated_delay");
        }
        if (r->nresults == 1) {
            TAP_EQ_INT(r->results[0].upload_failed, 1, "nvidia: <error_msg> sets upload_failed");
            TAP_EQ_INT(r->results[0].state, 5, "nvidia: failed upload still says state 5");
            TAP_CHECK(strstr(r->results[0].stderr_out, "RTX 3060 &amp; <done>") != NULL,
                      "nvidia: CDATA text kept verbatim");
        } else {
            TAP_CHECK(0, "nvidia: one result");
        }
        if (r->napp_versions == 2)
            TAP_EQ_STR(r->app_versions[1].coproc_type, "NVIDIA", "nvidia: GPU app version");
        if (r->nip_results == 1)
            TAP_EQ_DBL(r->ip_results[0].ncudas, 1.0, 0, "nvidia: ip_result ncudas 1");
    }
}

/* ------------------------------------------------------------------ */
/* 2. Hostile inputs                                                    */

static const struct bad_case {
    const char *file;
    int code;
    const char *sub;        /* must appear in the message */
    const char *notsub;     /* must not appear (a secret), or NULL */
} bad_cases[] = {
    { "01-empty-body.xml", SRQ_ERR_XML, "empty request body", NULL },
    { "02-truncated.xml", SRQ_ERR_XML, "XML error at line 11", NULL },
    { "03-wrong-root.xml", SRQ_ERR_XML, "root element is <scheduler_reply>", NULL },
    { "04-doctype-billion-laughs.xml", SRQ_ERR_XML, "DOCTYPE not allowed", NULL },
    { "05-external-entity-system.xml", SRQ_ERR_XML, "DOCTYPE not allowed (line 2)", NULL },
    { "06-doctype-external-dtd.xml", SRQ_ERR_XML, "DOCTYPE not allowed", NULL },
    { "07-doctype-after-comment.xml", SRQ_ERR_XML, "DOCTYPE not allowed (line 3)", NULL },
    { "08-undefined-entity.xml", SRQ_ERR_XML, "Entity 'evil' not defined", NULL },
    { "09-markup-decl-in-prolog.xml", SRQ_ERR_XML, "markup declaration not allowed", NULL },
    { "10-nesting-33.xml", SRQ_ERR_LIMIT, "nested deeper than 32", NULL },
    { "11-nesting-32.xml", SRQ_OK, NULL, NULL },
    { "12-authenticator-too-long.xml", SRQ_ERR_LIMIT,
      "<authenticator> in <scheduler_request>: too long (65 bytes, max 64)", "kkkk" },
    { "13-authenticator-64.xml", SRQ_OK, NULL, NULL },
    { "14-name-256.xml", SRQ_ERR_LIMIT, "<p_model> in <host_info>: too long (256 bytes, max 255)",
      NULL },
    { "15-name-255.xml", SRQ_OK, NULL, NULL },
    { "16-nan.xml", SRQ_ERR_NUMBER, "<p_fpops> in <host_info>: \"nan\" is not a decimal number",
      NULL },
    { "17-inf.xml", SRQ_ERR_NUMBER, "<p_fpops> in <host_info>: \"inf\" is not", NULL },
    { "18-negative-ncpus.xml", SRQ_ERR_NUMBER, "<p_ncpus> in <host_info>: \"-5\" out of range",
      NULL },
    { "19-overflow-1e400.xml", SRQ_ERR_NUMBER, "<m_nbytes> in <host_info>: \"1e400\" out of range",
      NULL },
    { "20-hex-integer.xml", SRQ_ERR_NUMBER, "\"0x10\" is not an integer", NULL },
    { "21-hex-float.xml", SRQ_ERR_NUMBER, "\"0x1p30\" is not a decimal number", NULL },
    { "22-trailing-junk-number.xml", SRQ_ERR_NUMBER, "<hostid> in <scheduler_request>: \"1001abc\"",
      NULL },
    { "23-empty-number.xml", SRQ_ERR_NUMBER, "<rpc_seqno> in <scheduler_request>: empty", NULL },
    { "24-blank-number.xml", SRQ_ERR_NUMBER, "<hostid> in <scheduler_request>: empty", NULL },
    { "25-request-over-28-days.xml", SRQ_ERR_NUMBER,
      "<cpu_req_secs>: \"4838400.5\" is over 28 days per instance (max 4838400 for 2 CPUs)", NULL },
    { "26-request-at-28-days.xml", SRQ_OK, NULL, NULL },
    { "27-coproc-over-28-days.xml", SRQ_ERR_NUMBER,
      "<req_secs> of coprocessor \"fpga_accel\": \"2419200.001\" is over 28 days", NULL },
    { "28-gpu-over-28-days.xml", SRQ_ERR_NUMBER, "<req_secs> of coprocessor \"NVIDIA\"", NULL },
    { "29-missing-authenticator.xml", SRQ_ERR_MISSING, "<authenticator> is missing", NULL },
    { "30-empty-authenticator.xml", SRQ_ERR_MISSING, "<authenticator> is missing or empty", NULL },
    { "31-missing-platform.xml", SRQ_ERR_MISSING, "<platform_name> is missing", NULL },
    { "32-non-utf8.xml", SRQ_ERR_XML, "not proper UTF-8", NULL },
    { "33-latin1-declared.xml", SRQ_ERR_XML, "not proper UTF-8", NULL },
    { "34-nul-byte.xml", SRQ_ERR_XML, "NUL byte in the request body (line 12", NULL },
    { "35-junk-after-root.xml", SRQ_ERR_XML, "Extra content at the end of the document", NULL },
    { "36-two-roots.xml", SRQ_ERR_XML, "Extra content at the end of the document", NULL },
    { "37-processing-instruction.xml", SRQ_ERR_XML, "processing instruction <?php?> not allowed",
      NULL },
    { "38-pi-stylesheet-prolog.xml", SRQ_ERR_XML, "processing instruction <?xml-stylesheet?>",
      NULL },
    { "39-xml-decl-inside-root.xml", SRQ_ERR_XML, "XML declaration allowed only at the start",
      NULL },
    { "40-cdata-in-number.xml", SRQ_ERR_NUMBER, "<p_ncpus> in <host_info>: CDATA section", NULL },
    { "41-cdata-in-authenticator.xml", SRQ_ERR_XML, "<authenticator> in <scheduler_request>: CDATA",
      "0123456789abcdef" },
    { "42-hostid-over-31-bits.xml", SRQ_ERR_NUMBER, "\"2147483648\" out of range [0, 2147483647]",
      NULL },
    { "43-hostid-at-31-bits.xml", SRQ_OK, NULL, NULL },
    { "44-fraction-over-1.xml", SRQ_ERR_NUMBER, "<on_frac> in <time_stats>: \"1.5\" out of range",
      NULL },
    { "45-connected-frac-minus-2.xml", SRQ_ERR_NUMBER, "<connected_frac> in <time_stats>", NULL },
    { "46-flops-over-limit.xml", SRQ_ERR_NUMBER, "<p_fpops> in <host_info>: \"1e17\" out of range",
      NULL },
    { "47-number-with-child-element.xml", SRQ_ERR_XML, "unexpected child element <i>", NULL },
    { "48-duplicate-authenticator.xml", SRQ_ERR_XML, "duplicate <authenticator>", "ffff" },
    { "49-too-many-coproc-types.xml", SRQ_ERR_LIMIT, "too many coprocessor types", NULL },
    { "50-duplicate-gpu-type.xml", SRQ_ERR_XML, "duplicate coprocessor type \"NVIDIA\"", NULL },
    { "51-coproc-without-type.xml", SRQ_ERR_MISSING, "<coproc> #1 in <coprocs> has no <type>",
      NULL },
    { "52-other-result-bad-index.xml", SRQ_ERR_NUMBER, "<app_version> of <other_result> \"x_0\"",
      NULL },
    { "53-result-without-name.xml", SRQ_ERR_MISSING, "reported <result> #1 has no <name>", NULL },
    { "54-bad-result-state.xml", SRQ_ERR_NUMBER, "<state> in <result>: \"9\" out of range", NULL },
    { "55-xinclude-ignored.xml", SRQ_OK, NULL, NULL },
    { "56-invalid-char-ref.xml", SRQ_ERR_XML, "invalid xmlChar value 0", NULL },
    { "57-mismatched-tag.xml", SRQ_ERR_XML, "Opening and ending tag mismatch: hostid", NULL },
    { "58-prefixed-root.xml", SRQ_ERR_XML, "root element is <x:scheduler_request>", NULL },
    { "59-negative-req-secs.xml", SRQ_ERR_NUMBER,
      "<work_req_seconds> in <scheduler_request>: \"-1\"", NULL },
    { "60-utf16-body.xml", SRQ_ERR_XML, "NUL byte", NULL },
};
#define NBAD ((int)(sizeof bad_cases / sizeof bad_cases[0]))

static void test_malformed(void)
{
    /* libxml2 must never print: catch stderr in a temporary file */
    fflush(stderr);
    FILE *cap = tmpfile();
    int saved = dup(2);
    if (cap && saved >= 0)
        dup2(fileno(cap), 2);

    for (int i = 0; i < NBAD; i++) {
        const struct bad_case *c = &bad_cases[i];
        char path[2048], err[512];
        size_t len = 0;
        struct sched_request r;
        snprintf(path, sizeof path, "%s/malformed/%s", corpus, c->file);
        char *body = buf_read_file(path, &len);
        if (!TAP_CHECK(body != NULL, "%s: read", c->file))
            continue;
        memset(err, 'x', sizeof err);
        int rc = parse(body, len, &r, err, sizeof err);
        TAP_EQ_INT(rc, c->code, "%s: code %s", c->file, sched_request_strerror(c->code));
        if (c->code == SRQ_OK) {
            TAP_EQ_STR(err, "", "%s: no message", c->file);
            if (strcmp(c->file, "55-xinclude-ignored.xml") == 0)
                TAP_CHECK(rc == 0 && !strstr(r.os_name, "root") && !strstr(r.p_model, "root"),
                          "%s: XInclude not processed", c->file);
            sched_request_free(&r);
        } else {
            if (!TAP_CHECK(strstr(err, c->sub) != NULL, "%s: message has \"%s\"", c->file, c->sub))
                printf("#   message: %s\n", err);
            TAP_CHECK(strchr(err, '\n') == NULL && strlen(err) > 0, "%s: one-line message",
                      c->file);
            if (c->notsub)
                TAP_CHECK(strstr(err, c->notsub) == NULL, "%s: message does not quote the key",
                          c->file);
            TAP_CHECK(r.results == NULL && r.nresults == 0 && r.authenticator[0] == '\0',
                      "%s: request left freed and cleared", c->file);
            sched_request_free(&r);      /* must be harmless */
        }
        free(body);
    }

    /* every file of malformed/ must have a row in the table */
    char dir[2048];
    int unlisted = 0, nfiles = 0;
    snprintf(dir, sizeof dir, "%s/malformed", corpus);
    DIR *d = opendir(dir);
    if (TAP_CHECK(d != NULL, "malformed/ listed")) {
        struct dirent *de;
        while ((de = readdir(d)) != NULL) {
            size_t l = strlen(de->d_name);
            if (l < 5 || strcmp(de->d_name + l - 4, ".xml") != 0)
                continue;
            nfiles++;
            int found = 0;
            for (int i = 0; i < NBAD && !found; i++)
                found = strcmp(bad_cases[i].file, de->d_name) == 0;
            if (!found) {
                unlisted++;
                printf("#   %s has no row in bad_cases\n", de->d_name);
            }
        }
        closedir(d);
        TAP_EQ_INT(unlisted, 0, "every file of malformed/ is in the table");
        TAP_EQ_INT(nfiles, NBAD, "every row of the table has its file");
    }

    fflush(stderr);
    if (cap && saved >= 0) {
        dup2(saved, 2);
        close(saved);
        fseek(cap, 0, SEEK_END);
        long n = ftell(cap);
        TAP_EQ_INT(n, 0, "nothing was written to stderr while parsing hostile inputs");
        fclose(cap);
    }
}

/* ------------------------------------------------------------------ */
/* 3. Generated inputs                                                  */

/* Parse body; check the code and (if given) a message substring. */
static void expect(const char *what, const char *body, int code, const char *sub)
{
    struct sched_request r;
    char err[512];
    int rc = parse_s(body, &r, err, sizeof err);
    if (!TAP_CHECK(rc == code, "%s: code %d", what, code))
        printf("#   got %d: %s\n", rc, err);
    if (sub && code != SRQ_OK && !TAP_CHECK(strstr(err, sub) != NULL, "%s: message has \"%s\"",
                                            what, sub))
        printf("#   message: %s\n", err);
    sched_request_free(&r);
}

#define NO_COUNT ((size_t)-1)

/* An array cap: n = lim accepted (and counted), lim + 1 refused. */
static void test_cap(const char *what, const char *open, const char *item, const char *close,
                     int lim, size_t count_off, const char *sub)
{
    struct sched_request r;
    char err[512];
    char *ok = mk_repeat(open, item, lim, close);
    int rc = parse_s(ok, &r, err, sizeof err);
    if (!TAP_CHECK(rc == SRQ_OK, "%s: %d accepted", what, lim))
        printf("#   got %d: %s\n", rc, err);
    else if (count_off != NO_COUNT) {
        int n;
        memcpy(&n, (char *)&r + count_off, sizeof n);
        TAP_EQ_INT(n, lim, "%s: %d parsed", what, lim);
    }
    sched_request_free(&r);
    free(ok);

    char *bad = mk_repeat(open, item, lim + 1, close);
    rc = parse_s(bad, &r, err, sizeof err);
    TAP_EQ_INT(rc, SRQ_ERR_LIMIT, "%s: %d refused", what, lim + 1);
    if (!TAP_CHECK(strstr(err, sub) != NULL, "%s: message has \"%s\"", what, sub))
        printf("#   message: %s\n", err);
    sched_request_free(&r);
    free(bad);
}

#define OFF(m) offsetof(struct sched_request, m)

static void test_caps(void)
{
    test_cap("reported results", "", "<result><name>r_%d</name><state>5</state></result>\n", "",
             LIM_REPORTED_RESULTS, OFF(nresults), "too many <result> elements (max 256)");
    test_cap("sticky files", "",
             "<file_info><name>f_%d</name><nbytes>1</nbytes><status>1</status></file_info>\n", "",
             LIM_STICKY_FILES, OFF(nsticky_files), "too many <file_info> elements (max 2000)");
    test_cap("app versions", "<app_versions>\n",
             "<app_version><app_name>a</app_name><version_num>%d</version_num></app_version>\n",
             "</app_versions>\n", LIM_CLIENT_APP_VERSIONS, OFF(napp_versions),
             "too many <app_version> elements (max 64)");
    test_cap("other results", "<other_results>\n",
             "<other_result><name>o_%d</name></other_result>\n", "</other_results>\n",
             LIM_IP_RESULTS, OFF(nother_results), "too many <other_result> elements (max 2000)");
    test_cap("ip results", "<in_progress_results>\n",
             "<ip_result><name>i_%d</name><report_deadline>1795842121</report_deadline>"
             "<time_remaining>10</time_remaining><avg_ncpus>1</avg_ncpus></ip_result>\n",
             "</in_progress_results>\n", LIM_IP_RESULTS, OFF(nip_results),
             "too many <ip_result> elements (max 2000)");
    test_cap("coprocessor types", "<coprocs>\n",
             "<coproc><type>asic%d</type><count>1</count></coproc>\n", "</coprocs>\n",
             LIM_COPROC_TYPES, OFF(ncoprocs), "too many coprocessor types in <coprocs> (max 8)");
    test_cap("alt platforms", "", "<alt_platform><name>p%d</name></alt_platform>\n", "", 4,
             OFF(n_alt_platforms), "too many <alt_platform> elements (max 4)");
    test_cap("output files of a result", "<result><name>r</name>\n",
             "<file_info><name>r_%d</name><nbytes>1</nbytes></file_info>\n", "</result>\n",
             LIM_RESULT_FILES, NO_COUNT,
             "too many output <file_info> in <result> (max 16)");
}

/* Element count and body size at and over their limits. */
static void test_size_limits(void)
{
    /* HEAD has 3 elements (root, authenticator, platform_name) */
    char *ok = mk_repeat("", "<x/>", LIM_XML_ELEMENTS - 3, "");
    expect("elements: exactly LIM_XML_ELEMENTS accepted", ok, SRQ_OK, NULL);
    free(ok);
    char *bad = mk_repeat("", "<x/>", LIM_XML_ELEMENTS - 2, "");
    expect("elements: LIM_XML_ELEMENTS + 1 refused", bad, SRQ_ERR_LIMIT,
           "more than 50000 elements");
    free(bad);

    /* a valid body padded with a comment to exactly LIM_REQUEST_BYTES */
    size_t fixed = strlen(HEAD) + strlen("<!---->\n") + strlen(TAIL);
    size_t pad = LIM_REQUEST_BYTES - fixed;
    char *body = malloc(LIM_REQUEST_BYTES + 2);
    if (!body)
        abort();
    size_t n = 0;
    memcpy(body + n, HEAD, strlen(HEAD));
    n += strlen(HEAD);
    memcpy(body + n, "<!--", 4);
    n += 4;
    memset(body + n, 'p', pad);
    n += pad;
    memcpy(body + n, "-->\n", 4);
    n += 4;
    memcpy(body + n, TAIL, strlen(TAIL));
    n += strlen(TAIL);
    struct sched_request r;
    char err[256];
    TAP_EQ_INT(n, LIM_REQUEST_BYTES, "body of exactly LIM_REQUEST_BYTES built");
    int rc = parse(body, n, &r, err, sizeof err);
    if (!TAP_CHECK(rc == SRQ_OK, "body of exactly LIM_REQUEST_BYTES accepted"))
        printf("#   got %d: %s\n", rc, err);
    sched_request_free(&r);
    /* one byte more (a newline at the end: still well-formed) */
    body[n] = '\n';
    rc = parse(body, n + 1, &r, err, sizeof err);
    TAP_EQ_INT(rc, SRQ_ERR_TOO_BIG, "body of LIM_REQUEST_BYTES + 1 refused");
    TAP_CHECK(strstr(err, "2097153 bytes is over the limit") != NULL, "too-big message: %s", err);
    sched_request_free(&r);
    free(body);
}

/* Numbers: syntax and ranges, one element at a time. */
static const struct num_case {
    const char *xml;
    int code;
} num_cases[] = {
    { "<host_info><p_ncpus>2</p_ncpus></host_info>", SRQ_OK },
    { "<host_info><p_ncpus> \n2\t </p_ncpus></host_info>", SRQ_OK },
    { "<host_info><p_ncpus>+2</p_ncpus></host_info>", SRQ_OK },
    { "<host_info><p_ncpus>0002</p_ncpus></host_info>", SRQ_OK },
    { "<host_info><p_ncpus>1024</p_ncpus></host_info>", SRQ_OK },
    { "<host_info><p_ncpus>1025</p_ncpus></host_info>", SRQ_ERR_NUMBER },
    { "<host_info><p_ncpus>2.0</p_ncpus></host_info>", SRQ_ERR_NUMBER },
    { "<host_info><p_ncpus>1e3</p_ncpus></host_info>", SRQ_ERR_NUMBER },
    { "<host_info><p_ncpus>--2</p_ncpus></host_info>", SRQ_ERR_NUMBER },
    { "<host_info><p_ncpus>2 2</p_ncpus></host_info>", SRQ_ERR_NUMBER },
    { "<host_info><p_ncpus>99999999999999999999999999</p_ncpus></host_info>", SRQ_ERR_NUMBER },
    { "<host_info><p_ncpus>&#50;</p_ncpus></host_info>", SRQ_OK },
    { "<host_info><p_fpops>1e9</p_fpops></host_info>", SRQ_OK },
    { "<host_info><p_fpops>1E+9</p_fpops></host_info>", SRQ_OK },
    { "<host_info><p_fpops>.5</p_fpops></host_info>", SRQ_OK },
    { "<host_info><p_fpops>5.</p_fpops></host_info>", SRQ_OK },
    { "<host_info><p_fpops>-0</p_fpops></host_info>", SRQ_OK },
    { "<host_info><p_fpops>1e-400</p_fpops></host_info>", SRQ_OK },
    { "<host_info><p_fpops>1e16</p_fpops></host_info>", SRQ_OK },
    { "<host_info><p_fpops>1.0000000000000002e16</p_fpops></host_info>", SRQ_ERR_NUMBER },
    { "<host_info><p_fpops>.</p_fpops></host_info>", SRQ_ERR_NUMBER },
    { "<host_info><p_fpops>1e</p_fpops></host_info>", SRQ_ERR_NUMBER },
    { "<host_info><p_fpops>1e+</p_fpops></host_info>", SRQ_ERR_NUMBER },
    { "<host_info><p_fpops>NaN</p_fpops></host_info>", SRQ_ERR_NUMBER },
    { "<host_info><p_fpops>-nan</p_fpops></host_info>", SRQ_ERR_NUMBER },
    { "<host_info><p_fpops>Infinity</p_fpops></host_info>", SRQ_ERR_NUMBER },
    { "<host_info><p_fpops>-1e9</p_fpops></host_info>", SRQ_ERR_NUMBER },
    { "<host_info><p_fpops>1,5</p_fpops></host_info>", SRQ_ERR_NUMBER },
    { "<host_info><timezone>-18000</timezone></host_info>", SRQ_OK },
    { "<host_info><timezone>90000</timezone></host_info>", SRQ_ERR_NUMBER },
    { "<time_stats><connected_frac>-1</connected_frac></time_stats>", SRQ_OK },
    { "<time_stats><connected_frac>-0.5</connected_frac></time_stats>", SRQ_ERR_NUMBER },
    { "<time_stats><on_frac>-1</on_frac></time_stats>", SRQ_ERR_NUMBER },
    { "<time_stats><gpu_active_frac>1.0000001</gpu_active_frac></time_stats>", SRQ_ERR_NUMBER },
    { "<hostid>-1</hostid>", SRQ_ERR_NUMBER },
    { "<rpc_seqno>2147483647</rpc_seqno>", SRQ_OK },
    { "<rpc_seqno>2147483648</rpc_seqno>", SRQ_ERR_NUMBER },
    { "<cpu_req_instances>1025</cpu_req_instances>", SRQ_ERR_NUMBER },
    { "<estimated_delay>-1</estimated_delay>", SRQ_ERR_NUMBER },
    { "<duration_correction_factor>101</duration_correction_factor>", SRQ_ERR_NUMBER },
    { "<dont_send_work>2</dont_send_work>", SRQ_ERR_NUMBER },
    { "<result><name>r</name><exit_status>-1073741819</exit_status></result>", SRQ_OK },
    { "<result><name>r</name><exit_status>4294967295</exit_status></result>", SRQ_ERR_NUMBER },
    { "<result><name>r</name><final_cpu_time>-0.1</final_cpu_time></result>", SRQ_ERR_NUMBER },
    { "<file_info><name>f</name><status>-224</status></file_info>", SRQ_OK },
    { "<file_info><name>f</name><status>2</status></file_info>", SRQ_ERR_NUMBER },
    { "<file_info><name>f</name><nbytes>1e19</nbytes></file_info>", SRQ_ERR_NUMBER },
    { "<app_versions><app_version><app_name>a</app_name><flops>2e16</flops></app_version>"
      "</app_versions>", SRQ_ERR_NUMBER },
    { "<in_progress_results><ip_result><name>i</name><ncudas>-1</ncudas></ip_result>"
      "</in_progress_results>", SRQ_ERR_NUMBER },
    { "<coprocs><coproc><type>t</type><count>1025</count></coproc></coprocs>", SRQ_ERR_NUMBER },
    { "<coprocs><coproc_cuda><count>1</count><peak_flops>1e17</peak_flops></coproc_cuda>"
      "</coprocs>", SRQ_ERR_NUMBER },
};
#define NNUM ((int)(sizeof num_cases / sizeof num_cases[0]))

static void test_numbers(void)
{
    for (int i = 0; i < NNUM; i++) {
        char *body = mk("%s\n", num_cases[i].xml);
        char what[200];
        snprintf(what, sizeof what, "number case %d %.120s", i + 1, num_cases[i].xml);
        for (char *p = what; *p; p++)   /* keep the TAP line on one line */
            if (*p == '\n' || *p == '\t')
                *p = ' ';
        expect(what, body, num_cases[i].code, NULL);
        free(body);
    }

    /* values, not only codes */
    struct sched_request r;
    char err[256];
    char *body = mk("<host_info><p_ncpus> +0016 </p_ncpus><p_fpops>2.5e9</p_fpops>"
                    "<timezone>-18000</timezone></host_info>"
                    "<time_stats><connected_frac>-1</connected_frac></time_stats>"
                    "<hostid>2147483647</hostid>\n");
    int rc = parse_s(body, &r, err, sizeof err);
    TAP_EQ_INT(rc, SRQ_OK, "values: parses");
    if (rc == SRQ_OK) {
        TAP_EQ_INT(r.p_ncpus, 16, "values: \" +0016 \" is 16");
        TAP_EQ_DBL(r.p_fpops, 2.5e9, 0, "values: 2.5e9");
        TAP_EQ_INT(r.timezone, -18000, "values: timezone -18000");
        TAP_EQ_DBL(r.connected_frac, -1.0, 0, "values: connected_frac -1");
        TAP_EQ_INT(r.hostid, 2147483647LL, "values: hostid 2^31-1");
        TAP_EQ_DBL(r.on_frac, -1.0, 0, "values: absent on_frac is -1 (unknown)");
        TAP_EQ_DBL(r.duration_correction_factor, 1.0, 0, "values: absent dcf is 1");
    }
    sched_request_free(&r);
    free(body);
}

/* Strings, stderr, GPUs, structure. */
static void test_content(void)
{
    struct sched_request r;
    char err[512];
    int rc;

    /* entities decoded, surrounding whitespace trimmed */
    char *body = mk("<host_info><p_model>A &amp; B &lt;x&gt; &#233;</p_model>"
                    "<host_cpid>\n   abc \n</host_cpid><os_name></os_name></host_info>\n");
    rc = parse_s(body, &r, err, sizeof err);
    TAP_EQ_INT(rc, SRQ_OK, "strings: parses");
    TAP_EQ_STR(r.p_model, "A & B <x> \xc3\xa9", "strings: predefined and character entities");
    TAP_EQ_STR(r.host_cpid, "abc", "strings: surrounding whitespace trimmed");
    sched_request_free(&r);
    free(body);

    /* stderr_out: truncated to the field, not an error; at a UTF-8 boundary */
    size_t cap = sizeof r.results[0].stderr_out;
    char *big = malloc(3 * cap);
    if (!big)
        abort();
    memset(big, 'x', 2 * cap);
    big[2 * cap] = '\0';
    body = mk("<result><name>r</name><stderr_out><![CDATA[%s]]></stderr_out></result>\n", big);
    rc = parse_s(body, &r, err, sizeof err);
    TAP_EQ_INT(rc, SRQ_OK, "stderr: long stderr_out accepted");
    if (rc == SRQ_OK)
        TAP_EQ_INT(strlen(r.results[0].stderr_out), cap - 1, "stderr: truncated to %zu bytes",
                   cap - 1);
    sched_request_free(&r);
    free(body);
    memset(big, 'x', cap - 2);
    memcpy(big + cap - 2, "\xc3\xa9", 3);    /* 2-byte character across the end */
    body = mk("<result><name>r</name><stderr_out>%s</stderr_out></result>\n", big);
    rc = parse_s(body, &r, err, sizeof err);
    TAP_EQ_INT(rc, SRQ_OK, "stderr: multibyte at the end accepted");
    if (rc == SRQ_OK)
        TAP_EQ_INT(strlen(r.results[0].stderr_out), cap - 2,
                   "stderr: a character is not cut in half");
    sched_request_free(&r);
    free(body);
    free(big);

    /* GPU elements of BOINC 7.20; only direct children count */
    body = mk("<coprocs>\n"
              "<coproc_cuda><count>2</count><name>GeForce</name><req_secs>100</req_secs>"
              "<req_instances>2</req_instances><estimated_delay>5</estimated_delay>"
              "<peak_flops>5e12</peak_flops>"
              "<coproc_opencl><name>x</name><peak_flops>9e12</peak_flops>"
              "<device_num>0</device_num></coproc_opencl></coproc_cuda>\n"
              "<coproc_ati><count>1</count><name>Radeon</name><req_secs>200</req_secs>"
              "<req_instances>1</req_instances><estimated_delay>0</estimated_delay>"
              "<peak_flops>4e12</peak_flops><atirt_detected/></coproc_ati>\n"
              "<coproc_intel_gpu><count>1</count><name>UHD</name><req_secs>300</req_secs>"
              "<req_instances>0</req_instances><estimated_delay>0</estimated_delay>"
              "<peak_flops>4e11</peak_flops><version>1</version></coproc_intel_gpu>\n"
              "<coproc><type>miner_asic</type><count>2</count><peak_flops>1e9</peak_flops>"
              "<req_secs>10</req_secs><req_instances>0</req_instances>"
              "<estimated_delay>0</estimated_delay></coproc>\n"
              "</coprocs>\n"
              "<in_progress_results><ip_result><name>g</name><ncudas>0.5</ncudas>"
              "<natis>0.25</natis><nintel_gpus>1</nintel_gpus></ip_result>"
              "</in_progress_results>\n");
    rc = parse_s(body, &r, err, sizeof err);
    if (!TAP_CHECK(rc == SRQ_OK, "gpus: parses"))
        printf("#   %d: %s\n", rc, err);
    TAP_EQ_INT(r.ncoprocs, 4, "gpus: four types");
    if (r.ncoprocs == 4) {
        TAP_EQ_STR(r.coprocs[0].type, "NVIDIA", "gpus: coproc_cuda -> NVIDIA");
        TAP_EQ_INT(r.coprocs[0].count, 2, "gpus: NVIDIA count");
        TAP_EQ_DBL(r.coprocs[0].peak_flops, 5e12, 0, "gpus: coproc_opencl's peak_flops ignored");
        TAP_EQ_DBL(r.coprocs[0].req_secs, 100, 0, "gpus: NVIDIA req_secs");
        TAP_EQ_DBL(r.coprocs[0].req_instances, 2, 0, "gpus: NVIDIA req_instances");
        TAP_EQ_DBL(r.coprocs[0].estimated_delay, 5, 0, "gpus: NVIDIA estimated_delay");
        TAP_EQ_STR(r.coprocs[1].type, "ATI", "gpus: coproc_ati -> ATI");
        TAP_EQ_DBL(r.coprocs[1].req_secs, 200, 0, "gpus: ATI req_secs");
        TAP_EQ_STR(r.coprocs[2].type, "intel_gpu", "gpus: coproc_intel_gpu -> intel_gpu");
        TAP_EQ_DBL(r.coprocs[2].peak_flops, 4e11, 0, "gpus: intel peak_flops");
        TAP_EQ_STR(r.coprocs[3].type, "miner_asic", "gpus: plain coproc keeps its type");
    }
    if (r.nip_results == 1) {
        TAP_EQ_DBL(r.ip_results[0].ncudas, 0.5, 0, "gpus: ncudas");
        TAP_EQ_DBL(r.ip_results[0].natis, 0.25, 0, "gpus: natis");
        TAP_EQ_DBL(r.ip_results[0].nintel_gpus, 1, 0, "gpus: nintel_gpus");
    }
    sched_request_free(&r);
    free(body);

    /* unknown elements are skipped with their subtree; known names inside
     * them do not leak into the request */
    body = mk("<future_thing a=\"1\"><hostid>99</hostid><result><name>z</name></result>"
              "</future_thing>\n<hostid>7</hostid>\n"
              "<global_preferences><work_buf_min_days>9</work_buf_min_days></global_preferences>\n"
              "<in_progress_results/>\n<code_sign_key/>\n");
    rc = parse_s(body, &r, err, sizeof err);
    TAP_EQ_INT(rc, SRQ_OK, "unknown: parses");
    TAP_EQ_INT(r.hostid, 7, "unknown: <hostid> inside an unknown element ignored");
    TAP_EQ_INT(r.nresults, 0, "unknown: <result> inside an unknown element ignored");
    TAP_EQ_DBL(r.work_buf_min_days, 0, 0, "unknown: top-level global_preferences not used");
    TAP_EQ_INT(r.have_ip_results, 1, "unknown: <in_progress_results/> sets have_ip_results");
    TAP_EQ_INT(r.have_code_sign_key, 1, "unknown: <code_sign_key/> counts as present");
    TAP_EQ_INT(r.have_cpu_req_secs, 0, "unknown: no cpu_req_secs");
    sched_request_free(&r);
    free(body);

    /* stderr_out keeps child elements as tags */
    body = mk("<result><name>r</name><stderr_out>a<b>c</b><e/>&lt;f<![CDATA[<g>]]></stderr_out>"
              "<file_info><name>o</name></file_info><file_info><name>p</name>"
              "<error_msg>permanent upload error</error_msg></file_info></result>\n");
    rc = parse_s(body, &r, err, sizeof err);
    TAP_EQ_INT(rc, SRQ_OK, "stderr tags: parses");
    if (rc == SRQ_OK) {
        TAP_EQ_STR(r.results[0].stderr_out, "a<b>c</b><e/><f<g>", "stderr tags: text kept");
        TAP_EQ_INT(r.results[0].upload_failed, 1, "second output's <error_msg> counts");
    }
    sched_request_free(&r);
    free(body);

    /* the deepest element may still be a kept leaf */
    body = mk("<working_global_preferences><global_preferences>"
              "<work_buf_min_days>0.25</work_buf_min_days><venue><work_buf_min_days>3"
              "</work_buf_min_days></venue></global_preferences></working_global_preferences>\n");
    rc = parse_s(body, &r, err, sizeof err);
    TAP_EQ_INT(rc, SRQ_OK, "prefs: parses");
    TAP_EQ_DBL(r.work_buf_min_days, 0.25, 0, "prefs: venue prefs not taken");
    sched_request_free(&r);
    free(body);

    /* strings of 255 bytes in every kind of record */
    char n255[256], n256[257];
    memset(n255, 'n', 255);
    n255[255] = '\0';
    memset(n256, 'n', 256);
    n256[256] = '\0';
    body = mk("<result><name>%s</name><plan_class>%s</plan_class></result>"
              "<file_info><name>%s</name></file_info>"
              "<other_results><other_result><name>%s</name></other_result></other_results>\n",
              n255, n255, n255, n255);
    expect("255-byte names accepted", body, SRQ_OK, NULL);
    free(body);
    body = mk("<file_info><name>%s</name></file_info>\n", n256);
    expect("256-byte sticky name refused", body, SRQ_ERR_LIMIT,
           "<name> in <file_info>: too long (256 bytes, max 255)");
    free(body);
    body = mk("<coprocs><coproc><type>%s</type></coproc></coprocs>\n", n256);
    expect("256-byte coproc type refused", body, SRQ_ERR_LIMIT, "<type> in <coproc>");
    free(body);
    char big2[2000];
    memset(big2, 'n', sizeof big2 - 1);
    big2[sizeof big2 - 1] = '\0';
    body = mk("<host_info><os_version>%s</os_version></host_info>\n", big2);
    expect("1999-byte string refused", body, SRQ_ERR_LIMIT, "too long (1999 bytes, max 255)");
    free(body);

    /* the work request per instance scales with p_ncpus and coprocessor count */
    body = mk("<host_info><p_ncpus>0</p_ncpus></host_info><cpu_req_secs>2419200</cpu_req_secs>\n");
    expect("p_ncpus 0 counts as 1 instance: at the limit", body, SRQ_OK, NULL);
    free(body);
    body = mk("<host_info><p_ncpus>0</p_ncpus></host_info><cpu_req_secs>2419201</cpu_req_secs>\n");
    expect("p_ncpus 0 counts as 1 instance: over", body, SRQ_ERR_NUMBER, "max 2419200 for 1 CPUs");
    free(body);
    body = mk("<coprocs><coproc_cuda><count>2</count><req_secs>4838400</req_secs></coproc_cuda>"
              "</coprocs>\n");
    expect("GPU request at 28 days x 2", body, SRQ_OK, NULL);
    free(body);
    body = mk("<coprocs><coproc><type>CPU</type><count>1</count></coproc></coprocs>\n");
    expect("coproc type CPU refused", body, SRQ_ERR_XML, "\"CPU\" is reserved");
    free(body);
    body = mk("<work_req_seconds>4838400.1</work_req_seconds>\n");
    expect("legacy work_req_seconds over 28 days x 1", body, SRQ_ERR_NUMBER, "<work_req_seconds>");
    free(body);
    body = mk("<app_versions><app_version><app_name>a</app_name></app_version></app_versions>"
              "<other_results><other_result><name>o</name><app_version>0</app_version>"
              "</other_result><other_result><name>p</name></other_result></other_results>\n");
    rc = parse_s(body, &r, err, sizeof err);
    TAP_EQ_INT(rc, SRQ_OK, "other_result index 0 of 1 accepted");
    if (rc == SRQ_OK)
        TAP_EQ_INT(r.other_results[1].app_version, -1, "absent app_version index is -1");
    sched_request_free(&r);
    free(body);
    body = mk("<app_versions/><app_versions/>\n");
    expect("duplicate <app_versions> refused", body, SRQ_ERR_XML, "duplicate <app_versions>");
    free(body);
    body = mk("<app_versions><app_version><app_name>a</app_name><coproc><type>NVIDIA</type>"
              "</coproc><coproc><type>ATI</type></coproc></app_version></app_versions>\n");
    expect("two <coproc> in one app version refused", body, SRQ_ERR_XML, "duplicate <coproc>");
    free(body);
}

/* API details: errlen handling, strerror, init twice, validate alone. */
/* The client 7.20 sends a negative time_remaining for a job that has
 * outrun its estimate: accepted (the handler counts it as 0). */
static void test_negative_time_remaining(void)
{
    expect("negative time_remaining accepted",
           HEAD "<in_progress_results>\n<ip_result><name>e2e1_0000018_0</name>"
                "<report_deadline>1795246310</report_deadline><time_remaining>-1.00"
                "</time_remaining></ip_result>\n</in_progress_results>\n" TAIL,
           SRQ_OK, NULL);
    expect("huge negative time_remaining refused",
           HEAD "<in_progress_results>\n<ip_result><name>x</name>"
                "<report_deadline>1795246310</report_deadline><time_remaining>-1e300"
                "</time_remaining></ip_result>\n</in_progress_results>\n" TAIL,
           SRQ_ERR_NUMBER, "time_remaining");
}

static void test_api(void)
{
    struct sched_request r;
    char small[16];
    const char *bad = "<scheduler_reply/>";

    sched_request_init();        /* a second call is harmless */
    memset(small, 'x', sizeof small);
    int rc = sched_request_parse(bad, strlen(bad), &r, small, sizeof small);
    TAP_EQ_INT(rc, SRQ_ERR_XML, "small err buffer: code");
    TAP_CHECK(memchr(small, '\0', sizeof small) != NULL, "small err buffer: NUL-terminated");
    rc = sched_request_parse(bad, strlen(bad), &r, NULL, 0);
    TAP_EQ_INT(rc, SRQ_ERR_XML, "NULL err buffer accepted");
    rc = sched_request_parse(NULL, 0, &r, small, sizeof small);
    TAP_EQ_INT(rc, SRQ_ERR_XML, "NULL body is an empty body");
    rc = sched_request_parse("x", (size_t)LIM_REQUEST_BYTES + 1, &r, small, sizeof small);
    TAP_EQ_INT(rc, SRQ_ERR_TOO_BIG, "size checked before reading the body");

    TAP_EQ_STR(sched_request_strerror(SRQ_OK), "ok", "strerror ok");
    TAP_EQ_STR(sched_request_strerror(SRQ_ERR_LIMIT), "over a limit", "strerror limit");
    TAP_EQ_STR(sched_request_strerror(-99), "unknown error", "strerror unknown");

    /* validate on a hand-built request */
    memset(&r, 0, sizeof r);
    char err[256];
    TAP_EQ_INT(sched_request_validate(&r, err, sizeof err), SRQ_ERR_MISSING,
               "validate: empty request misses the authenticator");
    snprintf(r.authenticator, sizeof r.authenticator, "k");
    snprintf(r.platform_name, sizeof r.platform_name, "p");
    r.p_ncpus = 4;
    r.cpu_req_secs = 4 * LIM_REQ_SECS_PER_INSTANCE;
    r.ncoprocs = 1;
    snprintf(r.coprocs[0].type, sizeof r.coprocs[0].type, "NVIDIA");
    r.coprocs[0].count = 3;
    r.coprocs[0].req_secs = 3 * LIM_REQ_SECS_PER_INSTANCE;
    TAP_EQ_INT(sched_request_validate(&r, err, sizeof err), SRQ_OK, "validate: at the limits");
    r.coprocs[0].req_secs = nextafter(r.coprocs[0].req_secs, 1e300);
    TAP_EQ_INT(sched_request_validate(&r, err, sizeof err), SRQ_ERR_NUMBER,
               "validate: one ulp over for the GPU");
    r.coprocs[0].req_secs = 0;
    r.cpu_req_secs = NAN;
    TAP_EQ_INT(sched_request_validate(&r, err, sizeof err), SRQ_ERR_NUMBER,
               "validate: NaN request refused");
}

/* Numbers and the dump must not depend on the process locale (a decimal
 * comma would otherwise break "0.5" and the golden text). */
static void test_locale(void)
{
    static const char *const names[] = { "de_DE.UTF-8", "de_DE.utf8", "fr_FR.UTF-8",
                                         "fr_FR.utf8" };
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++) {
        if (!setlocale(LC_NUMERIC, names[i]))
            continue;
        char path[2048], err[256];
        size_t len = 0, elen = 0;
        struct sched_request r;
        snprintf(path, sizeof path, "%s/recorded/05-report-success-and-compute-error.xml",
                 corpus);
        char *body = buf_read_file(path, &len);
        snprintf(path, sizeof path, "%s/recorded/expected/05-report-success-and-compute-error.txt",
                 corpus);
        char *want = buf_read_file(path, &elen);
        int rc = body ? parse(body, len, &r, err, sizeof err) : -99;
        TAP_EQ_INT(rc, SRQ_OK, "locale %s: 05 parses", names[i]);
        if (rc == SRQ_OK && want) {
            char *got = dump_string(&r);
            if (got)
                check_dump("05-report-success-and-compute-error", got, want);
            free(got);
        }
        sched_request_free(&r);
        free(body);
        free(want);
        setlocale(LC_NUMERIC, "C");
        return;
    }
    printf("# no decimal-comma locale installed: locale test skipped\n");
}

/* ------------------------------------------------------------------ */
/* 4. Timing                                                            */

static void bench(const char *name)
{
    char path[2048], err[256];
    size_t len = 0;
    snprintf(path, sizeof path, "%s/recorded/%s.xml", corpus, name);
    char *body = buf_read_file(path, &len);
    if (!body)
        return;
    const char *it = getenv("SRQ_BENCH_ITERS");
    int iters = it ? atoi(it) : 1000;
    if (iters < 1)
        iters = 1;
    struct sched_request r;
    int fails = 0;
    struct timespec t0, t1;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    for (int i = 0; i < iters; i++) {
        fails += sched_request_parse(body, len, &r, err, sizeof err) != SRQ_OK;
        sched_request_free(&r);
    }
    clock_gettime(CLOCK_MONOTONIC, &t1);
    double us = ((double)(t1.tv_sec - t0.tv_sec) * 1e6 + (double)(t1.tv_nsec - t0.tv_nsec) / 1e3)
                / iters;
    TAP_EQ_INT(fails, 0, "timing %s: every parse succeeded", name);
    printf("# parse of %s (%zu bytes): %.1f us per parse (%d parses)\n", name, len, us, iters);
    free(body);
}

int main(int argc, char **argv)
{
    write_expected = argc > 1 && strcmp(argv[1], "--write-expected") == 0;
    setvbuf(stdout, NULL, _IOLBF, 0);
    sched_request_init();
    if (!TAP_CHECK(find_corpus() == 0, "corpus found (srcdir=%s)",
                   getenv("srcdir") ? getenv("srcdir") : "(unset)"))
        return tap_done();

    test_golden();
    test_facts();
    test_malformed();
    test_caps();
    test_size_limits();
    test_numbers();
    test_content();
    test_negative_time_remaining();
    test_api();
    test_locale();
    bench("02-hostid-assigned-work-request");
    bench("04-report-success-no-work");

    for (int i = 0; i < NGOLDEN; i++)
        sched_request_free(&greq[i]);
    return tap_done();
}
