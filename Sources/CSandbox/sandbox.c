#define _GNU_SOURCE
#include "sandbox.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <spawn.h>
#include <stddef.h>
#include <string.h>
#include <unistd.h>

int dr_sandbox_pipe(int ends[2]) { return pipe2(ends, O_CLOEXEC) == 0 ? 0 : errno; }

#if defined(__linux__) && (defined(__x86_64__) || defined(__aarch64__))
#include <linux/audit.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <sched.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/wait.h>

int dr_sandbox_become_subreaper(void) { return prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0) == 0 ? 0 : errno; }

// Reads exactly `length` bytes, retrying on EINTR; 0 on success.
static int read_exactly(int fd, void *buffer, size_t length) {
    size_t done = 0;
    while (done < length) {
        ssize_t got = read(fd, (char *)buffer + done, length - done);
        if (got < 0 && errno == EINTR) continue;
        if (got <= 0) return -1;
        done += (size_t)got;
    }
    return 0;
}

// The most descriptors a child is given: channel, errors, input, outputs.
#define MAX_GIVEN (3 + DR_SANDBOX_MAX_OUTPUTS)
// Above every place a child's descriptor goes: copies made here are never overwritten.
#define ABOVE_PLACES (DR_SANDBOX_FIRST_OUTPUT_DESCRIPTOR + DR_SANDBOX_MAX_OUTPUTS)

// A child's descriptors in the order they are given (channel, errors, the input if any, the
// outputs) and, in `targets`, where each goes: 0, 2, DR_SANDBOX_INPUT_DESCRIPTOR, then from
// DR_SANDBOX_FIRST_OUTPUT_DESCRIPTOR on. Returns their count.
static int given(
    int channel, int errors, int input, const int *outputs, int output_count, int sources[MAX_GIVEN],
    int targets[MAX_GIVEN]) {
    int count = 0;
    sources[count] = channel, targets[count++] = 0;
    sources[count] = errors, targets[count++] = 2;
    if (input >= 0) sources[count] = input, targets[count++] = DR_SANDBOX_INPUT_DESCRIPTOR;
    for (int index = 0; index < output_count; index++)
        sources[count] = outputs[index], targets[count++] = DR_SANDBOX_FIRST_OUTPUT_DESCRIPTOR + index;
    return count;
}

// In a forked child: `sources` moved to their places (copied above every place first, so no
// move overwrites a source still to come), every other descriptor from 3 on closed. 0 or -1.
static int place(const int *sources, const int *targets, int count) {
    int copies[MAX_GIVEN];
    for (int index = 0; index < count; index++)
        if ((copies[index] = fcntl(sources[index], F_DUPFD, ABOVE_PLACES)) < 0) return -1;
    int next = 3;
    for (int index = 0; index < count; index++) {
        if (dup2(copies[index], targets[index]) < 0) return -1;
        if (targets[index] < 3) continue;
        while (next < targets[index]) close(next++);
        next = targets[index] + 1;
    }
    closefrom(next);
    return 0;
}

