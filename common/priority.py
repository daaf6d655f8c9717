"""Background work below the web server's requests on the CPU, also with Linux's autogroups on.

A niceness ranks a process only against the processes of its own autogroup: with
`kernel.sched_autogroup_enabled=1`, Linux's default, the CPU is first shared out between
sessions, so a busy Chromium (Playwright starts each browser in a session of its own) weighed
as much as the whole web server, whatever its niceness or SCHED_IDLE (bench/README.md, "Under
analysis load on the kernel's defaults"). An autogroup has a niceness of its own, which any
process may raise for its own user's sessions: the analysis worker gives its session's
autogroup its niceness, and each browser's session gets 19 (REPORTS_RENDER_PRIORITY=idle).
Without autogroups (deploy/sysctl-webtools.conf turns them off) these writes change nothing
and the per-process niceness and SCHED_IDLE do the work.
"""

import contextlib
import os


def lead_own_session() -> bool:
    """Whether this process leads a session (an autogroup) of its own, starting one if it can.

    A process-group leader cannot start a session; scripts/serve.py starts the worker in one,
    and a container's first process already leads its own. Started from a shell, the process
    shares the shell's session, whose autogroup is left alone.
    """
    with contextlib.suppress(OSError):
        os.setsid()
    return os.getsid(0) == os.getpid()


def lower_autogroup(pid: int, nice: int) -> bool:
    """Give the autogroup of `pid`'s session the niceness `nice` (0 to 19); False where Linux has none."""
    try:
        with open(f"/proc/{pid}/autogroup", "w") as autogroup:
            autogroup.write(str(nice))
    except OSError:
        return False
    return True


def autogroup_nice(pid: int) -> int | None:
    """The niceness of `pid`'s autogroup ("/autogroup-42 nice 19"), None without autogroups."""
    try:
        with open(f"/proc/{pid}/autogroup") as autogroup:
            return int(autogroup.read().split()[-1])
    except (OSError, ValueError, IndexError):
        return None
