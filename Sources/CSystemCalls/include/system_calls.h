#ifndef DARKROOM_SYSTEM_CALLS_H
#define DARKROOM_SYSTEM_CALLS_H

// System calls the C library has no wrapper for. glibc 2.36 does not wrap openat2(2)
// (Linux 5.6), so darkroom calls it by number; Swift cannot call the variadic syscall(2).

#include <stdint.h>

// RESOLVE_* as <linux/openat2.h> defines them, for Swift (which cannot import the macros of a
// header that is not on every system).
#define DR_RESOLVE_NO_SYMLINKS 0x04
#define DR_RESOLVE_BENEATH 0x08

// openat2(2): `path` resolved from `folder` as `resolve` allows (DR_RESOLVE_*). Returns the
// new descriptor, or -1 with errno set; ENOSYS where the kernel (or a seccomp filter) has no
// openat2, and on systems other than Linux.
int dr_openat2(int folder, const char *path, uint64_t flags, uint64_t mode, uint64_t resolve);

// An unnamed scratch file in `folder` (open(2) with O_TMPFILE | O_RDWR | O_CLOEXEC, mode 0600):
// it never has a name, so nothing is left behind and nothing else can open it; it is also the
// only file the decoders' sandbox may create. -1 with errno (EOPNOTSUPP where the file system
// has no O_TMPFILE).
int dr_open_scratch(const char *folder);

#endif
