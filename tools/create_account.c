/*
 * create_account.c - create a volunteer account and print its
 * authenticator (the account key given to `boinccmd --project_attach`).
 */
#include <openssl/sha.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "db_admin.h"
#include "tool_common.h"

static void usage(FILE *out)
{
    fprintf(out,
            "usage: create_account [--config FILE] --name NAME --email EMAIL [--authenticator KEY]\n"
            "\n"
            "Creates an account and prints its authenticator (account key) on standard output.\n"
            "Without --authenticator a random 32-hex-digit key is made.\n");
}

int main(int argc, char **argv)
{
    const char *config = NULL, *name = NULL, *email = NULL, *auth = NULL;
    char key[65];
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
    if (auth) {
        size_t n = strlen(auth);
        if (n < 16 || n > 64) {
            fprintf(stderr, "create_account: an authenticator must have 16 to 64 characters\n");
            return 2;
        }
        snprintf(key, sizeof key, "%s", auth);
    } else if (tool_random_hex(key, 16) < 0) {
        fprintf(stderr, "create_account: no random bytes available\n");
        return 1;
    }
    SHA256((const unsigned char *)key, strlen(key), hash);
    if (tool_open("create_account", config, &cfg, &db) < 0)
        return 1;
    r = db_user_create(db, name, email, key, hash, (int)time(NULL), &id);
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
    fprintf(stderr, "create_account: [user#%d] %s <%s> created\n", id, name, email);
    return 0;
}