void dr_sandbox_zygote(int control, int (*child)(void)) {
    // Ends when its parent does: the parent's end of `control` closes with it, kill -9 included.
    // (PR_SET_PDEATHSIG would follow the thread that started it, which may end first.)
    for (;;) {
        unsigned char output_count;
        // The channel, the error pipe, the input of a render of a local file, and its outputs.
        int received[MAX_GIVEN];
        char space[CMSG_SPACE(sizeof received)];
        struct iovec vector = {.iov_base = &output_count, .iov_len = 1};
        struct msghdr message = {
            .msg_iov = &vector, .msg_iovlen = 1, .msg_control = space, .msg_controllen = sizeof space};
        ssize_t got = recvmsg(control, &message, MSG_CMSG_CLOEXEC);
        if (got < 0 && errno == EINTR) continue;
        if (got <= 0) _exit(0);
        struct cmsghdr *header = CMSG_FIRSTHDR(&message);
        pid_t answer = -1;
        size_t count = 0;
        if (header && header->cmsg_level == SOL_SOCKET && header->cmsg_type == SCM_RIGHTS) {
            count = (header->cmsg_len - CMSG_LEN(0)) / sizeof(int);
            if (count > MAX_GIVEN) count = MAX_GIVEN;
            memcpy(received, CMSG_DATA(header), count * sizeof(int));
        }
        // A request cut short, or whose descriptors do not match its count, gets -1.
        size_t expected = 2 + (size_t)output_count;
        if (!(message.msg_flags & MSG_CTRUNC) && output_count <= DR_SANDBOX_MAX_OUTPUTS
            && (count == expected || count == expected + 1)) {
            int sources[MAX_GIVEN], targets[MAX_GIVEN];
            given(received[0], received[1], count > expected ? received[2] : -1, received + count - output_count,
                  output_count, sources, targets);
            int handoff[2];
            if (pipe2(handoff, O_CLOEXEC) == 0) {
                pid_t middle = fork();
                if (middle == 0) {
                    pid_t grandchild = fork();
                    if (grandchild == 0) {
                        // The child: its descriptors in place, nothing else open.
                        if (place(sources, targets, (int)count) != 0) _exit(126);
                        _exit(child());
                    }
                    ssize_t ignored = write(handoff[1], &grandchild, sizeof grandchild);
                    (void)ignored;
                    _exit(0);
                }
                close(handoff[1]);
                if (middle > 0) {
                    // Once the middle process is reaped, its child belongs to the subreaper.
                    if (read_exactly(handoff[0], &answer, sizeof answer) != 0) answer = -1;
                    while (waitpid(middle, NULL, 0) < 0 && errno == EINTR) {}
                }
                close(handoff[0]);
            }
        }
        for (size_t index = 0; index < count; index++) close(received[index]);
        ssize_t sent = send(control, &answer, sizeof answer, MSG_NOSIGNAL);
        if (sent != (ssize_t)sizeof answer) _exit(0);
    }
}

pid_t dr_sandbox_zygote_fork(int control, int channel, int errors, int input, const int *outputs, int output_count) {
    if (output_count < 0 || output_count > DR_SANDBOX_MAX_OUTPUTS) {
        errno = EINVAL;
        return -1;
    }
    int sent_fds[MAX_GIVEN], targets[MAX_GIVEN];
    size_t sent_bytes = (size_t)given(channel, errors, input, outputs, output_count, sent_fds, targets) * sizeof(int);
    char space[CMSG_SPACE(sizeof sent_fds)];
    memset(space, 0, sizeof space);
    unsigned char byte = (unsigned char)output_count;
    struct iovec vector = {.iov_base = &byte, .iov_len = 1};
    struct msghdr message = {
        .msg_iov = &vector, .msg_iovlen = 1, .msg_control = space, .msg_controllen = sizeof space};
    struct cmsghdr *header = CMSG_FIRSTHDR(&message);
    header->cmsg_level = SOL_SOCKET;
    header->cmsg_type = SCM_RIGHTS;
    header->cmsg_len = CMSG_LEN(sent_bytes);
    memcpy(CMSG_DATA(header), sent_fds, sent_bytes);
    message.msg_controllen = CMSG_SPACE(sent_bytes);
    ssize_t sent;
    do {
        sent = sendmsg(control, &message, MSG_NOSIGNAL);
    } while (sent < 0 && errno == EINTR);
    if (sent != 1) {
        errno = EPIPE;
        return -1;
    }
    pid_t pid;
    if (read_exactly(control, &pid, sizeof pid) != 0) {
        // Sent, but unanswered: a child may hold `channel` already.
        errno = ECONNRESET;
        return -1;
    }
    if (pid < 0) errno = EAGAIN;
    return pid;
}

