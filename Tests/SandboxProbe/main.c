// Confines itself exactly as a decoding child does (dr_sandbox_enter), then tries one thing
// named on its command line and reports on stderr what happened; the sandbox's tests read the
// report, the exit status and the SIGSYS handler's own report. Built for the tests only.
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/ptrace.h>
#include <sys/socket.h>
#include <unistd.h>

#include "sandbox.h"

extern char **environ;

static void *thread_body(void *argument) { return argument; }

int main(int argc, char **argv) {
    if (argc < 2) return 2;
    const char *action = argv[1];
    const char *argument = argc > 2 ? argv[2] : "";
    // What a child holds before it confines itself: its environment and its descriptors.
    if (strcmp(action, "inheritance") == 0) {
        int variables = 0, descriptors = 0;
        for (char **variable = environ; *variable; variable++) variables++;
        for (int fd = 0; fd < 1024; fd++) descriptors += fcntl(fd, F_GETFD) != -1;
        fprintf(stderr, "variables %d descriptors %d\n", variables, descriptors);
        return 0;
    }
    pid_t parent = getppid();
    int status = dr_sandbox_enter();
    if (status != 0) {
        fprintf(stderr, "cannot confine: %s\n", strerror(status));
        return 3;
    }
    int result = -1;
    if (strcmp(action, "open") == 0) {
        result = open(argument, O_RDONLY);
    } else if (strcmp(action, "create") == 0) {
        result = open(argument, O_WRONLY | O_CREAT | O_EXCL, 0600);
    } else if (strcmp(action, "scratch") == 0) {
        result = open(argument, O_TMPFILE | O_RDWR | O_CLOEXEC, 0600);
        if (result >= 0 && write(result, "x", 1) != 1) result = -1;
    } else if (strcmp(action, "thread") == 0) {
        pthread_t thread;
        result = pthread_create(&thread, NULL, thread_body, NULL) == 0 && pthread_join(thread, NULL) == 0 ? 0 : -1;
    } else if (strcmp(action, "socket") == 0) {
        result = socket(AF_INET, SOCK_STREAM, 0);
    } else if (strcmp(action, "exec") == 0) {
        char *const arguments[] = {(char *)argument, NULL};
        result = execve(argument, arguments, environ);
    } else if (strcmp(action, "fork") == 0) {
        result = fork();
    } else if (strcmp(action, "kill") == 0) {
        result = kill(parent, SIGTERM);
    } else if (strcmp(action, "ptrace") == 0) {
        result = (int)ptrace(PTRACE_ATTACH, parent, NULL, NULL);
    } else if (strcmp(action, "input") == 0) {
        // The input it was given: read from its start, then written to, which must fail.
        char bytes[64];
        ssize_t got = pread(DR_SANDBOX_INPUT_DESCRIPTOR, bytes, sizeof bytes, 0);
        fprintf(stderr, "read %zd, ", got);
        result = (int)write(DR_SANDBOX_INPUT_DESCRIPTOR, "x", 1);
    } else if (strcmp(action, "lease") == 0) {
        // A lease or a lock on it: either would hold up whoever opens the file next.
        struct flock lock = {.l_type = F_RDLCK, .l_whence = SEEK_SET};
        int leased = fcntl(DR_SANDBOX_INPUT_DESCRIPTOR, F_SETLEASE, F_RDLCK);
        fprintf(stderr, "lease %d errno %d, ", leased, leased < 0 ? errno : 0);
        result = fcntl(DR_SANDBOX_INPUT_DESCRIPTOR, F_SETLK, &lock);
    } else if (strcmp(action, "outputs") == 0) {
        // The files it was given to write: each gets its own number, as far as they go.
        int given = 0;
        while (fcntl(DR_SANDBOX_FIRST_OUTPUT_DESCRIPTOR + given, F_GETFD) != -1) {
            char line[32];
            int length = snprintf(line, sizeof line, "output %d\n", given);
            if (write(DR_SANDBOX_FIRST_OUTPUT_DESCRIPTOR + given, line, (size_t)length) != length) break;
            given++;
        }
        fprintf(stderr, "wrote %d, ", given);
        result = 0;
    } else if (strcmp(action, "grow") == 0) {
        // Writes 4 MiB, 64 KiB at a time, to its first output or a scratch file in `argument`,
        // once its channel says go: as a decoding child waits for its job, which its parent sends
        // only after bounding the files it writes.
        char go;
        if (read(0, &go, 1) != 1) return 4;
        int file =
            *argument ? open(argument, O_TMPFILE | O_RDWR | O_CLOEXEC, 0600) : DR_SANDBOX_FIRST_OUTPUT_DESCRIPTOR;
        static char chunk[64 << 10];
        result = file;
        for (int index = 0; result >= 0 && index < 64; index++)
            if (write(file, chunk, sizeof chunk) != (ssize_t)sizeof chunk) result = -1;
    } else if (strcmp(action, "flags") == 0) {
        result = fcntl(DR_SANDBOX_INPUT_DESCRIPTOR, F_GETFL);
    } else {
        return 2;
    }
    if (result < 0) {
        fprintf(stderr, "refused errno %d\n", errno);
    } else {
        fprintf(stderr, "allowed\n");
    }
    return 0;
}
