"""Child processes that never outlive the build that forked them, nor keep it waiting, and the cycle collector
paused for a build.

Every wait of a build on a child it forked (the figures, the PDF worker, the second layout and painting
processes) goes through a :class:`Watch`: a child that is stopped (SIGSTOP), deadlocked, or past its time is
killed, and the build does the child's work itself, as it does when a child dies: the same bytes, later.
"""

from __future__ import annotations

import contextlib
import os
import select
import signal
import time

CHILD_TIMEOUT = 300.0  # seconds a build waits for one answer of a child at most, however busy the child is
STALL = 5.0  # seconds a waited-for child (with its own children) may go without running or sending a byte
POLL = 0.1  # seconds between looks at a child while waiting for it
_SAMPLE = 0.5  # seconds between reads of /proc while waiting


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
def no_gc(resume: bool = True):
    """Python's cycle collector paused for one build: WeasyPrint, matplotlib and the evaluation make some 10^6
    objects that live as long as the build, and the collector kept walking them (0.35 s of CPU in a full build of
    the 8B report, 8% of WeasyPrint's time; 9 MB more at the peak). What the build leaves is freed when the
    collector runs again after it. ``resume=False``: it stays paused after the block (a process about to end)."""
    import gc

    was = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was and resume:
            gc.enable()


_trim = None  # glibc's malloc_trim, found once (False where the C library has none)


def give_back_freed() -> None:
    """After a warm process's build (``serve``, ``--watch``), collected: hand the C allocator's free pages back to
    the system (glibc's ``malloc_trim(0)``; nothing where the C library has none).

    A build of the 8B report frees tens of MB outside Python's small-object heap (WeasyPrint's text and strings,
    the PDF's streams, the figures and operators a child sends back); glibc keeps them in its heaps for reuse
    (20 to 38 MB free there after each build, by ``mallinfo2``), and what the next build keeps (the bounded caches'
    new entries) lands among those pages, so the process's RSS moved with them. Trimming hands back 16 to 25 MB
    after each build and the RSS stays at what is in use (``bench/run.py --only-serve-memory``); it takes 3 to
    47 ms on the shared 2-core machine, after the answer is sent.
    """
    global _trim
    if _trim is None:
        _trim = False
        try:
            import ctypes

            fn = getattr(ctypes.CDLL(None), "malloc_trim", None)
            if fn is not None:
                fn.argtypes, fn.restype = [ctypes.c_size_t], ctypes.c_int
                _trim = fn
        except (OSError, AttributeError, TypeError):
            pass
    if _trim:
        _trim(0)


# ----------------------------------------------------------------------------------------------- bounded waits

class ChildStuck(OSError):
    """A child the build waits for is stopped, deadlocked or past its time; it has been killed. An OSError, as
    a broken pipe to a dead child is, so that every caller's way of going on without a dead child applies."""


class Watch:
    """Whether a child still deserves waiting for, checked while waiting (:meth:`stuck`, :meth:`readable`).

    It has made progress when it (or a process it forked: the PDF worker waits on its own layout child) has
    used CPU time, is runnable, or has sent a byte (:meth:`heard`). No progress for STALL seconds (a stopped or
    deadlocked child) or no answer within ``timeout`` (one spinning for good) and the child is killed. Where
    /proc is missing, only the timeout applies. Only time spent waiting counts: a gap between two looks of more
    than a few polls (this process busy elsewhere meanwhile, or the whole job stopped with Ctrl-Z and resumed)
    counts for neither.
    """

    def __init__(self, pid: int, timeout: float | None = None):
        self.pid = pid
        now = time.monotonic()
        self.timeout = CHILD_TIMEOUT if timeout is None else timeout
        self.deadline = now + self.timeout
        self._since = self._looked = self._sampled = now
        self._own: tuple[int, bool] | None = None
        self._family: int | None = None
        self.why = ""

    def heard(self) -> None:
        """The child sent something: it is alive and working."""
        self._since = time.monotonic()

    def stuck(self) -> str:
        """'' while the child deserves waiting for; else why not, the child killed."""
        if self.why:
            return self.why
        now = time.monotonic()
        if now - self._looked > 1.0 + 10 * POLL:  # not waiting meanwhile (busy elsewhere, or stopped itself)
            gap = now - self._looked
            self.deadline += gap
            self._since += gap
        self._looked = now
        if now > self.deadline:
            return self._kill(f"no answer within {self.timeout:g} s")
        if now - self._sampled >= _SAMPLE:
            self._sampled = now
            if self._progressed():
                self._since = now
        if now - self._since > STALL:
            return self._kill(f"it has not run for {STALL:g} s (stopped or deadlocked)")
        return ""

    def readable(self, fd: int) -> bool:
        """Wait until ``fd`` (the child's pipe) has data or its end; False if the child is stuck (and killed)."""
        while not self.stuck():
            if select.select([fd], [], [], POLL)[0]:
                return True
        return False

    def writable(self, fd: int) -> bool:
        """Wait until ``fd`` (the pipe to the child) takes data; False if the child is stuck (and killed)."""
        while not self.stuck():
            if select.select([], [fd], [], POLL)[1]:
                return True
        return False

    def _kill(self, why: str) -> str:
        self.why = why
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.kill(self.pid, signal.SIGKILL)  # not collected here: its owner does, as for a child that died
        return why

    def _progressed(self) -> bool:
        own = _sample(self.pid)
        if own is None:
            return False  # no /proc, or gone (its pipe ends then): only the deadline
        before, self._own = self._own, own
        if own[1] or (before is not None and own[0] != before[0]):
            return True
        family, before = _descendants_ticks(self.pid), self._family
        self._family = family
        return before is not None and family != before


