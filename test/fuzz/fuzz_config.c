/*
 * fuzz_config.c - libFuzzer target of the configuration parser
 * (sched/common/config.h, config_parse: text in memory).
 *
 * Each input is parsed against three folders: none, a short one and one
 * near CONFIG_STR_MAX (so that relative paths can overflow it).  On
 * success every string is terminated, the policy is ws1 or ws2 and the
 * team sizes are ordered; on failure the message names the file.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "config.h"
#include "fuzz_check.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void parse_and_check(const char *text, size_t len, const char *dir)
{
    static struct config cfg;
    char err[512];

    memset(err, 'x', sizeof err);
    if (config_parse(&cfg, text, len, "fuzz.conf", dir, err, sizeof err) < 0) {
        FUZZ_CHECK(FUZZ_TERMINATED(err) && strncmp(err, "fuzz.conf:", 10) == 0);
        return;
    }
    FUZZ_CHECK(FUZZ_TERMINATED(cfg.config_dir) && FUZZ_TERMINATED(cfg.project_name) &&
               FUZZ_TERMINATED(cfg.master_url) && FUZZ_TERMINATED(cfg.download_url) &&
               FUZZ_TERMINATED(cfg.upload_url) && FUZZ_TERMINATED(cfg.download_dir) &&
               FUZZ_TERMINATED(cfg.upload_dir) && FUZZ_TERMINATED(cfg.log_dir) &&
               FUZZ_TERMINATED(cfg.key_dir) && FUZZ_TERMINATED(cfg.record_dir) &&
               FUZZ_TERMINATED(cfg.db_name) && FUZZ_TERMINATED(cfg.db_user) &&
               FUZZ_TERMINATED(cfg.db_password) && FUZZ_TERMINATED(cfg.db_host) &&
               FUZZ_TERMINATED(cfg.db_socket));
    FUZZ_CHECK(cfg.sched_policy == POLICY_WS1 || cfg.sched_policy == POLICY_WS2);
    FUZZ_CHECK(cfg.team_size_min >= 1 && cfg.team_size_min <= cfg.team_size_max);
    FUZZ_CHECK(cfg.record_requests == 0 || cfg.record_requests == 1);
    FUZZ_CHECK(cfg.move_ratio > 0 && cfg.move_ratio <= 1 && cfg.credit_half_life > 0);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static char long_dir[CONFIG_STR_MAX - 8];
    char *text = malloc(size ? size : 1);

    if (!text)
        return 0;
    if (!long_dir[0])
        memset(long_dir, 'd', sizeof long_dir - 1);
    memcpy(text, data, size);           /* exact size: ASan sees any over-read */
    parse_and_check(text, size, "");
    parse_and_check(text, size, "project");
    parse_and_check(text, size, long_dir);
    free(text);
    return 0;
}
