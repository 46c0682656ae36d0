"""A seccomp allow-list the sandboxed worker puts on itself before any learner code runs.

`forbid()` installs a Linux seccomp-BPF filter (through `prctl`, with no-new-privileges
set first, so it holds across `exec` and cannot be lifted). From then on the process may
make only the calls in `ALLOWED_X86_64`: reading files and its own descriptors, writing
to the descriptors it already has (its answer pipe, /dev/null), memory, clocks, futexes,
signal handlers of its own, and exit. `open`/`openat` are allowed only without a flag
that writes or creates. Every other call gets `EPERM`: starting a process, signalling or
tracing another, queued signals, sockets, io_uring, SysV IPC, handle opens
(`open_by_handle_at`), changing the file system, raising limits and sleeping. This is
what bounds a fork loop and a detached child even where the process runs as root and
bubblewrap is missing.

Returns why not, in one line, where no filter is installed (an architecture other than
x86-64, or a kernel without seccomp); `sandbox.py` records it in the grade.

Left out: other architectures' syscall tables, and checking arguments beyond the open
flags (`mmap`'s, `ioctl`'s, `fcntl`'s).
"""

from __future__ import annotations

import ctypes
import errno
import os
import struct
import sys

AUDIT_ARCH_X86_64 = 0xC000003E
ALLOWED_X86_64 = {  # syscall numbers of x86-64: what Python needs once it has started
    "read": 0, "write": 1, "close": 3, "stat": 4, "fstat": 5, "lstat": 6, "lseek": 8,
    "mmap": 9, "mprotect": 10, "munmap": 11, "brk": 12, "rt_sigaction": 13,
    "rt_sigprocmask": 14, "rt_sigreturn": 15, "ioctl": 16, "pread64": 17, "readv": 19,
    "writev": 20, "access": 21, "sched_yield": 24, "mremap": 25, "madvise": 28, "dup": 32,
    "dup2": 33, "getpid": 39, "exit": 60, "uname": 63, "fcntl": 72, "getcwd": 79,
    "readlink": 89, "gettimeofday": 96, "getrlimit": 97, "getrusage": 98, "sysinfo": 99,
    "times": 100, "getuid": 102, "getgid": 104, "geteuid": 107, "getegid": 108,
    "getppid": 110, "getpgrp": 111, "sigaltstack": 131, "arch_prctl": 158, "gettid": 186,
    "time": 201, "futex": 202, "sched_getaffinity": 204, "getdents64": 217,
    "set_tid_address": 218, "clock_gettime": 228, "clock_getres": 229, "exit_group": 231,
    "newfstatat": 262, "readlinkat": 267, "faccessat": 269, "set_robust_list": 273,
    "get_robust_list": 274, "dup3": 292, "getrandom": 318, "statx": 332, "rseq": 334,
    "faccessat2": 439,
}
OPEN_FLAGS_ARG = {2: 1, 257: 2}  # open(path, flags), openat(dirfd, path, flags)
WRITE_FLAGS = 0o1 | 0o2 | 0o100 | 0o1000 | 0o2000  # O_WRONLY O_RDWR O_CREAT O_TRUNC O_APPEND
# never allowed, named so a test can check each is refused
DENIED_EXAMPLES = {"io_uring_setup": 425, "shmget": 29, "msgget": 68, "semget": 64,
                   "open_by_handle_at": 304, "rt_sigqueueinfo": 129, "kill": 62,
                   "clone": 56, "fork": 57, "socket": 41, "clock_nanosleep": 230,
                   "setrlimit": 160, "prlimit64": 302, "memfd_create": 319, "ptrace": 101}

LD_W_ABS, JEQ_K, JSET_K, RET_K = 0x20, 0x15, 0x45, 0x06
NR_OFFSET, ARCH_OFFSET, ARGS_OFFSET = 0, 4, 16
RET_ALLOW, RET_KILL_PROCESS = 0x7FFF0000, 0x80000000
RET_EPERM = 0x00050000 | errno.EPERM
PR_SET_NO_NEW_PRIVS, PR_SET_SECCOMP, SECCOMP_MODE_FILTER = 38, 22, 2


def program() -> list[tuple[int, int, int, int]]:
    """The filter as `(code, jump if true, jump if false, k)` instructions."""
    allowed = sorted(ALLOWED_X86_64.values())
    checks = sorted(OPEN_FLAGS_ARG)
    # layout: arch check, nr load, open jumps, allowed jumps, deny, allow, check blocks, kill
    deny = 3 + len(checks) + len(allowed)
    allow = deny + 1
    head = allow + 1  # index of the first open-flags check block (4 instructions each)
    kill = head + 4 * len(checks)
    code = [(LD_W_ABS, 0, 0, ARCH_OFFSET), (JEQ_K, 0, kill - 2, AUDIT_ARCH_X86_64),
            (LD_W_ABS, 0, 0, NR_OFFSET)]
    for n, nr in enumerate(checks):  # open and openat: to their flag checks
        code.append((JEQ_K, head + 4 * n - len(code) - 1, 0, nr))
    for nr in allowed:
        code.append((JEQ_K, allow - len(code) - 1, 0, nr))
    code += [(RET_K, 0, 0, RET_EPERM), (RET_K, 0, 0, RET_ALLOW)]  # everything else: EPERM
    for nr in checks:  # allowed only without a flag that writes or creates
        code += [(LD_W_ABS, 0, 0, ARGS_OFFSET + 8 * OPEN_FLAGS_ARG[nr]),
                 (JSET_K, 1, 0, WRITE_FLAGS), (RET_K, 0, 0, RET_ALLOW), (RET_K, 0, 0, RET_EPERM)]
    return [*code, (RET_K, 0, 0, RET_KILL_PROCESS)]


def forbid() -> str | None:
    """Install the filter on this process; None when it is on, else why not."""
    # sys and os, not `platform`, whose imports cost every worker's start
    machine = os.uname().machine if sys.platform == "linux" else "?"
    if machine != "x86_64":
        return f"no seccomp filter for {sys.platform} {machine}"
    code = program()
    raw = b"".join(struct.pack("HBBI", *insn) for insn in code)
    filters = ctypes.create_string_buffer(raw, len(raw))

    class Fprog(ctypes.Structure):
        _fields_ = [("len", ctypes.c_ushort), ("filter", ctypes.c_void_p)]

    prog = Fprog(len(code), ctypes.addressof(filters))
    libc = ctypes.CDLL(None, use_errno=True)
    if libc.prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0 or libc.prctl(
            PR_SET_SECCOMP, SECCOMP_MODE_FILTER, ctypes.byref(prog), 0, 0) != 0:
        return f"seccomp filter refused: {errno.errorcode.get(ctypes.get_errno(), '?')}"
    return None
