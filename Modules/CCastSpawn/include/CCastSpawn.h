// A child process that cannot outlive its parent: fork, then in the child a process group of its own,
// PR_SET_PDEATHSIG (SIGKILL), the signal mask and dispositions reset, the given descriptors in place,
// every other descriptor closed, and exec. Imported only by CastProcess, which every module that runs a
// program (ffmpeg, ffprobe, espeak-ng, yt-dlp) goes through.
#ifndef CCASTSPAWN_H
#define CCASTSPAWN_H

#include <sys/types.h>

/// Starts `path` with `argv` and `envp` (NULL-terminated arrays).
///
/// - `sources[i]` becomes descriptor `targets[i]` in the child (for `count` pairs); a source of -1
///   leaves the target closed. Descriptors not listed above the highest target are closed.
/// - The child leads a new process group (its pid), so signalling `-pid` reaches it and anything it
///   starts, and a terminal's Ctrl-C reaches only the parent.
/// - `PR_SET_PDEATHSIG` is SIGKILL: when the thread that called this function ends (with its process,
///   if it is a thread that never ends), the kernel kills the child. Call it from a thread that lives
///   as long as the process.
///
/// Returns the child's pid, or `-errno` when fork fails or the child could not exec (`-ENOENT` for a
/// missing program); a failed exec is reported, not left as a child that exits 127.
pid_t castor_spawn(const char *path, char *const argv[], char *const envp[],
                   const int *sources, const int *targets, int count);

/// A pipe whose two ends are close-on-exec (`pipe2(fds, O_CLOEXEC)`): 0, or -errno.
int castor_pipe(int fds[2]);

#endif
