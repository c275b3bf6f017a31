/*
 * assimilate_io.h - the file and process work of the assimilator and the
 * file deleter: copying an output into a results folder through a
 * temporary name and a rename (so a copy is whole or absent), writing a
 * small record the same way, checking an output against its size cap,
 * running the administrator's command under a time limit, and deleting a
 * file where a missing file is not an error.
 *
 * Return codes tell whose fault a failure is: AIO_BAD_INPUT (the output
 * is missing, unreadable, not a regular file or over its cap: the result
 * is bad, trying again will not help), AIO_FAIL (our side: the results
 * folder, the disk, the command; worth trying again later).  err gets a
 * message with the path and the reason.
 */
#ifndef LOCSCHED_ASSIMILATE_IO_H
#define LOCSCHED_ASSIMILATE_IO_H

#include <stddef.h>

enum { AIO_OK = 0, AIO_BAD_INPUT = -1, AIO_FAIL = -2, AIO_MISSING = -3 };

/* Make dir and its parents (mode 0755) if absent. */
int aio_mkdirs(const char *dir, char *err, size_t errlen);

/* Check that path is a readable regular file of at most cap bytes. */
int aio_check_output(const char *path, double cap, char *err, size_t errlen);

/*
 * Copy src (a regular file of at most cap bytes, opened without following
 * a symbolic link) to dir/name: written to dir/.name.tmp, flushed to
 * disk, renamed over dir/name, and the folder flushed.  Copying again
 * replaces the copy: never two copies, never half of one.
 */
int aio_copy(const char *src, double cap, const char *dir, const char *name, char *err,
             size_t errlen);

/* Write text to dir/name the same way (temporary name, flush, rename). */
int aio_write_file(const char *dir, const char *name, const char *text, char *err,
                   size_t errlen);

/*
 * Run argv[0] (searched in PATH) with argv, standard input /dev/null, in
 * its own process group; after timeout seconds the group is killed
 * (SIGKILL).  AIO_OK if it exited with status 0, else AIO_FAIL with what
 * happened (exit status N, killed by signal N, timed out) in err.
 */
int aio_run(char *const *argv, int timeout, char *err, size_t errlen);

/* Delete dir/name: AIO_OK, AIO_MISSING if it was not there, AIO_FAIL. */
int aio_unlink(const char *dir, const char *name, char *err, size_t errlen);

#endif
