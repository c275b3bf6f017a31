/*
 * create_account.c - create a volunteer account and print its
 * authenticator (the account key given to `boinccmd --project_attach`).
 * With --passwd-hash the volunteer can also find the key with a password
 * (lookup_account, doc/protocol.md).
 */
#include <ctype.h>
#include <openssl/sha.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "db_account.h"
#include "random_hex.h"
#include "tool_common.h"

static void usage(FILE *out)
{
    fprintf(out,
            "usage: create_account [--config FILE] --name NAME --email EMAIL [--authenticator KEY]\n"
            "                      [--passwd-hash HASH]\n"
            "\n"
            "Creates an account and prints its authenticator (account key) on standard output.\n"
            "Without --authenticator a random 32-hex-digit key is made.  The email address is\n"
            "stored lower-cased.  --passwd-hash sets BOINC's password hash, the md5 of the\n"
            "password followed by the lower-cased email (32 hex digits), so that the volunteer\n"
            "can get the key with the password (boinccmd --lookup_account); for example\n"
            "  printf %%s \"$PASSWORD$EMAIL\" | md5sum\n");
}

int main(int argc, char **argv)
{
    const char *config = NULL, *name = NULL, *email = NULL, *auth = NULL, *phash = "";
    char key[65], lemail[256], lhash[33];
    unsigned char hash[32];
    struct config cfg;
    struct db_conn *db;
    int i, id = 0, r;

    for (i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--config") == 0 && i + 1 < argc)
            config = argv[++i];
        else if (strcmp(argv[i], "--name") == 0 && i + 1 < argc)
            name = argv[++i];
        else if (strcmp(argv[i], "--email") == 0 && i + 1 < argc)
            email = argv[++i];
        else if (strcmp(argv[i], "--authenticator") == 0 && i + 1 < argc)
            auth = argv[++i];
        else if (strcmp(argv[i], "--passwd-hash") == 0 && i + 1 < argc)
            phash = argv[++i];
        else if (strcmp(argv[i], "--help") == 0) {
            usage(stdout);
            return 0;
        } else {
            fprintf(stderr, "create_account: unknown or incomplete argument '%s'\n", argv[i]);
            usage(stderr);
            return 2;
        }
    }
    if (!name || !email) {
        usage(stderr);
        return 2;
    }
    if (strlen(email) >= sizeof lemail) {
        fprintf(stderr, "create_account: an email address has at most %zu characters\n",
                sizeof lemail - 1);
        return 2;
    }
    for (i = 0; email[i]; i++)
        lemail[i] = (char)tolower((unsigned char)email[i]);
    lemail[i] = '\0';
    if (phash[0]) {
        if (strlen(phash) != 32 || strspn(phash, "0123456789abcdefABCDEF") != 32) {
            fprintf(stderr, "create_account: --passwd-hash must be 32 hex digits (an md5)\n");
            return 2;
        }
        for (i = 0; i < 32; i++)
            lhash[i] = (char)tolower((unsigned char)phash[i]);
        lhash[32] = '\0';
        phash = lhash;
    }
    if (auth) {
        size_t n = strlen(auth);
        if (n < 16 || n > 64) {
            fprintf(stderr, "create_account: an authenticator must have 16 to 64 characters\n");
            return 2;
        }
        snprintf(key, sizeof key, "%s", auth);
    } else if (random_hex(key, 16) < 0) {
        fprintf(stderr, "create_account: no random bytes available\n");
        return 1;
    }
    SHA256((const unsigned char *)key, strlen(key), hash);
    if (tool_open("create_account", config, &cfg, &db) < 0)
        return 1;
    r = db_account_create(db, name, lemail, key, hash, phash, (int)time(NULL), &id);
    if (r == DB_OK)
        r = db_commit(db);
    if (r != DB_OK) {
        fprintf(stderr, "create_account: %s\n",
                r == DB_DUP ? "an account with that email or key exists already" : db_error(db));
        db_close(db);
        return 1;
    }
    db_close(db);
    printf("%s\n", key);
    fprintf(stderr, "create_account: [user#%d] %s <%s> created%s\n", id, name, lemail,
            phash[0] ? " with a password" : "");
    return 0;
}
