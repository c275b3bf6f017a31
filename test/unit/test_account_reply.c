/*
 * test_account_reply.c - tests of the account web RPC replies
 * (account_reply.h): the exact XML of an error, of an authenticator and
 * of a project config, and the escaping of hostile text in each.
 */
#include <stdio.h>
#include <string.h>

#include "account_reply.h"
#include "tap.h"

/* The buffer's text (NUL-terminated once anything was written). */
static const char *text(const struct buf *b)
{
    return b->len ? b->p : "";
}

int main(void)
{
    struct buf b;
    const char *plats[2] = {"x86_64-pc-linux-gnu", "i686-pc-linux-gnu"};
    struct project_config_info p;

    buf_init(&b);
    account_reply_error(&b, -206, "wrong password");
    TAP_EQ_STR(text(&b), "<error>\n    <error_num>-206</error_num>\n"
               "    <error_msg>wrong password</error_msg>\n</error>\n", "error reply");
    buf_reset(&b);
    account_reply_error(&b, -205, "bad <email> & \"more\"");
    TAP_CHECK(strstr(text(&b), "bad &lt;email&gt; &amp; &quot;more&quot;") != NULL,
              "error message escaped");
    buf_reset(&b);
    account_reply_error(&b, -1, NULL);
    TAP_CHECK(strstr(text(&b), "<error_msg></error_msg>") != NULL, "no message: empty element");

    buf_reset(&b);
    account_reply_authenticator(&b, "0123abcd");
    TAP_EQ_STR(text(&b), "<account_out>\n    <authenticator>0123abcd</authenticator>\n"
               "</account_out>\n", "authenticator reply");

    memset(&p, 0, sizeof p);
    p.name = "Test & Co";
    p.master_url = "http://127.0.0.1:8080/";
    p.min_passwd_length = 6;
    buf_reset(&b);
    account_reply_project_config(&b, &p);
    TAP_EQ_STR(text(&b), "<project_config>\n    <name>Test &amp; Co</name>\n"
               "    <master_url>http://127.0.0.1:8080/</master_url>\n"
               "    <web_rpc_url_base>http://127.0.0.1:8080/</web_rpc_url_base>\n"
               "    <min_passwd_length>6</min_passwd_length>\n</project_config>\n",
               "open project config, nothing optional");
    p.creation_disabled = 1;
    p.sched_stopped = 1;
    p.min_client_version = 72000;
    p.terms_of_use = "Be <nice>";
    p.platforms = plats;
    p.n_platforms = 2;
    buf_reset(&b);
    account_reply_project_config(&b, &p);
    TAP_CHECK(strstr(text(&b), "    <account_creation_disabled/>\n") != NULL, "creation disabled");
    TAP_CHECK(strstr(text(&b), "    <sched_stopped/>\n") != NULL, "stopped");
    TAP_CHECK(strstr(text(&b), "<min_client_version>72000</min_client_version>") != NULL,
              "min client version");
    TAP_CHECK(strstr(text(&b), "<terms_of_use>Be &lt;nice&gt;</terms_of_use>") != NULL,
              "terms escaped");
    TAP_CHECK(strstr(text(&b), "<platform_name>x86_64-pc-linux-gnu</platform_name>") != NULL &&
              strstr(text(&b), "<platform_name>i686-pc-linux-gnu</platform_name>") != NULL,
              "both platforms");
    TAP_CHECK(!b.oom, "no allocation failure");
    buf_free(&b);
    return tap_done();
}
