"""Child processes that never outlive the build that forked them, and the cycle collector paused for a build."""

from __future__ import annotations

import contextlib
import os
import signal


def cores() -> int:
    """The cores this process may run on (its CPU affinity where the system says, as ``taskset`` sets it), not
    the machine's: on one core the parallel steps only add their overhead (0.2 s of a build)."""
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except (AttributeError, OSError):
        return os.cpu_count() or 1


def die_with_parent(parent: int) -> None:
    """In a forked child: be killed when ``parent`` dies, however it dies (SIGKILL included).

    A build killed while its figure or PDF child is blocked on a pipe would otherwise leave that child behind for
    good (each holds ~100 MB). Linux's PR_SET_PDEATHSIG does this; where it is missing, the child only checks once.
    """
    try:
        import ctypes

        libc = ctypes.CDLL(None, use_errno=True)
        libc.prctl(1, signal.SIGKILL, 0, 0, 0)  # PR_SET_PDEATHSIG
    except (OSError, AttributeError):
        pass
    if os.getppid() != parent:  # the parent died before the signal was armed
        os._exit(1)


def end(pid: int) -> None:
    """Kill a forked child (SIGKILL) and collect it; nothing if it is gone already."""
    with contextlib.suppress(ProcessLookupError, ChildProcessError):
        os.kill(pid, signal.SIGKILL)
    with contextlib.suppress(ChildProcessError):
        os.waitpid(pid, 0)


@contextlib.contextmanager
def no_gc():
    """Python's cycle collector paused for one build: WeasyPrint, matplotlib and the evaluation make some 10^6
    objects that live as long as the build, and the collector kept walking them (0.35 s of CPU in a full build of
    the 8B report, 8% of WeasyPrint's time; 9 MB more at the peak). What the build leaves is freed when the
    collector runs again after it."""
    import gc

    was = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was:
            gc.enable()
