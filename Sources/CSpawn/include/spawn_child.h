#ifndef OPENMARKET_SPAWN_CHILD_H
#define OPENMARKET_SPAWN_CHILD_H

#include <sys/types.h>

/// Starts `path` with `argv` and `envp` (NULL-terminated) in its own process group, in
/// `directory` (NULL: this one), with `in_fd`, `out_fd`, `err_fd` as its standard input, output
/// and error (-1: /dev/null), and every other descriptor closed. 0, or the error number.
int openmarket_spawn(pid_t *pid, const char *path, char *const argv[], char *const envp[], const char *directory,
                     int in_fd, int out_fd, int err_fd);

#endif