int dr_sandbox_spawn(
    const char *path, char *const argv[], char *const envp[], int channel, int errors, int input, const int *outputs,
    int output_count, pid_t *pid) {
    if (output_count < 0 || output_count > DR_SANDBOX_MAX_OUTPUTS) return EINVAL;
    int sources[MAX_GIVEN], targets[MAX_GIVEN];
    int count = given(channel, errors, input, outputs, output_count, sources, targets);
    // Copies above every place, so no dup2 in the child overwrites a source still to come.
    int copies[MAX_GIVEN];
    int made = 0, status = 0;
    for (; made < count; made++) {
        if ((copies[made] = fcntl(sources[made], F_DUPFD_CLOEXEC, ABOVE_PLACES)) < 0) {
            status = errno;
            break;
        }
    }
    posix_spawn_file_actions_t actions;
    posix_spawnattr_t attributes;
    if (status == 0 && (status = posix_spawn_file_actions_init(&actions)) == 0) {
        if ((status = posix_spawnattr_init(&attributes)) == 0) {
            status = posix_spawn_file_actions_addopen(&actions, 1, "/dev/null", O_WRONLY, 0);
            int next = 3;
            for (int index = 0; status == 0 && index < count; index++) {
                status = posix_spawn_file_actions_adddup2(&actions, copies[index], targets[index]);
                if (targets[index] < 3) continue;
                // The gap where an input would be (glibc ignores closing what is not open).
                while (status == 0 && next < targets[index])
                    status = posix_spawn_file_actions_addclose(&actions, next++);
                next = targets[index] + 1;
            }
            sigset_t all, none;
            sigfillset(&all);
            sigemptyset(&none);
            if (status == 0 && (status = posix_spawn_file_actions_addclosefrom_np(&actions, next)) == 0
                && (status = posix_spawnattr_setsigdefault(&attributes, &all)) == 0
                && (status = posix_spawnattr_setsigmask(&attributes, &none)) == 0
                && (status = posix_spawnattr_setflags(&attributes, POSIX_SPAWN_SETSIGDEF | POSIX_SPAWN_SETSIGMASK))
                       == 0)
                status = posix_spawn(pid, path, &actions, &attributes, argv, envp);
            posix_spawnattr_destroy(&attributes);
        }
        posix_spawn_file_actions_destroy(&actions);
    }
    for (int index = 0; index < made; index++) close(copies[index]);
    return status;
}

int dr_sandbox_limit_file_size(pid_t pid, uint64_t bytes) {
    // Never above the hard limit the child has already (raising it would take a privilege).
    struct rlimit current;
    if (prlimit(pid, RLIMIT_FSIZE, NULL, &current) != 0) return errno;
    rlim_t bound = bytes < current.rlim_max ? (rlim_t)bytes : current.rlim_max;
    struct rlimit limit = {.rlim_cur = bound, .rlim_max = bound};
    return prlimit(pid, RLIMIT_FSIZE, &limit, NULL) == 0 ? 0 : errno;
}

#if defined(__x86_64__)
#define DR_AUDIT_ARCH AUDIT_ARCH_X86_64
#else
#define DR_AUDIT_ARCH AUDIT_ARCH_AARCH64
#endif

// Writes "darkroom-sandbox: system call N\n" to descriptor 2 and ends the process: only
// async-signal-safe calls that the filter allows.
static void report_denied(int signal, siginfo_t *info, void *context) {
    (void)signal, (void)context;
    char line[64] = "darkroom-sandbox: system call ";
    size_t length = strlen(line);
    char digits[12];
    int count = 0;
    unsigned number = (unsigned)info->si_syscall;
    do {
        digits[count++] = (char)('0' + number % 10);
        number /= 10;
    } while (number > 0 && count < (int)sizeof digits);
    while (count > 0) line[length++] = digits[--count];
    line[length++] = '\n';
    ssize_t ignored = write(2, line, length);
    (void)ignored;
    _exit(DR_SANDBOX_DENIED_STATUS);
}

#define ALLOW(name) BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, __NR_##name, 0, 1), BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW)
#define REFUSE(name, error)                                    \
    BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, __NR_##name, 0, 1),     \
        BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ERRNO | (error))
