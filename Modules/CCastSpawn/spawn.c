#define _GNU_SOURCE
#include "CCastSpawn.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdint.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

// Only async-signal-safe calls between fork and exec: the parent has other threads.

static void close_from(int first) {
#ifdef SYS_close_range
    if (syscall(SYS_close_range, (unsigned)first, ~0U, 0) == 0) return;
#endif
    struct rlimit limit;
    long last = 4096;
    if (getrlimit(RLIMIT_NOFILE, &limit) == 0 && limit.rlim_cur != RLIM_INFINITY && limit.rlim_cur < 65536) last = (long)limit.rlim_cur;
    for (long fd = first; fd < last; fd++) close((int)fd);
}

static void child_fail(int report, int error) {
    ssize_t ignored = write(report, &error, sizeof error);
    (void)ignored;
    _exit(127);
}

pid_t castor_spawn(const char *path, char *const argv[], char *const envp[],
                   const int *sources, const int *targets, int count) {
    int report[2];
    if (pipe2(report, O_CLOEXEC) != 0) return -errno;
    pid_t parent = getpid();
    pid_t child = fork();
    if (child < 0) {
        int error = errno;
        close(report[0]);
        close(report[1]);
        return -error;
    }
    if (child == 0) {
        // Signals: nothing blocked, every disposition the default (the parent ignores SIGINT and SIGPIPE).
        sigset_t none;
        sigemptyset(&none);
        sigprocmask(SIG_SETMASK, &none, NULL);
        struct sigaction fallback = {0};
        fallback.sa_handler = SIG_DFL;
        for (int sig = 1; sig < NSIG; sig++) {
            if (sig == SIGKILL || sig == SIGSTOP) continue;
            sigaction(sig, &fallback, NULL);
        }
        if (setpgid(0, 0) != 0) child_fail(report[1], errno);
        if (prctl(PR_SET_PDEATHSIG, SIGKILL) != 0) child_fail(report[1], errno);
        // The parent may have died before prctl: then no signal will come.
        if (getppid() != parent) _exit(127);
        // Move the report pipe and the sources above every target first, so that no mapping overwrites
        // another's source.
        if (count > 64) child_fail(report[1], EINVAL);
        int highest = 2;
        for (int i = 0; i < count; i++) if (targets[i] > highest) highest = targets[i];
        int reporter = fcntl(report[1], F_DUPFD_CLOEXEC, highest + 1);
        if (reporter < 0) child_fail(report[1], errno);
        int moved[64];
        for (int i = 0; i < count; i++) {
            moved[i] = -1;
            if (sources[i] < 0) continue;
            moved[i] = fcntl(sources[i], F_DUPFD_CLOEXEC, reporter + 1);
            if (moved[i] < 0) child_fail(reporter, errno);
        }
        for (int i = 0; i < count; i++) {
            if (moved[i] < 0) {
                close(targets[i]);
            } else if (dup2(moved[i], targets[i]) < 0) {
                child_fail(reporter, errno);
            }
        }
        // Keep 0-2, the targets and the reporter (close-on-exec); close everything else.
        for (int fd = 3; fd <= highest; fd++) {
            int listed = 0;
            for (int i = 0; i < count; i++) if (targets[i] == fd) listed = 1;
            if (!listed) close(fd);
        }
        for (int fd = highest + 1; fd < reporter; fd++) close(fd);
        close_from(reporter + 1);
        report[1] = reporter;
        execve(path, argv, envp);
        child_fail(report[1], errno);
    }
    close(report[1]);
    int error = 0;
    ssize_t got;
    do {
        got = read(report[0], &error, sizeof error);
    } while (got < 0 && errno == EINTR);
    close(report[0]);
    if (got == (ssize_t)sizeof error) {
        int status;
        while (waitpid(child, &status, 0) < 0 && errno == EINTR) {}
        return -error;
    }
    return child;
}

int castor_pipe(int fds[2]) {
    return pipe2(fds, O_CLOEXEC) == 0 ? 0 : -errno;
}
