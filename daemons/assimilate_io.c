/*
 * assimilate_io.c - files and processes for the assimilator and the file
 * deleter (assimilate_io.h).
 */
#include "assimilate_io.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

int aio_mkdirs(const char *dir, char *err, size_t errlen)
{
    char buf[4096];
    size_t i, n = strlen(dir);

    if (n == 0 || n >= sizeof buf) {
        snprintf(err, errlen, "folder name empty or too long");
        return AIO_FAIL;
    }
    memcpy(buf, dir, n + 1);
    for (i = 1; i <= n; i++) {
        if (buf[i] != '/' && buf[i] != '\0')
            continue;
        buf[i] = '\0';
        if (mkdir(buf, 0755) != 0 && errno != EEXIST) {
            snprintf(err, errlen, "cannot make folder %s: %s", buf, strerror(errno));
            return AIO_FAIL;
        }
        buf[i] = dir[i];
    }
    return AIO_OK;
}

/* Open an output for reading and check it; returns the descriptor or a
 * negative AIO code. */
static int open_output(const char *path, double cap, off_t *size, char *err, size_t errlen)
{
    struct stat st;
    int fd = open(path, O_RDONLY | O_NOFOLLOW | O_CLOEXEC | O_NONBLOCK);
    if (fd < 0) {
        snprintf(err, errlen, "output %s %s: %s", path,
                 errno == ENOENT ? "is missing" : "cannot be opened", strerror(errno));
        return AIO_BAD_INPUT;
    }
    if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
        snprintf(err, errlen, "output %s is not a regular file", path);
        close(fd);
        return AIO_BAD_INPUT;
    }
    if ((double)st.st_size > cap) {
        snprintf(err, errlen, "output %s has %lld bytes, over its cap of %.0f", path,
                 (long long)st.st_size, cap);
        close(fd);
        return AIO_BAD_INPUT;
    }
    *size = st.st_size;
    return fd;
}

int aio_check_output(const char *path, double cap, char *err, size_t errlen)
{
    off_t size;
    int fd = open_output(path, cap, &size, err, errlen);
    if (fd < 0)
        return fd;
    close(fd);
    return AIO_OK;
}

/* Flush a folder's entries to disk (after a rename). */
static void sync_dir(const char *dir)
{
    int fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (fd >= 0) {
        fsync(fd);
        close(fd);
    }
}

static int tmp_and_final(const char *dir, const char *name, char *tmp, char *fin, size_t len,
                         char *err, size_t errlen)
{
    int a = snprintf(tmp, len, "%s/.%s.tmp", dir, name);
    int b = snprintf(fin, len, "%s/%s", dir, name);
    if (a < 0 || b < 0 || (size_t)a >= len || (size_t)b >= len) {
        snprintf(err, errlen, "path in %s too long", dir);
        return AIO_FAIL;
    }
    return AIO_OK;
}

/* Finish a temporary file: flush, close, rename, flush the folder. */
static int publish(int fd, const char *tmp, const char *fin, const char *dir, char *err,
                   size_t errlen)
{
    if (fsync(fd) != 0) {
        snprintf(err, errlen, "cannot flush %s: %s", tmp, strerror(errno));
        close(fd);
        unlink(tmp);
        return AIO_FAIL;
    }
    if (close(fd) != 0 || rename(tmp, fin) != 0) {
        snprintf(err, errlen, "cannot write %s: %s", fin, strerror(errno));
        unlink(tmp);
        return AIO_FAIL;
    }
    sync_dir(dir);
    return AIO_OK;
}

int aio_copy(const char *src, double cap, const char *dir, const char *name, char *err,
             size_t errlen)
{
    char tmp[4200], fin[4200], buf[65536];
    off_t size, done = 0;
    int in, out, r;

    if ((r = tmp_and_final(dir, name, tmp, fin, sizeof tmp, err, errlen)) != AIO_OK)
        return r;
    in = open_output(src, cap, &size, err, errlen);
    if (in < 0)
        return in;
    out = open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_NOFOLLOW | O_CLOEXEC, 0644);
    if (out < 0) {
        snprintf(err, errlen, "cannot create %s: %s", tmp, strerror(errno));
        close(in);
        return AIO_FAIL;
    }
    for (;;) {
        ssize_t got = read(in, buf, sizeof buf), put = 0;
        if (got < 0 && errno == EINTR)
            continue;
        if (got < 0) {
            snprintf(err, errlen, "cannot read output %s: %s", src, strerror(errno));
            close(in);
            close(out);
            unlink(tmp);
            return AIO_BAD_INPUT;
        }
        if (got == 0)
            break;
        done += got;
        if ((double)done > cap) {   /* it grew since we looked */
            snprintf(err, errlen, "output %s grew over its cap of %.0f bytes", src, cap);
            close(in);
            close(out);
            unlink(tmp);
            return AIO_BAD_INPUT;
        }
        while (put < got) {
            ssize_t w = write(out, buf + put, (size_t)(got - put));
            if (w < 0 && errno == EINTR)
                continue;
            if (w < 0) {
                snprintf(err, errlen, "cannot write %s: %s", tmp, strerror(errno));
                close(in);
                close(out);
                unlink(tmp);
                return AIO_FAIL;
            }
            put += w;
        }
    }
    close(in);
    return publish(out, tmp, fin, dir, err, errlen);
}

