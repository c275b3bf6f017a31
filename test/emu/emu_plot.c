/*
 * emu_plot.c - data files and gnuplot plots (emu_plot.h).
 */
#include "emu_plot.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

FILE *emu_data_open(const char *dir, const char *name)
{
    char path[2048];
    FILE *f;
    mkdir(dir, 0755);
    snprintf(path, sizeof path, "%s/%s.dat", dir, name);
    f = fopen(path, "w");
    if (!f)
        fprintf(stderr, "emu: cannot write %s: %s\n", path, strerror(errno));
    return f;
}

int emu_plot(const char *dir, const char *name, const char *script)
{
    char path[2048], gp[300];
    FILE *f;
    pid_t pid;
    int status;

    snprintf(gp, sizeof gp, "%s.gp", name);
    snprintf(path, sizeof path, "%s/%s", dir, gp);
    f = fopen(path, "w");
    if (!f) {
        fprintf(stderr, "emu: cannot write %s: %s\n", path, strerror(errno));
        return -1;
    }
    fputs(script, f);
    if (fclose(f) != 0)
        return -1;
    fflush(stdout);
    fflush(stderr);
    pid = fork();
    if (pid < 0)
        return -1;
    if (pid == 0) {
        if (chdir(dir) < 0)
            _exit(126);
        execlp("gnuplot", "gnuplot", gp, (char *)NULL);
        _exit(127);
    }
    while (waitpid(pid, &status, 0) < 0)
        if (errno != EINTR)
            return -1;
    if (WIFEXITED(status) && WEXITSTATUS(status) == 127) {
        fprintf(stderr, "emu: gnuplot not found (Debian package gnuplot-nox): no plot for %s\n",
                name);
        return -1;
    }
    if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
        fprintf(stderr, "emu: gnuplot failed on %s\n", path);
        return -1;
    }
    printf("plot: %s/%s.svg\n", dir, name);
    return 0;
}
