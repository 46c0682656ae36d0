"""A seccomp filter the sandboxed worker puts on itself before any learner code runs.

`forbid()` installs a Linux seccomp-BPF filter (through `prctl`, with no-new-privileges
set first, so it holds across `exec` and cannot be lifted): from then on the process gets
`EPERM` for every call that would start a process (`fork`, `clone`, `execve`), signal or
trace another process, open a socket, or change the file system (open for writing,
create, rename, unlink, chmod, truncate, mount). Reading files still works, and writing to
the descriptors it already has (its answer pipe, /dev/null). This is what bounds a fork
loop and a detached child even where the process runs as root (`RLIMIT_NPROC` does not
bind root) and where bubblewrap is missing.

Returns why not, in one line, where no filter is installed (an architecture other than
x86-64, or a kernel without seccomp); `sandbox.py` records it in the grade.

Left out: other architectures' syscall tables, and a full allow-list (the worker's
imports need a long tail of calls; this is a deny-list of the dangerous ones).
"""

from __future__ import annotations

import ctypes
import errno
import platform
import struct

AUDIT_ARCH_X86_64 = 0xC000003E
DENIED_X86_64 = {  # syscall numbers of x86-64
    "fork": 57, "vfork": 58, "clone": 56, "clone3": 435, "execve": 59, "execveat": 322,
    "kill": 62, "tkill": 200, "tgkill": 234, "ptrace": 101, "process_vm_readv": 310,
    "process_vm_writev": 311, "pidfd_open": 434, "pidfd_send_signal": 424, "setsid": 112,
    "setpgid": 109, "socket": 41, "socketpair": 53, "connect": 42, "bind": 49,
    "creat": 85, "openat2": 437, "rename": 82, "renameat": 264, "renameat2": 316,
    "unlink": 87, "unlinkat": 263, "mkdir": 83, "mkdirat": 258, "rmdir": 84, "link": 86,
    "linkat": 265, "symlink": 88, "symlinkat": 266, "chmod": 90, "fchmod": 91,
    "fchmodat": 268, "chown": 92, "fchown": 93, "lchown": 94, "fchownat": 260,
    "truncate": 76, "ftruncate": 77, "mknod": 133, "mknodat": 259, "mount": 165,
    "umount2": 166, "memfd_create": 319,
}
OPEN_FLAGS_ARG = {2: 1, 257: 2}  # open(path, flags), openat(dirfd, path, flags)
WRITE_FLAGS = 0o1 | 0o2 | 0o100 | 0o1000 | 0o2000  # O_WRONLY O_RDWR O_CREAT O_TRUNC O_APPEND

LD_W_ABS, JEQ_K, JSET_K, RET_K = 0x20, 0x15, 0x45, 0x06
NR_OFFSET, ARCH_OFFSET, ARGS_OFFSET = 0, 4, 16
RET_ALLOW, RET_KILL_PROCESS = 0x7FFF0000, 0x80000000
RET_EPERM = 0x00050000 | errno.EPERM
PR_SET_NO_NEW_PRIVS, PR_SET_SECCOMP, SECCOMP_MODE_FILTER = 38, 22, 2


def program() -> list[tuple[int, int, int, int]]:
    """The filter as `(code, jump if true, jump if false, k)` instructions."""
    denied = sorted(DENIED_X86_64.values())
    checks = sorted(OPEN_FLAGS_ARG)
    # layout: arch check, nr load, denied jumps, open checks, allow, check blocks, deny, kill
    head = 4 + len(denied) + len(checks)  # index of the first check block
    deny = head + 3 * len(checks)
    kill = deny + 1
    code = [(LD_W_ABS, 0, 0, ARCH_OFFSET), (JEQ_K, 0, kill - 2, AUDIT_ARCH_X86_64),
            (LD_W_ABS, 0, 0, NR_OFFSET)]
    for nr in denied:
        code.append((JEQ_K, deny - len(code) - 1, 0, nr))
    for n, nr in enumerate(checks):
        code.append((JEQ_K, head + 3 * n - len(code) - 1, 0, nr))
    code.append((RET_K, 0, 0, RET_ALLOW))
    for nr in checks:
        code += [(LD_W_ABS, 0, 0, ARGS_OFFSET + 8 * OPEN_FLAGS_ARG[nr]),
                 (JSET_K, deny - len(code) - 2, 0, WRITE_FLAGS), (RET_K, 0, 0, RET_ALLOW)]
    return [*code, (RET_K, 0, 0, RET_EPERM), (RET_K, 0, 0, RET_KILL_PROCESS)]


def forbid() -> str | None:
    """Install the filter on this process; None when it is on, else why not."""
    if platform.system() != "Linux" or platform.machine() != "x86_64":
        return f"no seccomp filter for {platform.system()} {platform.machine()}"
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