#define ARGUMENT(index) offsetof(struct seccomp_data, args) + (index) * sizeof(uint64_t)
#define LOAD_ARGUMENT(index) BPF_STMT(BPF_LD | BPF_W | BPF_ABS, ARGUMENT(index))
#define LOAD_NUMBER BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, nr))

// Scratch files are the only files a child makes: unnamed (O_TMPFILE), so it can neither read
// an existing file nor leave one behind. O_LARGEFILE is masked out: some C libraries add it.
#define SCRATCH_FLAGS (O_TMPFILE | O_RDWR | O_CLOEXEC)
#ifndef __O_LARGEFILE
#define __O_LARGEFILE 0
#endif

int dr_sandbox_enter(void) {
    struct rlimit no_core = {0, 0};
    if (setrlimit(RLIMIT_CORE, &no_core) != 0) return errno;
    if (prctl(PR_SET_DUMPABLE, 0, 0, 0, 0) != 0) return errno;
    if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0) return errno;
    struct sigaction action;
    memset(&action, 0, sizeof action);
    action.sa_sigaction = report_denied;
    action.sa_flags = SA_SIGINFO;
    sigemptyset(&action.sa_mask);
    if (sigaction(SIGSYS, &action, NULL) != 0) return errno;

    struct sock_filter program[] = {
        // Another architecture's numbering (x32, i386 on x86-64) would mean other calls.
        BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, arch)),
        BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, DR_AUDIT_ARCH, 1, 0),
        BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_KILL_PROCESS),
        LOAD_NUMBER,
#if defined(__x86_64__)
        BPF_JUMP(BPF_JMP | BPF_JGE | BPF_K, 0x40000000, 0, 1),  // __X32_SYSCALL_BIT
        BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_KILL_PROCESS),
#endif
        // The channel, the scratch files, and memory.
        ALLOW(read), ALLOW(write), ALLOW(readv), ALLOW(writev), ALLOW(pread64), ALLOW(pwrite64), ALLOW(lseek),
        ALLOW(close), ALLOW(fstat), ALLOW(ftruncate), ALLOW(fsync),
        ALLOW(mmap), ALLOW(munmap), ALLOW(mremap), ALLOW(mprotect), ALLOW(madvise), ALLOW(brk),
        // Threads (the decoders' and the encoder's) and their locks.
        ALLOW(futex), ALLOW(set_robust_list), ALLOW(rseq), ALLOW(sched_yield), ALLOW(sched_getaffinity),
        ALLOW(getpid), ALLOW(gettid), ALLOW(getrandom), ALLOW(clock_gettime), ALLOW(clock_getres),
        ALLOW(clock_nanosleep), ALLOW(nanosleep), ALLOW(gettimeofday), ALLOW(sysinfo),
        ALLOW(rt_sigaction), ALLOW(rt_sigprocmask), ALLOW(rt_sigreturn), ALLOW(sigaltstack), ALLOW(tgkill),
        ALLOW(exit), ALLOW(exit_group), ALLOW(membarrier), ALLOW(restart_syscall),
        // The Swift runtime's dispatch threads, started before the filter: their own epoll and
        // timer, never a new one.
        ALLOW(epoll_pwait), ALLOW(epoll_ctl), ALLOW(timerfd_settime), ALLOW(timerfd_gettime),
        // glibc asks for clone3 first and falls back to clone, whose flags can be checked.
        REFUSE(clone3, ENOSYS),
        // Asked by the C library and the runtime, harmless to refuse.
        REFUSE(ioctl, ENOTTY), REFUSE(readlinkat, EACCES),
#if defined(__NR_open)
        // The calls arm64 never had.
        ALLOW(epoll_wait), REFUSE(open, EACCES), REFUSE(stat, EACCES), REFUSE(access, EACCES),
        REFUSE(readlink, EACCES),