int aio_write_file(const char *dir, const char *name, const char *text, char *err,
                   size_t errlen)
{
    char tmp[4200], fin[4200];
    size_t len = strlen(text), put = 0;
    int fd, r;

    if ((r = tmp_and_final(dir, name, tmp, fin, sizeof tmp, err, errlen)) != AIO_OK)
        return r;
    fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_NOFOLLOW | O_CLOEXEC, 0644);
    if (fd < 0) {
        snprintf(err, errlen, "cannot create %s: %s", tmp, strerror(errno));
        return AIO_FAIL;
    }
    while (put < len) {
        ssize_t w = write(fd, text + put, len - put);
        if (w < 0 && errno == EINTR)
            continue;
        if (w < 0) {
            snprintf(err, errlen, "cannot write %s: %s", tmp, strerror(errno));
            close(fd);
            unlink(tmp);
            return AIO_FAIL;
        }
        put += (size_t)w;
    }
    return publish(fd, tmp, fin, dir, err, errlen);
}

int aio_run(char *const *argv, int timeout, char *err, size_t errlen)
{
    struct timespec start, now, nap = { 0, 20 * 1000 * 1000 };
    int st;
    pid_t pid, w;

    fflush(NULL);
    pid = fork();
    if (pid < 0) {
        snprintf(err, errlen, "cannot start %s: %s", argv[0], strerror(errno));
        return AIO_FAIL;
    }
    if (pid == 0) {
        int null = open("/dev/null", O_RDONLY);
        setpgid(0, 0);
        if (null >= 0) {
            dup2(null, 0);
            close(null);
        }
        for (int fd = 3; fd < 1024; fd++)
            close(fd);               /* not the daemon's database socket or log */
        signal(SIGPIPE, SIG_DFL);
        execvp(argv[0], argv);
        fprintf(stderr, "cannot run %s: %s\n", argv[0], strerror(errno));
        _exit(127);
    }
    setpgid(pid, pid);   /* also here, so the kill below cannot miss the group */
    clock_gettime(CLOCK_MONOTONIC, &start);
    for (;;) {
        w = waitpid(pid, &st, WNOHANG);
        if (w == pid)
            break;
        if (w < 0 && errno != EINTR) {
            snprintf(err, errlen, "cannot wait for %s: %s", argv[0], strerror(errno));
            return AIO_FAIL;
        }
        clock_gettime(CLOCK_MONOTONIC, &now);
        if (now.tv_sec - start.tv_sec >= timeout) {
            kill(-pid, SIGKILL);
            kill(pid, SIGKILL);
            while (waitpid(pid, &st, 0) < 0 && errno == EINTR)
                ;
            snprintf(err, errlen, "%s timed out after %d s and was killed", argv[0], timeout);
            return AIO_FAIL;
        }
        nanosleep(&nap, NULL);
    }
    kill(-pid, SIGKILL);    /* whatever it left running in its group */
    if (WIFEXITED(st) && WEXITSTATUS(st) == 0)
        return AIO_OK;
    if (WIFEXITED(st))
        snprintf(err, errlen, "%s exited with status %d", argv[0], WEXITSTATUS(st));
    else if (WIFSIGNALED(st))
        snprintf(err, errlen, "%s was killed by signal %d", argv[0], WTERMSIG(st));
    else
        snprintf(err, errlen, "%s ended abnormally", argv[0]);
    return AIO_FAIL;
}

int aio_unlink(const char *dir, const char *name, char *err, size_t errlen)
{
    char path[4200];
    int n = snprintf(path, sizeof path, "%s/%s", dir, name);
    if (n < 0 || (size_t)n >= sizeof path) {
        snprintf(err, errlen, "path in %s too long", dir);
        return AIO_FAIL;
    }
    if (unlink(path) == 0)
        return AIO_OK;
    if (errno == ENOENT)
        return AIO_MISSING;
    snprintf(err, errlen, "cannot delete %s: %s", path, strerror(errno));
    return AIO_FAIL;
}
