#define _GNU_SOURCE
#include "system_calls.h"

#include <errno.h>
#include <fcntl.h>

#if defined(__linux__)
int dr_open_scratch(const char *folder) { return open(folder, O_TMPFILE | O_RDWR | O_CLOEXEC, 0600); }
#else
int dr_open_scratch(const char *folder) {
    (void)folder;
    errno = EOPNOTSUPP;
    return -1;
}
#endif

#if defined(__linux__)
#include <linux/openat2.h>
#include <sys/syscall.h>
#include <unistd.h>

_Static_assert(DR_RESOLVE_NO_SYMLINKS == RESOLVE_NO_SYMLINKS, "RESOLVE_NO_SYMLINKS");
_Static_assert(DR_RESOLVE_BENEATH == RESOLVE_BENEATH, "RESOLVE_BENEATH");

int dr_openat2(int folder, const char *path, uint64_t flags, uint64_t mode, uint64_t resolve) {
    struct open_how how = {.flags = flags, .mode = mode, .resolve = resolve};
    return (int)syscall(SYS_openat2, folder, path, &how, sizeof how);
}
#else
int dr_openat2(int folder, const char *path, uint64_t flags, uint64_t mode, uint64_t resolve) {
    (void)folder, (void)path, (void)flags, (void)mode, (void)resolve;
    errno = ENOSYS;
    return -1;
}
#endif