#endif
        REFUSE(faccessat, EACCES), REFUSE(faccessat2, EACCES), REFUSE(statx, EACCES),
        // clone: threads only (CLONE_THREAD), never a new process.
        BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, __NR_clone, 0, 4),
        LOAD_ARGUMENT(0),
        BPF_JUMP(BPF_JMP | BPF_JSET | BPF_K, CLONE_THREAD, 0, 1),
        BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
        BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_TRAP),
        // openat: an unnamed scratch file, else EACCES.
        BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, __NR_openat, 0, 5),
        LOAD_ARGUMENT(2),
        BPF_STMT(BPF_ALU | BPF_AND | BPF_K, ~(uint32_t)__O_LARGEFILE),
        BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, SCRATCH_FLAGS, 0, 1),
        BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
        BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ERRNO | EACCES),
        // sendto: on the connected channel only (no address), as send(2) with MSG_NOSIGNAL is.
        BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, __NR_sendto, 0, 6),
        LOAD_ARGUMENT(4),
        BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, 0, 0, 3),
        BPF_STMT(BPF_LD | BPF_W | BPF_ABS, ARGUMENT(4) + sizeof(uint32_t)),
        BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, 0, 0, 1),
        BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
        BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_TRAP),
        // newfstatat: only on a descriptor (AT_EMPTY_PATH, what fstat is), else EACCES.
        BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, __NR_newfstatat, 0, 4),
        LOAD_ARGUMENT(3),
        BPF_JUMP(BPF_JMP | BPF_JSET | BPF_K, AT_EMPTY_PATH, 0, 1),
        BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
        BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ERRNO | EACCES),
        // fcntl: no lease or lock on the original it was given (one could stall whoever opens
        // it next), and no signal sent to another process; the rest (flags, dup) as before.
        BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, __NR_fcntl, 0, 11),
        LOAD_ARGUMENT(1),
        BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, F_SETLEASE, 8, 0),
        BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, F_SETLK, 7, 0),
        BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, F_SETLKW, 6, 0),
        BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, F_OFD_SETLK, 5, 0),
        BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, F_OFD_SETLKW, 4, 0),
        BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, F_SETOWN, 3, 0),
        BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, F_SETOWN_EX, 2, 0),
        BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, F_SETSIG, 1, 0),
        BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
        BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ERRNO | EPERM),
        // prctl: a thread's name, nothing else.
        BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, __NR_prctl, 0, 5),
        LOAD_ARGUMENT(0),
        BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, PR_SET_NAME, 2, 0),
        BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, PR_GET_NAME, 1, 0),
        BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ERRNO | EPERM),
        BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
        // Everything else (execve, socket, connect, ptrace, kill, …): reported, then the end.
        BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_TRAP),
    };
    struct sock_fprog filter = {.len = (unsigned short)(sizeof program / sizeof program[0]), .filter = program};
    if (syscall(SYS_seccomp, SECCOMP_SET_MODE_FILTER, SECCOMP_FILTER_FLAG_TSYNC, &filter) != 0) return errno;
    return 0;
}

#else
int dr_sandbox_spawn(
    const char *path, char *const argv[], char *const envp[], int channel, int errors, int input, const int *outputs,
    int output_count, pid_t *pid) {
    (void)path, (void)argv, (void)envp, (void)channel, (void)errors, (void)input, (void)outputs, (void)output_count;
    (void)pid;
    return ENOSYS;
}

void dr_sandbox_zygote(int control, int (*child)(void)) {
    (void)control, (void)child;
    _exit(1);
}

pid_t dr_sandbox_zygote_fork(int control, int channel, int errors, int input, const int *outputs, int output_count) {
    (void)control, (void)channel, (void)errors, (void)input, (void)outputs, (void)output_count;
    errno = ENOSYS;
    return -1;
}

int dr_sandbox_limit_file_size(pid_t pid, uint64_t bytes) {
    (void)pid, (void)bytes;
    return ENOSYS;
}

int dr_sandbox_become_subreaper(void) { return ENOSYS; }

int dr_sandbox_enter(void) { return ENOSYS; }
#endif