def _sample(pid: int) -> tuple[int, bool] | None:
    """(CPU clock ticks used, runnable now) of a process, from /proc; None where that cannot be read."""
    try:
        with open(f"/proc/{pid}/stat", "rb") as fh:
            fields = fh.read().rsplit(b")", 1)[1].split()
        return int(fields[11]) + int(fields[12]), fields[0] == b"R"
    except (OSError, IndexError, ValueError):
        return None


def _descendants_ticks(pid: int) -> int:
    """CPU ticks used by the processes ``pid`` forked and theirs (a runnable one counts a tick more)."""
    parents: dict[int, list[int]] = {}
    ticks: dict[int, int] = {}
    with contextlib.suppress(OSError):
        for name in os.listdir("/proc"):
            if not name.isdigit():
                continue
            try:
                with open(f"/proc/{name}/stat", "rb") as fh:
                    fields = fh.read().rsplit(b")", 1)[1].split()
                parents.setdefault(int(fields[1]), []).append(int(name))
                ticks[int(name)] = int(fields[11]) + int(fields[12]) + (fields[0] == b"R")
            except (OSError, IndexError, ValueError):
                continue
    total, todo = 0, list(parents.get(pid, ()))
    while todo:
        child = todo.pop()
        total += ticks.get(child, 0)
        todo.extend(parents.get(child, ()))
    return total


def read_some(fd: int, n: int, watch: Watch) -> bytes:
    """Up to ``n`` bytes from a child's pipe (b'' at its end), waiting no longer than ``watch`` allows."""
    if not watch.readable(fd):
        raise ChildStuck(f"child {watch.pid}: {watch.why}")
    data = os.read(fd, n)
    watch.heard()
    return data


def write_all(fd: int, data: bytes, watch: Watch) -> None:
    """Write all of ``data`` to the pipe to a child, waiting no longer than ``watch`` allows (a stopped child
    never empties the pipe: a plain write would block for good)."""
    view = memoryview(data)
    blocking = os.get_blocking(fd)
    os.set_blocking(fd, False)
    try:
        while view:
            if not watch.writable(fd):
                raise ChildStuck(f"child {watch.pid}: {watch.why}")
            try:
                view = view[os.write(fd, view):]
            except BlockingIOError:
                continue
            watch.heard()
    finally:
        with contextlib.suppress(OSError):
            os.set_blocking(fd, blocking)


def collect(pid: int, timeout: float | None = None) -> None:
    """Wait for a child that has done its work to exit, as long as it deserves waiting for (then it is killed);
    nothing if it is gone already."""
    watch, delay = Watch(pid, timeout), 0.001
    while True:
        try:
            done, _status = os.waitpid(pid, os.WNOHANG)
        except ChildProcessError:
            return
        if done:
            return
        if watch.stuck():
            with contextlib.suppress(ChildProcessError):
                os.waitpid(pid, 0)
            return
        time.sleep(delay)  # an exiting child takes milliseconds: look again soon, then less often
        delay = min(2 * delay, POLL / 4)
