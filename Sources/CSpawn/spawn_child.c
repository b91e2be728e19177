#define _GNU_SOURCE
#include "spawn_child.h"

#include <fcntl.h>
#include <spawn.h>

// posix_spawn with the closing of inherited descriptors done by the C library
// (posix_spawn_file_actions_addclosefrom_np, glibc 2.34): Foundation's Process.run finds the
// highest descriptor by reading /proc/self/fd, and on Linux that read copies 256 bytes past
// short directory records, which crashes now and then (swift-corelibs-foundation #5472).
int openmarket_spawn(pid_t *pid, const char *path, char *const argv[], char *const envp[], const char *directory,
                     int in_fd, int out_fd, int err_fd) {
    posix_spawn_file_actions_t actions;
    posix_spawnattr_t attributes;
    int result = posix_spawn_file_actions_init(&actions);
    if (result != 0) return result;
    result = posix_spawnattr_init(&attributes);
    if (result != 0) { posix_spawn_file_actions_destroy(&actions); return result; }
    const int given[3] = { in_fd, out_fd, err_fd };
    for (int target = 0; target < 3 && result == 0; target++) {
        if (given[target] >= 0) {
            result = posix_spawn_file_actions_adddup2(&actions, given[target], target);
        } else {
            result = posix_spawn_file_actions_addopen(&actions, target, "/dev/null", target == 0 ? O_RDONLY : O_WRONLY, 0);
        }
    }
    if (result == 0 && directory != NULL) result = posix_spawn_file_actions_addchdir_np(&actions, directory);
    if (result == 0) result = posix_spawn_file_actions_addclosefrom_np(&actions, 3);
    // Its own process group, as Foundation's Process makes it.
    if (result == 0) result = posix_spawnattr_setflags(&attributes, POSIX_SPAWN_SETPGROUP);
    if (result == 0) result = posix_spawnattr_setpgroup(&attributes, 0);
    if (result == 0) result = posix_spawn(pid, path, &actions, &attributes, argv, envp);
    posix_spawnattr_destroy(&attributes);
    posix_spawn_file_actions_destroy(&actions);
    return result;
}
