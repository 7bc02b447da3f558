#ifndef DARKROOM_SANDBOX_H
#define DARKROOM_SANDBOX_H

// The process boundary around darkroom's decoders: starting a child with nothing of its
// parent's but a channel, and the seccomp filter it puts on itself before it reads a byte.

#include <stdint.h>
#include <sys/types.h>

// The exit status of a child whose filter refused a system call (its SIGSYS handler reports
// the call on descriptor 2 first, as "darkroom-sandbox: system call N\n").
#define DR_SANDBOX_DENIED_STATUS 125

// Where a child finds its input when it was given one: the original it decodes, read-only.
#define DR_SANDBOX_INPUT_DESCRIPTOR 3

// Where a child finds the files it writes, when it was given them: `output_count` descriptors
// from this one on, at most DR_SANDBOX_MAX_OUTPUTS. Each is a temporary file its parent made and
// will publish once the child has ended.
#define DR_SANDBOX_FIRST_OUTPUT_DESCRIPTOR 4
#define DR_SANDBOX_MAX_OUTPUTS 16

// Starts `path` with `argv` and `envp` (nothing inherited) and only these descriptors: 0 is
// `channel`, 1 is /dev/null, 2 is `errors`, DR_SANDBOX_INPUT_DESCRIPTOR is `input` unless it is
// -1, and the `outputs` follow from DR_SANDBOX_FIRST_OUTPUT_DESCRIPTOR; every other descriptor
// is closed and every signal starts at its default, unblocked. Returns 0 and the child's pid, or
// an errno value.
int dr_sandbox_spawn(
    const char *path, char *const argv[], char *const envp[], int channel, int errors, int input, const int *outputs,
    int output_count, pid_t *pid);

// A zygote: a process started once (by dr_sandbox_spawn, so it holds nothing of its parent's),
// its libraries loaded and started, single-threaded, that forks a child per request. A request
// on `control` (a Unix socket) is one byte, the number of outputs, with the descriptors
// (SCM_RIGHTS): the child's channel, its error pipe, its input if it has one, and its outputs.
// The child gets them where dr_sandbox_spawn puts them (1 stays /dev/null), every other
// descriptor closed, and runs `child`, whose return is its exit status. It is forked through a
// short-lived middle process, so it is reparented to the nearest subreaper (the worker,
// dr_sandbox_become_subreaper), which reaps it and sees how it ended as if it had started it.
// The zygote answers each request with the child's pid (4 bytes, -1 if the fork failed) and ends
// when `control` closes (its parent's end closes when the parent dies). Never returns.
void dr_sandbox_zygote(int control, int (*child)(void));

// Asks the zygote on `control` for a child with `channel`, `errors`, `input` (-1: none) and
// `output_count` outputs; returns its pid, or -1 with errno: EPIPE, the zygote was gone and got
// nothing; ECONNRESET, it got the request and ended without an answer (a child may hold
// `channel`: never send it again); EAGAIN, it could not fork; EINVAL, too many outputs.
pid_t dr_sandbox_zygote_fork(int control, int channel, int errors, int input, const int *outputs, int output_count);

// Bounds every file the child `pid` writes to `bytes` (RLIMIT_FSIZE): its outputs and its
// scratch files. A write past it ends the child (SIGXFSZ). 0 or an errno value.
int dr_sandbox_limit_file_size(pid_t pid, uint64_t bytes);

// Makes the calling process the reaper of its descendants' orphans (PR_SET_CHILD_SUBREAPER).
// 0 or an errno value.
int dr_sandbox_become_subreaper(void);

// pipe2(2) with O_CLOEXEC (Swift does not see glibc's GNU declarations). 0 or an errno value.
int dr_sandbox_pipe(int ends[2]);

// Confines the calling process for good: no new privileges, not dumpable, no core files, and
// a seccomp filter on every thread that allows what decoding, encoding and the channel need.
// Opening a file is refused (EACCES) except an unnamed scratch file (O_TMPFILE); any system call
// not on the list stops the process with DR_SANDBOX_DENIED_STATUS. Returns 0 or an errno value.
int dr_sandbox_enter(void);

#endif
